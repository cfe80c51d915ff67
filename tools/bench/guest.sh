#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# raidlab bench / raidlab trace, guest side (busybox sh, run through the VM lab
# by tools/raidlab_lib/bench/runner.py). Its argument is a plan file written by
# the host (tools/raidlab_lib/bench/plan.py), one directive per line:
#
#   set KEY VALUE...          runtime SECS, target auto|MS, auto_factor F,
#                             ladder D..., refine K, disk_model none|PRESET,
#                             time_scale N, procs P, ramp SECS (a run's or a
#                             job point's first seconds, unmeasured: fio
#                             ramp_time), member_mb MIB (each member used up
#                             to MIB: dm-linear, or the dm-hddsim target's
#                             length)
#   span CID MIB              the next array, CID (an altmirror), is the first
#                             MIB MiB of its members after the metadata
#                             device's data offset (its pool is a fraction of
#                             the array: a shorter array, a smaller batch)
#   config CID KIND LEVEL NDISKS CHUNK_KB [WORD...]
#                             create the array (KIND rl: dm-raidlab, md: mdadm)
#                             over the first NDISKS members; it stays until the
#                             next config line; WORDs are extra dm-raidlab table
#                             options (e.g. sched satf queue_depth 1)
#   fail CID I                fail member I of the current array (dm-raidlab:
#                             the fail message; md: mdadm --fail) and wait
#                             until it is degraded: no spare, no rebuild, so
#                             that the jobs after it measure a degraded array
#   geom CID LINE             load the geometry LINE into every member's
#                             tracker (dm-raidlab geom message) and wait until
#                             all are calibrated; the tracker lines then go
#                             into every .mstat ("before-trk"/"after-trk")
#   job CID WID FIO-ARGS...   the p90 search of workload WID on the current
#                             array: fio runs at outstanding-request depths
#                             from the ladder until p90 exceeds the target,
#                             then K bisection steps (search.py mirrors this)
#   run CID WID WS_MIB FIO-ARGS...
#                             one saturation run: P (procs) closed-loop fio
#                             processes with one request outstanding each,
#                             RAMP seconds unmeasured then RUNTIME measured;
#                             WS_MIB > 0: a sequential pass of 16 KiB writes
#                             over the first WS_MIB MiB first (warms plog's
#                             data cache, which keeps written blocks). For a
#                             plog array its status goes into dP.status, and
#                             dP.timeline gets a line a second from the start
#                             of the ramp: seconds, pool_free, pool_waits,
#                             reintegrations, regions_with_log,
#                             max_region_fill_segs
#   trace CID WID DEPTH FIO-ARGS...
#                             one fio run at DEPTH with blktrace on the array
#                             and on every member; the array's trace is kept
#                             for replay
#   replay CID WID DEPTH      replay the last recorded array trace (fio
#                             read_iolog) on the current array, members traced
#
# Output in /out/bench/CID/WID/: dDEPTH.json (fio: the reads, the writes
# and both together), dDEPTH.mstat (member /sys/block/*/stat before and
# after, and a dm-raidlab array's status: "before-st"/"after-st"), target
# (the p90 target in ns); traces
# in /out/trace/CID/WID/: array.txt, members.txt (blkparse), fio.json.
# Progress lines on the console start with "bench:".
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"

PLAN=$1
[ -r "$PLAN" ] || die "bench: no plan file '$PLAN'"
OUT=$RL_OUT/bench
TOUT=$RL_OUT/trace
mkdir -p "$OUT" "$TOUT"
set -f # fio arguments hold no globs, and must not be expanded

RUNTIME=3 TARGET=auto AUTO_FACTOR=4 LADDER="1 2 4 8 16 32" REFINE=1
DISK_MODEL=none TIME_SCALE=1 PROCS=0 RAMP=0 MEMBER_MB=0
DEV= CUR= MEMBERS= NPOINT=0 TRACKED=0 SPAN_MIB=0 SPAN_CID=
MDNUM=0

say() { echo "bench: $*"; }

# ------------------------------------------------------------- members ---
# members N: the first N member paths, under hddsim when a disk model is set
members() {
	_n=$1
	if [ "$DISK_MODEL" = none ] && [ "$MEMBER_MB" = 0 ]; then
		disks "$_n"
		return
	fi
	_i=0
	_l=
	while [ "$_i" -lt "$_n" ]; do
		_l="$_l${_l:+ }/dev/mapper/hdd$_i"
		_i=$((_i + 1))
	done
	echo "$_l"
}

setup_disk_model() {
	if [ "$DISK_MODEL" = none ]; then
		[ "$MEMBER_MB" = 0 ] && return 0
		# the first MEMBER_MB MiB of each member, through dm-linear
		_i=0
		while [ "$_i" -lt "$RL_NDISKS" ]; do
			_d=$(disk "$_i")
			_len=$(sectors "$_d")
			[ $((MEMBER_MB * 2048)) -lt "$_len" ] && _len=$((MEMBER_MB * 2048))
			dm_create "hdd$_i" "0 $_len linear $_d 0" || die "bench: linear over $_d failed"
			_i=$((_i + 1))
		done
		say "members: the first $_len sectors of $RL_NDISKS disks"
		return 0
	fi
	if ! grep -q '^dm_hddsim ' /proc/modules; then
		modprobe dm-hddsim 2>/dev/null ||
			insmod "/lib/modules/$KVER/extra/dm-hddsim.ko" 2>/dev/null ||
			{ echo "SKIP: bench: --disk-model $DISK_MODEL needs dm-hddsim.ko in the guest, and it is missing"; exit 77; }
	fi
	_opt=
	[ "$TIME_SCALE" != 1 ] && _opt=" 2 time_scale $TIME_SCALE"
	# the emulated disk's capacity (status word 5) bounds the length
	dm_create hddprobe "0 8 hddsim $(disk 0) 0 $DISK_MODEL$_opt" ||
		die "bench: hddsim $DISK_MODEL$_opt refused (see dmesg)"
	_cap=$(dmsetup status hddprobe | awk '{ print $5 }')
	dm_remove hddprobe
	_i=0
	while [ "$_i" -lt "$RL_NDISKS" ]; do
		_d=$(disk "$_i")
		_len=$(sectors "$_d")
		[ "$_cap" -lt "$_len" ] && _len=$_cap
		[ "$MEMBER_MB" != 0 ] && [ $((MEMBER_MB * 2048)) -lt "$_len" ] && _len=$((MEMBER_MB * 2048))
		dm_create "hdd$_i" "0 $_len hddsim $_d 0 $DISK_MODEL$_opt" ||
			die "bench: hddsim over $_d ($DISK_MODEL) failed"
		_i=$((_i + 1))
	done
	say "disk model $DISK_MODEL (time_scale $TIME_SCALE) over $RL_NDISKS members of $_len sectors"
}

# sysfs stat file of a member path, by its device number (dm nodes made
# without udev are plain nodes named after the mapping)
mstat_file() {
	# shellcheck disable=SC2046
	set -- $(stat -L -c '%t %T' "$1")
	echo "/sys/dev/block/$((0x$1)):$((0x$2))/stat"
}

mstat() { # label: one line per member "label path stat-fields..."
	for _m in $MEMBERS; do
		echo "$1 $_m $(cat "$(mstat_file "$_m")")"
		# dm-hddsim's status: "label-hdd path <status words>"
		case $_m in
		/dev/mapper/hdd*) echo "$1-hdd $_m $(dmsetup status "${_m#/dev/mapper/}")" ;;
		esac
	done
	# the array's own status ("label-st <dmsetup status>"): altmirror's
	# pool and batch counters, for instance
	case $DEV in /dev/mapper/bench) echo "$1-st $(dmsetup status bench)" ;; esac
	_i=0
	while [ "$_i" -lt "$TRACKED" ]; do
		# "label-trk <member> samples=.. errors=.. period_ns=.. cal=.. n=.. ..."
		echo "$1-trk $(dmsetup message bench 0 tracker "$_i" | tr '\n' ' ')"
		_i=$((_i + 1))
	done
}

# geom CID LINE: trackers of every member of the current dm-raidlab array
trk_cal() { dmsetup message bench 0 tracker "$1" | tr ' ' '\n' | sed -n 's/^cal=//p'; }
geom() {
	[ "$1" = "$CUR" ] || die "bench: geom for $1 but the array is $CUR"
	case $DEV in /dev/mapper/bench) ;; *) die "bench: geom needs a dm-raidlab array" ;; esac
	_n=$(echo "$MEMBERS" | wc -w)
	_i=0
	while [ "$_i" -lt "$_n" ]; do
		dm_message bench geom "$_i" "$2" || die "bench: geom $_i $2 refused"
		_i=$((_i + 1))
	done
	TRACKED=$_n
	_t=0
	_i=0
	while [ "$_i" -lt "$_n" ]; do
		if [ "$(trk_cal "$_i")" = 1 ]; then
			_i=$((_i + 1))
			continue
		fi
		_t=$((_t + 1))
		[ "$_t" -gt 600 ] && die "bench: member $_i not calibrated after 300 s"
		sleep 0.5
	done
	say "geom $CUR: $_n trackers calibrated in about $((_t / 2)) s"
}

# -------------------------------------------------------------- arrays ---
teardown() {
	[ -z "$CUR" ] && return 0
	TRACKED=0
	case $DEV in
	/dev/md*)
		mdadm --stop "$DEV" >/dev/null 2>&1 || die "bench: mdadm --stop $DEV"
		for _m in $MEMBERS; do mdadm --zero-superblock "$_m" >/dev/null 2>&1; done
		;;
	*) dm_remove bench || die "bench: dmsetup remove bench" ;;
	esac
	CUR= DEV=
}

create() { # CID KIND LEVEL NDISKS CHUNK_KB [WORD...]
	teardown
	CUR=$1
	_o=
	# shellcheck disable=SC2046
	MEMBERS=$(members "$4")
	case $2 in
	rl)
		grep -q '^dm_raidlab ' /proc/modules || modprobe dm-raidlab ||
			die "bench: modprobe dm-raidlab failed"
		_o=
		# fresh members read zeroes: consistent, as md's --assume-clean
		# arrays below (the mirror and sr too: without metadata they
		# resync in full at creation, under the measurement: every
		# replica of every copy read and written; altmirror's resync
		# copies disk 0 to disk 1 the same way)
		case $3 in mirror | raid4 | raid5 | raid6 | plog | raid10 | chained | sr | altmirror)
			_o=assume_clean ;;
		esac
		if [ $# -gt 5 ]; then _o="$_o${_o:+ }$(shift 5; echo "$*")"; fi
		# a new array over the pmem: the metadata and the members'
		# superblocks (an earlier array's) wiped
		case $_o in
		*"metadata $(pmem_dev)"*)
			wipe "$(pmem_dev)" 4
			for _m in $MEMBERS; do wipe "$_m" 1; done
			;;
		esac
		if [ "$3" = sr ]; then
			# sized by its geometry: raidlab create computes the length
			# shellcheck disable=SC2086
			sr_create $(($5 * 2)) $_o || die "bench: create raidlab sr over $MEMBERS ($_o)"
		elif [ "$3" = plog ]; then
			# its capacity is its own (regions, sublogs): discovered
			# shellcheck disable=SC2086
			if ! RL_OPTS=$_o rl_plog_create bench $(($5 * 2)) $MEMBERS; then
				# without assume_clean: an initial resync, waited for
				dmesg | tail -n 2
				_o=${_o#assume_clean}
				# shellcheck disable=SC2086
				RL_OPTS=$_o rl_plog_create bench $(($5 * 2)) $MEMBERS ||
					die "bench: create raidlab plog over $MEMBERS ($_o)"
				rl_wait_sync bench 1800 || die "bench: plog resync did not end"
			fi
			say "plog $CUR: L A K B S G seg cap = $(rl_plog bench 1) $(rl_plog bench 2)" \
				"$(rl_plog bench 3) $(rl_plog bench 4) $(rl_plog bench 5) $(rl_plog bench 6)" \
				"$(rl_plog bench 7) $(rl_plog bench 8)"
		elif [ "$3" = altmirror ]; then
			# both members hold every block at the same offset, after
			# the metadata device's 1 MiB data offset, in whole 4 KiB
			# blocks (rl_len knows no altmirror); or the span asked
			_len=
			for _m in $MEMBERS; do
				_z=$(sectors "$_m")
				[ -z "$_len" ] || [ "$_z" -lt "$_len" ] && _len=$_z
			done
			_len=$(((_len - 2048) / 8 * 8))
			if [ "$SPAN_CID" = "$1" ]; then
				[ $((SPAN_MIB * 2048)) -le "$_len" ] ||
					die "bench: span $SPAN_MIB MiB is more than $CUR's $_len sectors"
				_len=$((SPAN_MIB * 2048))
			fi
			# shellcheck disable=SC2086
			RL_LEN=$_len RL_OPTS=$_o rl_create bench altmirror $(($5 * 2)) $MEMBERS ||
				die "bench: create raidlab altmirror over $MEMBERS ($_o)"
			say "altmirror $CUR: $(rl_scheme_fields bench)"
		else
			# shellcheck disable=SC2086
			RL_OPTS=$_o rl_create bench "$3" $(($5 * 2)) $MEMBERS ||
				die "bench: create raidlab $3 over $MEMBERS"
		fi
		DEV=/dev/mapper/bench
		;;
	md)
		_md=/dev/md$MDNUM
		MDNUM=$((MDNUM + 1))
		_c=
		[ "$3" = raid1 ] || _c="--chunk=$5"
		# shellcheck disable=SC2086
		mdadm --create "$_md" --run --quiet --assume-clean --metadata=1.2 \
			--level="${3#raid}" --raid-devices="$4" $_c $MEMBERS >/tmp/mdadm.log 2>&1 ||
			{ cat /tmp/mdadm.log; die "bench: mdadm --create $3 over $MEMBERS"; }
		DEV=$_md
		;;
	*) die "bench: unknown array kind $2" ;;
	esac
	say "config $CUR: $2 $3 over $4 disks, chunk ${5}k, $(sectors "$DEV") sectors ($DEV)${_o:+ $_o}"
}

# sr_create CHUNK_SECTORS WORD...: an sr array over $MEMBERS through
# raidlab create (which sizes it by the geometry line): the table words
# as its options (metadata, sched, queue_depth, assume_clean its own flags)
sr_create() {
	_ch=$1
	shift
	set -- "$@" end
	_args= _md=--no-metadata
	while [ "$1" != end ]; do
		case $1 in
		assume_clean) _args="$_args --assume-clean"; shift; continue ;;
		metadata) _md="--metadata $2" ;;
		sched) _args="$_args --sched $2" ;;
		queue_depth) _args="$_args --queue-depth $2" ;;
		*) _args="$_args --opt $1=$2" ;;
		esac
		shift 2
	done
	# shellcheck disable=SC2086
	python3 "$RL_TOOLS/raidlab" create bench --scheme sr --chunk "$_ch" $_md $_args \
		--force $MEMBERS >/tmp/sr-create.log 2>&1 || { cat /tmp/sr-create.log; return 1; }
	# the scheme group, the status line's last "sr": sr <n> <Ds> <Dr> <Dm> ..
	say "sr $CUR: $(dmsetup status bench | awk '{ for (i = 1; i < NF; i++) if ($i == "sr") g = i
		print $(g + 2) "x" $(g + 3) "x" $(g + 4) }') (Ds x Dr x Dm)"
}

# fail CID I: member I of the current array failed, the array degraded
fail() {
	[ "$1" = "$CUR" ] || die "bench: fail $1: the current array is $CUR"
	_m=$(echo "$MEMBERS" | awk -v i="$2" '{ print $(i + 1) }')
	[ -n "$_m" ] || die "bench: fail $1: no member $2"
	case $DEV in
	/dev/md*)
		mdadm "$DEV" --fail "$_m" >/dev/null 2>&1 || die "bench: mdadm --fail $_m"
		grep -q "^$(basename "$DEV") : active.*(F)" /proc/mdstat ||
			die "bench: $DEV did not mark $_m faulty"
		;;
	*)
		dm_message bench fail "$2" || die "bench: fail $2"
		[ "$(rl_state bench)" = degraded ] || die "bench: $CUR not degraded after fail $2"
		;;
	esac
	say "fail $CUR: member $2 ($_m) failed, no spare"
}

# ----------------------------------------------------------------- fio ---
# p90 (ns) of a fio JSON output: the unified ("mixed") completion latency
# (with unified_rw_reporting=both the reads' and the writes' come first)
p90_of() {
	sed -n '/"mixed" : {/,$p' "$1" | grep -o '"90.000000" : [0-9]*' | head -n 1 |
		awk '{ print $3 }'
}
iops_of() {
	sed -n '/"mixed" : {/,$p' "$1" | grep -o '"iops" : [0-9.]*' | head -n 1 |
		awk '{ printf "%d", $3 }'
}

# point DIR DEPTH FIO-ARGS...: one fio run at DEPTH outstanding (closed
# loop; an open loop's bound); fio reports the reads and the writes
# apart as well as together (unified_rw_reporting=both: an open loop's
# read response is paper 003's Fig. 8); with RAMP its first RAMP
# seconds are not measured, and the "before" snapshot is taken then
point() {
	_dir=$1
	_d=$2
	shift 2
	NPOINT=$((NPOINT + 1))
	_bg=
	if [ "$RAMP" -gt 0 ]; then
		(
			sleep "$RAMP"
			mstat before >"$_dir/d$_d.mstat"
		) &
		_bg=$!
		set -- --ramp_time="$RAMP" "$@"
	else
		mstat before >"$_dir/d$_d.mstat"
	fi
	fio --name=bench --filename="$DEV" --direct=1 --ioengine=libaio --iodepth="$_d" \
		--numjobs=1 --runtime="$RUNTIME" --time_based --randrepeat=0 --norandommap \
		--unified_rw_reporting=both --percentile_list=50:90:99 --eta=never \
		--output-format=json --output="$_dir/d$_d.json" "$@" >/dev/null 2>"$_dir/d$_d.err" ||
		{ cat "$_dir/d$_d.err"; die "bench: fio $CUR $_d $*"; }
	[ -z "$_bg" ] || wait "$_bg"
	mstat after >>"$_dir/d$_d.mstat"
	P90=$(p90_of "$_dir/d$_d.json")
	[ -n "$P90" ] || die "bench: no p90 in $_dir/d$_d.json"
	say "point $NPOINT $CUR $WID depth $_d p90_us $((P90 / 1000)) iops $(iops_of "$_dir/d$_d.json")"
}

# job CID WID FIO-ARGS...: the p90 search (tools/raidlab_lib/bench/search.py)
job() {
	[ "$1" = "$CUR" ] || die "bench: job for $1 but the array is $CUR"
	WID=$2
	shift 2
	_dir=$OUT/$CUR/$WID
	mkdir -p "$_dir"
	_good=0 _bad=0 _n=0
	_target=
	[ "$TARGET" = auto ] || _target=$(awk -v m="$TARGET" 'BEGIN { printf "%.0f", m * 1e6 }')
	[ -z "$_target" ] && [ -r "/tmp/target.$WID" ] && _target=$(cat "/tmp/target.$WID")
	for _d in $LADDER; do
		point "$_dir" "$_d" "$@"
		_n=$((_n + 1))
		if [ -z "$_target" ]; then
			# auto: AUTO_FACTOR x the idle p90 of the first (baseline) array
			_target=$(awk -v p="$P90" -v f="$AUTO_FACTOR" 'BEGIN { printf "%.0f", p * f }')
			echo "$_target" >"/tmp/target.$WID"
		fi
		if [ "$P90" -gt "$_target" ]; then
			_bad=$_d
			break
		fi
		_good=$_d
	done
	_k=0
	while [ "$_bad" -gt 0 ] && [ "$_k" -lt "$REFINE" ]; do
		_mid=$(((_good + _bad) / 2))
		[ "$_mid" -le "$_good" ] || [ "$_mid" -lt 1 ] && break
		point "$_dir" "$_mid" "$@"
		_n=$((_n + 1))
		if [ "$P90" -gt "$_target" ]; then _bad=$_mid; else _good=$_mid; fi
		_k=$((_k + 1))
	done
	echo "$_target" >"$_dir/target"
	say "done $CUR $WID points $_n target_us $((_target / 1000)) depth $_good"
}

# run CID WID WS_MIB FIO-ARGS...: the saturation run (see the header)
run() {
	[ "$1" = "$CUR" ] || die "bench: run for $1 but the array is $CUR"
	WID=$2
	_ws=$3
	shift 3
	_dir=$OUT/$CUR/$WID
	mkdir -p "$_dir"
	if [ "$_ws" -gt 0 ]; then
		# a sequential pass of 16 KiB writes (less than a plog row of
		# 3 chunks, so partial writes, whose blocks plog's data cache
		# keeps: it keeps written blocks, not read ones), the same for
		# every configuration
		fio --name=warm --filename="$DEV" --direct=1 --ioengine=libaio --iodepth=4 \
			--rw=write --bs=16k --size="${_ws}m" --eta=never >/dev/null 2>"$_dir/warm.err" ||
			{ cat "$_dir/warm.err"; die "bench: warm-up pass over ${_ws} MiB of $CUR"; }
		say "warm $CUR $WID: wrote the first $_ws MiB once"
	fi
	NPOINT=$((NPOINT + 1))
	_p=$PROCS
	_st=$_dir/d$_p.status
	# the "before" snapshots when the ramp ends (fio counts requests from there)
	(
		sleep "$RAMP"
		dmsetup status bench >"$_st" 2>/dev/null
		mstat before >"$_dir/d$_p.mstat"
	) &
	_bg=$!
	_tl=
	case $CUR in rl-plog*)
		# plog's timeline: "<s> <pool_free> <pool_waits> <reintegrations>
		# <regions_with_log> <max_region_fill_segs>" once a second
		(
			_t=0
			while :; do
				# plog's status group (raidlab.sh): fields 12 and 14-17
				echo "$_t $(rl_scheme_fields bench 2>/dev/null |
					awk '{ print $12, $14, $15, $16, $17 }')"
				sleep 1
				_t=$((_t + 1))
			done >"$_dir/d$_p.timeline"
		) &
		_tl=$! ;;
	esac
	fio --name=bench --filename="$DEV" --direct=1 --ioengine=libaio --iodepth=1 \
		--numjobs="$_p" --group_reporting --runtime="$RUNTIME" --ramp_time="$RAMP" \
		--time_based --randrepeat=0 --norandommap \
		--unified_rw_reporting=mixed --percentile_list=50:90:99 --eta=never \
		--output-format=json --output="$_dir/d$_p.json" "$@" >/dev/null 2>"$_dir/d$_p.err" ||
		{ cat "$_dir/d$_p.err"; die "bench: fio $CUR $WID procs $_p $*"; }
	wait "$_bg"
	[ -z "$_tl" ] || kill "$_tl" 2>/dev/null
	mstat after >>"$_dir/d$_p.mstat"
	dmsetup status bench >>"$_st" 2>/dev/null
	P90=$(p90_of "$_dir/d$_p.json")
	[ -n "$P90" ] || die "bench: no p90 in $_dir/d$_p.json"
	say "point $NPOINT $CUR $WID procs $_p p90_us $((P90 / 1000)) iops $(iops_of "$_dir/d$_p.json")"
	case $CUR in rl-plog*)
		say "plog $CUR $WID: pool_waits $(rl_plog bench 14) reintegrations $(rl_plog bench 15)" \
			"regions_with_log $(rl_plog bench 16) cache $(rl_plog bench 18)/$(rl_plog bench 19)" ;;
	esac
	say "done $CUR $WID points 1 procs $_p"
}

# ------------------------------------------------------------- tracing ---
BT_PIDS=
bt_start() { # DIR: blktrace of the array and the members into DIR
	mkdir -p "$1/bin"
	BT_PIDS=
	blktrace -d "$DEV" -D "$1/bin" -o array >/dev/null 2>&1 &
	BT_PIDS="$!"
	_i=0
	for _m in $MEMBERS; do
		blktrace -d "$_m" -D "$1/bin" -o "m$_i" >/dev/null 2>&1 &
		BT_PIDS="$BT_PIDS $!"
		_i=$((_i + 1))
	done
	sleep 1
}

bt_stop() { # DIR
	# shellcheck disable=SC2086
	kill -INT $BT_PIDS 2>/dev/null
	for _p in $BT_PIDS; do wait "$_p" 2>/dev/null; done
	_fmt='%D %2c %8s %5T.%9t %5p %2a %3d %S %n\n'
	blkparse -q -D "$1/bin" -i array -f "$_fmt" -o "$1/array.txt" >/dev/null 2>&1
	: >"$1/members.txt"
	_i=0
	for _m in $MEMBERS; do
		echo "# member m$_i $_m" >>"$1/members.txt"
		blkparse -q -D "$1/bin" -i "m$_i" -f "$_fmt" >>"$1/members.txt" 2>/dev/null
		_i=$((_i + 1))
	done
}

trace() { # CID WID DEPTH FIO-ARGS...
	[ "$1" = "$CUR" ] || die "bench: trace for $1 but the array is $CUR"
	WID=$2
	_d=$3
	shift 3
	_dir=$TOUT/$CUR/$WID
	mkdir -p "$_dir"
	mstat before >"$_dir/mstat"
	bt_start "$_dir"
	fio --name=trace --filename="$DEV" --direct=1 --ioengine=libaio --iodepth="$_d" \
		--runtime="$RUNTIME" --time_based --randrepeat=0 --norandommap --eta=never \
		--percentile_list=50:90:99 --output-format=json --output="$_dir/fio.json" "$@" \
		>/dev/null 2>"$_dir/fio.err" || { cat "$_dir/fio.err"; die "bench: trace fio $CUR"; }
	bt_stop "$_dir"
	mstat after >>"$_dir/mstat"
	# the array's trace as one binary file fio can replay (blkparse -d)
	blkparse -q -D "$_dir/bin" -i array -d /tmp/replay.bin -o /dev/null >/dev/null 2>&1 ||
		die "bench: blkparse -d"
	DEV_SRC=$DEV
	rm -rf "$_dir/bin"
	NPOINT=$((NPOINT + 1))
	say "point $NPOINT $CUR $WID trace depth $_d events $(wc -l <"$_dir/members.txt")"
}

replay() { # CID WID DEPTH
	[ "$1" = "$CUR" ] || die "bench: replay for $1 but the array is $CUR"
	[ -s /tmp/replay.bin ] || die "bench: replay without a recorded trace"
	WID=$2
	_dir=$TOUT/$CUR/$WID
	mkdir -p "$_dir"
	mstat before >"$_dir/mstat"
	bt_start "$_dir"
	# replay_redirect sends the recorded array's I/O to this array
	fio --name=replay --filename="$DEV" --read_iolog=/tmp/replay.bin \
		--replay_redirect="$DEV" --direct=1 --ioengine=libaio --iodepth="$3" \
		--replay_no_stall=0 --eta=never --percentile_list=50:90:99 \
		--output-format=json --output="$_dir/fio.json" >/dev/null 2>"$_dir/fio.err" ||
		{ cat "$_dir/fio.err"; die "bench: replay fio $CUR (recorded on $DEV_SRC)"; }
	bt_stop "$_dir"
	mstat after >>"$_dir/mstat"
	rm -rf "$_dir/bin"
	NPOINT=$((NPOINT + 1))
	say "point $NPOINT $CUR $WID replay events $(wc -l <"$_dir/members.txt")"
}

# ---------------------------------------------------------------- plan ---
say "plan $(grep -c . "$PLAN") lines, $RL_NDISKS members"
CONFIGURED=0
while read -r kind a rest <&3; do
	case $kind in
	'' | '#'*) continue ;;
	set)
		# shellcheck disable=SC2086
		set -- $rest
		case $a in
		runtime) RUNTIME=$1 ;; target) TARGET=$1 ;; auto_factor) AUTO_FACTOR=$1 ;;
		ladder) LADDER=$* ;; refine) REFINE=$1 ;; disk_model) DISK_MODEL=$1 ;;
		time_scale) TIME_SCALE=$1 ;; procs) PROCS=$1 ;; ramp) RAMP=$1 ;;
		member_mb) MEMBER_MB=$1 ;;
		*) die "bench: unknown setting $a" ;;
		esac
		;;
	config)
		[ "$CONFIGURED" = 1 ] || { setup_disk_model; CONFIGURED=1; }
		# shellcheck disable=SC2086
		create "$a" $rest
		;;
	job)
		# shellcheck disable=SC2086
		job "$a" $rest
		;;
	run)
		# shellcheck disable=SC2086
		run "$a" $rest
		;;
	geom)
		geom "$a" "$rest"
		;;
	span)
		SPAN_CID=$a SPAN_MIB=$rest
		;;
	fail)
		fail "$a" "$rest"
		;;
	trace)
		# shellcheck disable=SC2086
		trace "$a" $rest
		;;
	replay)
		# shellcheck disable=SC2086
		replay "$a" $rest
		;;
	*) die "bench: bad plan line: $kind $a $rest" ;;
	esac
done 3<"$PLAN"
teardown
say "finished $NPOINT points"
