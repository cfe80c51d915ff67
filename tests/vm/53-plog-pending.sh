#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# plog on DAX: a crash with a write in flight, then a data member lost
# (issue 13, window 7). A row is written whole (A), then one 4 KiB block of
# its column 0 (member m1) is rewritten (B) while m1 holds its data write
# (its dm-linear suspended with --noflush): the record is PENDING in its
# DAX twin when the pmem is copied. m1 is let go (B lands on m1), then the
# members are copied: the crash image is "data landed, record still
# PENDING". Reassembled with the member of column 1 (m2) missing, that
# chunk is rebuilt from the row: it must read A, written and acknowledged
# long before (a full-row write in flight: A or the new data, whole).
# Without the new data of PENDING records on pmem the row's
# parity stays old while m1 holds B, and m2's chunk reads old parity ^ B ^
# A, neither A nor anything written. The write in flight itself must read
# whole, old or new (with its data slot, new), and after a rebuild onto a
# spare check finds 0. Then the same with a full-row write in flight
# (an OVERWRITE record: the row's new parity in the twin), and, in the
# long tier (RL_FULL=1), both again with faults 2 (P and Q; a full row's
# two OVERWRITE records).
# vm-opts: --disks 7 --disk-size 64M --timeout 1500
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab
command -v python3 >/dev/null || die "no python3 in the guest (scripts/lab/mkinitramfs.sh)"

PM=$(pmem_dev)
LEN=32768		# 16 MiB
CH=64			# chunk, sectors
CB=$((CH * 512))
SPARE=/dev/mapper/w6

for d in $(disks 7); do wipe "$d" 4 || die "wipe $d"; done
wipe "$PM" 16 || die "wipe pmem"
rl_wrap_members w 7 >/dev/null

# the layout of a case: NM members (w0..), FOPT (the faults option, its
# words NF), COLS data chunks a row (L = 1)
layout() {
	NM=$1 COLS=$2 FOPT=$3 NF=$4
	MEMS=
	i=0
	while [ $i -lt "$NM" ]; do MEMS="$MEMS /dev/mapper/w$i"; i=$((i + 1)); done
}

# row TAG LETTER...: a row of chunks "TAG-<LETTER><column>" to /tmp/row
row() {
	_rt=$1
	shift
	_rk=0
	: >/tmp/row
	for _rc in "$@"; do
		pat "$_rt-$_rc$_rk" $CB >>/tmp/row
		_rk=$((_rk + 1))
	done
}

# pat TAG BYTES: BYTES of the line "PLOG53-TAG" repeated
pat() { yes "PLOG53-$1" | head -c "$2"; }

# column_member SECTOR TAG: the wrapped member holding the array's SECTOR
# (the locate message), checked on the member: the chunk there holds TAG
# (reading every member whole for TAG took two minutes a case under TCG)
column_member() {
	# shellcheck disable=SC2046
	set -- $(dm_message arr locate "$1" | awk '{ split($4, a, ":"); print a[1], a[2], a[3] }') "$2"
	[ "$1" = data ] || return 1
	dio_read "/dev/mapper/w$2" "$3" $CH /tmp/col || return 1
	grep -q -a "PLOG53-$4" /tmp/col || return 1
	echo "$2"
}

# same FILE SECTOR COUNT: the array's COUNT sectors at SECTOR equal FILE
same() {
	dio_read /dev/mapper/arr "$2" "$3" /tmp/got || return 1
	cmp -s "$1" /tmp/got
}

# either FILE1 FILE2 SECTOR COUNT: they read as FILE1 or as FILE2
either() {
	dio_read /dev/mapper/arr "$3" "$4" /tmp/got1 || return 1
	cmp -s "$1" /tmp/got1 || cmp -s "$2" /tmp/got1
}

# write_held ROW TAGFILE SECTOR M: write TAGFILE at SECTOR while member M
# holds its writes; the pmem is copied meanwhile, then M lets the write go
# and the members are copied (the crash image)
write_held() {
	rm -f /tmp/held.rc
	dmsetup suspend --noflush "w$4" || die "suspend w$4"
	(dio_write /dev/mapper/arr "$3" "$2"; echo $? >/tmp/held.rc) &
	_hp=$!
	sleep 3
	check "$1: the write waits for member $4" test ! -e /tmp/held.rc
	_recs=$(dm_message arr plog_regions | awk '{ n += $3 } END { print n + 0 }')
	log "$1: records in memory: $_recs; plog_regions: $(dm_message arr plog_regions | tr '\n' ';')"
	check "$1: its record is in the log buffer (PENDING)" test "$_recs" -gt 0
	dd if="$PM" of=/tmp/imgpm bs=1M 2>/dev/null || die "copy the pmem"
	dmsetup resume "w$4" || die "resume w$4"
	wait $_hp
	check "$1: the write completes once the member lets it go" test "$(cat /tmp/held.rc)" = 0
	# (the copy reads the disks through their page cache: nothing from an
	# earlier read of them may stay there)
	drop_caches
	_rl_image_members 64 $(disks "$NM") || die "copy the members"
}

# crash_case NAME SECTOR FILE: a row of A at sector 0 (reintegrated: its
# parity on disk), then FILE written at SECTOR held by column 0's member;
# reassembled from the image without column 1's member
crash_case() {
	_n=$1
	dm_create arr "0 $LEN raidlab plog $((4 + NF)) chunk_size $CH metadata $PM $FOPT $NM$MEMS" ||
		die "$_n: create"
	check "$_n: resync finishes" rl_wait_sync arr 600
	row "$_n" A A A A A A
	head -c $((COLS * CB)) /tmp/row >/tmp/rowA
	check "$_n: row A written" dio_write /dev/mapper/arr 0 /tmp/rowA
	# a small write of the same block: its old data goes to the data
	# cache, so the held write needs no preread from the held member
	head -c 4096 /tmp/rowA >/tmp/blkA
	check "$_n: block A rewritten (cached)" dio_write /dev/mapper/arr 0 /tmp/blkA
	check "$_n: reintegrate" dm_message arr reintegrate
	m1=$(column_member 0 "$_n-A0") || die "$_n: column 0 is not where locate says"
	m2=$(column_member $CH "$_n-A1") || die "$_n: column 1 is not where locate says"
	log "$_n: column 0 on member $m1, column 1 on member $m2"
	write_held "$_n" "$3" "$2" "$m1"
	cp /tmp/rowA /tmp/rowB
	dd if="$3" of=/tmp/rowB bs=512 seek="$2" conv=notrunc 2>/dev/null
	check "$_n: the live array reads the new row" same /tmp/rowB 0 $((COLS * CH))
	dm_remove arr
	rl_image_restore $(disks "$NM") || die "$_n: restore the crash image"
	drop_caches

	_t=
	i=0
	while [ $i -lt "$NM" ]; do
		if [ "$i" = "$m2" ]; then _t="$_t -"; else _t="$_t /dev/mapper/w$i"; fi
		i=$((i + 1))
	done
	dmesg -c >/dev/null
	check "$_n: the crash image with member $m2 missing assembles" dm_create arr \
		"0 $LEN raidlab plog $((6 + NF)) chunk_size $CH metadata $PM $FOPT spare $SPARE $NM$_t"
	dmesg | grep -i plog | sed 's/^/    /'
	dd if=/tmp/rowA of=/tmp/c1A bs=$CB skip=1 count=1 2>/dev/null
	dd if=/tmp/rowB of=/tmp/c1B bs=$CB skip=1 count=1 2>/dev/null
	check "$_n: the missing member's chunk reads its data, old or new, whole" \
		either /tmp/c1A /tmp/c1B "$CH" "$CH"
	dio_read /dev/mapper/arr 0 $((COLS * CH)) /tmp/got || die "$_n: read the row"
	if cmp -s /tmp/got /tmp/rowB; then
		log "$_n: the row reads the write in flight"
	elif cmp -s /tmp/got /tmp/rowA; then
		log "$_n: the row reads its old data"
	else
		log "$_n: the row reads neither: $(cmp /tmp/got /tmp/rowA | head -1)"
	fi
	check "$_n: the write in flight reads back from its data slot" \
		cmp -s /tmp/got /tmp/rowB
	check "$_n: no row left unresolved" \
		test "$(dmesg | grep -c 'could not be recomputed')" = 0
	check "$_n: rebuild onto the spare finishes" rl_wait_sync arr 600
	check "$_n: the row reads the same after the rebuild" same /tmp/got 0 $((COLS * CH))
	check "$_n: check after the rebuild: 0" test "$(rl_scrub arr check 300)" = 0
	dm_remove arr
	for d in $(disks 7); do wipe "$d" 4 || die "wipe $d"; done
	wipe "$PM" 16 || die "wipe pmem"
}

# faults 1 over 5 members: rows of 3 chunks
layout 5 3 "" 0
# an UPDATE: 4 KiB of column 0
pat small-B0 4096 >/tmp/blkB
crash_case small 0 /tmp/blkB
# an OVERWRITE: the whole row (its other columns land, 0 is held); each
# column changes by another xor, so that old parity ^ new data cannot
# read as a column's old or new data by chance
row full B C D
cp /tmp/row /tmp/rowFB
crash_case full 0 /tmp/rowFB

# faults 2 over 6 members: rows of 2 chunks, P and Q (the long tier:
# vm-tests.sh --full; each case costs minutes under TCG)
if [ "$RL_FULL" = 1 ]; then
	layout 6 2 "log_disks 1 faults 2" 4
	pat f2small-B0 4096 >/tmp/blkB
	crash_case f2small 0 /tmp/blkB
	row f2full B C
	cp /tmp/row /tmp/rowFB
	crash_case f2full 0 /tmp/rowFB
fi

for i in 0 1 2 3 4 5 6; do dm_remove "w$i"; done
finish
