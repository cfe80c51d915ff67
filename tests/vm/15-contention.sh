#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Contention in the parity engine: deep queues of small and straddling
# writes on a handful of rows, with the smallest stripe cache (4 contexts),
# while the resync runs over the same rows. Per-row serialization, waiting
# for a free context and the context kept for the resync are all exercised;
# every write must verify, and every row's parity must come out consistent
# (a member failed afterwards is rebuilt bit for bit).
# vm-opts: --disks 4
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

for d in $(disks 4); do
	dd if=/dev/urandom of="$d" bs=1M count=8 conv=fsync 2>/dev/null
done

for scheme in raid5 raid4; do
	# 64 rows of 3 x 16 KiB: 3 MiB, so the queue keeps hitting the same rows
	RL_OPTS="stripe_cache 4" RL_LEN=$((64 * 32 * 3)) \
		check "$scheme: create with 4 stripe contexts" rl_create arr $scheme 32 $(disks 4)
	check "$scheme: table shows stripe_cache 4" sh -c "dmsetup table arr | grep -q 'stripe_cache 4'"
	FIO_RUNTIME=10 FIO_IODEPTH=32 FIO_BS=4k check "$scheme: 4k writes, queue depth 32, 3 MiB" \
		fio_write_then_verify /dev/mapper/arr 3M --serialize_overlap=1
	# (a randrw job with variable sizes does not verify even on dm-linear:
	# fio's verify-only replay cannot follow it; random writes it can)
	FIO_STATE_DIR=/tmp/fio.var FIO_RUNTIME=10 FIO_IODEPTH=32 \
		check "$scheme: 2k-40k writes at 512-byte offsets, queue depth 32" \
		fio_write_then_verify /dev/mapper/arr 3M --bsrange=2k-40k --blockalign=512 \
		--serialize_overlap=1
	check "$scheme: resync finishes under the load's tail" rl_wait_sync arr 60
	rl_snapshot arr /tmp/before
	check "$scheme: fail member 2" dm_message arr fail 2
	rl_snapshot arr /tmp/after
	check "$scheme: every row rebuilds bit for bit" cmp -s /tmp/before /tmp/after
	dm_remove arr
done
finish
