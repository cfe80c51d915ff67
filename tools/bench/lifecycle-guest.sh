#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# raidlab lifecycle-bench, guest side (busybox sh, run through the VM lab by
# tools/raidlab_lib/bench/lifecycle.py). Its argument is a plan file of
# "set KEY VALUE" lines: runtime SECS (one fio slice), member_mb MiB (member
# space each array uses), schemes "raid5 mirror", depth N (fio iodepth).
#
# Two experiments, both with the metadata on the lab's pmem (DAX):
#
#   rebuild  an array with a spare; fio slices of random 4 KiB 70/30
#            read/write before a failure and after the rebuild (normal),
#            then member 1 is failed while a slice runs, the spare takes
#            its role and slices run until the rebuild ends (during; a
#            watcher notes the end to 0.1 s). Then the same array with no
#            load: the rebuild time alone (idle). The busy mirror's rebuild
#            is bounded with sync_rate (MIRROR_RATE KiB/s): unbounded, it
#            ends before a load slice can start on the lab's disks.
#   replace  (1.22) the same array, member 1 replaced by the spare (the
#            message replace: copied while it serves, then swapped), busy
#            (slices before, during) and idle, the mirror's busy copy bounded
#            as its rebuild is: "replace SCHEME LOAD SECONDS SECTORS" lines,
#            slices NAME-rnormal-K and NAME-replace-K, "rcheck" after.
#   intent   raid5 and mirror random 4 KiB writes with no metadata device,
#            with metadata on pmem (DAX) and on a plain disk (dm-bufio): the
#            cost of the write-intent bitmap that closes the write hole.
#
# Output in /out/lifecycle/: fio JSON per slice, NAME-PHASE-K.json, and
# events.txt ("rebuild SCHEME LOAD SECONDS SECTORS" lines). Progress lines
# on the console start with "bench:".
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

PLAN=$1
OUT=$RL_OUT/lifecycle
mkdir -p "$OUT"
RUNTIME=5 MEMBER_MB=256 SCHEMES="raid5 mirror" DEPTH=4 MIRROR_RATE=4096
while read -r w k v; do
	[ "$w" = set ] || continue
	case $k in
	runtime) RUNTIME=$v ;;
	member_mb) MEMBER_MB=$v ;;
	schemes) SCHEMES=$v ;;
	depth) DEPTH=$v ;;
	esac
done <"$PLAN"
PMEM=$(pmem_dev) || die "bench: the lifecycle bench needs the lab's pmem"
[ "$RL_NDISKS" -ge 6 ] || die "bench: needs 6 disks"
say() { echo "bench: $*"; }
NPOINT=0
point() { NPOINT=$((NPOINT + 1)); say "point $NPOINT $*"; }
now() { cut -d' ' -f1 /proc/uptime; }

# table NAME SCHEME MDDEV|- SPARE|- OPTS: a table line over m0..m3 (mirror: m0, m1)
table() {
	_scheme=$1 _md=$2 _spare=$3 _opts=$4
	if [ "$_scheme" = mirror ]; then _devs="$(disk 0) $(disk 1)"; _nd=1; _n=2
	else _devs=$(disks 4); _nd=3; _n=4; fi
	_len=$((MEMBER_MB * 2048 * _nd))
	_w="chunk_size 64 $_opts"
	[ "$_md" != - ] && _w="$_w metadata $_md"
	[ "$_spare" != - ] && _w="$_w spare $_spare"
	set -- $_w
	echo "0 $_len raidlab $_scheme $# $_w $_n $_devs"
}

fresh() { # zero the metadata and the members' space (assume_clean must be true)
	for _d in "$@"; do
		[ "$_d" = - ] || dd if=/dev/zero of="$_d" bs=1M count=$((MEMBER_MB + 2)) \
			conv=fsync 2>/dev/null
	done
}

slice() { # NAME FIO-ARGS...: one fio slice, JSON to $OUT/NAME.json
	_name=$1
	shift
	fio --name="$_name" --filename=/dev/mapper/arr --direct=1 --ioengine=libaio \
		--bs=4k --iodepth="$DEPTH" --time_based --runtime="$RUNTIME" \
		--size=$((MEMBER_MB / 2))M --randrepeat=0 --output-format=json \
		--output="$OUT/$_name.json" "$@" >/dev/null 2>&1 || die "bench: fio $_name"
}

wait_rebuilt() { # SECS: until no member is rebuilding
	_i=0
	while rl_health arr | grep -q a || [ "$(rl_st arr 5)" = recover ]; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($1 * 5)) ] && return 1
		sleep 0.2
	done
}

# during NAME LOAD TRIGGER DONE (its own variables: slice() sets _name):
# the job TRIGGER (a command) starts, under load (busy: a slice NAME-1 is
# running already) or not; a watcher notes when DONE (a command) first
# holds, to 0.1 s, and busy slices NAME-K run until then. Sets T0 (the
# trigger), T1 (done) and K (slices).
during() {
	_job=$1 _load=$2 _trig=$3 _done=$4
	rm -f "$OUT/.t1"
	K=0
	if [ "$_load" = busy ]; then
		K=1
		slice "$_job-1" --rw=randrw --rwmixread=70 &
		_sl=$!
		sleep 0.5
	fi
	T0=$(now)
	$_trig || die "bench: $_job: $_trig refused: $(dm_message arr last_error)"
	(
		_i=0
		until $_done; do
			_i=$((_i + 1))
			[ $_i -gt 18000 ] && exit 1
			sleep 0.1
		done
		now >"$OUT/.t1"
	) &
	_wt=$!
	if [ "$_load" = busy ]; then
		wait "$_sl" || die "bench: fio $_job-1"
		point "$_job 1 $(rl_sync arr)"
		while [ ! -s "$OUT/.t1" ]; do
			K=$((K + 1))
			slice "$_job-$K" --rw=randrw --rwmixread=70
			point "$_job $K $(rl_sync arr)"
			[ $K -gt 200 ] && die "bench: $_job under load too long"
		done
	fi
	wait "$_wt" || die "bench: $_job did not end"
	T1=$(cat "$OUT/.t1")
}
all_in_sync() { [ -z "$(rl_health arr | tr -d A)" ]; }
# job_event JOB: the events line of JOB on $scheme under $load, from during()
job_event() {
	_s=$(echo "$T0 $T1" | awk '{ printf "%.2f", $2 - $1 }')
	echo "$1 $scheme $load $_s $((MEMBER_MB * 2048)) $K" >>"$OUT/events.txt"
	say "$1 $scheme $load done in $_s s"
}

# prepare LOAD NAME: a fresh array of $scheme with a spare; busy: filled (so
# that reads and the job touch written data), then two slices NAME-1 and
# NAME-2, and the mirror's job bounded (an unthrottled mirror copy of the
# lab's disks ends before a load slice could start)
prepare() {
	fresh "$PMEM" $(disks 5)
	dm_create arr "$(table "$scheme" "$PMEM" "$(disk 4)" assume_clean)" ||
		die "bench: create $scheme"
	[ "$1" = busy ] || return 0
	fio --name=fill --filename=/dev/mapper/arr --direct=1 --bs=1M \
		--rw=write --size=$((MEMBER_MB / 2))M >/dev/null 2>&1
	for _k in 1 2; do
		slice "$2-$_k" --rw=randrw --rwmixread=70
		point "$2 $_k"
	done
	[ "$scheme" = mirror ] && dm_message arr sync_rate "$MIRROR_RATE"
	return 0
}

for scheme in $SCHEMES; do
	for load in busy idle; do
		prepare $load "$scheme-normal"
		during "$scheme-rebuild" $load "dm_message arr fail 1" all_in_sync
		wait_rebuilt 60 || die "bench: $scheme rebuild did not end"
		if [ $load = busy ]; then
			# normal again after the rebuild: drift of the host's load
			# shows as a difference between before and after
			for k in 3 4; do
				slice "$scheme-normal-$k" --rw=randrw --rwmixread=70
				point "$scheme normal $k"
			done
		fi
		job_event rebuild
		n=$(rl_scrub arr check 600)
		echo "check $scheme $load $n" >>"$OUT/events.txt"
		dm_remove arr
	done
done

# replace: member 1 copied onto the spare (disk 4) while it serves
mm() { printf '%d:%d' "0x$(stat -L -c %t "$1")" "0x$(stat -L -c %T "$1")"; }
role1() { dmsetup table arr | awk '{ n = $5; print $(8 + n) }'; }
stopped() { dm_message arr last_error | grep -q "replace of member 1 stopped"; }
# the table names the spare in role 1, or the replace stopped
swapped() { [ "$(role1)" = "$sp" ] || stopped; }
for scheme in $SCHEMES; do
	for load in busy idle; do
		prepare $load "$scheme-rnormal"
		sp=$(mm "$(disk 4)")
		during "$scheme-replace" $load "dm_message arr replace 1" swapped
		stopped && die "bench: $scheme: $(dm_message arr last_error)"
		job_event replace
		dm_message arr sync_rate 0
		n=$(rl_scrub arr check 600)
		echo "rcheck $scheme $load $n" >>"$OUT/events.txt"
		dm_remove arr
	done
done

# the write-intent bitmap: no metadata, pmem (DAX), a plain disk (dm-bufio)
for scheme in $SCHEMES; do
	for md in none dax bufio; do
		case $md in
		none) mdd=- ;;
		dax) mdd=$PMEM ;;
		bufio) mdd=$(disk 5) ;;
		esac
		fresh "$mdd" $(disks 4)
		dm_create arr "$(table "$scheme" "$mdd" - assume_clean)" || die "bench: create $scheme $md"
		slice "$scheme-intent-$md" --rw=randwrite
		point "$scheme intent $md"
		dm_remove arr
	done
done
say "finished"
finish
