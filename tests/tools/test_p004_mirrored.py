# SPDX-License-Identifier: GPL-2.0
"""RAID-10 against chained declustering with failed disks: the bottleneck
model of raidlab model p004-degraded (tools/raidlab_lib/models/
p004_mirrored.py), against issue 15's expectations and the closed forms."""
from fractions import Fraction

import pytest

from raidlab_lib import cli
from raidlab_lib.models import p004_mirrored as m


def test_issue_expectations_six_disks():
    # issue 15: RAID-10 degraded random reads about 0.5 of normal, chained
    # declustering about (N - 1)/N, 0.83 with six disks
    assert m.degraded_ratio("raid10", 6, (0,), 1.0) == Fraction(1, 2)
    assert m.degraded_ratio("chained", 6, (0,), 1.0) == Fraction(5, 6)


def test_writes_keep_their_throughput():
    for layout in ("raid10", "chained"):
        assert m.degraded_ratio(layout, 6, (2,), 0.0) == 1


def test_mix_70_30():
    # RAID-10: (0.35 + 0.3) / (0.7 + 0.3); chained: 1.3 / (0.7 * 6/5 + 0.6)
    assert float(m.degraded_ratio("raid10", 6, (0,), 0.7)) == pytest.approx(0.65)
    assert float(m.degraded_ratio("chained", 6, (0,), 0.7)) == pytest.approx(1.3 / 1.44)


@pytest.mark.parametrize("n", range(3, 11))
@pytest.mark.parametrize("rf", [0.0, 0.3, 0.7, 1.0])
def test_closed_form_matches_every_single_failure(n, rf):
    for f in range(n):
        assert m.degraded_ratio("chained", n, (f,), rf) == m.closed_form("chained", n, rf)
        if n % 2 == 0:
            assert m.degraded_ratio("raid10", n, (f,), rf) == m.closed_form("raid10", n, rf)


@pytest.mark.parametrize("n", range(3, 9))
def test_chained_reads_served_once_and_evenly(n):
    # every failure set: lost iff two neighbours failed; else the reads sum
    # to one access a request and the survivors of a run share them evenly
    for mask in range(1, 1 << n):
        failed = {d for d in range(n) if mask >> d & 1}
        lost = any(d in failed and (d + 1) % n in failed for d in range(n))
        loads = m.chained_loads(n, failed, 1.0)
        assert (loads is None) == lost
        if lost:
            continue
        assert sum(loads) == 1
        runs = min(_run_length(n, failed, d) for d in range(n) if d not in failed)
        assert max(loads) == Fraction(runs + 1, runs) / n


def _run_length(n, failed, d):
    run = 1
    while (d + run) % n not in failed:
        run += 1
    back = 1
    while (d - back) % n not in failed:
        back += 1
    return run + back - 1


def test_two_non_adjacent_failures():
    # six disks, 0 and 3 failed: two runs of two, each serving three partitions
    assert m.degraded_ratio("chained", 6, (0, 3), 1.0) == Fraction(2, 3)
    # RAID-10 loses nothing with one failure per set, but halves
    assert m.degraded_ratio("raid10", 6, (0, 3), 1.0) == Fraction(1, 2)
    # neighbours: chained loses a partition; RAID-10 loses a set
    assert m.degraded_ratio("chained", 6, (2, 3), 1.0) is None
    assert m.degraded_ratio("raid10", 6, (0, 1), 1.0) is None


def test_share_is_the_kernels_rule():
    # engines/copyset_layout.c, rl_cs_chained_share(): k / L for the
    # survivor k steps after a failure in a run of L; 0 for a failed
    # primary; 1/2 with no failure
    assert m.chained_share(5, (), 3) == Fraction(1, 2)
    assert m.chained_share(5, (0,), 0) == 0
    assert [m.chained_share(5, (0,), p) for p in range(1, 5)] == [
        Fraction(k, 4) for k in range(1, 5)]
    assert m.chained_share(5, (0, 1), 0) is None


def test_raid10_needs_whole_sets():
    with pytest.raises(ValueError):
        m.raid10_loads(5, 2, (), 1.0)


def test_cli_runs(capsys):
    args = cli.build_parser().parse_args(["model", "p004-degraded", "--disks", "6"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "chained" in out and "0.833" in out and "0.500" in out
