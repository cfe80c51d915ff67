#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Member failure under load: for mirror, raid4 and raid5, a member fails in
# the middle of a fio write run - by swapping an error target in under it,
# by dm-flakey going down, or by the 'fail' message - and all data still
# verifies, through degraded reads and after degraded writes. The long tier
# (--full) writes longer and adds raid4 with an error target under member
# 3 and raid5 with member 0 swapped out.
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

SIZE=192M
T=$(tier 8 14)		# seconds of the write pass; the failure comes at 5 s

# fail_under_load WHAT HOW VICTIM: fio writes while member VICTIM fails
fail_under_load() {
	_what=$1
	_how=$2
	_v=$3
	FIO_RUNTIME=$T fio_write /dev/mapper/arr $SIZE >/tmp/fio.bg 2>&1 &
	_pid=$!
	sleep 5
	case $_how in
	error) check "$_what: swap error target under m$_v" rl_swap_error "rlm$_v" ;;
	message) check "$_what: fail $_v by message" dm_message arr fail "$_v" ;;
	flakey) ;; # the flakey member goes down by itself
	esac
	wait "$_pid"
	_rc=$?
	cat /tmp/fio.bg
	check "$_what: fio write pass survives the failure" test "$_rc" -eq 0
	dmsetup status arr
	_h=$(rl_health arr)
	check "$_what: member $_v shown D" test "$(echo "$_h" | cut -c$((_v + 1)))" = D
	check "$_what: array degraded" test "$(rl_state arr)" = degraded
	# a member failed by message reads and writes as one failed by an
	# error (the error cases verify that): the long tier verifies it too
	[ "$_how" = message ] && [ "$(tier 0 1)" = 0 ] && return 0
	drop_caches
	check "$_what: all data verifies (degraded reads)" fio_verify /dev/mapper/arr $SIZE
	# writes after the failure, then read back
	FIO_STATE_DIR=/tmp/fio.seq FIO_RUNTIME=$(tier 4 6) FIO_RW=write FIO_BS=256k \
		check "$_what: degraded seq writes verify" \
		fio_write_then_verify /dev/mapper/arr 64M --offset=512M
}

teardown() {
	dm_remove arr
	for _d in /dev/mapper/rlm*; do dm_remove "$(basename "$_d")"; done
}

# -- error target swapped in under a member, each parity/mirror scheme ---
for spec in "mirror 3 1" "raid4 4 3" "raid5 5 1" "raid5 4 0"; do
	# raid5 over 4 with member 0, and raid4: the long tier only
	case $spec in "raid5 4 0" | "raid4 4 3") [ "$(tier 0 1)" = 0 ] && continue ;; esac
	set -- $spec
	scheme=$1
	n=$2
	victim=$3
	mems=$(rl_wrap_members rlm "$n")
	# shellcheck disable=SC2086
	check "$scheme: create over wrapped members" rl_create arr "$scheme" 64 $mems
	fail_under_load "$scheme n=$n error m$victim" error "$victim"
	teardown
done

# -- raid5: the fail message --------------------------------------------
mems=$(rl_wrap_members rlm 5)
# shellcheck disable=SC2086
check "raid5: create" rl_create arr raid5 128 $mems
fail_under_load "raid5 message m2" message 2
check "raid5: second failure makes the array failed" dm_message arr fail 4
check "raid5: state failed" test "$(rl_state arr)" = failed
expect_fail dd if=/dev/mapper/arr of=/dev/null bs=64k count=16 iflag=direct
teardown

# -- mirror: dm-flakey member goes down; then lose all but one -------------
i=0
mems=
while [ $i -lt 3 ]; do
	d=$(disk $i)
	if [ $i -eq 2 ]; then
		dm_create rlm$i "0 $(sectors "$d") flakey $d 0 4 100000" || die "flakey"
	else
		dm_create rlm$i "0 $(sectors "$d") linear $d 0" || die "linear"
	fi
	mems="$mems /dev/mapper/rlm$i"
	i=$((i + 1))
done
# shellcheck disable=SC2086
check "mirror: create over a flakey member" rl_create arr mirror 128 $mems
fail_under_load "mirror flakey m2" flakey 2
check "mirror: fail m0 too" dm_message arr fail 0
check "mirror: one member left, still degraded" test "$(rl_state arr)" = degraded
drop_caches
check "mirror: data verifies from the last member" fio_verify /dev/mapper/arr $SIZE
teardown

# -- read errors on reads the members split ----------------------------
# Members are dm tables of many small segments: dm splits every read at
# each boundary, chaining it, as a disk does at its request size limit.
# The failing member's segments alternate linear and error, so its reads
# fail after being split, and are sent again to members that split them too.
SEG=777			# sectors, odd: every 1 MiB read crosses a boundary
SEGS=300		# 113 MiB of each member
segmented() { # NAME DISK
	_t=
	_k=0
	while [ $_k -lt $SEGS ]; do
		_t="$_t$((_k * SEG)) $SEG linear $2 $((_k * SEG))
"
		_k=$((_k + 1))
	done
	dm_create "$1" "$_t" || die "segmented $1"
}
for spec in "mirror 3 0" "raid5 4 2"; do
	set -- $spec
	i=0
	mems=
	while [ $i -lt "$2" ]; do
		segmented "rlm$i" "$(disk $i)"
		mems="$mems /dev/mapper/rlm$i"
		i=$((i + 1))
	done
	len=$((SEG * SEGS / 512 * 512 * ($2 - 1)))
	[ "$1" = mirror ] && len=$((SEG * SEGS))
	# shellcheck disable=SC2086
	RL_LEN=$len check "$1: create over segmented members" rl_create arr "$1" 512 $mems
	FIO_STATE_DIR=/tmp/fio.rd FIO_RUNTIME=8 FIO_RW=write FIO_BS=1M \
		check "$1: write 64M in 1M blocks" fio_write /dev/mapper/arr 64M
	# swap in the failing table under member $3
	t=$(i=0; while [ $i -lt $SEGS ]; do
		if [ $((i % 2)) = 1 ]; then echo "$((i * SEG)) $SEG error"
		else echo "$((i * SEG)) $SEG linear $(disk "$3") $((i * SEG))"; fi
		i=$((i + 1)); done)
	check "$1: failing table loaded under m$3" sh -c "echo '$t' | dmsetup load rlm$3 &&
		dmsetup suspend --noflush rlm$3 && dmsetup resume rlm$3"
	drop_caches
	for rep in 1 2 3; do
		FIO_STATE_DIR=/tmp/fio.rd FIO_RW=write FIO_BS=1M \
			check "$1: split 1M reads verify through read errors ($rep)" \
			fio_verify /dev/mapper/arr 64M
		drop_caches
	done
	check "$1: member $3 failed by a read error" \
		test "$(rl_health arr | cut -c$(($3 + 1)))" = D
	check "$1: the kernel log says why" sh -c "dmesg | grep -q 'member $3 .* failed: read error'"
	teardown
done

finish
