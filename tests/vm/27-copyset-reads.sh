#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Where reads go, by layout, healthy and with a member failed
# (Documentation/dm-raidlab.rst, "Striped mirrors and chained
# declustering"), counted by the members' data-read counters over 12288
# random 4 KiB reads of the whole array:
#   - chained over 6, healthy: every member reads;
#   - chained over 6, member 2 failed: 2 reads nothing, and the reads shift
#     along the chain so that each of the five survivors carries about a
#     fifth of them (each within 10 % of their mean: about five standard
#     deviations of the sampling); without the shift 1 and 3 would carry
#     half as much again as the others, 25 % over the mean;
#   - raid10 near 2 over the same 6, member 2 failed: its partner 3 carries
#     its own share and 2's, about twice the others' (1.7 times their mean
#     at least): the load chained declustering exists to avoid;
#   - member 2 failed and the data verifies on both;
#   - reads dup (duplicate-then-cancel) on raid10 near 2 over 6 at
#     queue_depth 1, so that reads wait in the member queues: the table line
#     keeps the option; 16 MiB verify while random 4 KiB reads at depth 32
#     and writes run beside it; every read is issued once (the members'
#     data reads add up to the reads the array received); removed at once
#     after a load (the groups left in queues are drained); with member 2
#     failed the data still verifies.
# vm-opts: --disks 6 --disk-size 128M --timeout 900
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

MD=$(pmem_dev)
LEN=98304		# 48 MiB: a whole number of chunk rows of either layout
IOS=12288

# reads: the data reads of each member so far, one line
reads() {
	_i=0
	while [ "$_i" -lt 6 ]; do
		rl_member_counters arr "$_i" | awk '{ printf "%s ", $1 }'
		_i=$((_i + 1))
	done
	echo
}

# spread: IOS random 4 KiB reads; prints each member's share of them
spread() {
	_b=$(reads)
	fio --name=spread --filename=/dev/mapper/arr --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=8 --size=$((LEN / 2))k \
		--io_size=$((IOS * 4))k --randrepeat=0 --norandommap --eta=never \
		--output=/dev/null || return 1
	_a=$(reads)
	echo "$_b" "$_a" | awk '{ for (i = 1; i <= 6; i++) printf "%d ", $(i + 6) - $i; print "" }'
}

# even FRACTION SHARES MEMBER...: each listed member's reads within
# FRACTION of their mean, and every one read
even() {
	_f=$1 _s=$2
	shift 2
	for _m in "$@"; do echo "$_s" | awk -v m="$_m" '{ print $(m + 1) }'; done |
		awk -v f="$_f" '{ v[NR] = $1; t += $1 }
			END { m = t / NR; for (i = 1; i <= NR; i++)
				if (v[i] == 0 || v[i] > m * (1 + f) || v[i] < m * (1 - f)) exit 1 }'
}

# layout SCHEME OPTS: the array over 6 members, clean, pmem metadata
layout() {
	for _d in $(disks 6); do wipe "$_d" 4 || die "wipe $_d"; done
	wipe "$MD" 16 || die "wipe pmem"
	_o="chunk_size 64 metadata $MD assume_clean${2:+ $2}"
	# shellcheck disable=SC2046
	dm_create arr "0 $LEN raidlab $1 $(echo "$_o" | wc -w) $_o 6 $(disks 6)" ||
		die "$1: create"
	fio_write /dev/mapper/arr 8M || die "$1: write"
}

# ---- chained over 6 ----
layout chained ""
s=$(spread) || die "chained: fio"
log "chained healthy: reads per member $s"
check "chained healthy: every member reads" even 0.99 "$s" 0 1 2 3 4 5
run dm_message arr fail 2
check "chained: member 2 failed: degraded" test "$(rl_state arr)" = degraded
s=$(spread) || die "chained degraded: fio"
log "chained, 2 failed: reads per member $s"
check "chained, 2 failed: 2 reads nothing" test "$(echo "$s" | awk '{ print $3 }')" = 0
check "chained, 2 failed: each of the five survivors within 10 % of their mean" \
	even 0.10 "$s" 0 1 3 4 5
check "chained, 2 failed: the data verifies" fio_verify /dev/mapper/arr 8M
run dm_remove arr

# ---- raid10 near 2 over 6 ----
layout raid10 "layout near copies 2"
run dm_message arr fail 2
s=$(spread) || die "raid10 degraded: fio"
log "raid10 near, 2 failed: reads per member $s"
check "raid10 near, 2 failed: 2 reads nothing" test "$(echo "$s" | awk '{ print $3 }')" = 0
check "raid10 near, 2 failed: partner 3 carries 1.7 x the others' mean or more" \
	sh -c "echo '$s' | awk '{ exit !(\$4 * 4 >= 1.7 * (\$1 + \$2 + \$5 + \$6)) }'"
check "raid10 near, 2 failed: the data verifies" fio_verify /dev/mapper/arr 8M
run dm_remove arr

# ---- reads dup: duplicate-then-cancel ----
layout raid10 "layout near copies 2 reads dup queue_depth 1"
check "dup: the table line keeps reads dup" sh -c "dmsetup table arr | grep -q ' reads dup'"
check "dup: fio writes 16 MiB more" fio_write /dev/mapper/arr 16M
rl_load_start arr 16M 32M "$(tier 6 15)"
fio --name=dupr --filename=/dev/mapper/arr --direct=1 --ioengine=libaio --rw=randread \
	--bs=4k --iodepth=32 --size=16M --io_size=24M --randrepeat=0 --norandommap \
	--eta=never --output=/dev/null || not_ok "dup: random reads"
rl_load_done "dup: writes beside the duplicated reads"
check "dup: the 16 MiB verify" fio_verify /dev/mapper/arr 16M
lr=$(rl_counters arr | awk '{ print $1 }')
mr=$(reads | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }')
log "dup: $lr reads received, $mr member data reads"
check "dup: every read issued once ($lr received, $mr member reads)" test "$lr" = "$mr"
fio --name=dupx --filename=/dev/mapper/arr --direct=1 --ioengine=libaio --rw=randread \
	--bs=4k --iodepth=32 --size=16M --io_size=8M --eta=never --output=/dev/null ||
	not_ok "dup: reads before the removal"
check "dup: removed at once after the reads" dm_remove arr
layout raid10 "layout near copies 2 reads dup queue_depth 1"
run dm_message arr fail 2
check "dup, 2 failed: the data verifies" fio_verify /dev/mapper/arr 8M
run dm_remove arr

finish
