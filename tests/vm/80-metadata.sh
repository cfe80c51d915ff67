#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The metadata device: arrays created on a zeroed metadata device (pmem
# through DAX, and a plain disk through dm-bufio) keep their data across
# remove and re-create from the same table; lines that describe another
# array, foreign or misplaced members, corrupted or truncated metadata
# are refused with their message; a missing member ("-") runs degraded; a
# metadata device that fails turns the array read-only.
# vm-opts: --disks 6 --timeout 1500
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

m0=$(disk 0)
m1=$(disk 1)
m2=$(disk 2)
m3=$(disk 3)
m4=$(disk 4)
m5=$(disk 5)
pm=$(pmem_dev)
SIZE=16M
L5=$((64 * 2048))	# raid5 over 3 members: 32 MiB on each
LM=$((256 * 2048))	# mirror: 256 MiB, regions of 8 sectors: 3 bitmap blocks

r5_line() { echo "0 $L5 raidlab raid5 4 chunk_size 128 metadata $1 3 $2 $3 $4"; }
mi_line() { echo "0 $LM raidlab mirror 6 chunk_size 8 region_size 8 metadata $1 2 $2 $3"; }
refused() { dm_refused raidlab "$@"; }

# md_fields NAME: "<backend> <md_state> <dirty_regions> <spares>"
md_fields() { rl_md "$1"; }

# flip_byte DEV OFFSET: invert the bits of one byte, written through
flip_byte() {
	drop_caches
	_b=$(dd if="$1" bs=1 skip="$2" count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
	# shellcheck disable=SC2059
	printf "\\$(printf %o $((_b ^ 255)))" |
		dd of="$1" bs=1 seek="$2" count=1 conv=notrunc,fsync 2>/dev/null
}

# md_flags DEV: the flags of DEV's newest superblock slot (1: clean)
md_flags() {
	dd if="$1" of=/tmp/sl bs=4096 count=2 iflag=direct 2>/dev/null
	_s0=$(od -An -tu4 -j32 -N4 /tmp/sl | tr -d ' ')
	_s1=$(od -An -tu4 -j$((4096 + 32)) -N4 /tmp/sl | tr -d ' ')
	_o=4
	[ "$_s1" -gt "$_s0" ] && _o=$((4096 + 4))
	od -An -tu4 -j$_o -N4 /tmp/sl | tr -d ' '
}

blank_all() {
	for _d in "$m0" "$m1" "$m2" "$m3" "$m4" "$m5" "$pm"; do
		wipe "$_d" 4 || die "wipe $_d"
	done
}

# round MD5 KIND5 MDM KINDM: both schemes on their metadata, write,
# remove, re-create from the same tables, verify
round() {
	blank_all
	check "raid5 on $2 metadata: created" dm_create r5 "$(r5_line "$1" "$m0" "$m1" "$m2")"
	check "mirror on $4 metadata: created" dm_create mi "$(mi_line "$3" "$m3" "$m4")"
	dmsetup status r5
	dmsetup table r5
	check "raid5: status shows $2 ok, no dirty region, no spare" \
		test "$(md_fields r5)" = "$2 ok 0 0"
	check "mirror: status shows $4 ok" test "$(md_fields mi)" = "$4 ok 0 0"
	check "raid5: table line names the metadata device and region size" \
		sh -c "dmsetup table r5 | grep -q ' metadata [0-9]*:[0-9]* region_size 2048 3 '"
	check "mirror: region_size 8 kept" sh -c "dmsetup table mi | grep -q ' region_size 8 '"
	check "raid5 ($2): live array: clean flag cleared" test "$(md_flags "$1")" = 0
	check "mirror ($4): live array: clean flag cleared" test "$(md_flags "$3")" = 0
	check "raid5 ($2): suspend: clean flag set" dm_suspend r5
	check "raid5 ($2): suspended: clean flag on the device" test "$(md_flags "$1")" = 1
	check "raid5 ($2): resume" dm_resume r5
	FIO_RUNTIME=10 check "raid5 ($2): fio write" fio_write /dev/mapper/r5 $SIZE
	FIO_RUNTIME=10 check "mirror ($4): fio write" fio_write /dev/mapper/mi $SIZE
	dm_remove r5
	dm_remove mi
	check "raid5 ($2): removed: clean flag set" test "$(md_flags "$1")" = 1
	check "mirror ($4): removed: clean flag set" test "$(md_flags "$3")" = 1
	check "raid5 ($2): re-created from the same table" \
		dm_create r5 "$(r5_line "$1" "$m0" "$m1" "$m2")"
	check "mirror ($4): re-created from the same table" \
		dm_create mi "$(mi_line "$3" "$m3" "$m4")"
	check "raid5 ($2): reassembled optimal" test "$(rl_state r5)" = optimal
	check "raid5 ($2): status ok after reassembly" test "$(md_fields r5)" = "$2 ok 0 0"
	drop_caches
	check "raid5 ($2): data verifies after reassembly" fio_verify /dev/mapper/r5 $SIZE
	check "mirror ($4): data verifies after reassembly" fio_verify /dev/mapper/mi $SIZE
	dm_remove r5
	dm_remove mi
}

# -- both backends, both schemes --------------------------------------
round "$pm" dax "$m5" bufio
round "$m5" bufio "$pm" dax

# state left by the second round: raid5 (m0 m1 m2) on m5, mirror (m3 m4) on pmem
r5ok=$(r5_line "$m5" "$m0" "$m1" "$m2")

# -- refusals -----------------------------------------------------------
refused "$(r5_line "$m5" "$m0" "$m1" "$m3")" "Member belongs to another array"
refused "$(r5_line "$m5" "$m1" "$m0" "$m2")" "Member has another role in the array"
refused "0 $L5 raidlab raid5 4 chunk_size 64 metadata $m5 3 $m0 $m1 $m2" \
	"Metadata describes another chunk_size"
refused "0 $L5 raidlab raid4 4 chunk_size 128 metadata $m5 3 $m0 $m1 $m2" \
	"Metadata describes another scheme"
refused "0 $((L5 / 2)) raidlab raid5 4 chunk_size 128 metadata $m5 3 $m0 $m1 $m2" \
	"Metadata describes another length"
refused "0 $L5 raidlab raid5 6 chunk_size 128 region_size 256 metadata $m5 3 $m0 $m1 $m2" \
	"region_size differs from the metadata"
refused "$(r5_line "$m5" "$m0" "$m1" "$m5")" "Same device given twice"
refused "0 $L5 raidlab raid5 4 chunk_size 128 spare $m4 3 $m0 $m1 $m2" \
	"spare needs a metadata device"
refused "0 $L5 raidlab raid5 4 chunk_size 128 region_size 128 3 $m0 $m1 $m2" \
	"region_size needs a metadata device"
refused "0 $L5 raidlab raid0 0 3 $m0 - $m2" "A missing member needs a redundant scheme"
refused "$(r5_line "$m5" "$m0" - -)" "More members missing than the scheme survives"
refused "0 $L5 raidlab raid5 6 chunk_size 128 metadata $m5 spare $m3 3 $m0 $m1 $m2" \
	"Spare belongs to another array or role"

# a zeroed metadata device over members of an existing array: not blank
dm_create zmd "0 8192 linear $pm $((128 * 2048))" || die "zmd"
wipe /dev/mapper/zmd 4
refused "$(r5_line /dev/mapper/zmd "$m0" "$m1" "$m2")" "Member already belongs to an array"

# truncated metadata: the mirror's bitmap ends past 4 blocks
dm_create tmd "0 32 linear $pm 0" || die "tmd"
refused "$(mi_line /dev/mapper/tmd "$m3" "$m4")" "Metadata device is smaller than its contents"
dm_remove tmd
dm_create tmd "0 16 linear $pm 0" || die "tmd"
refused "$(mi_line /dev/mapper/tmd "$m3" "$m4")" "Metadata device too small"
dm_remove tmd

# one corrupted slot: the other one still assembles the array
flip_byte "$m5" 100
check "one slot corrupted: array assembles" dm_create r5 "$r5ok"
check "one slot corrupted: status ok" test "$(md_fields r5)" = "bufio ok 0 0"
dm_remove r5
# both slots corrupted: refused, and assembles again once restored
drop_caches
dd if="$m5" of=/tmp/slots bs=4096 count=2 2>/dev/null
flip_byte "$m5" 100
flip_byte "$m5" $((4096 + 100))
refused "$r5ok" "Metadata superblock: bad checksum"
flip_byte "$m5" 8
flip_byte "$m5" $((4096 + 8))
refused "$r5ok" "Metadata superblock: bad magic"
dd if=/tmp/slots of="$m5" bs=4096 count=2 conv=notrunc,fsync 2>/dev/null
check "restored slots: array assembles" dm_create r5 "$r5ok"
drop_caches
check "restored slots: data verifies" fio_verify /dev/mapper/r5 $SIZE
dm_remove r5

# -- a missing member: degraded, data readable --------------------------
check "missing member: created degraded" dm_create r5 "$(r5_line "$m5" "$m0" - "$m2")"
dmsetup status r5
dmsetup table r5
check "missing member: health A D A" test "$(rl_health r5)" = ADA
check "missing member: array degraded" test "$(rl_state r5)" = degraded
check "missing member: table prints -" sh -c "dmsetup table r5 | grep -q ' 3 [0-9]*:[0-9]* - [0-9]*:[0-9]*\$'"
drop_caches
check "missing member: data verifies (degraded reads)" fio_verify /dev/mapper/r5 $SIZE
expect_fail dm_message r5 geom 1 "x"
dm_remove r5

# -- a spare: blank at first, this array's spare afterwards -------------
# on a new array: the one above records member 1 failed, and a spare would
# take that role at once (45-rebuild tests that)
blank_all
dm_create sp "0 $((64 * 2048)) linear $pm $((160 * 2048))" || die "sp"
wipe /dev/mapper/sp 4
spline="0 $L5 raidlab raid5 6 chunk_size 128 metadata $m5 spare /dev/mapper/sp 3 $m0 $m1 $m2"
check "spare: accepted" dm_create r5 "$spline"
check "spare: one spare in the status" test "$(md_fields r5 | cut -d' ' -f4)" = 1
check "spare: in the table line" sh -c "dmsetup table r5 | grep -q ' spare [0-9]*:[0-9]* '"
dm_remove r5
check "spare: this array's spare accepted again" dm_create r5 "$spline"
dm_remove r5
# this array's spare given in a member's role
refused "$(r5_line "$m5" "$m0" "$m1" /dev/mapper/sp)" "Member has another role in the array"
dm_create tiny "0 2048 linear $pm $((240 * 2048))" || die "tiny"
refused "0 $L5 raidlab raid5 6 chunk_size 128 metadata $m5 spare /dev/mapper/tiny 3 $m0 $m1 $m2" \
	"Spare device too small"
dm_remove tiny
dm_remove sp

# -- the metadata device fails: read-only, writes refused ----------------
dm_create mdl "0 $(sectors "$m5") linear $m5 0" || die "mdl"
check "over a wrapped metadata device" dm_create r5 "$(r5_line /dev/mapper/mdl "$m0" "$m1" "$m2")"
check "wrapped metadata: ok" test "$(md_fields r5)" = "bufio ok 0 0"
check "metadata device fails" rl_swap_error mdl
# the clean-shutdown commit at suspend hits the error
dm_suspend r5
dm_resume r5
dmsetup status r5
check "failed metadata: status readonly" test "$(md_fields r5 | cut -d' ' -f2)" = readonly
expect_fail dd if=/dev/zero of=/dev/mapper/r5 bs=4k count=1 oflag=direct
check "failed metadata: reads go on" dd if=/dev/mapper/r5 of=/dev/null bs=64k count=16 iflag=direct
dm_remove r5
dm_remove mdl
dm_remove zmd

finish
