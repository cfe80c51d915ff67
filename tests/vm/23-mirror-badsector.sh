#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A mirror's bad sector is rewritten from another copy, as md's raid1
# fix_read_error does, not a reason to drop a disk (issue 13, window 4).
#
# 1. Heal: a 3-way mirror whose member 0 is a dm-hddsim disk with media
#    errors (message addbadblock: reads of the sectors fail until they are
#    written). Reads of them through the array all return the data; when
#    one goes to member 0 it is read from another member and written back
#    over member 0, which keeps its place; the rewrite heals the sectors
#    (hddsim lists none), member 0 gets one data write, and its disk holds
#    the data.
# 2. A rewrite that does not heal fails the member: a member's table sends
#    reads of its sectors 16..23 to an error target (dm-delay with a
#    separate write device, as 21-badsector does), so the read back after
#    the rewrite fails again. The member fails ("rewrite failed"), and the
#    data still reads back.
# 3. The last copy is not failed for a read error: a 2-way mirror with its
#    member 1 missing reads a bad sector of member 0: the read fails, the
#    array keeps member 0, and a write over the sectors heals them.
# 4. Background jobs: a resync whose source cannot read a window copies it
#    from the next member, over the source too; a check that cannot read
#    a member's copy rewrites it. No member fails.
# 5. A rebuild whose only source cannot read some sectors records them bad
#    on the spare (bad-block list) and finishes; reads of them fail, a
#    write heals them.
# 6. A rebuild whose only source has bad-block entries: the member that
#    holds the entries fails in turn, and the second spare's rebuild from
#    the first one narrows the window down: it copies what the source
#    holds, records only the entries' sectors on the new member, and
#    finishes (it used to stop at the window).
# vm-opts: --disks 5
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
. "$RL_TESTS/hddsim.sh"
need_raidlab
need_hddsim
modprobe dm-delay || die "no dm-delay module"
command -v python3 >/dev/null || die "no python3 in the guest (scripts/lab/mkinitramfs.sh)"

M0=$(disk 0)
M1=$(disk 1)
M2=$(disk 2)
L=8192

for i in 0 1 2; do
	dd if=/dev/zero of="$(disk $i)" bs=1M count=4 conv=fsync 2>/dev/null
done
dd if=/dev/urandom of=/tmp/A bs=64k count=1 2>/dev/null
dd if=/tmp/A of=/tmp/A.bad bs=512 skip=16 count=8 2>/dev/null

# bad N: N's bad sectors and failed reads, as hddsim counts them
bad() { dmsetup message "$1" 0 countbadblocks; }
# read16 FILE: the array's sectors 16..23, O_DIRECT
read16() { dio_read /dev/mapper/arr 16 8 "$1"; }

run hdd_create hs0 "$M0" lightning time_scale 1000
run dm_create w1 "0 $(sectors "$M1") linear $M1 0"
run dm_create arr "0 $L raidlab mirror 3 chunk_size 128 assume_clean 3 /dev/mapper/hs0 /dev/mapper/w1 $M2"
run dd if=/tmp/A of=/dev/mapper/arr bs=64k count=1 oflag=direct conv=fsync

# --- 1. heal ---------------------------------------------------------------
run dm_message hs0 addbadblock 16 8
check "hddsim lists 8 bad sectors" test "$(bad hs0 | cut -d' ' -f1)" = 8
dmesg -c >/dev/null
w0=$(rl_data_writes arr 0)
i=0 wrong=0
while [ $i -lt 40 ] && [ "$(bad hs0 | cut -d' ' -f2)" = 0 ]; do
	read16 /tmp/r || wrong=$((wrong + 1))
	cmp -s /tmp/r /tmp/A.bad || wrong=$((wrong + 1))
	i=$((i + 1))
done
w1=$(rl_data_writes arr 0)
log "reads until one went to member 0: $i; hddsim: $(bad hs0); health $(rl_health arr)"
check "a read went to member 0's bad sectors" test "$(bad hs0 | cut -d' ' -f2)" -ge 1
check "every read returned the data" test $wrong = 0
check "member 0 stays in the array ($(rl_health arr))" test "$(rl_health arr)" = AAA
check "the kernel log says the sectors were rewritten" sh -c \
	"dmesg | grep -q 'member 0 (.*): read error at 16: rewritten from redundancy (1 of 20)'"
check "the rewrite healed them (hddsim: $(bad hs0))" test "$(bad hs0 | cut -d' ' -f1)" = 0
check "member 0 got one data write ($w0 -> $w1)" test $((w1 - w0)) = 1
dio_read /dev/mapper/hs0 16 8 /tmp/d0
check "member 0's disk holds the data" cmp -s /tmp/d0 /tmp/A.bad
check "no member failed in the log" sh -c "! dmesg | grep -q 'failed:'"

# --- 2. a rewrite that does not heal -----------------------------------------
# The same disks, w1 as member 0 (reads of idle mirrors go to the lowest
# member first).
run dm_remove arr
run dm_create errd "0 8 error"
z=$(sectors "$M1")
run dm_reload w1 "0 16 linear $M1 0
16 8 delay /dev/mapper/errd 0 0 $M1 16 0
24 $((z - 24)) linear $M1 24"
run dmsetup suspend --noflush w1
run dmsetup resume w1
run dm_create arr "0 $L raidlab mirror 3 chunk_size 128 assume_clean 3 /dev/mapper/w1 /dev/mapper/hs0 $M2"
dmesg -c >/dev/null
i=0 wrong=0
while [ $i -lt 60 ] && [ "$(rl_health arr)" = AAA ]; do
	read16 /tmp/r || wrong=$((wrong + 1))
	cmp -s /tmp/r /tmp/A.bad || wrong=$((wrong + 1))
	i=$((i + 1))
done
log "reads until w1 failed: $i; health $(rl_health arr)"
check "w1 failed ($(rl_health arr))" test "$(rl_health arr)" = DAA
check "the kernel log says the rewrite failed" sh -c \
	"dmesg | grep -q 'member 0 (.*) failed: read error, rewrite failed'"
check "every read returned the data" test $wrong = 0
read16 /tmp/r
check "the data reads back after" cmp -s /tmp/r /tmp/A.bad
run dm_remove arr
run dm_remove w1
run dm_remove errd

# --- 3. the last copy ---------------------------------------------------------
run dm_create arr "0 $L raidlab mirror 3 chunk_size 128 assume_clean 2 /dev/mapper/hs0 -"
run dm_message hs0 addbadblock 16 8
dmesg -c >/dev/null
expect_fail read16 /tmp/r
check "member 0 stays in the array ($(rl_health arr))" test "$(rl_health arr)" = AD
check "the kernel log says there is no other copy" sh -c \
	"dmesg | grep -q 'member 0 (.*): read error at 16: no other copy, the read fails'"
dd if=/tmp/A of=/dev/mapper/arr bs=64k count=1 oflag=direct conv=fsync 2>/dev/null
check "a write heals the sectors (hddsim: $(bad hs0))" test "$(bad hs0 | cut -d' ' -f1)" = 0
read16 /tmp/r
check "they read back the data written" cmp -s /tmp/r /tmp/A.bad
run dm_remove arr

# --- 4. background jobs -------------------------------------------------------
# A resync (a mirror without a metadata device is resynced at load) whose
# source, member 0, cannot read the window: the window is copied from
# member 1 over the others, member 0 included. Then a check that meets a
# bad sector rewrites it too.
for d in /dev/mapper/hs0 "$M1" "$M2"; do
	dd if=/tmp/A of="$d" bs=64k count=1 conv=fsync 2>/dev/null
done
run dm_message hs0 addbadblock 16 8
dmesg -c >/dev/null
run dm_create arr "0 $L raidlab mirror 2 chunk_size 128 3 /dev/mapper/hs0 $M1 $M2"
check "the resync finishes" rl_wait_sync arr 120
check "member 0 stays in the array ($(rl_health arr))" test "$(rl_health arr)" = AAA
check "the kernel log says member 0's window was rewritten" sh -c \
	"dmesg | grep -q 'member 0 (.*): read error at 0: rewritten from redundancy (1 of 20)'"
check "the resync healed member 0 (hddsim: $(bad hs0))" test "$(bad hs0 | cut -d' ' -f1)" = 0
dio_read /dev/mapper/hs0 0 128 /tmp/r
check "member 0's disk holds the data" cmp -s /tmp/r /tmp/A
run dm_message hs0 addbadblock 16 8
check "a check over a bad sector: 0 mismatches" test "$(rl_scrub arr check 120)" = 0
check "member 0 stays in the array ($(rl_health arr))" test "$(rl_health arr)" = AAA
check "the check healed member 0 (hddsim: $(bad hs0))" test "$(bad hs0 | cut -d' ' -f1)" = 0
check "no member failed in the log" sh -c "! dmesg | grep -q 'failed:'"
run dm_remove arr
run dm_remove hs0

# --- 5. a rebuild that no member can read -------------------------------------
# A 2-way mirror with metadata (data at member sector 2048) and a spare:
# member 1 fails, the spare rebuilds its role from member 0, which cannot
# read sectors 16..23. As md's raid1 does, the rebuild narrows the window
# down, records only those 8 sectors bad on the spare, and finishes;
# member 0 stays. Reads of them fail (EIO) and nothing else; a write over
# them heals member 0 and clears the entry, durably; check finds 0.
MD=$(disk 3)
for d in "$M0" "$M1" "$M2" "$MD"; do wipe "$d" 4 || die "wipe $d"; done
run hdd_create hs0 "$M0" lightning time_scale 1000
OPTS="chunk_size 128 assume_clean metadata $MD spare $M2"
run dm_create arr "0 $L raidlab mirror $(echo "$OPTS" | wc -w) $OPTS 2 /dev/mapper/hs0 $M1"
run dd if=/tmp/A of=/dev/mapper/arr bs=64k count=1 oflag=direct conv=fsync
run dm_message hs0 addbadblock $((2048 + 16)) 8
dmesg -c >/dev/null
run dm_message arr fail 1
i=0
while { [ "$(rl_health arr)" != AA ] || [ "$(rl_st arr 5)" != idle ]; } && [ $i -lt 600 ]; do
	sleep 0.2
	i=$((i + 1))
done
check "rebuild: the spare's rebuild finishes, member 0 stays ($(rl_health arr) $(rl_sync arr))" \
	test "$(rl_health arr) $(rl_st arr 5)" = "AA idle"
check "rebuild: the kernel log names the 8 sectors" sh -c \
	"dmesg | grep -q 'member 1: member sectors 16+8 lost in rebuild: recorded bad'"
check "rebuild: member 0 is not failed" sh -c "! dmesg | grep -q 'member 0 (.*) failed'"
check "rebuild: the status counts one entry on member 1 ($(rl_bbl arr))" \
	test "$(rl_bbl arr)" = 0:1
check "rebuild: bad_blocks 1 lists sectors 16..23" \
	test "$(dmsetup message arr 0 bad_blocks 1)" = "16 8"
expect_fail read16 /tmp/r
check "rebuild: member 0 stays after the failed read ($(rl_health arr))" test "$(rl_health arr)" = AA
dd if=/tmp/A of=/tmp/A.head bs=512 count=16 2>/dev/null
dd if=/tmp/A of=/tmp/A.tail bs=512 skip=24 2>/dev/null
# rest_and_write TAG SPARE NEW: the sectors around the lost ones read back,
# SPARE (read alone, out of the array) holds the rest, and a write of NEW
# random sectors goes over the lost ones
rest_and_write() {
	dio_read /dev/mapper/arr 0 16 /tmp/r
	check "$1: sectors 0..15 read back" cmp -s /tmp/r /tmp/A.head
	dio_read /dev/mapper/arr 24 104 /tmp/r
	check "$1: sectors 24..127 read back" cmp -s /tmp/r /tmp/A.tail
	dio_read "$2" $((2048 + 24)) 104 /tmp/r
	check "$1: the spare holds sectors 24..127" cmp -s /tmp/r /tmp/A.tail
	dd if=/dev/urandom of="$3" bs=512 count=8 2>/dev/null
	check "$1: a write over the lost sectors" dio_write /dev/mapper/arr 16 "$3"
}
rest_and_write rebuild "$M2" /tmp/B
check "rebuild: the write cleared the entry ($(rl_bbl arr))" test "$(rl_bbl arr)" = 0:0
check "rebuild: the write healed member 0 (hddsim: $(bad hs0))" test "$(bad hs0 | cut -d' ' -f1)" = 0
TABLE=$(dmsetup table arr)
run dm_remove arr
run dm_create arr "$TABLE"
check "rebuild: the cleared list is durable ($(rl_bbl arr))" test "$(rl_bbl arr)" = 0:0
# new_data_and_end TAG NEW: the lost sectors read NEW, check finds 0; remove
new_data_and_end() {
	read16 /tmp/r
	check "$1: the sectors read back the new data" cmp -s /tmp/r "$2"
	check "$1: check finds 0 mismatches" test "$(rl_scrub arr check 120)" = 0
	run dm_remove arr
	run dm_remove hs0
}
new_data_and_end rebuild /tmp/B

# --- 6. a rebuild whose only source has bad-block entries ---------------------
# As 5, with a second spare: the first rebuild leaves sectors 16..23 bad on
# role 1 (the spare M2). Then role 0 fails too and the second spare (M4)
# takes it, with role 1 the only source: the window holding the entry is
# narrowed down, the rest copied, 16..23 recorded bad on role 0 as well.
M4=$(disk 4)
for d in "$M0" "$M1" "$M2" "$M4" "$MD"; do wipe "$d" 4 || die "wipe $d"; done
run hdd_create hs0 "$M0" lightning time_scale 1000
OPTS="chunk_size 128 assume_clean metadata $MD spare $M2 spare $M4"
run dm_create arr "0 $L raidlab mirror $(echo "$OPTS" | wc -w) $OPTS 2 /dev/mapper/hs0 $M1"
run dd if=/tmp/A of=/dev/mapper/arr bs=64k count=1 oflag=direct conv=fsync
run dm_message hs0 addbadblock $((2048 + 16)) 8
run dm_message arr fail 1
wait_idle() {
	i=0
	while { [ "$(rl_health arr)" != AA ] || [ "$(rl_st arr 5)" != idle ]; } && [ $i -lt 600 ]; do
		sleep 0.2
		i=$((i + 1))
	done
}
wait_idle
check "bb source: the first rebuild leaves 16..23 bad on role 1" \
	test "$(dmsetup message arr 0 bad_blocks 1)" = "16 8"
dmesg -c >/dev/null
run dm_message arr fail 0
wait_idle
check "bb source: the second rebuild finishes ($(rl_health arr) $(rl_sync arr))" \
	test "$(rl_health arr) $(rl_st arr 5)" = "AA idle"
check "bb source: the kernel log names the 8 sectors on role 0" sh -c \
	"dmesg | grep -q 'member 0: member sectors 16+8 lost in rebuild: recorded bad'"
check "bb source: bad_blocks 0 lists sectors 16..23" \
	test "$(dmsetup message arr 0 bad_blocks 0)" = "16 8"
check "bb source: role 1 keeps its entry" \
	test "$(dmsetup message arr 0 bad_blocks 1)" = "16 8"
check "bb source: the status counts an entry on each ($(rl_bbl arr))" \
	test "$(rl_bbl arr)" = 1:1
expect_fail read16 /tmp/r
rest_and_write "bb source" "$M4" /tmp/C
check "bb source: the write cleared both entries ($(rl_bbl arr))" test "$(rl_bbl arr)" = 0:0
new_data_and_end "bb source" /tmp/C
finish
