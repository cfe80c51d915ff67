#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Re-add (1.21, issue 18): a failed member's own disk comes back and is
# rebuilt only where it missed writes, from the write-intent regions held
# while it was out.
#
# For raid5 (the stripe engine) and raid10 (the copy-set engine), over
# four disks under dm-linear and a DAX metadata device with 512 KiB
# regions:
#   - fio writes pattern A over the array past its first 8 MiB, and the
#     bitmap's clear passes then forget its regions;
#   - member 1's disk turns into an error target and the next writes fail
#     it; pattern B goes to the first 8 MiB, degraded; then 12 s pass,
#     more than two clear passes of the bitmap, which would forget B's
#     regions if nothing held them;
#   - the disk comes back (dm-linear again) and `raidlab re-add` takes it:
#     the kernel says how much it copied, which must be more than nothing
#     and less than a quarter of the member; A and B verify, and check
#     finds 0 mismatches (a member left stale where B wrote fails both);
#   - raid5 again, with the member failed by message and re-added while a
#     verifying random-write load runs over the whole array: the skipped
#     rows race the load's writes. The load verifies; check finds 0.
# Refusals, each with its reason in last_error: re_add of a member in
# sync; of a member that failed before the table was loaded (nothing
# recorded what it missed), which `re-add --full` then rebuilds whole,
# and again once that disk fails during its whole rebuild;
# on altmirror, whose rebuilds are its own; and on an array with no
# metadata device.
# The long tier (RL_FULL=1) repeats the re-add under load three times for
# each scheme.
# vm-opts: --disks 5
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

RL() { python3 "$RL_TOOLS/raidlab" "$@"; }
PM=$(pmem_dev)
MB=32				# MiB of each member the arrays use
MSEC=$((MB * 2048))		# member sectors
LOADS=$(tier 1 3)

# refused [-n NAME] ARGS...: the message to arr (or NAME) must fail
refused() {
	_a=arr
	[ "$1" = -n ] && { _a=$2; shift 2; }
	! dm_message "$_a" "$@" 2>/dev/null
}

# swap rw1 back to its disk
disk_back() {
	dmsetup suspend rw1 &&
		echo "0 $(sectors "$(disk 1)") linear $(disk 1) 0" | dmsetup load rw1 &&
		dmsetup resume rw1
}

# health character of member 1
h1() { rl_health arr | cut -c2; }

# copied sectors of the last re-add of member $1 since dmesg mark $2
copied() {
	dmesg_since "$2" | sed -n "s/.*member $1 re-added: copied \([0-9]*\) of [0-9]* sectors.*/\1/p" | tail -n 1
}

# setup SCHEME: a new array over rw0..rw3 with the metadata device
setup() {
	run rl_lab_array "$1" "$MB" "$PM"
	rm -rf /tmp/fa /tmp/fb
}

teardown() { run rl_lab_array_done; }

# round SCHEME: pattern A, member 1's disk lost, pattern B, the disk back
round() {
	_s=$1
	setup "$_s"
	_asz=$(((LEN / 2048 - 8)))M
	FIO_STATE_DIR=/tmp/fa FIO_RUNTIME=60 FIO_BS=64k check "$_s: pattern A written" \
		fio_write /dev/mapper/arr "$_asz" --offset=8M
	sleep 12		# A's regions cleared: they are not held
	run rl_swap_error rw1
	dd if=/dev/zero of=/dev/mapper/arr bs=4k count=64 seek=512 oflag=direct 2>/dev/null
	check "$_s: member 1 failed with its disk" until_ok 30 sh -c "dmsetup status arr | awk '{ print \$6 }' | cut -c2 | grep -q D"
	FIO_STATE_DIR=/tmp/fb check "$_s: pattern B written, degraded" \
		fio_write /dev/mapper/arr 8M
	sleep 12		# two clear passes and more
	run disk_back
	_m=$(dmesg_mark)
	check "$_s: raidlab re-add by device" RL re-add arr /dev/mapper/rw1
	check "$_s: member 1 is rebuilt" rl_wait_sync arr 120
	check "$_s: member 1 in sync" test "$(h1)" = A
	_c=$(copied 1 "$_m")
	log "$_s: re-add copied ${_c:-?} of $MSEC member sectors"
	check "$_s: the re-add copied some, less than a quarter of the member" \
		test "${_c:-0}" -gt 0 -a "${_c:-$MSEC}" -lt $((MSEC / 4))
	FIO_STATE_DIR=/tmp/fa FIO_BS=64k check "$_s: pattern A verifies" fio_verify /dev/mapper/arr "$_asz" --offset=8M
	FIO_STATE_DIR=/tmp/fb check "$_s: pattern B verifies" fio_verify /dev/mapper/arr 8M
	check "$_s: check finds 0 mismatches" test "$(rl_scrub arr check 300)" = 0
}

# under_load SCHEME T: member 1 failed by message and re-added under a load
under_load() {
	_s=$1
	check "$_s load $2: raidlab fail by index" RL fail arr 1
	dd if=/dev/urandom of=/dev/mapper/arr bs=64k count=32 seek=$((2 + $2 * 40)) oflag=direct 2>/dev/null
	rl_load_start arr 0 $((LEN * 512)) 10 8
	sleep 2
	_m=$(dmesg_mark)
	check "$_s load $2: re_add during the load" dm_message arr re_add 1
	check "$_s load $2: member 1 is rebuilt" rl_wait_sync arr 120
	rl_load_done "$_s load $2"
	log "$_s load $2: re-add copied $(copied 1 "$_m") of $MSEC member sectors"
	check "$_s load $2: member 1 in sync" test "$(h1)" = A
	check "$_s load $2: check finds 0 mismatches" test "$(rl_scrub arr check 300)" = 0
}

round raid5
for t in $(seq 1 "$LOADS"); do under_load raid5 "$t"; done

# refusals
check "re_add of a member in sync is refused" refused re_add 0
check "its reason in last_error" sh -c "dmsetup message arr 0 last_error | grep -q 'member 0 is not failed'"
run dm_message arr fail 2
check "member 2 failed" until_ok 10 sh -c "dmsetup status arr | awk '{ print \$6 }' | cut -c3 | grep -q D"
T=$(dmsetup table arr)
run dm_remove arr
run dm_create arr "$T"
check "member 2 is failed at load" test "$(rl_health arr | cut -c3)" = D
check "a re-add from the bitmap of a member failed at load is refused" refused re_add 2
check "and says so" sh -c "dmsetup message arr 0 last_error | grep -q 'nothing recorded what it missed'"
# a disk that fails while it is rebuilt whole is good only below where the
# rebuild got to: it too is re-added only whole
run dm_message arr sync_rate 1024
check "raidlab re-add --full" RL re-add --full arr 2
sleep 2
run dm_message arr fail 2
check "member 2 fails during its whole rebuild" until_ok 10 sh -c "dmsetup status arr | awk '{ print \$6 }' | cut -c3 | grep -q D"
sleep 1			# the lifecycle's pass
check "a re-add from the bitmap of a disk that failed while rebuilt whole is refused" \
	refused re_add 2
check "and says so too" sh -c "dmsetup message arr 0 last_error | grep -q 'nothing recorded what it missed'"
run dm_message arr sync_rate 0
_m=$(dmesg_mark)
check "raidlab re-add --full again" RL re-add --full arr 2
check "member 2 is rebuilt whole" rl_wait_sync arr 180
check "the kernel says whole" dmesg_has "$_m" "member 2 .* re-added: rebuilt whole"
check "member 2 in sync" test "$(rl_health arr | cut -c3)" = A
check "check finds 0 mismatches after the whole rebuild" test "$(rl_scrub arr check 300)" = 0
teardown

round raid10
if [ "$RL_FULL" = 1 ]; then
	for t in $(seq 1 "$LOADS"); do under_load raid10 "$t"; done
fi
teardown

# altmirror rebuilds its own way: no re-add
wipe "$PM" 4
for i in 0 1; do wipe "$(disk $i)" 2; done
run RL create am --scheme altmirror --metadata "$PM" "$(disk 0)" "$(disk 1)"
run dm_message am fail 1
check "re_add on altmirror is refused" refused -n am re_add 1
check "and says why" sh -c "dmsetup message am 0 last_error | grep -q 'has no re-add'"
run dm_remove am

# no metadata device: nothing recorded what a member missed
W=$(rl_wrap_members rw 4)
run dm_create arr "0 $((MSEC * 3)) raidlab raid5 3 chunk_size 64 assume_clean 4 $W"
run dm_message arr fail 1
check "re_add without a metadata device is refused" refused re_add 1
check "and says why" sh -c "dmsetup message arr 0 last_error | grep -q 'no metadata device'"
teardown
finish
