# SPDX-License-Identifier: GPL-2.0
#
# Guest-side helpers of the altmirror tests (29-altmirror*.sh), sourced
# after raidlab.sh; the array is /dev/mapper/arr, its data DOFF 4 KiB
# blocks into each member.
#
#   f K                  the K-th word of the scheme's status group:
#                        1 modes, 2 used/slots, 3 min_free, 4 waits,
#                        5 batches, 6 mean batch, 7 install ms,
#                        8 overlaps, 9 hits, 10 T ms, 11 pool,
#                        12 recovery, 13 copied/blocks, 14 modified,
#                        15 g, 16 recovery ms
#   used                 the pool's slots in use
#   drained [SECS]       the pool empties (every write on both disks)
#   check_zero WHAT      ok/not ok: a check finds 0 mismatches
#   pattern MIB FILE     FILE written at MIB MiB of the array, direct
#   pattern_at MIB FILE  FILE reads back at MIB MiB
#   raw_has DEV MIB FILE FILE is at MIB MiB of the array on member DEV

f() { rl_scheme_field arr "$1"; }
used() { f 2 | cut -d/ -f1; }

drained() {
	_dn=0
	while [ "$(used)" != 0 ]; do
		_dn=$((_dn + 1))
		[ "$_dn" -gt $((${1:-60} * 5)) ] && return 1
		sleep 0.2
	done
}

check_zero() {
	_m=$(rl_scrub arr check 300)
	check "$1: check finds 0 (found '$_m')" test "$_m" = 0
}

pattern() {
	dd if="$2" of=/dev/mapper/arr bs=64k seek=$(($1 * 16)) oflag=direct \
		2>/dev/null
}

pattern_at() {
	dd if=/dev/mapper/arr of=/tmp/back bs=64k skip=$(($1 * 16)) \
		count=$(($(stat -c %s "$2") / 65536)) iflag=direct 2>/dev/null &&
		cmp -s "$2" /tmp/back
}

raw_has() {
	dd if="$1" of=/tmp/rawback bs=64k skip=$((DOFF / 16 + $2 * 16)) \
		count=$(($(stat -c %s "$3") / 65536)) iflag=direct 2>/dev/null &&
		cmp -s "$3" /tmp/rawback
}
