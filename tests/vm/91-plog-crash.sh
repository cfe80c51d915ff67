#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Crash consistency of parity logging (plog, paper 000) with its metadata
# on a block device (dm-bufio: the logs live in RAM, a region is dirty in
# the write-intent bitmap while it holds records, and assembly recomputes
# the parity of dirty regions), with tools/raidlab crash-test as in
# 90-crash.sh: one dm-log-writes device under the member slices and the
# metadata slice records a block workload; the log is replayed to every
# chosen FLUSH/FUA point, the first write, random points and the end, and
# at every point the array must reassemble, resync to idle, hold its
# flushed data and pass `check` with 0 mismatches. The recorded run must
# have reintegrated regions (the crash points fall around reintegrations)
# and waited for log buffers; the same with faults 2 (P+Q, the log on two
# copies) over 6 members. Negative controls: a point checked one
# generation too late, and garbage in the first data block of every member.
# (The DAX backend keeps its logs on pmem with memcpy_flushcache, which no
# block-layer log sees: not covered here.)
# vm-opts: --disks 4 --disk-size 256M --timeout 1200
. "$RL_TESTS/lib.sh"
CRASH_TAG=91
CRASH_GREP="^crash: (RESULT|control|plog|recorded|.*FAIL)"
. "$RL_TESTS/crash.sh"
# a module without plog refuses the one-chunk table: skip, do not fail
echo "0 32 raidlab plog 2 chunk_size 32 3 $(disk 0) $(disk 1) $(disk 2)" |
	dmsetup create plogprobe 2>/dev/null || {
	dmesg | tail -n 3 | grep -q -i "unknown scheme\|Unknown scheme" &&
		skip "dm-raidlab without plog"
}
dmsetup remove plogprobe 2>/dev/null
wipe "$(disk 0)" 4

# plog's own checks of every case
crash_more() {
	check "$1: check run at every point, 0 mismatches" \
		jcheck "$2" "all(p.get('mismatches') == 0 for p in d['points'])"
	check "$1: every point reassembled and resynced" \
		jcheck "$2" "all('resync_s' in p for p in d['points'])"
	check "$1: the recorded run reintegrated regions" \
		jcheck "$2" "d['record']['plog']['reintegrations'] > 0"
	check "$1: the recorded run waited for log buffers" \
		jcheck "$2" "d['record']['plog']['pool_waits'] > 0"
}
CRASH_MORE=crash_more

# 4 members (L = 1: rows of 2 data chunks), 8 regions with logs a quarter
# of their parity in 8 KiB segments, 4 log buffers: regions fill and are
# reintegrated between the flushes of 2 generations of 48 writes, with 6
# flush points and 2 random ones checked (3, 10 and 4 in the long tier)
if [ "${RL_FULL:-0}" = 1 ]; then A="--generations 3 --max-flush 10 --points 4" AMIN=12
else A="--generations 2 --max-flush 6 --points 2" AMIN=8; fi
# shellcheck disable=SC2086
crash plog $AMIN --scheme plog $A --ops 48 --seed 21
# faults 2 (P+Q, two log copies): 6 members, L = 1, rows of 2 data chunks,
# a cycle of 3 regions
# shellcheck disable=SC2086
crash plog-f2 $AMIN --scheme plog --members 6 --plog-opts \
	"log_disks 1 log_ratio 0.25 track_sectors 32 log_buffers 4 regions 6 faults 2" \
	$A --ops 48 --seed 22
finish
