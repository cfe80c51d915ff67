#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# plog with faults 2 (paper 000 §9): P+Q check information and the parity
# log written to two copies. Written data verifies after reintegration with
# a check of 0 mismatches (P and Q); a failure fixes up every region with
# a log at once, with no access; with one and then two members failed
# reads are rebuilt from P and Q and writes go on; a third failure fails
# the array. Two failures under a verifying load are rebuilt onto two
# spares; the array reassembles from its DAX metadata; a crash image (logs
# in the DAX twins and on both copies on disk) is replayed, also with the
# first copy of one log member unreadable. Table lines that must be
# refused are refused with the reason in the kernel log. The long tier
# (--full) writes for about twice as long.
# vm-opts: --disks 8 --disk-size 256M --timeout 1800
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

PM=$(pmem_dev) || skip "no pmem"
LEN=65536		# 32 MiB: well within the capacity of 6 x 256 MiB at f = 2
M6=$(disks 6)
S1=$(disk 6)
S2=$(disk 7)

fresh() {
	for d in $(disks 8); do wipe "$d" 4 || die "wipe $d"; done
	wipe "$PM" 16 || die "wipe pmem"
}

fresh
dm_refused raidlab "0 $LEN raidlab plog 2 faults 3 6 $M6" "Invalid faults"
dm_refused raidlab "0 $LEN raidlab raid5 2 faults 2 3 $(disks 3)" \
	"faults needs the plog scheme"
dm_refused raidlab "0 $LEN raidlab plog 4 faults 2 log_disks 1 5 $(disks 5)" \
	"plog: faults 2 needs"
dm_refused raidlab "0 $LEN raidlab plog 2 faults 2 6 - - - $(disks 3)" \
	"More members missing than the scheme survives"

# ---------------------------------------------------------------- pmem ---
T="0 $LEN raidlab plog 8 chunk_size 64 log_disks 1 faults 2 metadata $PM 6 $M6"
check "plog faults 2 over 6 disks with pmem metadata" dm_create arr "$T"
log "table: $(dm_table arr)"
log "status: $(dm_status arr)"
check "status shows faults 2" test "$(rl_plog arr 20)" = 2
check "the table keeps faults 2" sh -c "dmsetup table arr | grep -q 'faults 2'"
check "the table counts its options (faults 2 adds two)" rl_table_counted arr
check "initial resync finishes" rl_wait_sync arr 600
check "check after resync: 0" test "$(rl_scrub arr check 300)" = 0

FIO_STATE_DIR=/tmp/fio.r1 FIO_RUNTIME=$(tier 8 15) check "randwrite 4k verifies" fio_write_then_verify /dev/mapper/arr 16M
log "status: $(dm_status arr)"
check "regions hold a log" test "$(rl_plog arr 16)" -gt 0
check "reintegrate" dm_message arr reintegrate
check "no region keeps a log" test "$(rl_plog arr 16)" = 0
check "reintegrations counted" test "$(rl_plog arr 15)" -gt 0
check "check after reintegration: 0" test "$(rl_scrub arr check 300)" = 0

# full rows: L = 1, f = 2, g = 4: a row is 2 data chunks of 32 KiB
FIO_STATE_DIR=/tmp/fio.rows FIO_RW=write FIO_BS=64k check "full-row writes verify" \
	fio_write_then_verify /dev/mapper/arr 8M --offset=16M
check "reintegrate after full rows" dm_message arr reintegrate
check "check after full rows: 0" test "$(rl_scrub arr check 300)" = 0

# a check that can fail: P of row 2 of region 0 (its first check slot on
# data member t = 2: region 0 logs on members 0 and 1, so t = 2 is member
# 2; its check slots start at chunk S - 2 * S / g, g = 4) overwritten
# behind the array's back is found, and repaired from the data
S=$(rl_plog arr 5)
check "reintegrate before the damage" dm_message arr reintegrate
dmsetup suspend arr
dd if=/dev/urandom of="$(disk 2)" bs=512 seek=$((2048 + S / 2 * 64)) count=64 \
	oflag=direct conv=notrunc,fsync 2>/dev/null || die "damage"
dmsetup resume arr
check "check finds the damaged P" test "$(rl_scrub arr check 300)" -gt 0
check "repair" dm_message arr repair
rl_wait_sync arr 300
check "check after repair: 0" test "$(rl_scrub arr check 300)" = 0
FIO_STATE_DIR=/tmp/fio.r1 check "the data still verifies" fio_verify /dev/mapper/arr 16M

# ------------------------------------------------------------ degraded ---
# The failure fixes up every region with a log at once, with no access
# (the scheme's member_failed hook), at faults 2 too.
rl_plog_fail_fixups arr 1 24M
check "health ADAAAA" test "$(rl_health arr)" = ADAAAA
FIO_STATE_DIR=/tmp/fio.r1 check "one failed: the random writes verify" fio_verify /dev/mapper/arr 16M
FIO_STATE_DIR=/tmp/fio.rows FIO_RW=write FIO_BS=64k check "one failed: the full rows verify" \
	fio_verify /dev/mapper/arr 8M --offset=16M
check "fail member 4" dm_message arr fail 4
check "health ADAADA" test "$(rl_health arr)" = ADAADA
check "two failed: the array is degraded, not failed" test "$(rl_state arr)" != failed
FIO_STATE_DIR=/tmp/fio.r1 check "two failed: the random writes verify" fio_verify /dev/mapper/arr 16M
FIO_STATE_DIR=/tmp/fio.rows FIO_RW=write FIO_BS=64k check "two failed: the full rows verify" \
	fio_verify /dev/mapper/arr 8M --offset=16M
FIO_RUNTIME=$(tier 6 10) check "two failed: randwrite 4k verifies" \
	fio_write_then_verify /dev/mapper/arr 8M --offset=24M
FIO_STATE_DIR=/tmp/fio.r1 check "two failed: the first data still verifies" fio_verify /dev/mapper/arr 16M
log "status: $(dm_status arr)"
check "fail a third member" dm_message arr fail 2
check "array failed" test "$(rl_state arr)" = failed
expect_fail dd if=/dev/zero of=/dev/mapper/arr bs=4k count=1 seek=100 oflag=direct
dm_remove arr

# ------------------------------------------ two failures under load ---
fresh
TS="0 $LEN raidlab plog 12 chunk_size 64 log_disks 1 faults 2 metadata $PM spare $S1 spare $S2 6 $M6"
check "plog faults 2 with two spares" dm_create arr "$TS"
check "resync finishes" rl_wait_sync arr 600
FIO_RUNTIME=$(tier 6 10) check "randwrite 4k verifies" fio_write_then_verify /dev/mapper/arr 16M
rl_load_start arr 16M 8M "$(tier 20 40)" 8
sleep 4
check "fail member 0 under load" dm_message arr fail 0
sleep 2
check "fail member 3 under load" dm_message arr fail 3
rl_load_done "two failures"
check "both rebuilds finish" rl_wait_sync arr 900
check "health AAAAAA after the rebuilds" test "$(rl_health arr)" = AAAAAA
log "status: $(dm_status arr)"
check "data verifies after the rebuilds" fio_verify /dev/mapper/arr 16M
check "check after the rebuilds: 0" test "$(rl_scrub arr check 300)" = 0
TABLE=$(dm_table arr)
log "table: $TABLE"
dm_remove arr

# ---------------------------------------------------------- reassembly ---
check "reassembled from the metadata" dm_create arr "$TABLE"
check "data verifies after reassembly" fio_verify /dev/mapper/arr 16M
check "check after reassembly: 0" test "$(rl_scrub arr check 300)" = 0
dm_remove arr

# ------------------------------------------------------------- replay ---
# A crash image: the members' used start and the pmem copied while the
# array is live, records in its DAX twins and segments on both log copies.
fresh
check "plog faults 2 for the replay" dm_create arr "$T"
check "resync finishes" rl_wait_sync arr 600
FIO_RUNTIME=$(tier 6 10) check "randwrite 4k" fio_write /dev/mapper/arr 16M
check "it verifies" fio_verify /dev/mapper/arr 16M
n=$(rl_plog arr 16)
log "regions with a log at the crash: $n; status: $(dm_status arr)"
check "some region holds a log at the crash" test "$n" -gt 0
# taken at once: the write-intent bits of the last reintegrations are
# still set (they clear lazily); the logs are replayed all the same
log "dirty intent regions at the crash: $(rl_md arr | cut -d' ' -f3)"
rl_image_save_idle 48 $M6 || die "copy the crash image"
dm_remove arr
rl_image_restore $M6 || die "restore the crash image"
check "loaded over the crash image" dm_create arr "$T"
log "status after replay: $(dm_status arr)"
check "no log left after the replay" test "$(rl_plog arr 16)" = 0
check "data verifies after the replay" fio_verify /dev/mapper/arr 16M
check "check after the replay: 0" test "$(rl_scrub arr check 300)" = 0
dm_remove arr

# the same image with member U unreadable from 1 MiB on (its superblock
# stays readable): the logs it held a copy of come from their other copy.
# Member 0 holds a copy of region 0's log, the first the replay reads;
# member 4 holds none of regions 0 and 1, so the replay finds it
# unreadable at a parity or data read, and must start that region again
# with it known (1.12.2): no row may be lost, no acknowledged write
replay_unreadable() {
	rl_image_restore $M6 || die "restore the crash image"
	dmsetup create rlbad <<EOF || die "rlbad"
0 2048 linear $(disk "$1") 0
2048 $(($(sectors "$(disk "$1")") - 2048)) error
EOF
	TB=$(echo " $T " | sed "s| $(disk "$1") | /dev/mapper/rlbad |")
	_mk=$(dmesg_mark)
	check "loaded over the crash image, member $1 unreadable" dm_create arr "$TB"
	log "status: $(dm_status arr)"
	expect_fail dmesg_has "$_mk" "could not be recomputed"
	check "data verifies, member $1 unreadable" fio_verify /dev/mapper/arr 16M
	dm_remove arr
	dmsetup remove rlbad
}
# member 0 by default; member 4 (the 1.12.2 restart) in the long tier
replay_unreadable 0
[ "$(tier 0 1)" = 1 ] && replay_unreadable 4
rl_image_restore $M6 || die "restore the crash image"
check "the image again, all members readable" dm_create arr "$T"
check "data verifies" fio_verify /dev/mapper/arr 16M
check "check: 0" test "$(rl_scrub arr check 300)" = 0
dm_remove arr
rm -f /tmp/img? /tmp/imgpm

finish
