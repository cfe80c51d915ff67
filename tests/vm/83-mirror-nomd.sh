#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A mirror without a metadata device is resynced whole at load (issue 13,
# window 6), as dm-raid1 does with a core log: nothing records which
# regions a crash left with different copies. Two members hold different
# data (a crash in the middle of writes looks the same); the mirror is
# loaded without assume_clean: it must resync, then check finds 0
# mismatches and every read returns the first member's data, whichever
# member serves it. Control: with assume_clean there is no resync and
# check finds the differences.
# vm-opts: --disks 4
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

MB=8
L=$((MB * 2048))
M0=$(disk 0)
M1=$(disk 1)

differ() {
	dd if=/dev/urandom of=/tmp/d0 bs=1M count=$MB 2>/dev/null
	dd if=/dev/urandom of=/tmp/d1 bs=1M count=$MB 2>/dev/null
	run dd if=/tmp/d0 of="$M0" bs=1M oflag=direct conv=fsync
	run dd if=/tmp/d1 of="$M1" bs=1M oflag=direct conv=fsync
}

differ
run dm_create arr "0 $L raidlab mirror 0 2 $M0 $M1"
log "after load: $(rl_sync arr)"
check "the mirror resyncs (or has resynced) at load" rl_wait_sync arr 120
check "check finds 0 mismatches after the resync" test "$(rl_scrub arr check 120)" = 0
# read every block from both members: fail one, read, then the other
dd if=/dev/mapper/arr of=/tmp/r bs=1M iflag=direct 2>/dev/null
check "reads return the first member's data" cmp -s /tmp/r /tmp/d0
run dm_remove arr

differ
run dm_create arr "0 $L raidlab mirror 1 assume_clean 2 $M0 $M1"
check "control: assume_clean does not resync" test "$(rl_st arr 5)" = idle
n=$(rl_scrub arr check 120)
log "control: check counts $n mismatched sectors"
check "control: check finds the differences with assume_clean" test "${n:-0}" -gt 0
run dm_remove arr
finish
