#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A persistent per-member bad-block list (issue 13, window 4), as md keeps
# one. raid5 over 4 members under dm-linear, a dm-bufio metadata device
# and a spare. Member 1 (a survivor) gets an unreadable range in row R
# (dm-error in its linear table); member 3 is failed and the spare
# rebuilds it. The rebuild cannot read row R on member 1 and cannot
# rebuild it without it: it must record the row bad on member 3, name the
# row in the kernel log and finish, with member 1 still in the array. The
# status shows the entries (member 1's unreadable read, member 3's lost
# row); a read of row R fails with EIO; the rest of the array verifies
# with fio; the lists survive a remove and a reload, and the bad_blocks
# message lists them. A second spare taking role 3 starts with an empty
# list, durably, and its rebuild loses row R again. Once member 1's range
# is readable again (the disk remaps it), a full write of row R clears
# both entries, durably, and check finds 0 mismatches. Then raid6 with
# two members out (one rebuilding, one failed) loses a row the same way;
# and an array whose metadata device has no room for the lists runs with
# lists in memory only and says so. A write beside an entry, where its
# member is out of the row, records what it skipped (below).
# vm-opts: --disks 7
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

MD=$(disk 4)
SPARE=$(disk 5)
MB=8				# MiB of each member the array uses
L=$((MB * 2048 * 3))
R=21				# the row lost (P on member 2, member 3 holds its first chunk)
M1=$(disk 1)
BAD=$((2048 + R * 64 + 16))	# member 1's unreadable sectors: BAD .. BAD + 7

for i in 0 1 2 3; do
	dd if=/dev/zero of="$(disk $i)" bs=1M count=$((MB + 2)) conv=fsync 2>/dev/null
done
wipe "$MD" 4
wipe "$SPARE" 4
W=$(rl_wrap_members bbw 4)
OPTS="chunk_size 64 assume_clean metadata $MD spare $SPARE"
run dm_create arr "0 $L raidlab raid5 $(echo "$OPTS" | wc -w) $OPTS 4 $W"
check "a new array has empty lists ($(rl_bbl arr))" test "$(rl_bbl arr)" = 0:0:0:0

# data everywhere: row R from a file, the rest by fio in two ranges
dd if=/dev/urandom of=/tmp/row bs=96k count=1 2>/dev/null
run dd if=/tmp/row of=/dev/mapper/arr bs=96k seek=$R count=1 oflag=direct conv=fsync
A_SIZE=$((R * 96))k
B_OFF=$(((R + 1) * 96))k
B_SIZE=$((MB * 3 * 1024 - (R + 1) * 96))k
verify_rest() { # write|verify
	FIO_STATE_DIR=/tmp/fioA FIO_RW=write FIO_BS=32k FIO_RUNTIME=120 \
		_rl_fio "$1" /dev/mapper/arr "$A_SIZE" || return 1
	FIO_STATE_DIR=/tmp/fioB FIO_RW=write FIO_BS=32k FIO_RUNTIME=120 \
		_rl_fio "$1" /dev/mapper/arr "$B_SIZE" --offset="$B_OFF"
}
check "fio writes the rest" verify_rest write

# unreadable WRAP START: the 8 sectors at START of member 1's disk under
# dm-linear WRAP unreadable (and unwritable)
z=$(sectors "$M1")
# retable WRAP TABLE: the wrapper's table swapped, live
retable() {
	run dm_reload "$1" "$2"
	run dmsetup suspend --noflush "$1"
	run dmsetup resume "$1"
}
unreadable() {
	retable "$1" "0 $2 linear $M1 0
$2 8 error
$(($2 + 8)) $((z - $2 - 8)) linear $M1 $(($2 + 8))"
}
unreadable bbw1 "$BAD"

dmesg -c >/dev/null
run dm_message arr fail 3
# wait_rebuilt NAME HEALTH SECS: until NAME is HEALTH and idle (the
# array failing ends it)
wait_rebuilt() {
	_i=0
	while [ "$(rl_health "$1")" != "$2" ] || [ "$(rl_st "$1" 5)" != idle ]; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($3 * 5)) ] && return 1
		[ "$(rl_state "$1")" = failed ] && return 1
		sleep 0.2
	done
}
check "the spare's rebuild finishes, member 1 stays in the array" wait_rebuilt arr AAAA 240
log "after the rebuild: $(rl_health arr) $(rl_state arr) $(rl_sync arr) bad_blocks $(rl_bbl arr)"
check "the kernel log names row $R" sh -c \
	"dmesg | grep -q 'member 3: row $R lost in rebuild: recorded bad'"
check "member 1 is not failed for it" sh -c "! dmesg | grep -q 'member 1 (.*) failed'"
check "the status shows the entries: member 1's read, member 3's row ($(rl_bbl arr))" \
	test "$(rl_bbl arr)" = 0:1:0:1

# readrow: row R, uncached, into /tmp/rowr (fails on EIO); rowis FILE
readrow() { dd if=/dev/mapper/arr of=/tmp/rowr bs=96k skip=$R count=1 iflag=direct 2>/dev/null; }
rowis() { readrow && cmp -s /tmp/rowr "$1"; }
expect_fail readrow
check "the rest verifies with fio" verify_rest verify

# a remove and a reload keep the lists
TABLE=$(dmsetup table arr)
run dm_remove arr
dmesg -c >/dev/null
run dm_create arr "$TABLE"
check "the lists survive a reload ($(rl_bbl arr))" test "$(rl_bbl arr)" = 0:1:0:1
check "the kernel log says so at load" sh -c "dmesg | grep -q 'member 3: 1 bad-block entries'"
expect_fail readrow
check "after the reload, the rest verifies" verify_rest verify
check "bad_blocks 3 lists member 3's chunk of row $R" \
	test "$(dmsetup message arr 0 bad_blocks 3)" = "$((R * 64)) 64"
check "bad_blocks 0 lists nothing" test -z "$(dmsetup message arr 0 bad_blocks 0)"
expect_fail dmsetup message arr 0 bad_blocks 4

# a new disk taking role 3 (a second spare) starts with an empty list,
# durably: the rebuild is held back at 1 KiB/s, far before row R
SPARE2=$(disk 6)
wipe "$SPARE2" 4
TABLE=$(dmsetup table arr | awk -v s="$SPARE2" '{ $5 = ($5 + 2) " spare " s; print }')
run dm_remove arr
run dm_create arr "$TABLE"
run dm_message arr sync_rate 1
run dm_message arr fail 3
i=0
while [ "$(rl_health arr)" != AAAa ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check "the second spare takes role 3 (AAAa)" test "$(rl_health arr)" = AAAa
check "role 3's list starts empty ($(rl_bbl arr))" test "$(rl_bbl arr)" = 0:1:0:0
# durably: the lists loaded at the next construction (the kernel log
# names each non-empty one; its rebuild then runs at full speed)
TABLE=$(dmsetup table arr)
run dm_remove arr
dmesg -c >/dev/null
run dm_create arr "$TABLE"
check "and durably: at load member 1 has its entry" sh -c \
	"dmesg | grep -q 'member 1: 1 bad-block entries'"
check "and member 3 none" sh -c "! dmesg | grep -q 'member 3: [0-9]* bad-block entries'"
# its rebuild loses row R again (member 1's entry), the rest is rebuilt
check "its rebuild finishes" wait_rebuilt arr AAAA 240
check "row $R is recorded lost again ($(rl_bbl arr))" test "$(rl_bbl arr)" = 0:1:0:1
expect_fail readrow
check "the rest verifies on the new disk" verify_rest verify

# the disk remaps member 1's sectors; a full write of row R clears both entries
retable bbw1 "0 $z linear $M1 0"
dd if=/dev/urandom of=/tmp/row2 bs=96k count=1 2>/dev/null
run dd if=/tmp/row2 of=/dev/mapper/arr bs=96k seek=$R count=1 oflag=direct conv=fsync
check "a full write of row $R clears the entries ($(rl_bbl arr))" test "$(rl_bbl arr)" = 0:0:0:0
check "row $R reads back its new data" rowis /tmp/row2
TABLE=$(dmsetup table arr)
run dm_remove arr
run dm_create arr "$TABLE"
check "the cleared lists are durable ($(rl_bbl arr))" test "$(rl_bbl arr)" = 0:0:0:0
check "row $R still reads back" rowis /tmp/row2
check "check finds 0 mismatches" test "$(rl_scrub arr check 300)" = 0
check "and the rest still verifies" verify_rest verify

run dm_remove arr
for i in 0 1 2 3; do run dm_remove bbw$i; done

# raid6 with two out: member 3 rebuilding onto the spare, member 4 failed
# (no second spare), member 1 unreadable in row R6 (data on members 1, 2
# and 3, P on 4, Q on 0): the row is lost, the rest is rebuilt
R6=20
BAD6=$((2048 + R6 * 64 + 16))
MD6=$(disk 5)
SPARE6=$(disk 6)
for i in 0 1 2 3 4; do
	dd if=/dev/zero of="$(disk $i)" bs=1M count=$((MB + 2)) conv=fsync 2>/dev/null
done
wipe "$MD6" 4
wipe "$SPARE6" 4
W6=$(rl_wrap_members b6w 5)
OPTS6="chunk_size 64 assume_clean metadata $MD6 spare $SPARE6"
run dm_create r6 "0 $L raidlab raid6 $(echo "$OPTS6" | wc -w) $OPTS6 5 $W6"
dd if=/dev/urandom of=/tmp/all6 bs=1M count=$((MB * 3)) 2>/dev/null
run dd if=/tmp/all6 of=/dev/mapper/r6 bs=1M oflag=direct conv=fsync
unreadable b6w1 "$BAD6"
dmesg -c >/dev/null
# the rebuild waits in its throttle until member 4 has failed too
run dm_message r6 sync_rate 1
run dm_message r6 fail 3
sleep 1
run dm_message r6 fail 4
run dm_message r6 sync_rate 0
check "raid6, two out: the rebuild finishes, member 1 stays" wait_rebuilt r6 AAAAD 240
log "raid6 after the rebuild: $(rl_health r6) $(rl_state r6) $(rl_sync r6) bad_blocks $(rl_bbl r6)"
check "raid6: the kernel log names row $R6" sh -c \
	"dmesg | grep -q 'member 3: row $R6 lost in rebuild: recorded bad'"
check "raid6: the status shows the entries ($(rl_bbl r6))" test "$(rl_bbl r6)" = 0:1:0:1:0
read6() { dd if=/dev/mapper/r6 of=/tmp/row6 bs=96k skip=$R6 count=1 iflag=direct 2>/dev/null; }
expect_fail read6
# cmp6 SKIP COUNT: 96 KiB rows [SKIP, SKIP + COUNT) read back what was written
cmp6() {
	dd if=/dev/mapper/r6 bs=96k skip="$1" count="$2" iflag=direct 2>/dev/null |
		cmp -s - /tmp/all6.part || return 1
}
dd if=/tmp/all6 of=/tmp/all6.part bs=96k count=$R6 2>/dev/null
check "raid6: the rows before row $R6 read back" cmp6 0 $R6
dd if=/tmp/all6 of=/tmp/all6.part bs=96k skip=$((R6 + 1)) 2>/dev/null
check "raid6: the rows after it read back" cmp6 $((R6 + 1)) $((MB * 3 * 1024 / 96 - R6 - 1))
run dm_remove r6
for i in 0 1 2 3 4; do run dm_remove b6w$i; done

# A write beside an entry. raid5 whose resync has not reached row RW (its
# region is suspect: a read error there cannot be rewritten from a parity
# that may be torn): member 1's read of 8 sectors there fails, they are
# recorded bad and the read fails with EIO. A write of 8 sectors 8 after
# them in member 1's column is planned without member 1 (an entry in the
# row): only the parity takes it, so its 8 sectors are recorded bad too,
# and read back rebuilt from the parity (1.22.0 recorded nothing: the
# read went to member 1's disk, which still held the old data).
modprobe dm-delay || die "modprobe dm-delay"
RW=201			# as row 21: P on member 2, member 1's chunk in column 2
S=$((RW * 192 + 128 + 16))	# the array's sector of member 1's chunk sector 16
for i in 0 1 2 3; do
	dd if=/dev/zero of="$(disk $i)" bs=1M count=$((MB + 2)) conv=fsync 2>/dev/null
done
wipe "$MD" 4
W=$(rl_wrap_members bsw 4)
# member 0's reads take 3 s while the resync starts, which is then frozen
z0=$(sectors "$(disk 0)")
retable bsw0 "0 $z0 delay $(disk 0) 0 3000 $(disk 0) 0 0"
OPTS="chunk_size 64 metadata $MD"
run dm_create arr "0 $L raidlab raid5 $(echo "$OPTS" | wc -w) $OPTS 4 $W"
run dm_message arr frozen
retable bsw0 "0 $z0 linear $(disk 0) 0"
log "frozen: $(rl_sync arr)"
check "the resync is frozen ($(rl_sync arr))" sh -c "dmsetup status arr | grep -qw frozen"
B1=$((2048 + RW * 64 + 16))	# member 1's sectors under it
unreadable bsw1 "$B1"
expect_fail dio_read /dev/mapper/arr "$S" 8 /tmp/x
check "the read's 8 sectors are recorded bad on member 1 ($(rl_bbl arr))" \
	test "$(rl_bbl arr)" = 0:1:0:0
dd if=/dev/urandom of=/tmp/W bs=4k count=1 2>/dev/null
run dio_write /dev/mapper/arr $((S + 16)) /tmp/W
log "bad_blocks 1: $(dmsetup message arr 0 bad_blocks 1 | tr '\n' ' ')"
check "the write's 8 sectors on member 1 are recorded bad too ($(rl_bbl arr))" \
	test "$(rl_bbl arr)" = 0:2:0:0
check "member 1 stays in the array, not in sync yet ($(rl_health arr))" \
	test "$(rl_health arr)" = aaaa
dio_read /dev/mapper/arr $((S + 16)) 8 /tmp/w2
check "the write reads back (rebuilt from the parity)" cmp -s /tmp/w2 /tmp/W
run dm_message arr idle
check "the resync ends" rl_wait_sync arr 120
dio_read /dev/mapper/arr $((S + 16)) 8 /tmp/w2
check "the write still reads back after the resync" cmp -s /tmp/w2 /tmp/W
# A write over sectors that stay unreadable in row RW2 (reads fail, writes
# land: dm-delay with its own write device), resynced: its read of the old
# data fails, the chunk is rewritten, the read fails again: the write goes
# around member 1, and what it skipped there is recorded bad (1.22.0
# rewrote the chunk 20 times, then failed member 1).
RW2=205
S2=$((RW2 * 192 + 128 + 16))
B2=$((2048 + RW2 * 64 + 16))
run dm_create errd "0 8 error"
retable bsw1 "0 $B1 linear $M1 0
$B1 8 error
$((B1 + 8)) $((B2 - B1 - 8)) linear $M1 $((B1 + 8))
$B2 8 delay /dev/mapper/errd 0 0 $M1 $B2 0
$((B2 + 8)) $((z - B2 - 8)) linear $M1 $((B2 + 8))"
_m=$(dmesg_mark)
w0=$(rl_data_writes arr 1)
run dio_write /dev/mapper/arr "$S2" /tmp/W
w1=$(rl_data_writes arr 1)
# (dm's rate limit may drop these lines: the counters are checked)
dmesg_since "$_m" | grep raidlab
check "member 1's chunk was rewritten once, then written around (data writes $w0 -> $w1)" \
	test $((w1 - w0)) = 1
check "its 8 sectors on member 1 are recorded bad ($(rl_bbl arr))" \
	test "$(rl_bbl arr)" = 0:3:0:0
check "member 1 stays in the array ($(rl_health arr))" test "$(rl_health arr)" = AAAA
dio_read /dev/mapper/arr "$S2" 8 /tmp/w3
check "the write reads back (rebuilt from the parity)" cmp -s /tmp/w3 /tmp/W
run dm_remove arr
for i in 0 1 2 3; do run dm_remove bsw$i; done
run dm_remove errd

# no room for the area (an older array's full device): volatile lists, said once
for i in 0 1 2 3; do
	dd if=/dev/zero of="$(disk $i)" bs=1M count=2 conv=fsync 2>/dev/null
done
wipe "$MD" 4
run dm_create bbmd "0 24 linear $MD 0"
dmesg -c >/dev/null
run dm_create vol "0 $L raidlab raid5 5 chunk_size 64 assume_clean metadata /dev/mapper/bbmd 4 $(disks 4)"
check "no room: the kernel log says the lists are in memory only" sh -c \
	"dmesg | grep -q 'no room for bad-block lists in the metadata: kept in memory only'"
check "no room: the status still counts ($(rl_bbl vol))" test "$(rl_bbl vol)" = 0:0:0:0
run dm_remove vol
run dm_remove bbmd
finish
