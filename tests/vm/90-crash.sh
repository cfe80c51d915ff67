#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Crash consistency (issue 4), with tools/raidlab crash-test
# (Documentation/raidlab-tools.rst, "Crash consistency"): one dm-log-writes
# device under every member slice and the metadata slice (dm-bufio) records
# a workload; the log is replayed forward point by point (every FLUSH and
# FUA, the first write, random points, the end) and each point is assembled
# on a throw-away dm-snapshot: dirty regions resynced, the flushed state
# intact, `check` without a mismatch (ext4: mount, files, e2fsck -fn).
#
#   raid5, mirror              block workload, 2/2 generations (3/3 in
#                              the long tier); mirror's in the long tier
#                              only (mirror + ext4 crashes it by default)
#   raid4                      block workload, 2 generations: the long
#                              tier only (raid5's row engine, parity fixed)
#   mirror + ext4              a spread of its many flush/FUA points
#   raid6                      block workload, 2 generations
#   raid5, member 1 failed     degraded (failed by message before the
#                              workload, "-" at each point); no journal, so
#                              a dirty point is refused without
#                              start_dirty_degraded: the harness tries
#                              without it, then with it (and says so)
#   raid5, member 2 missing,   degraded from the start ("-"), the journal
#   journal on                 closing the write hole: no option needed
#   raid5, rebuild             member 1 failed with a spare and sync_rate
#                              256: every point interrupts the rebuild, which
#                              resumes at assembly and ends with check 0
# The long tier (--full), RL_CRASH_LONG=1, or raidlab crash-bench --schemes
# raid6,raid5+fail1,raid5+rebuild1 check more points of the last four.
# Negative controls, which must be detected:
#   - in every run: a point checked one generation too late (lost writes),
#     and garbage in a data block of every member at the end (verifier and
#     check);
#   - raid5 without a metadata device, reassembled with assume_clean: the
#     point just after the first write of generation 1 leaves a row whose
#     data and parity disagree (the write hole): check must count mismatches.
# vm-opts: --disks 4 --disk-size 256M --timeout 900
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/crash.sh"

# raid4/raid5 log over a hundred flushes in three generations (write-intent
# commits): an evenly spread dozen of them keeps the run within CI's budget
# the long amounts: 3 generations, 12 flush points and 4 random ones
LONG="--generations 3 --max-flush 12 --points 4"
# raid5 and mirror: the long amounts in the long tier (--full), 2, 8 and 2
if [ "$RL_FULL" = 1 ]; then B=$LONG BMIN=15
else B="--generations 2 --max-flush 8 --points 2" BMIN=8; fi
# shellcheck disable=SC2086
crash raid5 $BMIN --scheme raid5 $B --seed 11
# mirror's block workload: the long tier (mirror-ext4 crashes mirror in
# the default tier)
# shellcheck disable=SC2086
[ "$(tier 0 1)" = 1 ] && crash mirror $BMIN --scheme mirror $B --seed 12
[ "$(tier 0 1)" = 1 ] && crash raid4 8 --scheme raid4 --generations 2 --max-flush 6 --points 2 --seed 13
crash mirror-ext4 8 --scheme mirror --workload ext4 --data-mib 16 --generations 2 \
	--max-flush 6 --points 2 --seed 14

# ---- issue 13: raid6, a degraded array, an interrupted rebuild ----
# MIN0: the cases without random points (--points 0) check the flush
# points, the first write and the end only
if [ "${RL_CRASH_LONG:-$RL_FULL}" = 1 ]; then N=$LONG MIN=15 MIN0=14
else N="--generations 2 --max-flush 3 --points 1" MIN=5 MIN0=5; fi
# shellcheck disable=SC2086
crash raid6 $MIN --scheme raid6 $N --seed 16
# A degraded array without a journal (raid5-fail1, raid5-rebuild1) is
# crash-consistent at flush and FUA points only: a crash inside a row's
# write tears it, and the missing member's chunk of that row is then
# rebuilt from a torn parity (md's write hole, why such a start needs
# start_dirty_degraded): no random points for them (--points 0).
# raid5-missing2-journal has a journal and keeps them.
# shellcheck disable=SC2086
crash raid5-fail1 $MIN0 --scheme raid5 --fail 1 $N --points 0 --seed 17
f=$RL_OUT/90-raid5-fail1.json
check "raid5-fail1: the harness passes start_dirty_degraded (no journal)" \
	jcheck "$f" "d['start_dirty_degraded'] is True"
check "raid5-fail1: every point assembled degraded, member 1 missing" \
	jcheck "$f" "all(p.get('health_at_load') == 'ADAA' for p in d['points'])"
check "raid5-fail1: a dirty point was refused without start_dirty_degraded" \
	jcheck "$f" "any(p.get('start_dirty_degraded') == 'refused without it' for p in d['points'])"
grep -q "each point is assembled without start_dirty_degraded first" /tmp/crash.log
check "raid5-fail1: the harness says it passes start_dirty_degraded" test $? = 0
# shellcheck disable=SC2086
crash raid5-missing2-journal $MIN --scheme raid5 --missing 2 --opts "journal on" --md-mib 32 \
	$N --seed 18
check "raid5-missing2-journal: no start_dirty_degraded with a journal" \
	jcheck "$RL_OUT/90-raid5-missing2-journal.json" \
	"d['start_dirty_degraded'] is False and all(p.get('health_at_load') == 'AADA' for p in d['points'])"
# shellcheck disable=SC2086
crash raid5-rebuild1 $MIN0 --scheme raid5 --rebuild 1 --sync-rate 256 $N --points 0 --seed 19
f=$RL_OUT/90-raid5-rebuild1.json
check "raid5-rebuild1: the rebuild still ran when the workload ended" \
	jcheck "$f" "d['record']['rebuild_interrupted']"
check "raid5-rebuild1: every point assembled with the rebuild to finish (health AaAA), or came before the failure's record (AAAA, as created)" \
	jcheck "$f" "all(p.get('health_at_load') == 'AaAA' and p['sync_at_load'].startswith('recover ') or p.get('table') == 'as created' and p.get('health_at_load') in ('AAAA', 'aaaa') for p in d['points'])"
check "raid5-rebuild1: the commits of the failure and of the spare's role were crash points" \
	jcheck "$f" "d['log']['lifecycle_window'] > 0 and {p.get('table') for p in d['points']} == {'as created', 'spare in role'}"
check "raid5-rebuild1: the rebuild resumed past 0 at some point (its checkpoint)" \
	jcheck "$f" "any(int(p['sync_at_load'].split()[1].split('/')[0]) > 0 for p in d['points'])"
check "raid5-rebuild1: every point checked with 0 mismatches after the rebuild" \
	jcheck "$f" "all(p.get('mismatches') == 0 for p in d['points'])"

# ---- the write hole without a write-intent bitmap must be seen ----
$RL crash-test $DEVS --scheme raid5 --no-metadata --generations 1 --max-flush 0 --points 0 \
	--seed 15 >/tmp/hole.log 2>&1
_rc=$?
grep -E "^crash: (RESULT|.*FAIL)" /tmp/hole.log
f=$(ls -t "$RL_OUT"/crash-*.json | head -1)
mv "$f" "$RL_OUT/90-raid5-nometadata.json"
check "raid5 without metadata: crash-test reports failures (exit $_rc)" test "$_rc" -ne 0
check "raid5 without metadata: the first-write point has mismatches (write hole)" \
	jcheck "$RL_OUT/90-raid5-nometadata.json" "any(p['kind'] == 'write' and (p.get('mismatches') or 0) > 0 for p in d['points'])"
finish
