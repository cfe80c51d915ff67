#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# plog: a log segment damaged on disk behind the array's back, found by a
# live reintegration. Five lab disks (16 MiB of each), no metadata
# device, 16 KiB segments, five regions: region 0's sublog is on member
# 0 from its first sector. Random writes into the first half of region 0
# put segments of its log on disk (segment 0's magic is checked there);
# segment 0 is then overwritten with garbage (dd with fsync: busybox dd
# may leave the write in the page cache, to land later over what the
# array wrote); more writes into the second half (iodepth 16, verified)
# fill the log, so that region 0's background reintegration reads the
# garbage. Expected: the kernel log names the segment ("plog region 0
# segment 0: ..."); the region's parity is recomputed from its data and
# its log dropped, after which "reintegrate" succeeds and leaves no log;
# both passes' writes verify and "check" finds 0 mismatches. A
# reintegration that applied the garbage, or dropped the log without
# recomputing, leaves mismatches; one that left the region's writers
# waiting for room while the recomputation waited for them (a hang the
# concurrent reintegration had, fixed in plog 540d838) fails the second
# pass's time limit. Negative control: garbage written into region 0's
# check slots makes check report mismatches, and repair clears them.
# vm-opts: --disks 5 --timeout 900
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

MB=16
CH=16				# 8 KiB chunks: a row holds 3 data chunks
OPTS="log_disks 1 log_ratio 1 log_tracks 1 track_sectors 32 regions 5 log_buffers 8"

MEMBERS=
i=0
while [ $i -lt 5 ]; do
	dm_create "w$i" "0 $((MB * 2048)) linear $(disk $i) 0" || die "dm-linear over $(disk $i)"
	MEMBERS="$MEMBERS${MEMBERS:+ }/dev/mapper/w$i"
	i=$((i + 1))
done

pf() { rl_plog p "$1"; }
# eventually CMD...: CMD succeeds within 60 s (polled)
eventually() {
	_i=0
	while ! "$@"; do
		[ "$_i" -ge 300 ] && return 1
		sleep 0.2
		_i=$((_i + 1))
	done
}
# region 0's line of plog_regions: "<r> <fill_segs> <buffered_recs> <reints>"
region0() { dmsetup message p 0 plog_regions | awk '$1 == 0 { print $'"$1"' }'; }

RL_OPTS="$OPTS" check "plog over 5 disks, five regions, no metadata" \
	rl_plog_create p $CH $MEMBERS
check "initial resync finishes" rl_wait_sync p 600
check "five regions" test "$(pf 4)" = 5
check "16 KiB segments" test "$(pf 7)" = 32
S=$(pf 5)
SEGS=$(($(pf 6) * CH / 32))	# sublog chunks -> segments (L = 1)
# region 0's data: its S rows of 3 chunks, the first of the array
R0=$((S * 3 * CH / 2))		# KiB
echo "    S $S chunks, $SEGS segments a log, region 0 holds $R0 KiB"
check "region 0's log holds 8 segments or more" test "$SEGS" -ge 8

# a quarter of the log's records (about 3 per segment) into the first
# half of region 0; the log writer writes each buffer once it is full.
# Each pass keeps its own verify state, and the passes write apart.
H=$((R0 / 2))
N1=$((SEGS * 3 / 4))
FIO_STATE_DIR=/tmp/fs1 FIO_RUNTIME=60 check "first pass: $N1 writes verify" \
	fio_write_then_verify /dev/mapper/p "${H}k" --io_size=$((N1 * 4))k
sleep 1
check "region 0 has segments on disk or buffered" test "$(region0 2)" -ge 2
check "and no reintegration yet" test "$(region0 4)" = 0

# segment 0 of region 0's log: member 0, sectors [0, 32), on disk
magic() { dd if=/dev/mapper/w0 bs=512 count=1 iflag=direct 2>/dev/null | od -A n -t x1 -j 4 -N 4 | tr -d ' '; }
check "segment 0 is on member 0 (magic PLSG)" test "$(magic)" = 504c5347
kmsg "damaging region 0's log segment 0"
dd if=/dev/urandom of=/dev/mapper/w0 bs=512 seek=0 count=32 oflag=direct conv=notrunc,fsync \
	2>/dev/null || die "damage"

# writes enough to fill the log (about 3 records a segment) into the
# second half, each block once: its reintegration must come
N2=$((SEGS * 6))
[ "$N2" -le $((H / 4)) ] || N2=$((H / 4))
check "the second pass fills the log" test "$N2" -gt $((SEGS * 3 + SEGS / 2))
_before=$(dmesg_mark)
FIO_STATE_DIR=/tmp/fs2 FIO_IODEPTH=16 FIO_RUNTIME=120 \
	check "second pass: $N2 writes verify" \
	fio_write_then_verify /dev/mapper/p "${H}k" --offset="${H}k" \
	--io_size=$((N2 * 4))k
# the reintegration runs in the background: its message may come later
named() { dmesg_since "$_before" | grep -q 'plog region 0 segment 0: '; }
check "the kernel log names the damaged segment" eventually named
dmesg_since "$_before" | grep 'plog region' | head -n 3 | sed 's/^/    /'
# the region recomputed, its log dropped: nothing left of region 0's log
# (plog_regions: segments on disk and in memory) once it is reintegrated
settled() {
	dm_message p reintegrate 2>/dev/null || return 1
	_f=$(region0 2)
	[ "${_f:-0}" -eq 0 ]
}
check "region 0's log is dropped and the rest reintegrated" eventually settled
FIO_STATE_DIR=/tmp/fs1 check "the first pass still verifies" \
	fio_verify /dev/mapper/p "${H}k" --io_size=$((N1 * 4))k
check "no region keeps a log" test "$(pf 16)" = 0
check "check after the recomputation: 0" test "$(rl_scrub p check 300)" = 0

# negative control: the same garbage in region 0's check slots (on data
# member 1, the last S/4 chunks of its slice, which starts at sector 0)
kmsg "damaging region 0's parity"
dd if=/dev/urandom of=/dev/mapper/w1 bs=512 seek=$(((S - S / 4) * CH)) count=32 \
	oflag=direct conv=notrunc,fsync 2>/dev/null || die "damage"
check "check finds the damaged parity" test "$(rl_scrub p check 300)" -gt 0
check "repair" rl_scrub p repair 300
check "check after repair: 0" test "$(rl_scrub p check 300)" = 0

check "remove" dm_remove p
i=0
while [ $i -lt 5 ]; do
	dm_remove "w$i"
	i=$((i + 1))
done
finish
