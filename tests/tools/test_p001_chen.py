# SPDX-License-Identifier: GPL-2.0
"""Chen, Gibson, Katz, Patterson, SIGMETRICS 1990: the simple and adjusted
throughput models (/work/shared/papers/001_011a8c2463265b00.txt)."""
import pytest

from raidlab_lib import cli
from raidlab_lib.models import p001_chen as m

N = m.N_DISKS


# ------------------------------------------------------------ simple model
def test_figure2_simple_model():
    # Section 3 / Figure 2 (N = 11): reads 100% for all levels; RAID 1 writes
    # 50%; RAID 5 full stripe writes (N-1)/N; RAID 5 individual writes 25%.
    for level in (0, 1, 5):
        for D in (1, N - 1):
            assert m.simple_relative_throughput(level, "read", D, N) == 1.0
    assert m.simple_relative_throughput(0, "write") == 1.0
    assert m.simple_relative_throughput(1, "write") == pytest.approx(0.50)
    assert m.simple_relative_throughput(5, "write", N - 1, N) == pytest.approx(10 / 11)
    assert round(100 * m.simple_relative_throughput(5, "write", N - 1, N)) == 91
    assert m.simple_relative_throughput(5, "write", 1, N) == pytest.approx(0.25)


def test_individual_write_is_four_accesses():
    # Section 3: "an individual request, involving one disk access, generates a
    # physical request involving four disk accesses"; "the first method is
    # better for N >= 4"
    for n in range(4, 30):
        assert m.raid5_write_accesses(1, n) == 4
    assert m.raid5_write_accesses(1, 3) == 3   # N = 3: read the other data disk


def test_partial_stripe_range():
    # Section 8.1.4: "partial stripe writes can have relative performance
    # ranging from 25% to (N-2)/N"
    vals = [m.simple_relative_throughput(5, "write", d, N) for d in range(1, N - 1)]
    assert min(vals) == pytest.approx(0.25)
    assert max(vals) == pytest.approx((N - 2) / N)
    assert all(a <= b for a, b in zip(vals, vals[1:]))
    # full stripe beats any partial stripe
    assert m.simple_relative_throughput(5, "write", N - 1, N) > max(vals)


def test_full_stripe_write_limit():
    # (N-1)/N -> 1 for large groups
    assert m.simple_relative_throughput(5, "write", 99, 100) == pytest.approx(0.99)


def test_simple_model_vs_measured_raid1_small_writes():
    # Section 7.3: maximum throughput per disk for small writes is .906 MB/s
    # for RAID 0 and .438 MB/s for RAID 1; section 7.2 says the simple model
    # "accurately predicts" such cases.
    assert m.simple_relative_throughput(1, "write") == pytest.approx(0.438 / 0.906, rel=0.05)


# ------------------------------------------------------------ adjusted model
def test_raid0_access_about_40_disk_ms():
    # Section 7.2: "The total disk-time for RAID Level 0 small writes is
    # approximately 40 disk-ms"
    assert m.access_time() == pytest.approx(40, abs=1.0)


def test_raid5_small_write_144_disk_ms():
    # Section 7.2: "each disk takes 72 ms, yielding a disk-time of 144 disk-ms"
    assert m.raid5_small_write_disk_time() / 2 == pytest.approx(72, abs=1.0)
    assert m.raid5_small_write_disk_time() == pytest.approx(144, abs=1.0)


def test_adjusted_raid5_small_write_28_percent():
    # Section 7.2: "the adjusted simple model predicts a relative throughput of
    # 40/144 = 28%".  The model gives 27.3% (39.5/144.8): the paper rounded the
    # components (see the module docstring).
    assert m.adjusted_relative_throughput(5, "write", 1, N) == pytest.approx(0.28, abs=0.01)


def test_adjusted_raid1_read_110_percent():
    # Section 7.2: "the adjusted simple model predicts a relative throughput of
    # 110% for RAID Level 1"; measured 112% - 115%.
    r = m.adjusted_relative_throughput(1, "read")
    assert r == pytest.approx(1.10, abs=0.015)
    assert 1.0 < r < 1.15


def test_adjusted_leaves_other_cases_unchanged():
    # "The adjusted model does not change the relative throughput estimates for
    # other RAID Levels and workloads."
    for level, op, D in [(0, "read", 1), (0, "write", N - 1), (1, "write", 1),
                         (1, "write", N - 1), (5, "read", 1), (5, "read", N - 1),
                         (5, "write", N - 1)]:
        assert m.adjusted_relative_throughput(level, op, D, N) == \
            m.simple_relative_throughput(level, op, D, N)


def test_adjusted_equals_simple_when_accesses_cost_the_same():
    # With no seek saving the RAID 1 read is 100%; if a full rotation plus a
    # transfer cost exactly what a seek + average rotation + transfer cost,
    # the RAID 5 small write is the simple model's four equal accesses.
    assert m.adjusted_relative_throughput(1, "read", seek_saving=0.0) == 1.0
    r = m.adjusted_relative_throughput(5, "write", 1, N, t_seek=10.0, t_rot=5.0,
                                       t_xfer=5.0, t_full=15.0)
    assert r == pytest.approx(0.25)


def test_saving_a_seek_helps_raid5():
    # Section 7.1.1: "we save an average seek (15 ms) but pay an extra half
    # rotation (8.3 ms)": since 15 > 8.3 the adjusted estimate exceeds 25%
    assert m.adjusted_relative_throughput(5, "write", 1, N) > 0.25


# ------------------------------------------------------------ synchronisation
def test_sync_rotations():
    # Section 7.1.1: E[max of N uniform(0, 16.7 ms)] = N/(N+1) x 16.7 ms
    assert m.sync_rotation(1) == pytest.approx(16.7 / 2)
    assert m.sync_penalty(1) == pytest.approx(0.0)
    pen = [m.sync_penalty(n) for n in range(1, 30)]
    assert all(a < b for a, b in zip(pen, pen[1:]))
    assert m.sync_rotation(10 ** 6) == pytest.approx(16.7, rel=1e-5)


def test_cli_runs(capsys):
    args = cli.build_parser().parse_args(["model", "p001"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "small write" in out and "25.0%" in out
