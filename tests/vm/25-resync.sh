#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Parity arrays over disks that hold other data: the resync makes every
# row's parity consistent (shown in status, with progress), so a member
# failed afterwards is rebuilt bit for bit: the array reads the same before
# and after the failure. The negative control, assume_clean over the same
# dirty disks, reads differently once a member is lost - the check can fail.
# Writes to rows the resync has not reached stay safe too.
# vm-opts: --disks 5
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

ROWS=400
dirty() {
	for d in $(disks 5); do
		dd if=/dev/urandom of="$d" bs=1M count=64 conv=fsync 2>/dev/null || die "dirty $d"
	done
}

for scheme in raid5 raid4; do
	dirty
	# 400 rows of 4 x 32 KiB: 50 MiB of data
	RL_LEN=$((ROWS * 64 * 4)) check "$scheme: create over dirty disks" \
		rl_create arr $scheme 64 $(disks 5)
	log "sync: $(rl_sync arr)"
	check "$scheme: resync reported" test "$(rl_st arr 5)" = resync -o "$(rl_st arr 5)" = idle
	check "$scheme: resync finishes" rl_wait_sync arr 120
	check "$scheme: synced = total" test "$(rl_sync arr)" = "idle $((ROWS * 256))/$((ROWS * 256))"
	check "$scheme: check after resync finds 0 mismatches" \
		test "$(rl_scrub arr check)" = 0
	# spoil 1 MiB of member 2 (data and parity chunks) under the array
	dd if=/dev/urandom of="$(disk 2)" bs=64K count=16 seek=4 conv=fsync 2>/dev/null
	n=$(rl_scrub arr check)
	log "$scheme: check after spoiling member 2: $n mismatched sectors"
	check "$scheme: check counts the spoilt sectors" test "${n:-0}" -gt 1000
	n2=$(rl_scrub arr repair)
	check "$scheme: repair counts them too" test "$n2" = "$n"
	check "$scheme: check after repair: 0" test "$(rl_scrub arr check)" = 0
	rl_snapshot arr /tmp/before
	check "$scheme: fail member 1" dm_message arr fail 1
	rl_snapshot arr /tmp/after
	check "$scheme: reads the same with member 1 rebuilt" cmp -s /tmp/before /tmp/after
	dm_remove arr
done

# the control: no resync, the rebuilt member reads differently
dirty
RL_OPTS=assume_clean RL_LEN=$((ROWS * 64 * 4)) check "raid5 assume_clean: create" \
	rl_create arr raid5 64 $(disks 5)
check "raid5 assume_clean: nothing to resync" test "$(rl_st arr 5)" = idle
n=$(rl_scrub arr check)
log "control: check over dirty disks taken as clean: $n mismatched sectors"
check "raid5 assume_clean: check finds the inconsistent parity" test "${n:-0}" -gt 0
rl_snapshot arr /tmp/before
dm_message arr fail 1
rl_snapshot arr /tmp/after
log "control: raid5 assume_clean over dirty disks must read differently"
expect_fail cmp -s /tmp/before /tmp/after
dm_remove arr

# writes far ahead of the resync cursor (written whole-row), on dirty rows
msz=$(sectors "$(disk 0)")
for d in $(disks 5); do
	dd if=/dev/urandom of="$d" bs=1M count=64 seek=$((msz / 2048 - 64)) conv=fsync 2>/dev/null
done
check "raid5: create full size" rl_create arr raid5 64 $(disks 5)
tail=$(($(sectors /dev/mapper/arr) * 512 - (48 << 20)))
FIO_RUNTIME=$(tier 5 10) check "raid5: fio randwrite at the end, far from the cursor" \
	fio_write /dev/mapper/arr 48M --offset=$tail
log "sync after writes: $(rl_sync arr)"
check "raid5: the resync has not reached them" test "$(rl_st arr 5)" = resync
check "raid5: fail member 3" dm_message arr fail 3
check "raid5: resync frozen while degraded" test "$(rl_st arr 5)" = frozen
drop_caches
check "raid5: written data verifies through the rebuilt member" \
	fio_verify /dev/mapper/arr 48M --offset=$tail
dm_remove arr
finish
