#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Flush, FUA and discard: a flush on the array reaches every live member
# (per-member flush counts in /sys/block/*/stat); a FUA write keeps FUA on
# its member writes (blktrace); discard is offered and passed down by raid0
# and mirror without touching neighbouring data, and refused by raid4/raid5.
# vm-opts: --disks 4
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

# flushes completed by member I (field 16 of /sys/block/X/stat)
flushes() {
	_b=$(basename "$(readlink -f "$(disk "$1")")")
	awk '{ print $16 + 0 }' "/sys/block/$_b/stat"
}

dm_queue() { cat "/sys/block/$(basename "$(readlink -f /dev/mapper/"$1")")/queue/$2"; }

for spec in "raid0 4" "mirror 3" "raid5 4" "raid4 3"; do
	set -- $spec
	scheme=$1
	n=$2
	# shellcheck disable=SC2046
	check "$scheme: create" rl_create arr "$scheme" 128 $(disks "$n")
	check "$scheme: write cache advertised" test "$(dm_queue arr write_cache)" = "write back"

	before=
	i=0
	while [ $i -lt "$n" ]; do before="$before $(flushes $i)"; i=$((i + 1)); done
	run dd if=/dev/zero of=/dev/mapper/arr bs=4k count=1 oflag=direct conv=fsync 2>/dev/null
	i=0
	for b in $before; do
		check "$scheme: flush reached member $i" test "$(flushes $i)" -gt "$b"
		i=$((i + 1))
	done

	case $scheme in
	raid0 | mirror)
		check "$scheme: discard offered" test "$(dm_queue arr discard_max_bytes)" -gt 0
		FIO_RW=write FIO_BS=64k check "$scheme: write region A" fio_write /dev/mapper/arr 8M
		FIO_STATE_DIR=/tmp/fio.b FIO_RW=write FIO_BS=64k check "$scheme: write region B" \
			fio_write /dev/mapper/arr 8M --offset=12M
		check "$scheme: blkdiscard 4M between them" blkdiscard -o $((8 << 20)) -l $((4 << 20)) /dev/mapper/arr
		check "$scheme: blkdiscard unaligned 100k" blkdiscard -o $(((8 << 20) + 4096)) -l 102400 /dev/mapper/arr
		drop_caches
		FIO_RW=write FIO_BS=64k check "$scheme: region A intact" fio_verify /dev/mapper/arr 8M
		FIO_STATE_DIR=/tmp/fio.b FIO_RW=write FIO_BS=64k check "$scheme: region B intact" \
			fio_verify /dev/mapper/arr 8M --offset=12M
		check "$scheme: health unchanged by discards" test "$(rl_state arr)" = optimal
		;;
	*)
		check "$scheme: discard not offered" test "$(dm_queue arr discard_max_bytes)" -eq 0
		expect_fail blkdiscard -o 0 -l 1048576 /dev/mapper/arr
		;;
	esac
	check "$scheme: remove" dm_remove arr
done

# FUA on the member writes of a raid5 small write and a raid0 write
if command -v blktrace >/dev/null && [ -d /sys/kernel/debug/block ]; then
	m0=$(readlink -f "$(disk 0)")
	for scheme in raid5 raid0; do
		# shellcheck disable=SC2046
		rl_create arr $scheme 128 $(disks 4) || die "create"
		if [ "$(dm_queue arr fua)" = 1 ]; then
			blktrace -d "$m0" -a write -o - >/tmp/trace.bin 2>/dev/null &
			tp=$!
			sleep 1
			# 4k O_DSYNC direct writes on chunk 0 (member 0) -> REQ_FUA
			dd if=/dev/urandom of=/dev/mapper/arr bs=4k count=4 oflag=direct,dsync 2>/dev/null
			sleep 1
			kill -INT $tp
			wait $tp
			blkparse -i /tmp/trace.bin >/tmp/trace.txt 2>/dev/null
			check "$scheme: member 0 sees FUA writes" grep -qE ' (Q|D|C) +W[A-Z]*F' /tmp/trace.txt
		else
			log "$scheme: dm queue does not advertise FUA; FUA check skipped"
		fi
		dm_remove arr
	done
fi
finish
