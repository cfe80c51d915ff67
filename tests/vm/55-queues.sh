#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Member queues: every scheme keeps its data intact under every queue
# policy at queue depth 1 (every member I/O waits in the queue and the
# policy orders it); the options round-trip through the
# table; the policy changes on a live array by message; the resync runs in
# the background class and still progresses under a steady foreground load
# (the floor), which status shows in the fg/bg issued counts. The default
# tier runs a covering set of the scheme x policy matrix (every policy, every
# scheme, the replica-aware policies on the mirror); the long tier (--full)
# runs all fifteen pairs and writes for about twice as long.
# vm-opts: --disks 4
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

ALL=
for scheme in raid0 mirror raid5; do
	for pol in fifo look rlook satf rsatf; do ALL="$ALL $scheme:$pol"; done
done
PAIRS=$(tier "raid0:fifo raid0:satf mirror:look mirror:rlook mirror:rsatf raid5:fifo raid5:rsatf" \
	"$ALL")
depth=1
for pair in $PAIRS; do
	scheme=${pair%:*}
	pol=${pair#*:}
	what="$scheme sched $pol queue_depth $depth"
	RL_OPTS="sched $pol queue_depth $depth" \
		RL_LEN=$((192 * 512)) check "$what: create" \
		rl_create arr $scheme 64 $(disks 4)
	[ -b /dev/mapper/arr ] || continue
	[ "$scheme" = raid0 ] || rl_wait_sync arr 60
	FIO_RUNTIME=$(tier 2 4) FIO_IODEPTH=16 FIO_BS=4k check "$what: fio verify" \
		fio_write_then_verify /dev/mapper/arr 32M
	set -- $(rl_queues arr)
	check "$what: status shows the policy and depth" \
		test "$1 $2" = "$pol $depth"
	check "$what: foreground I/O went through the queues" test "$3" -gt 0
	dm_remove arr
done

# table round trip, and a live policy switch
RL_OPTS="sched look queue_depth 2" check "mirror: create with sched look" \
	rl_create arr mirror 64 $(disks 2)
check "table spells out sched and queue_depth" \
	sh -c "dmsetup table arr | grep -q ' sched look queue_depth 2 '"
echo "0 $(dmsetup table arr | cut -d' ' -f2-)" >/tmp/t
check "table reloads as printed" sh -c "dmsetup load arr /tmp/t && dmsetup resume arr"
check "message sched satf" dm_message arr sched satf
check "status shows satf" test "$(rl_queues arr | cut -d' ' -f1)" = satf
expect_fail dm_message arr sched elevator
expect_fail dm_message arr sched
check "policy unchanged by a refused message" test "$(rl_queues arr | cut -d' ' -f1)" = satf
FIO_RUNTIME=$(tier 2 3) check "mirror: verify after the switch" fio_write_then_verify /dev/mapper/arr 16M
dm_remove arr

# the resync is background work: it progresses under a foreground load
for d in $(disks 4); do
	dd if=/dev/urandom of="$d" bs=1M count=48 conv=fsync 2>/dev/null || die "dirty $d"
done
RL_OPTS="queue_depth 1" RL_LEN=$((48 * 2048 * 3)) check "raid5 depth 1: create over dirty disks" \
	rl_create arr raid5 64 $(disks 4)
s0=$(rl_sync arr | sed 's/.* \([0-9]*\)\/.*/\1/')
FIO_RUNTIME=$(tier 8 15) FIO_IODEPTH=32 check "raid5: foreground load during the resync" \
	fio_write /dev/mapper/arr 96M
s1=$(rl_sync arr | sed 's/.* \([0-9]*\)\/.*/\1/')
log "resync under load: $s0 -> $s1 sectors; queues: $(rl_queues arr)"
set -- $(rl_queues arr)
check "resync I/O issued as background" test "$4" -gt 0
check "foreground I/O issued" test "$3" -gt 0
check "the resync progressed under load" test "$s1" -gt "$s0"
check "resync finishes" rl_wait_sync arr 300
drop_caches
check "raid5: foreground writes verify after the resync" fio_verify /dev/mapper/arr 96M
check "fail member 2" dm_message arr fail 2
drop_caches
check "raid5: and through a rebuilt member" fio_verify /dev/mapper/arr 96M
dm_remove arr

# the mirror's background jobs go through the queues as well
for d in $(disks 2); do
	dd if=/dev/urandom of="$d" bs=1M count=8 conv=fsync 2>/dev/null || die "dirty $d"
done
RL_LEN=$((8 * 2048)) check "mirror: create over dirty disks" \
	rl_create arr mirror 64 $(disks 2)
check "mirror: resync finishes" rl_wait_sync arr 120
set -- $(rl_queues arr)
log "mirror after the resync: queues $*"
check "mirror: resync copies issued as background" test "$4" -ge 16
bg=$4
check "mirror: check finds the copies equal" test "$(rl_scrub arr check)" = 0
set -- $(rl_queues arr)
check "mirror: check reads issued as background" test "$4" -ge $((bg + 16))
check "mirror: the members hold the same bytes" \
	cmp -n $((8 << 20)) /dev/rl/m0 /dev/rl/m1
dm_remove arr
finish
