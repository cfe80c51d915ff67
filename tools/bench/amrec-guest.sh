#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# raidlab amrec-bench, guest side (busybox sh, run through the VM lab by
# tools/raidlab_lib/bench/amrec.py): altmirror's recovery time with two
# spares under paper 003's read load, beside the plain rebuild onto one.
# Its argument is a plan file of "set KEY VALUE" lines: span_mib MiB (the
# array's length), disk MODEL and time_scale N (dm-hddsim), rate R (the
# read load, reads/s: 1/t_ran), warm SECS (the load before the failure),
# configs "two one" (spares), max SECS (a recovery's bound).
#
# Each config: the members and spares are dm-hddsim disks over the lab's
# disks, zeroed, the array assume_clean with the pool (1 %) on the pmem,
# sched look, queue_depth 1; a Poisson random 4 KiB read load at R/s over the array
# runs; after warm seconds member 1 is failed by message; the status is
# sampled every second until the rebuild ends (status.txt lines "t
# <copied>/<total> <scheme fields>"); then the load stops and check runs.
#
# Output in /out/amrec/: CONFIG-reads.json (fio), CONFIG-status.txt,
# events.txt ("recovery CONFIG SECONDS" and "check CONFIG N" lines).
# Progress lines on the console start with "bench:".
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
. "$RL_TESTS/hddsim.sh"
need_raidlab
need_hddsim

PLAN=$1
OUT=$RL_OUT/amrec
mkdir -p "$OUT"
SPAN_MIB=32 DISK=eagle TIME_SCALE=1 RATE=35 WARM=10 CONFIGS="two one" MAX=1800
while read -r w k v; do
	[ "$w" = set ] || continue
	case $k in
	span_mib) SPAN_MIB=$v ;;
	disk) DISK=$v ;;
	time_scale) TIME_SCALE=$v ;;
	rate) RATE=$v ;;
	warm) WARM=$v ;;
	configs) CONFIGS=$v ;;
	max) MAX=$v ;;
	esac
done <"$PLAN"
PMEM=$(pmem_dev) || die "bench: the recovery bench needs the lab's pmem"
[ "$RL_NDISKS" -ge 4 ] || die "bench: needs 4 disks"
say() { echo "bench: $*"; }
NPOINT=0
point() { NPOINT=$((NPOINT + 1)); say "point $NPOINT $*"; }
now() { cut -d' ' -f1 /proc/uptime; }
LEN=$((SPAN_MIB * 2048))

# hddsim disks hdd0..hdd3 over the first disks, their start zeroed
disks_up() {
	for _i in 0 1 2 3; do
		_d=$(disk $_i)
		dd if=/dev/zero of="$_d" bs=1M count=$((SPAN_MIB + 2)) conv=fsync \
			2>/dev/null || die "bench: zero $_d"
		if [ "$TIME_SCALE" = 1 ]; then
			hdd_create "hdd$_i" "$_d" "$DISK" || die "bench: hddsim $_i"
		else
			hdd_create "hdd$_i" "$_d" "$DISK" time_scale "$TIME_SCALE" ||
				die "bench: hddsim $_i"
		fi
	done
}
disks_down() { for _i in 0 1 2 3; do dm_remove "hdd$_i"; done; }

for cfg in $CONFIGS; do
	wipe "$PMEM" 16 || die "bench: wipe pmem"
	disks_up
	sp="spare /dev/mapper/hdd2"
	[ "$cfg" = two ] && sp="$sp spare /dev/mapper/hdd3"
	# one request at a time in the disk: the paper's disk, and the member
	# queue (foreground reads before the scan) orders everything
	o="metadata $PMEM sched look queue_depth 1 assume_clean $sp"
	# shellcheck disable=SC2086
	set -- $o
	dm_create arr "0 $LEN raidlab altmirror $# $o 2 /dev/mapper/hdd0 /dev/mapper/hdd1" ||
		die "bench: create ($cfg)"
	fio --name=reads --filename=/dev/mapper/arr --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=32 --rate_iops="$RATE" \
		--rate_process=poisson --size="${SPAN_MIB}M" --time_based \
		--runtime=$((MAX + WARM + 60)) --randrepeat=0 --output-format=json \
		--output="$OUT/$cfg-reads.json" >/dev/null 2>&1 &
	load=$!
	sleep "$WARM"
	t0=$(now)
	dm_message arr fail 1 || die "bench: fail ($cfg)"
	: >"$OUT/$cfg-status.txt"
	n=0
	sleep 1
	while rl_health arr | grep -q a || [ "$(rl_st arr 5)" = recover ] ||
		[ "$(rl_scheme_field arr 12)" != none ]; do
		t=$(now)
		echo "$(echo "$t0 $t" | awk '{ printf "%.1f", $2 - $1 }') $(rl_sync arr | cut -d' ' -f2) $(rl_scheme_fields arr)" \
			>>"$OUT/$cfg-status.txt"
		n=$((n + 1))
		[ $((n % 30)) = 0 ] && point "$cfg $(rl_sync arr) $(rl_scheme_fields arr)"
		[ "$(echo "$t0 $t $MAX" | awk '{ print ($2 - $1 > $3) }')" = 1 ] &&
			die "bench: the recovery ($cfg) took over $MAX s"
		sleep 1
	done
	t1=$(now)
	echo "$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') end $(rl_scheme_fields arr)" \
		>>"$OUT/$cfg-status.txt"
	kill -INT "$load"
	wait "$load"
	secs=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
	echo "recovery $cfg $secs" >>"$OUT/events.txt"
	point "$cfg recovery done in $secs s: $(rl_scheme_fields arr); table $(dm_table arr)"
	echo "check $cfg $(rl_scrub arr check 1200)" >>"$OUT/events.txt"
	dm_remove arr
	disks_down
done
say "finished"
finish
