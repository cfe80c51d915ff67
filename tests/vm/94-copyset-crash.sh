#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Crash consistency of raid10 and chained declustering, with tools/raidlab
# crash-test as 90-crash.sh runs it (tests/vm/crash.sh): every FLUSH and
# FUA point (evenly spread), the first write, random points and the end,
# each assembled on a throw-away snapshot, resynced, verified, and checked
# with 0 mismatches where no member is missing; both negative controls
# detected in every case.
#   raid10 far 2 over 4        block workload
#   sr 2 x 2 x 1 (dr 2 over    block workload, random points too (since
#   st39133's geometry)        1.16.0 no cut of a write splits a 4 KiB
#                              block); the metadata slice is not DAX:
#                              propagate bg's first writes go to replica
#                              0, the write-intent bitmap behind them
#                              (28-sr crashes the pmem records)
#   raid10 near 2 over 4 + ext4 (--full only: 90's mirror-ext4 covers a
#                              filesystem's crash points in the default tier)
#   chained over 5, member 1   degraded (failed by message before the
#   failed                     workload, "-" at each point): a copy-set
#                              array has no write hole, so random points
#                              too, and no start_dirty_degraded
#   chained over 5, rebuild 2  (--full only: 90's raid5-rebuild1 covers an
#                              interrupted rebuild and the lifecycle
#                              commits in the default tier)
#                              member 2 failed with a spare and sync_rate
#                              256: every point interrupts the rebuild,
#                              which resumes and ends with check 0; the
#                              points start before the failure, and every
#                              FLUSH and FUA point of the commits of the
#                              failure and of the spare's role is one
#                              (1.12.2: the spare's superblock and the
#                              metadata agree at each)
# The long tier (--full) checks more points of each.
# vm-opts: --disks 4 --disk-size 256M --timeout 900
. "$RL_TESTS/lib.sh"
CRASH_TAG=94
. "$RL_TESTS/crash.sh"

if [ "$RL_FULL" = 1 ]; then N="--generations 4 --max-flush 16 --points 24" MIN=40
else N="--generations 3 --max-flush 8 --points 6" MIN=14; fi

# shellcheck disable=SC2086
crash raid10-far $MIN --scheme raid10 --members 4 --opts "layout far copies 2" $N --seed 31
check "raid10-far: the points assembled with every member (AAAA, or aaaa resyncing the dirty regions)" \
	jcheck "$RL_OUT/94-raid10-far.json" \
	"all(p.get('health_at_load') in ('AAAA', 'aaaa') and p.get('mismatches') == 0 for p in d['points'])"
# shellcheck disable=SC2086
crash sr $MIN --scheme sr --members 4 --opts "dr 2 geom st39133" $N --seed 35
check "sr: the points assembled with every member, every replica of every copy alike (check 0)" \
	jcheck "$RL_OUT/94-sr.json" \
	"all(p.get('health_at_load') in ('AAAA', 'aaaa') and p.get('mismatches') == 0 for p in d['points'])"
if [ "$RL_FULL" = 1 ]; then
	crash raid10-near-ext4 6 --scheme raid10 --members 4 --workload ext4 --data-mib 16 \
		--generations 2 --max-flush 4 --points 2 --seed 32
fi
# shellcheck disable=SC2086
crash chained-fail1 $MIN --scheme chained --members 5 --fail 1 $N --seed 33
check "chained-fail1: every point assembled degraded, without start_dirty_degraded" \
	jcheck "$RL_OUT/94-chained-fail1.json" \
	"d['start_dirty_degraded'] is False and all(p.get('health_at_load') == 'ADAAA' for p in d['points'])"
if [ "$RL_FULL" = 1 ]; then
	# shellcheck disable=SC2086
	crash chained-rebuild2 $MIN --scheme chained --members 5 --rebuild 2 --sync-rate 256 \
		$N --seed 34
	f=$RL_OUT/94-chained-rebuild2.json
	check "chained-rebuild2: every point resumed the rebuild (AAaAA) or came before the failure's record (AAAAA, as created), and checked 0 mismatches" \
		jcheck "$f" "all(p.get('mismatches') == 0 and (p.get('health_at_load') == 'AAaAA' and p['sync_at_load'].startswith('recover ') or p.get('table') == 'as created' and p.get('health_at_load') in ('AAAAA', 'aaaaa')) for p in d['points'])"
	check "chained-rebuild2: the commits of the failure and of the spare's role were crash points (both lines assembled)" \
		jcheck "$f" "d['log']['lifecycle_window'] > 0 and {p.get('table') for p in d['points']} == {'as created', 'spare in role'}"
fi
finish
