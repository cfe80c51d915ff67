#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A new sync_rate ends a throttle sleep under way (issue 13, window 8). At
# 1 KiB/s the resync worker sleeps about 17 minutes after each 1 MiB range;
# raising the rate (0: no limit) must wake it, so the resync of a new raid5
# then finishes within seconds. Before 1.6.0 the sleep ran its course.
# vm-opts: --disks 4
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

L=$((3 * 128 * 512))	# 512 rows of 3 x 64 KiB: 32 MiB of each member
run dm_create arr "0 $L raidlab raid5 2 chunk_size 128 4 $(disks 4)"
run dm_message arr sync_rate 1
sleep 3
log "throttled: $(rl_sync arr)"
check "the resync is throttled, not finished" test "$(rl_st arr 5)" = resync
run dm_message arr sync_rate 0
check "a new sync_rate wakes it: the resync finishes" rl_wait_sync arr 180
check "check finds 0 mismatches" test "$(rl_scrub arr check 180)" = 0
run dm_remove arr
finish
