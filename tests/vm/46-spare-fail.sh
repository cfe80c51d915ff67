#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A real disk failure under load, with a spare (issue 13, window 8): for
# mirror, raid5, raid6 and plog, member 1 sits under dm-linear, fio writes
# and verifies, and the linear table is swapped to an error target. The
# failed disk's I/O still in flight then ends with errors after the spare
# may have taken the role: none of them may be charged to the spare. Every
# trial: the spare takes role 1 and finishes its rebuild, the kernel log
# never says the spare failed, the load's verify passes, and check finds 0
# mismatches. Trials per scheme: 1, 10 in the long tier (RL_FULL=1: vm-tests.sh --full).
# plog's array is shorter than its capacity. Before its check, random
# bytes go to members 0, 2 and 3 at 1 GiB, in regions the length does not
# reach: its jobs end at the last region the length reaches (1.9.2), so
# the check still finds 0.
# vm-opts: --disks 6 --timeout 2400
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

PM=$(pmem_dev)
TRIALS=1
[ "$RL_FULL" = 1 ] && TRIALS=10
MB=24				# MiB of each member the arrays use
SPARE=$(disk 5)

# wait until member 1 is in sync again (the spare rebuilt it), or fails
wait_rebuilt() {
	_i=0
	while [ "$(rl_state arr)" != optimal ] || rl_health arr | grep -q a; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($1 * 5)) ] && return 1
		rl_health arr | cut -c2 | grep -q D && [ "$_i" -gt 25 ] && return 1
		sleep 0.2
	done
}

# trial SCHEME N OPTS T
trial() {
	_s=$1 _n=$2 _o=$3 _t=$4
	wipe "$PM" 4
	for _i in $(seq 0 $((_n - 1))); do
		dd if=/dev/zero of="$(disk "$_i")" bs=1M count=$((MB + 2)) conv=fsync 2>/dev/null
	done
	wipe "$SPARE" 4
	_w=$(rl_wrap_members fsw "$_n")
	case $_s in
	mirror) _len=$((MB * 2048)) ;;
	raid5) _len=$((MB * 2048 * (_n - 1))) ;;
	raid6) _len=$((MB * 2048 * (_n - 2))) ;;
	plog) _len=$((MB * 2048)) ;;	# well within plog's capacity over N members
	esac
	_opts="chunk_size 64 assume_clean $_o metadata $PM spare $SPARE"
	run dm_create arr "0 $_len raidlab $_s $(echo "$_opts" | wc -w) $_opts $_n $_w"
	_before=$(dmesg_mark)
	rl_load_start arr 0 $((_len * 512 / 2)) 8
	sleep 1.5
	run rl_swap_error fsw1
	check "$_s trial $_t: the spare takes role 1 and is rebuilt" wait_rebuilt 240
	rl_load_done "$_s trial $_t"
	_sp=$(basename "$(readlink -f "$SPARE")")
	_maj=$(cat "/sys/class/block/$_sp/dev")
	if dmesg_has "$_before" -E "member [0-9]+ \\(($_maj|$_sp)\\) failed"; then
		not_ok "$_s trial $_t: the spare ($_sp, $_maj) failed"
	else
		ok "$_s trial $_t: the spare ($_sp, $_maj) never failed"
	fi
	check "$_s trial $_t: member 1 is the spare, in sync" test "$(rl_health arr | cut -c2)" = A
	if [ "$_s" = plog ]; then
		for _i in 0 2 3; do
			dd if=/dev/urandom of="$(disk "$_i")" bs=1M seek=1024 count=1 \
				conv=fsync 2>/dev/null
		done
	fi
	check "$_s trial $_t: check finds 0 mismatches" test "$(rl_scrub arr check 300)" = 0
	log "$_s trial $_t: $(rl_health arr) $(rl_sync arr)"
	run dm_remove arr
	for _i in $(seq 0 $((_n - 1))); do run dm_remove "fsw$_i"; done
}

for spec in "mirror 2" "raid5 4" "raid6 5" "plog 5 log_disks 1"; do
	set -- $spec
	s=$1 n=$2
	shift 2
	t=1
	while [ $t -le $TRIALS ]; do
		trial "$s" "$n" "$*" $t
		t=$((t + 1))
	done
done

finish
