#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# raidlab sched-bench tracker, guest side (busybox sh, run through the VM lab
# by tools/raidlab_lib/bench/runner.py with guest=bench/tracker-guest.sh).
# Its argument is a plan file written by tools/raidlab_lib/bench/sched.py:
#
#   set KEY VALUE             runtime SECS (fio run per scale), depth D
#                             (fio iodepth), disks N (members of the array),
#                             preset PRESET (dm-hddsim), sched POLICY
#   scale SID TS GEOMLINE     stack dm-hddsim PRESET with time_scale TS over
#                             the members, a dm-raidlab raid0 over N of them
#                             (queue_depth 1, sched POLICY), load GEOMLINE
#                             into every member's tracker, wait for
#                             calibration (at most 120 s; else cal_s is
#                             "nocal" and fio does not run), run fio (random
#                             4 KiB reads at depth D for SECS) and save the
#                             trackers' status; then remove everything
#
# Output in /out/tracker/SID/: fio.json, trk (lines "before|after <tracker
# message output>"), hdd ("before|after <dm-hddsim status>"), cal_s (seconds
# to calibrate). Progress lines on the console start with "bench:".
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
. "$RL_TESTS/hddsim.sh"

PLAN=$1
[ -r "$PLAN" ] || die "bench: no plan file '$PLAN'"
OUT=$RL_OUT/tracker
mkdir -p "$OUT"
RUNTIME=30 DEPTH=8 NDISK=2 PRESET=lightning SCHED=satf NPOINT=0 CAL_MAX=120

say() { echo "bench: $*"; }
trk() { dmsetup message bench 0 tracker "$1" | tr '\n' ' '; }
trk_cal() { trk "$1" | tr ' ' '\n' | sed -n 's/^cal=//p'; }

snap() { # LABEL DIR
	_i=0
	while [ "$_i" -lt "$NDISK" ]; do
		echo "$1 $(trk "$_i")" >>"$2/trk"
		echo "$1 $(dmsetup status "hdd$_i")" >>"$2/hdd"
		_i=$((_i + 1))
	done
}

scale() { # SID TS GEOMLINE
	_dir=$OUT/$1
	mkdir -p "$_dir"
	hdd_stack "$PRESET" time_scale "$2" || die "bench: hddsim $PRESET time_scale $2"
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $(echo "$HDD_DEVS" | cut -d' ' -f1-"$NDISK")
	_sid=$1 _ts=$2 _g=$3
	shift 3
	RL_OPTS="sched $SCHED queue_depth 1" rl_create bench raid0 128 "$@" ||
		die "bench: raid0 over $*"
	_i=0
	while [ "$_i" -lt "$NDISK" ]; do
		dm_message bench geom "$_i" "$_g" || die "bench: geom $_i refused: $_g"
		_i=$((_i + 1))
	done
	_t=0
	_i=0
	while [ "$_i" -lt "$NDISK" ]; do
		if [ "$(trk_cal "$_i")" = 1 ]; then
			_i=$((_i + 1))
			continue
		fi
		_t=$((_t + 1))
		[ "$_t" -gt $((CAL_MAX * 2)) ] && break
		sleep 0.5
	done
	snap before "$_dir"
	if [ "$_i" -lt "$NDISK" ]; then
		# not calibrated: recorded (cal_s "nocal"), the next scale runs
		echo nocal >"$_dir/cal_s"
		say "scale $_ts: member $_i not calibrated after $CAL_MAX s"
		snap after "$_dir"
		dm_remove bench || die "bench: remove"
		hdd_unstack
		NPOINT=$((NPOINT + 1))
		say "point $NPOINT tracker scale $_ts not calibrated"
		return 0
	fi
	echo "$((_t / 2))" >"$_dir/cal_s"
	say "scale $_ts: trackers calibrated in about $((_t / 2)) s"
	fio --name=tracker --filename=/dev/mapper/bench --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth="$DEPTH" --runtime="$RUNTIME" --time_based \
		--randrepeat=0 --norandommap --eta=never --output-format=json \
		--output="$_dir/fio.json" >/dev/null 2>"$_dir/fio.err" ||
		{ cat "$_dir/fio.err"; die "bench: fio at time_scale $_ts"; }
	snap after "$_dir"
	dm_remove bench || die "bench: remove"
	hdd_unstack
	NPOINT=$((NPOINT + 1))
	say "point $NPOINT tracker scale $_ts $(grep '^after' "$_dir/trk" | head -n 1 |
		tr ' ' '\n' | grep -E '^(n|err_std_ns|miss_pct)=' | tr '\n' ' ')"
}

need_raidlab
need_hddsim
say "plan $(grep -c . "$PLAN") lines, $RL_NDISKS members"
while read -r kind a rest <&3; do
	case $kind in
	'' | '#'*) continue ;;
	set)
		case $a in
		runtime) RUNTIME=$rest ;; depth) DEPTH=$rest ;; disks) NDISK=$rest ;;
		preset) PRESET=$rest ;; sched) SCHED=$rest ;;
		*) die "bench: unknown setting $a" ;;
		esac
		;;
	scale)
		# shellcheck disable=SC2086
		scale "$a" $rest
		;;
	*) die "bench: bad plan line: $kind $a $rest" ;;
	esac
done 3<"$PLAN"
say "finished $NPOINT points"
