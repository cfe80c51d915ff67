#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The cost of the write-hole journal on small writes, guest side (busybox
# sh, run by tools/bench/journal-bench.sh through the VM lab).
#
# raid5 over 4 disks (chunk 64 KiB, assume_clean), random 4 KiB direct
# writes (fio, libaio, iodepth $DEPTH) over $SPAN MiB of the array, in
# five configurations:
#
#   none          no metadata device
#   dax-off       metadata on pmem (DAX), journal off: write intent only
#   dax-on        metadata on pmem (DAX), journal on (the default)
#   bufio-off     metadata on a plain disk (dm-bufio), journal off (default)
#   bufio-on      metadata on a plain disk (dm-bufio), journal on
#
# The configurations take turns, $ROUNDS rounds of one $RUNTIME s slice
# each, so that drift of the emulator hits them alike. Output in
# /out/journal/: NAME-ROUND.json (fio) and status-NAME-ROUND.txt (the
# array's status line after the slice, with the journal counters).
# Arguments: RUNTIME ROUNDS DEPTH SPAN HDD TSCALE (defaults 10 3 4 64
# none 1): with HDD a dm-hddsim preset (e.g. modern7200), the members and
# the dm-bufio metadata disk are emulated mechanical disks at time_scale
# TSCALE, so that disk time, not the emulator, dominates; the pmem stays
# pmem.
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

RUNTIME=${1:-10}
ROUNDS=${2:-3}
DEPTH=${3:-4}
SPAN=${4:-64}
HDD=${5:-none}
TSCALE=${6:-1}
OUT=$RL_OUT/journal
mkdir -p "$OUT"
PMEM=$(pmem_dev)
[ "$RL_NDISKS" -ge 5 ] || die "bench: needs 5 disks"
RAW="$(disks 5)"
if [ "$HDD" = none ]; then
	DEVS=$(disks 4)
	MD_DISK=$(disk 4)
else
	. "$RL_TESTS/hddsim.sh"
	need_hddsim
	hdd_stack "$HDD" time_scale "$TSCALE"
	DEVS=$(echo "$HDD_DEVS" | cut -d' ' -f1-4)
	MD_DISK=$(echo "$HDD_DEVS" | cut -d' ' -f5)
fi
echo "bench: members $DEVS, bufio metadata $MD_DISK, pmem $PMEM" >"$OUT/setup.txt"
MEMBER_MB=64
LEN=$((MEMBER_MB * 2048 * 3))

table() { # CONFIG
	case $1 in
	none) _o="" ;;
	dax-off) _o="metadata $PMEM journal off" ;;
	dax-on) _o="metadata $PMEM" ;;
	bufio-off) _o="metadata $MD_DISK" ;;
	bufio-on) _o="metadata $MD_DISK journal on" ;;
	esac
	_o="chunk_size 128 assume_clean${_o:+ $_o}"
	echo "0 $LEN raidlab raid5 $(echo "$_o" | wc -w) $_o 4 $DEVS"
}

for r in $(seq 1 "$ROUNDS"); do
	for c in none dax-off dax-on bufio-off bufio-on; do
		for d in $RAW; do
			dd if=/dev/zero of="$d" bs=1M count=4 conv=fsync 2>/dev/null
		done
		dd if=/dev/zero of="$PMEM" bs=1M count=32 conv=fsync 2>/dev/null
		dm_create arr "$(table $c)" || die "bench: create $c"
		fio --name="$c" --filename=/dev/mapper/arr --direct=1 --ioengine=libaio \
			--rw=randwrite --bs=4k --iodepth="$DEPTH" --time_based \
			--runtime="$RUNTIME" --size=${SPAN}M --randrepeat=0 \
			--output-format=json --output="$OUT/$c-$r.json" >/dev/null 2>&1 ||
			die "bench: fio $c"
		dmsetup status arr >"$OUT/status-$c-$r.txt"
		[ "$HDD" = none ] || for h in $DEVS $MD_DISK; do
			echo "$h late $(hdd_st "${h##*/}" late)"
		done >>"$OUT/late-$c-$r.txt"
		echo "bench: round $r $c: $(awk '{ print $(NF - 3), $(NF - 2), $(NF - 1), $NF }' \
			"$OUT/status-$c-$r.txt")"
		dm_remove arr
	done
done
echo "bench: finished"
finish
