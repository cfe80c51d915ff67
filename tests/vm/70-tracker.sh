#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Head tracking on live members, over emulated Lightning disks (dm-hddsim,
# time_scale 1/5 so the guest's timer jitter under TCG is small against a
# rotation): the geom message loads a geometry (bad lines, indexes and
# reference sectors are refused), the tracker reads its reference sector
# until it is calibrated, satf then predicts every dispatch and the tracker
# status reports the prediction error; data stays intact with tracking on,
# across a suspend and a policy switch, on a mirror and a raid5; removing an
# array while it tracks leaves nothing behind. Loose sanity bounds only: the
# accuracy itself is measured by tools/raidlab sched-bench tracker, not asserted here.
# vm-opts: --disks 4 --timeout 900 --alone
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
. "$RL_TESTS/hddsim.sh"
need_raidlab
need_hddsim

SLOW=5
check "stack lightning disks, time_scale 1/$SLOW" hdd_stack lightning time_scale 1/$SLOW
set -- $HDD_DEVS
cap=$(sectors "$1")
period=$((13900000 * SLOW))
# the preset (Documentation/dm-hddsim.rst) in wall-clock time
GEOM="period_ns=$period,cylinders=949,heads=14,spt=48,track_skew=5,cyl_skew=9"
GEOM="$GEOM,head_switch_ns=$((1160000 * SLOW)),seek_a_ns=$((2000000 * SLOW))"
GEOM="$GEOM,seek_b_ns=$((10000 * SLOW)),seek_c_ns=$((460000 * SLOW)),ref=0"

trk() { dmsetup message "$1" 0 tracker "$2"; }
untracked() { trk "$1" "$2" | grep -q 'geom=none'; }
trk_kv() { trk "$1" "$2" | tr ' ' '\n' | sed -n "s/^$3=//p"; }
wait_cal() { # NAME MEMBER SECS
	_i=0
	while [ "$(trk_kv "$1" "$2" cal)" != 1 ]; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($3 * 2)) ] && return 1
		sleep 0.5
	done
}

RL_OPTS="sched satf queue_depth 1 assume_clean" RL_LEN=$cap check "mirror over 2 emulated disks" \
	rl_create arr mirror 64 "$1" "$2"
check "untracked member reports geom=none" untracked arr 0
expect_fail dm_message arr geom 0 period_ns=1
expect_fail dm_message arr geom 0 "$(echo "$GEOM" | sed 's/,ref=0//')"
expect_fail dm_message arr geom 2 "$GEOM"
expect_fail dm_message arr geom x "$GEOM"
expect_fail dm_message arr geom 0 "$(echo "$GEOM" | sed "s/ref=0/ref=$((cap + 100))/")"
expect_fail dm_message arr tracker 7
check "a refused geometry tracks nothing" untracked arr 0

check "geom 0" dm_message arr geom 0 "$GEOM"
check "geom 1" dm_message arr geom 1 "$GEOM"
check "member 0 calibrates from its reference reads" wait_cal arr 0 60
check "member 1 calibrates" wait_cal arr 1 60
log "tracker 0: $(trk arr 0)"
p0=$(trk_kv arr 0 period_ns | cut -d. -f1)
check "period estimate $p0 ns within 1 % of $period" \
	test $((p0 - period)) -le $((period / 100)) -a $((period - p0)) -le $((period / 100))

FIO_RW=randread FIO_RUNTIME=20 FIO_IODEPTH=8 FIO_BS=4k check "random reads under satf" \
	fio_write /dev/mapper/arr 64M --verify=0 --do_verify=0
for m in 0 1; do
	line=$(trk arr $m)
	log "tracker $m after random reads: $line"
	echo "$line" >>"$RL_OUT/tracker.txt"
	n=$(trk_kv arr $m n)
	check "member $m: predictions observed ($n)" test "$n" -gt 20
	miss=$(trk_kv arr $m miss_pct | cut -d. -f1)
	check "member $m: misses $(trk_kv arr $m miss_pct) % (sanity bound 20 %)" test "$miss" -lt 20
	std=$(trk_kv arr $m err_std_ns)
	check "member $m: error std $std ns under a tenth of a rotation" test "$std" -lt $((period / 10))
done

FIO_RW=write FIO_BS=64k FIO_RUNTIME=30 check "mirror: write and verify with tracking on" \
	fio_write_then_verify /dev/mapper/arr 2M
check "suspend while tracking" dm_suspend arr
check "resume" dm_resume arr
check "switch to rsatf" dm_message arr sched rsatf
drop_caches
FIO_RW=write FIO_BS=64k check "mirror: verify after suspend and switch" \
	fio_verify /dev/mapper/arr 2M
check "still calibrated" test "$(trk_kv arr 0 cal)" = 1
check "remove while tracking" dm_remove arr

set -- $HDD_DEVS
RL_OPTS="sched satf queue_depth 1 assume_clean" RL_LEN=$(( (cap / 64) * 64 * 2 )) check "raid5 over 3 emulated disks" \
	rl_create arr raid5 64 "$1" "$2" "$3"
for m in 0 1 2; do
	check "raid5: geom $m" dm_message arr geom $m "$GEOM"
done
FIO_RW=write FIO_BS=128k FIO_RUNTIME=40 check "raid5: write and verify with tracking on" \
	fio_write_then_verify /dev/mapper/arr 2M
check "raid5: tracker 2 observed the I/O" test "$(trk_kv arr 2 n)" -gt 0
check "remove raid5 while tracking" dm_remove arr
hdd_unstack
finish
