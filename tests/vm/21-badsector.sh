#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A bad sector is rewritten from redundancy, not a reason to drop a disk
# (issue 13, window 4).
#
# 1. raid5 over 4 members, member 1 a dm-hddsim disk with media errors
#    (addbadblock: its reads of sectors 16..23 fail until they are
#    written). A read of them through the array returns the data written
#    before, member 1 stays in the array, the kernel log says the chunk was
#    rewritten, and the rewrite lands: hddsim lists no bad sector, and
#    member 1's disk holds the data. The sectors go bad again and a check
#    finds them: rewritten the same way, 0 mismatches, member 1 stays.
# 1b. (in 1) A 4 KiB write over the bad sectors: the read-modify-write's
#    read of them fails, the chunk is rewritten, the write then lands on
#    member 1 as well: the new data reads back, member 1's disk holds it,
#    and check finds 0.
# 2. raid5 over 4 members under dm tables; member 1's table sends reads of
#    its sectors 16..23 to an error target (dm-delay with a separate write
#    device: reads fail, writes go on, so every read of them fails again).
#    The first read is served and the chunk rewritten (member 1 gets that
#    one write); past RL_MAX_READ_ERRORS (20) such errors member 1 fails,
#    and the data still reads back, degraded.
# 3. The same tables, a new array: a 4 KiB write over the sectors that
#    stay bad: rewritten once, still unreadable, member 1 fails (no
#    bad-block lists) and the write lands around it, read back degraded
#    (22-badblocks: with lists).
# vm-opts: --disks 4
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
. "$RL_TESTS/hddsim.sh"
need_raidlab
need_hddsim
modprobe dm-delay || die "no dm-delay module"
command -v python3 >/dev/null || die "no python3 in the guest (scripts/lab/mkinitramfs.sh)"

M1=$(disk 1)
ROWS=32
L=$((ROWS * 128 * 3))

for i in 0 1 2 3; do
	dd if=/dev/zero of="$(disk $i)" bs=1M count=4 conv=fsync 2>/dev/null
done
dd if=/dev/urandom of=/tmp/A bs=64k count=1 2>/dev/null
dd if=/tmp/A of=/tmp/A.bad bs=512 skip=16 count=8 2>/dev/null

# read1 FILE: the array's sectors 144..151 (member 1's 16..23), O_DIRECT
read1() { dio_read /dev/mapper/arr 144 8 "$1"; }

# --- 1. a bad sector that a write heals ----------------------------------------
run hdd_create hs1 "$M1" lightning time_scale 1000
run dm_create arr "0 $L raidlab raid5 3 chunk_size 128 assume_clean 4 $(disk 0) /dev/mapper/hs1 $(disk 2) $(disk 3)"
run dd if=/tmp/A of=/dev/mapper/arr bs=64k seek=1 count=1 oflag=direct conv=fsync
# member 1's copy is garbage (under hddsim), so the check below sees the rewrite
run dd if=/dev/urandom of="$M1" bs=512 seek=16 count=8 oflag=direct conv=fsync
run dm_message hs1 addbadblock 16 8
dmesg -c >/dev/null
read1 /tmp/r1
check "the bad sectors read back their data" cmp -s /tmp/r1 /tmp/A.bad
check "member 1 stays in the array ($(rl_health arr))" test "$(rl_health arr)" = AAAA
check "the kernel log says the chunk was rewritten" sh -c \
	"dmesg | grep -q 'member 1 (.*): read error at 0: rewritten from redundancy (1 of 20)'"
check "the rewrite healed them ($(dmsetup message hs1 0 countbadblocks))" \
	test "$(dmsetup message hs1 0 countbadblocks | cut -d' ' -f1)" = 0
dio_read /dev/mapper/hs1 16 8 /tmp/d1
check "member 1's disk holds the data" cmp -s /tmp/d1 /tmp/A.bad
# the same sectors go bad again; a check finds them: rewritten, not failed
run dm_message hs1 addbadblock 16 8
dmesg -c >/dev/null
check "a check over the bad sectors finds 0 mismatches" test "$(rl_scrub arr check 120)" = 0
check "member 1 stays in the array after the check ($(rl_health arr))" \
	test "$(rl_health arr)" = AAAA
check "the kernel log says the check rewrote the chunk" sh -c \
	"dmesg | grep -q 'member 1 (.*): read error at 0: rewritten from redundancy (2 of 20)'"
check "the check's rewrite healed them ($(dmsetup message hs1 0 countbadblocks))" \
	test "$(dmsetup message hs1 0 countbadblocks | cut -d' ' -f1)" = 0
read1 /tmp/r1
check "and they read back their data" cmp -s /tmp/r1 /tmp/A.bad
# a write over them: its read of the old data (read-modify-write) fails,
# the chunk is rewritten from the rest, and the write is planned again
# with member 1 in it (1.22.0 planned it around member 1: only the parity
# took it, and member 1's disk kept the old data, served as good)
run dm_message hs1 addbadblock 16 8
dmesg -c >/dev/null
dd if=/dev/urandom of=/tmp/B bs=4k count=1 2>/dev/null
run dio_write /dev/mapper/arr 144 /tmp/B
check "the write's read of the old data failed, and the chunk was rewritten" sh -c \
	"dmesg | grep -q 'member 1 (.*): read error at 0: rewritten from redundancy (3 of 20)'"
check "member 1 stays in the array after the write ($(rl_health arr))" \
	test "$(rl_health arr)" = AAAA
read1 /tmp/r1
check "the written sectors read back the new data" cmp -s /tmp/r1 /tmp/B
dio_read /dev/mapper/hs1 16 8 /tmp/d1
check "member 1's disk holds the new data" cmp -s /tmp/d1 /tmp/B
check "check finds 0 mismatches after the write" test "$(rl_scrub arr check 120)" = 0
run dm_remove arr
run dm_remove hs1

# --- 2. a bad sector that stays bad --------------------------------------------
run dm_create errd "0 8 error"
W=$(rl_wrap_members bsw 4)
run dm_create arr "0 $L raidlab raid5 3 chunk_size 128 assume_clean 4 $W"
# chunk 1 of row 0: member 1's sectors 0..127
run dd if=/tmp/A of=/dev/mapper/arr bs=64k seek=1 count=1 oflag=direct conv=fsync
run dd if=/dev/urandom of="$M1" bs=512 seek=16 count=8 oflag=direct conv=fsync

z=$(sectors "$M1")
run dm_reload bsw1 "0 16 linear $M1 0
16 8 delay /dev/mapper/errd 0 0 $M1 16 0
24 $((z - 24)) linear $M1 24"
run dmsetup suspend --noflush bsw1
run dmsetup resume bsw1

dmesg -c >/dev/null
w0=$(rl_data_writes arr 1)
read1 /tmp/r1
w1=$(rl_data_writes arr 1)
check "the bad sectors read back their data" cmp -s /tmp/r1 /tmp/A.bad
check "member 1 stays in the array ($(rl_health arr))" test "$(rl_health arr)" = AAAA
check "the kernel log says the chunk was rewritten" sh -c \
	"dmesg | grep -q 'member 1 (.*): read error at 0: rewritten from redundancy (1 of 20)'"
check "the chunk was written back to member 1 (data writes $w0 -> $w1)" test $((w1 - w0)) = 1

i=0
while [ $i -lt 25 ]; do
	read1 /tmp/r$i || break
	i=$((i + 1))
done
log "after 26 reads of the bad sectors: $(rl_health arr) $(rl_state arr)"
check "past 20 read errors member 1 fails" test "$(rl_health arr)" = ADAA
check "the kernel log says why" sh -c "dmesg | grep -q 'more than 20 read errors'"
read1 /tmp/r2
check "the data still reads back, degraded" cmp -s /tmp/r2 /tmp/A.bad
dd if=/dev/mapper/arr bs=64k skip=1 count=1 iflag=direct 2>/dev/null | cmp -s - /tmp/A
check "the whole chunk reads back" test $? = 0

run dm_remove arr

# --- 3. a write over sectors that stay bad -------------------------------------
# no bad-block lists: the write's read of them fails, the chunk is
# rewritten, the read fails again: member 1 fails at once (1.22.0 rewrote
# the chunk 20 times first), and the write lands around it
run dm_create arr "0 $L raidlab raid5 3 chunk_size 128 assume_clean 4 $W"
w0=$(rl_data_writes arr 1)
run dio_write /dev/mapper/arr 144 /tmp/B
w1=$(rl_data_writes arr 1)
check "a write over them: member 1 fails ($(rl_health arr))" test "$(rl_health arr)" = ADAA
# the counters, not the kernel log: section 2's lines may have used up
# dm's rate limit
check "after one rewrite (data writes $w0 -> $w1)" test $((w1 - w0)) = 1
read1 /tmp/r3
check "the write reads back, degraded" cmp -s /tmp/r3 /tmp/B
run dm_remove arr
for i in 0 1 2 3; do run dm_remove bsw$i; done
run dm_remove errd
finish
