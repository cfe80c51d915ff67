#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# raidlab bench --preset cpu-path, guest side (busybox sh, run through the
# VM lab by tools/raidlab_lib/bench/cpupath.py). The cost of the I/O path
# on RAM-backed members (brd), where the CPU is the bottleneck: the same
# members, chunk and fio job through dm-raidlab, the kernel's own targets
# (dm-linear, dm-stripe) and md. Under TCG only ratios measured side by side
# mean anything, so the host interleaves the configurations in rounds.
#
# Its argument is a plan file, one directive per line:
#
#   set KEY VALUE       runtime SECS (one fio run), members N (brd disks),
#                       member_mb MIB (each brd disk), chunk_kb K,
#                       iodepth D, profile 1 (sample each 4k-randread run
#                       with the perf that vm-run.sh --extra put in
#                       /rl/extra/perf: tools/raidlab_lib/bench/profile.py)
#   round R             the round the next lines belong to
#   config CFG          remove the current array, create CFG over the brd
#                       members: brd (/dev/ram0 itself), linear (dm-linear
#                       over ram0), dm-stripe (all members), md-raid0,
#                       md-raid1 (ram0, ram1), md-raid5 (all), or
#                       rl-SCHEME[:POLICY] (raid0, mirror over ram0 and
#                       ram1, raid5 over all; assume_clean where it is
#                       redundant; POLICY: sched fifo, look or satf)
#   job WL              one fio run of workload WL on the current array:
#                       4k-randread, 4k-randwrite (iodepth D), 1m-write
#                       (sequential, iodepth 4)
#
# Output in /out/cpupath/: R-CFG-WL.json (fio), and with profile
# R-CFG-WL.perf (perf record) and kallsyms. Console: "bench: point K R CFG
# WL IOPS" after each run.
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

PLAN=$1
OUT=$RL_OUT/cpupath
mkdir -p "$OUT"
RUNTIME=5 MEMBERS=4 MEMBER_MB=256 CHUNK_KB=64 IODEPTH=32 PROFILE=0
while read -r w k v; do
	[ "$w" = set ] || continue
	case $k in
	runtime) RUNTIME=$v ;;
	members) MEMBERS=$v ;;
	member_mb) MEMBER_MB=$v ;;
	chunk_kb) CHUNK_KB=$v ;;
	iodepth) IODEPTH=$v ;;
	profile) PROFILE=$v ;;
	esac
done <"$PLAN"
say() { echo "bench: $*"; }
PERF=/rl/extra/perf
perf() { "$PERF/lib/ld-linux-x86-64.so.2" --library-path "$PERF/lib" "$PERF/perf" "$@"; }
if [ "$PROFILE" = 1 ]; then
	[ -x "$PERF/perf" ] || die "bench: profile asked, but no perf in $PERF (vm-run.sh --extra)"
	perf --version >/dev/null 2>&1 || die "bench: the staged perf does not run"
	cat /proc/kallsyms >"$OUT/kallsyms"
fi
modprobe brd rd_nr="$MEMBERS" rd_size=$((MEMBER_MB * 1024)) || die "bench: modprobe brd"
modprobe dm-mod 2>/dev/null
RAMS=
_i=0
while [ $_i -lt "$MEMBERS" ]; do
	[ -b /dev/ram$_i ] || die "bench: no /dev/ram$_i"
	RAMS="$RAMS /dev/ram$_i"
	_i=$((_i + 1))
done
SECTORS=$((MEMBER_MB * 2048))
CHUNK=$((CHUNK_KB * 2))
DEV=
KIND=

drop() { # the current array
	case $KIND in
	md) mdadm --stop /dev/md0 >/dev/null 2>&1 ;;
	dm) dm_remove arr ;;
	esac
	KIND= DEV=
}

# create CFG: the array over the brd members; DEV is its node
create() {
	_cfg=$1
	set -- $RAMS
	case $_cfg in
	brd)
		KIND=raw DEV=$1
		;;
	linear)
		dm_create arr "0 $SECTORS linear $1 0" || die "bench: dm-linear"
		KIND=dm DEV=/dev/mapper/arr
		;;
	dm-stripe)
		_w=
		for _d in "$@"; do _w="$_w $_d 0"; done
		dm_create arr "0 $((SECTORS / CHUNK * CHUNK * $#)) striped $# $CHUNK$_w" ||
			die "bench: dm-stripe"
		KIND=dm DEV=/dev/mapper/arr
		;;
	md-*)
		_lvl=${_cfg#md-raid}
		[ "$_lvl" = 1 ] && set -- "$1" "$2"
		_c="--chunk=$CHUNK_KB"
		[ "$_lvl" = 1 ] && _c=
		# shellcheck disable=SC2086
		mdadm --create /dev/md0 --run --quiet --assume-clean --metadata=1.2 \
			--level="$_lvl" --raid-devices=$# $_c "$@" >/tmp/mdadm.log 2>&1 ||
			{ cat /tmp/mdadm.log; die "bench: mdadm --create $_cfg"; }
		KIND=md DEV=/dev/md0
		;;
	rl-*)
		_s=${_cfg#rl-}
		_pol=${_s#*:}
		_s=${_s%%:*}
		[ "$_pol" = "$_s" ] && _pol=fifo
		[ "$_s" = mirror ] && set -- "$1" "$2"
		RL_OPTS="sched $_pol$([ "$_s" = raid0 ] || echo ' assume_clean')" \
			rl_create arr "$_s" "$CHUNK" "$@" || die "bench: create $_cfg"
		KIND=dm DEV=/dev/mapper/arr
		;;
	*) die "bench: unknown configuration $_cfg" ;;
	esac
}

NPOINT=0
job() { # R CFG WL
	case $3 in
	4k-randread) _a="--rw=randread --bs=4k --iodepth=$IODEPTH" ;;
	4k-randwrite) _a="--rw=randwrite --bs=4k --iodepth=$IODEPTH" ;;
	1m-write) _a="--rw=write --bs=1M --iodepth=4" ;;
	*) die "bench: unknown workload $3" ;;
	esac
	_f="$OUT/$1-$2-$3.json"
	# shellcheck disable=SC2086
	fio --name="$3" --filename="$DEV" --direct=1 --ioengine=libaio $_a \
		--time_based --runtime="$RUNTIME" --ramp_time=1 --size=$((MEMBER_MB / 2))M \
		--randrepeat=0 --norandommap --output-format=json --output="$_f" \
		>/dev/null 2>&1 &
	_fio=$!
	# the profile: the run's measured seconds but its last, after the ramp
	if [ "$PROFILE" = 1 ] && [ "$3" = 4k-randread ]; then
		_pt=$((RUNTIME - 1))
		[ "$_pt" -ge 1 ] || _pt=1
		sleep 1
		perf record -q -e cpu-clock -a -g -F 499 -o "$OUT/$1-$2-$3.perf" \
			-- sleep "$_pt" >/dev/null 2>&1 ||
			die "bench: perf record $2 $3"
	fi
	wait $_fio || die "bench: fio $2 $3"
	NPOINT=$((NPOINT + 1))
	say "point $NPOINT $1 $2 $3 $(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(round(j["read"]["iops"] + j["write"]["iops"]))' "$_f")"
}

ROUND=0
CFG=
while read -r w a; do
	case $w in
	round) ROUND=$a ;;
	config)
		drop
		CFG=$a
		create "$CFG"
		;;
	job) job "$ROUND" "$CFG" "$a" ;;
	esac
done <"$PLAN"
drop
dmesg_clean || die "bench: the kernel log has a warning"
say "done"
exit 0
