#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Parity logging (plog, paper 000) over 5 lab disks (16 MiB of each,
# through dm-linear), with the metadata on pmem (logs on pmem), then on a
# plain disk through dm-bufio (write-intent, parity recomputed for dirty
# regions): the capacity read from the status of a one-chunk array, fio
# write + verify over the whole array (random 4 KiB, mixed sizes, full
# rows), log buffers few enough that writes wait for one (pool_waits > 0)
# and logs small enough that regions fill and are reintegrated
# (reintegrations > 0); "reintegrate" empties every log and "check" then
# finds 0 mismatches; overlapping writes (no random map, a hot 1 %,
# iodepth 16) keep the parity consistent (check 0: this caught plog's
# stale data cache after full-row writes, fixed in plog 4ef623e); a crash
# "at rest" with logs in most regions (the members frozen under the array
# and copied with the metadata device, then put back) reassembles with the
# data intact and check 0; removed and created again, the data verifies
# and check finds 0. Refused tables with their messages. Negative control:
# garbage written under the array onto a member makes check report
# mismatches (and repair clears them). The default tier writes for about
# 40 % of the long tier's (--full) time: in the lab most regions still hold
# a log after the first pass (28 of 30), and regions are reintegrated over
# a hundred times. The bufio round, the same writes through another
# durability, writes half as long again in the default tier, and leaves
# the mixed sizes and the overlapping writes (the log's paths, not the
# durability's) to the long tier.
# vm-opts: --disks 6 --timeout 1500
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

PM=$(pmem_dev)
MB=16				# MiB of each member the array uses
CH=16				# chunk: 8 KiB; a row holds 3 data chunks (24 KiB)
NM=5
# 16 KiB log segments (track_sectors 32, K = 1): about 3 records of 4 KiB
# each, so that a region's sublog fills after a few hundred writes; two
# log buffers for the whole array, so that writes wait for one
PLOG_OPTS="log_disks 1 log_ratio 1 log_tracks 1 track_sectors 32 log_buffers 2"

# the first MB MiB of each of the first NM disks, /dev/mapper/w0..
MEMBERS=
i=0
while [ $i -lt $NM ]; do
	dm_create "w$i" "0 $((MB * 2048)) linear $(disk $i) 0" || die "dm-linear over $(disk $i)"
	MEMBERS="$MEMBERS${MEMBERS:+ }/dev/mapper/w$i"
	i=$((i + 1))
done
MDDISK=$(disk 5)
# MiB of the metadata device a crash copy keeps: all of the pmem (256 MiB
# in the lab; where its record area lies is the module's business), as
# much of the head of the bufio disk
MDMB=$(($(sectors "$PM") / 2048))

pf() { rl_plog p "$1"; }	# K-th plog status field
refused() { dm_refused raidlab "$@"; }

# create MDDEV: a new plog over MEMBERS with its metadata on MDDEV, at its
# own capacity (LEN: its length); waits for the initial resync
create() {
	RL_OPTS="$PLOG_OPTS metadata $1" rl_plog_create p $CH $MEMBERS || return 1
	LEN=$(sectors /dev/mapper/p)
	rl_wait_sync p 600
}

# assemble MDDEV: the same table again (reassembly from the metadata)
assemble() {
	RL_LEN=$LEN RL_OPTS="$PLOG_OPTS metadata $1" rl_create p plog $CH $MEMBERS || return 1
	rl_wait_sync p 600
}

# the array's length in bytes (fio --size)
bytes() { echo $(($(sectors /dev/mapper/p) * 512)); }

# crash_at_rest NAME MDDEV: a crash while the logs hold records. The
# members' dm-linear devices are suspended (plog's array is not: its
# postsuspend would reintegrate every log), so no member write lands from
# then on; the members (read underneath, from the disks) and the metadata
# device are copied; the members are resumed, the array removed (what it
# writes then is overwritten next), the copies put back. A crash at the
# moment of the copy leaves that state: member writes issued after the
# freeze are lost in flight, metadata writes (and DAX stores) that come
# before them in plog's order may be there. The lab's pmem is a shared
# file mapping under TCG: no store is ever lost, so this tests the recovery
# of the logs, not the flushing of the stores.
crash_at_rest() {
	_i=0
	while [ $_i -lt $NM ]; do
		dm_suspend "w$_i" || return 1
		_i=$((_i + 1))
	done
	_i=0
	while [ $_i -lt $NM ]; do
		dd if="$(disk $_i)" of=/tmp/crash.w$_i bs=1M count=$MB iflag=direct 2>/dev/null ||
			return 1
		_i=$((_i + 1))
	done
	dd if="$2" of=/tmp/crash.md bs=1M count=$MDMB 2>/dev/null || return 1
	log "$1: frozen with $(pf 16) regions holding logs, $(pf 12) of $(pf 11) buffers free"
	_i=0
	while [ $_i -lt $NM ]; do
		dm_resume "w$_i" || return 1
		_i=$((_i + 1))
	done
	dm_remove p || return 1
	_i=0
	while [ $_i -lt $NM ]; do
		dd if=/tmp/crash.w$_i of=/dev/mapper/w$_i bs=1M oflag=direct conv=fsync \
			2>/dev/null || return 1
		rm -f /tmp/crash.w$_i
		_i=$((_i + 1))
	done
	dd if=/tmp/crash.md of="$2" bs=1M conv=fsync 2>/dev/null || return 1
	rm -f /tmp/crash.md
	log "$1: crash state restored ($NM members, $MDMB MiB of $2)"
}

# full-row writes: 24 KiB at row boundaries (3 data chunks of 8 KiB)
ROW_BS=$(((NM - 2) * CH / 2))k

# rt DEFAULT FULL: a write pass's seconds; the bufio round, after pmem's,
# writes half as long in the default tier
rt() { if [ "$_rn" = bufio ]; then tier $(($1 / 2)) "$2"; else tier "$1" "$2"; fi; }
# both: true in the pmem round, and in the bufio round of the long tier
both() { [ "$_rn" = pmem ] || [ "$(tier 0 1)" = 1 ]; }

# overlap: several writes to one block in flight at once, no random map,
# in the round's array p of $_sz bytes; the parity must still follow the
# data (check 0), else repair gives what follows a consistent start
overlap() {
	fio --name=overlap --filename=/dev/mapper/p --size="$_sz" --rw=randwrite --bs=4k \
		--ioengine=libaio --iodepth=16 --direct=1 --norandommap --randrepeat=0 \
		--random_distribution=zoned:90/1:10/99 --runtime="$(rt 5 10)" --time_based \
		--output="$RL_OUT/overlap-$_rn.txt" >/dev/null 2>&1
	check "$_rn: overlapping writes done" test $? -eq 0
	check "$_rn: reintegrate after them" dm_message p reintegrate
	_m=$(rl_scrub p check 300)
	check "$_rn: check after overlapping writes finds 0 mismatches ($_m)" test "$_m" = 0
	if [ "$_m" != 0 ]; then
		_m=$(rl_scrub p repair 300)
		log "$_rn: repair after the overlapping writes: $_m"
	fi
}

# round NAME MDDEV DURABILITY: the whole scenario on one metadata backend
round() {
	_rn=$1
	_rmd=$2
	wipe "$_rmd" 4 || die "wipe $_rmd"
	for _d in $MEMBERS; do	# the member superblocks of the last round
		dd if=/dev/zero of="$_d" bs=1M count=1 oflag=direct 2>/dev/null || die "wipe $_d"
	done
	check "$_rn: created at its capacity" create "$_rmd"
	log "$_rn: $(dmsetup table p)"
	check "$_rn: the table counts its options" rl_table_counted p
	log "$_rn: $(dmsetup status p)"
	_cap=$(pf 8)
	_len=$(sectors /dev/mapper/p)
	check "$_rn: length = capacity rounded down to a chunk ($_len of $_cap)" \
		test "$_len" -eq $(((_cap / CH) * CH)) -a "$_len" -gt 0
	check "$_rn: L=1 K=1 in the status" test "$(pf 1) $(pf 3)" = "1 1"
	check "$_rn: segments of one 32-sector track" test "$(pf 7)" = 32
	check "$_rn: durability $(pf 9) (logs on pmem, or write-intent)" test "$(pf 9)" = "$3"
	_sz=$(bytes)

	FIO_IODEPTH=16 FIO_RUNTIME=$(rt 16 40) check "$_rn: random 4 KiB writes over the whole array verify" \
		fio_write_then_verify /dev/mapper/p "$_sz"
	_l=$(pf 16)
	check "$_rn: regions hold logs after the writes ($_l)" test "$_l" -gt 0
	check "$_rn: crash at rest with logs in $_l regions" crash_at_rest "$_rn" "$_rmd"
	check "$_rn: assembled from the crash state" assemble "$_rmd"
	check "$_rn: data verifies after the crash" fio_verify /dev/mapper/p "$_sz"
	_m=$(rl_scrub p check 300)
	check "$_rn: check after the crash finds 0 mismatches ($_m)" test "$_m" = 0
	both && FIO_IODEPTH=8 FIO_RUNTIME=$(rt 10 25) check "$_rn: mixed sizes (2-48 KiB) verify" \
		fio_write_then_verify /dev/mapper/p "$_sz" --bssplit=2k/20:4k/30:8k/20:24k/15:48k/15 \
		--blockalign=2k
	FIO_IODEPTH=8 FIO_RUNTIME=$(rt 8 20) FIO_BS=$ROW_BS check "$_rn: full-row writes ($ROW_BS) verify" \
		fio_write_then_verify /dev/mapper/p "$_sz" --blockalign="$ROW_BS"
	log "$_rn: $(dmsetup status p)"
	_w=$(pf 14)
	_r=$(pf 15)
	check "$_rn: writes waited for a log buffer (pool_waits $_w)" test "$_w" -gt 0
	check "$_rn: full regions were reintegrated (reintegrations $_r)" test "$_r" -gt 0
	check "$_rn: pool's low-water mark within the pool ($(pf 13) of $(pf 11))" \
		test "$(pf 13)" -le "$(pf 11)"
	check "$_rn: plog_regions message" dm_message p plog_regions
	check "$_rn: reintegrate message" dm_message p reintegrate
	_i=0
	while [ "$(pf 16)" != 0 ] && [ $_i -lt 300 ]; do
		sleep 0.2
		_i=$((_i + 1))
	done
	check "$_rn: no region holds a log after reintegrate ($(pf 16))" test "$(pf 16)" = 0
	check "$_rn: more reintegrations after it ($(pf 15) > $_r)" test "$(pf 15)" -gt "$_r"
	_m=$(rl_scrub p check 300)
	check "$_rn: check after reintegrate finds 0 mismatches ($_m)" test "$_m" = 0

	both && overlap

	# writes after reintegrate: their logs stay, then the array goes away
	FIO_IODEPTH=8 FIO_RUNTIME=$(rt 6 15) check "$_rn: more 4 KiB writes verify" \
		fio_write_then_verify /dev/mapper/p "$_sz"
	_l=$(pf 16)
	log "$_rn: regions with a log before removal: $_l"
	check "$_rn: removed" dm_remove p
	check "$_rn: created again from the same table" assemble "$_rmd"
	check "$_rn: data verifies after reassembly" fio_verify /dev/mapper/p "$_sz"
	_m=$(rl_scrub p check 300)
	check "$_rn: check after reassembly finds 0 mismatches ($_m)" test "$_m" = 0
}

round pmem "$PM" pmem
check "pmem: removed" dm_remove p
round bufio "$MDDISK" intent

# ---- negative control: garbage under the array, on a member ---------------
check "control: reintegrated" dm_message p reintegrate
check "control: removed" dm_remove p
# 1 MiB at 8 MiB of member 2: a region's slice or sublog there spans at
# most about 16 MiB / B (B ~ 32 regions, ~0.5 MiB), so the 1 MiB holds data
# or parity of some region whatever the layout
dd if=/dev/urandom of=/dev/mapper/w2 bs=64k seek=128 count=16 oflag=direct conv=fsync \
	2>/dev/null || die "garbage onto w2"
check "control: created again" assemble "$MDDISK"
_m=$(rl_scrub p check 300)
check "control: check finds the garbage ($_m mismatches)" test "${_m:-0}" -gt 0
_m=$(rl_scrub p repair 300)
log "control: repair: $_m"
_m=$(rl_scrub p check 300)
check "control: check after repair finds 0 ($_m)" test "$_m" = 0
check "control: removed" dm_remove p

# ---- refused tables ---------------------------------------------------------
# the kernel's messages (grep patterns after "raidlab: ")
MSG_LOG_DISKS="Invalid log_disks"
MSG_FEW_DATA="plog: log_disks must leave at least two data members"
MSG_LOG_RATIO="Invalid log_ratio: a decimal such as 1, 0.5 or 2.25, at most 64"
MSG_LOG_TRACKS="Invalid log_tracks"
MSG_DATA_CACHE="Invalid data_cache"
MSG_TRACK="plog: track_sectors must be a multiple of 8 (4 KiB)"
M=$MEMBERS
L1="0 $CH raidlab plog"
refused "$L1 4 chunk_size $CH log_disks 0 5 $M" "$MSG_LOG_DISKS"
refused "$L1 4 chunk_size $CH log_disks 4 5 $M" "$MSG_FEW_DATA"
refused "$L1 4 chunk_size $CH track_sectors 12 5 $M" "$MSG_TRACK"
refused "$L1 4 chunk_size $CH log_disks x 5 $M" "$MSG_LOG_DISKS"
refused "$L1 4 chunk_size $CH log_ratio abc 5 $M" "$MSG_LOG_RATIO"
refused "$L1 4 chunk_size $CH log_ratio 1.2.3 5 $M" "$MSG_LOG_RATIO"
refused "$L1 4 chunk_size $CH log_ratio 0 5 $M" "$MSG_LOG_RATIO"
refused "$L1 4 chunk_size $CH log_tracks 0 5 $M" "$MSG_LOG_TRACKS"
refused "$L1 4 chunk_size $CH data_cache x 5 $M" "$MSG_DATA_CACHE"
refused "$L1 4 chunk_size $CH stripe_cache 64 5 $M" "stripe_cache is not a plog option"
refused "$L1 6 chunk_size $CH log_disks 1 log_disks 1 5 $M" "Duplicate log_disks"
refused "0 $CH raidlab raid5 4 chunk_size $CH log_disks 1 5 $M" "log_disks needs the plog scheme"
refused "0 $CH raidlab raid0 4 chunk_size $CH data_cache 0 5 $M" "data_cache needs the plog scheme"
refused "0 $CH raidlab mirror 4 chunk_size $CH log_ratio 1 2 /dev/mapper/w0 /dev/mapper/w1" \
	"log_ratio needs the plog scheme"

i=0
while [ $i -lt $NM ]; do
	dm_remove "w$i"
	i=$((i + 1))
done
finish
