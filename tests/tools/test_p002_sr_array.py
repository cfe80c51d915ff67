# SPDX-License-Identifier: GPL-2.0
"""Yu et al., OSDI 2000: the SR-Array models (section 2) and the paper's own
aspect-ratio examples (/work/shared/papers/002_fccdb35a058fdb10.txt)."""
import itertools
import json
import math

import pytest

from raidlab_lib import cli, srlayout
from raidlab_lib.models import p002_sr_array as m
from raidlab_lib.trace import blkparse

R = m.R_DEFAULT
LOC = m.LOCALITY


# ------------------------------------------------------------ paper examples
def test_rotation_time_10000_rpm():
    # Table 1: "RPM 10000"
    assert R == pytest.approx(60000 / 10000)


def test_S_implied_by_both_d9_examples_agrees():
    # Section 4.1: "the largest practical value of D_r for D=9 is only three,
    # much smaller than the non-integer solution of Equation (5) (5.8 for
    # Cello base and 11.6 for Cello disk 6)".  S is not stated; solving eq. 5
    # for S from each example must give the same disk (within the rounding of
    # the printed 5.8 / 11.6), and the default S is that value.
    def s_from(dr, L):
        return 3 * R * L * 9 / (2 * dr ** 2)
    s1, s2 = s_from(5.8, LOC["cello-base"]), s_from(11.6, LOC["cello-disk6"])
    assert s1 == pytest.approx(s2, rel=0.02)
    assert m.S_DEFAULT == pytest.approx((s1 + s2) / 2, rel=0.01)


@pytest.mark.parametrize("wl,paper", [("cello-base", 5.8), ("cello-disk6", 11.6)])
def test_optimal_dr_for_nine_disks(wl, paper):
    # Section 4.1 (see above), with S/L for the Table 3 locality index
    _, dr, _ = m.optimal_continuous(9, L=LOC[wl])
    assert dr == pytest.approx(paper, abs=0.05)
    # "the largest practical value of D_r for D=9 is only three"
    assert m.choose_config(9, L=LOC[wl], max_dr=m.MAX_DR) == (3, 3)


def test_dr_ratio_is_independent_of_S():
    # 11.6 / 5.8 = sqrt(L_disk6 / L_base), whatever S is
    for S in (5.0, 10.0, 20.0):
        a = m.optimal_continuous(9, S=S, L=LOC["cello-base"])[1]
        b = m.optimal_continuous(9, S=S, L=LOC["cello-disk6"])[1]
        assert b / a == pytest.approx(11.6 / 5.8, rel=0.01)


def test_cello_base_six_disks_is_2x3():
    # Section 4.1: "when the number of disks is six, the model recommends a
    # configuration of Ds x Dr = 2 x 3 for Cello base"
    assert m.choose_config(6, L=LOC["cello-base"]) == (2, 3)
    assert m.choose_config(6, L=LOC["cello-base"], max_dr=m.MAX_DR) == (2, 3)


def test_tpcc_36_disks_is_9x4_then_less_replication():
    # Section 4.1: "Under the original trace playing rate, the 9x4x1 SR-Array is
    # best.  As we raise the request arrival rate, we must successively reduce
    # the degree of replication; ... 12x3x1, ..., 18x2x1, and finally 36x1x1".
    # Background propagation at the original rate means p = 1; a higher rate
    # forces more foreground propagation, i.e. a lower p.
    L = LOC["tpcc"]
    assert m.choose_config(36, L=L, p=1.0) == (9, 4)
    seq = []
    for p in [1.0 - i / 100 for i in range(0, 51)]:
        c = m.choose_config(36, L=L, p=p)
        if not seq or seq[-1] != c:
            seq.append(c)
    assert seq == [(9, 4), (12, 3), (18, 2), (36, 1)]
    # reads are 54.8% of TPC-C (Table 3): all writes in the foreground -> striping
    assert m.choose_config(36, L=L, p=0.548) == (36, 1)


def test_striping_ratio_six_disks_cello_base():
    # Section 4.1: with six disks on Cello base "the SR-Array is ... 1.42 times
    # as fast as a striped system"; reported times include 2.7 ms overhead.
    L, o = LOC["cello-base"], m.OVERHEAD_MS
    sr = m.latency(2, 3, L=L) + o
    stripe = m.latency(6, 1, L=L) + o
    assert stripe / sr == pytest.approx(1.42, abs=0.02)


# ------------------------------------------------------------ the equations
def test_eq1_to_3():
    S = 12.0
    assert m.seek_stripe(S, 1) == pytest.approx(S / 3)        # S_1 = S/3
    assert m.seek_stripe(S, 4) == pytest.approx(S / 12)
    assert m.seek_mirror(S, 1) == pytest.approx(S / 3)
    assert m.rot_read(R, 1) == pytest.approx(R / 2)          # R_r(1) = R/2
    for D in range(1, 10):
        # "Notice that R_r(D) + R_w(D) = R"
        assert m.rot_read(R, D) + m.rot_write(R, D) == pytest.approx(R)
        # random placement is worse than even spacing (for D > 1)
        assert m.rot_read_random(R, D) >= m.rot_read(R, D) - 1e-12
        # striping reduces seek more than mirroring
        assert m.seek_stripe(S, D) <= m.seek_mirror(S, D) + 1e-12


def test_more_replicas_never_increase_read_rotation():
    for D in range(1, 20):
        assert m.rot_read(R, D + 1) < m.rot_read(R, D)
        assert m.rot_read_random(R, D + 1) < m.rot_read_random(R, D)
        assert m.rot_write(R, D + 1) > m.rot_write(R, D)
    for Ds, Dr in itertools.product(range(1, 6), range(1, 6)):
        assert m.latency_read(Ds, Dr + 1) < m.latency_read(Ds, Dr)
        assert m.latency_read(Ds + 1, Dr) < m.latency_read(Ds, Dr)


@pytest.mark.parametrize("p,q", [(1.0, None), (0.8, None), (0.6, None),
                                 (1.0, 8), (0.75, 32)])
def test_continuous_optimum_minimises_and_matches_closed_form(p, q):
    S, L = 9.0, 2.0
    for D in (2, 6, 9, 36):
        Ds, Dr, T = m.optimal_continuous(D, S=S, p=p, L=L, q=q)
        assert Ds * Dr == pytest.approx(D)
        assert m.latency(Ds, Dr, S=S, p=p, L=L, q=q) == pytest.approx(T)
        for x in (0.5, 0.8, 0.95, 1.05, 1.3, 2.0):     # neighbours on Ds Dr = D
            assert m.latency(Ds * x, Dr / x, S=S, p=p, L=L, q=q) >= T - 1e-12


def test_closed_forms_eq6_eq11_eq14():
    S, D = 10.0, 9
    assert m.optimal_continuous(D, S=S)[2] == pytest.approx(math.sqrt(2 * S * R / (3 * D)))
    p = 0.8
    assert m.optimal_continuous(D, S=S, p=p)[2] == pytest.approx(
        math.sqrt(2 * S * R * (2 * p - 1) / (3 * D)) + (1 - p) * R)
    q = 16
    assert m.optimal_continuous(D, S=S, p=p, q=q)[2] == pytest.approx(
        math.sqrt(2 * S * R * (2 * p - 1) / (q * D)) + (1 - p) * R)


def test_latency_improves_as_sqrt_D():
    # "the latency improvement on an SR-Array is proportional to sqrt(D)"
    t1 = m.optimal_continuous(1)[2]
    for D in (4, 16, 64):
        assert t1 / m.optimal_continuous(D)[2] == pytest.approx(math.sqrt(D))


def test_p_at_most_half_means_pure_striping():
    # "A p ratio under 50% precludes rotational replication"
    for p in (0.5, 0.4, 0.0):
        assert m.choose_config(12, p=p) == (12, 1)
        assert m.best_integer_config(12, p=p) == (12, 1)
    # and with p = 1/2 the replica count does not change the latency
    assert m.latency(3, 4, p=0.5) - m.latency(3, 1, p=0.5) == pytest.approx(0.0)


def test_eq9_is_mix_of_eq4_and_eq7():
    for p in (0.0, 0.3, 1.0):
        assert m.latency(3, 2, p=p) == pytest.approx(
            p * m.latency_read(3, 2) + (1 - p) * m.latency_write(3, 2))


def test_p_ratio_eq8():
    assert m.p_ratio(55, 19, 26) == pytest.approx(0.74)
    assert m.p_ratio(10, 0, 0) == 1.0


def test_longer_queue_asks_for_taller_grid():
    # Section 2.4: a long queue amortizes the stroke -> more rotational replicas
    drs = [m.optimal_continuous(36, q=q)[1] for q in (4, 8, 16, 32)]
    assert all(a < b for a, b in zip(drs, drs[1:]))
    # q <= 3 falls back to the latency model (eq. 9)
    assert m.latency(3, 2, q=3) == pytest.approx(m.latency(3, 2))


def test_sr_mirror_replaces_dr_by_dr_dm():
    assert m.latency(3, 1, Dm=2) == pytest.approx(m.latency(3, 2))


def test_chosen_config_is_a_factorisation_not_above_optimum():
    for D in range(1, 40):
        Ds, Dr = m.choose_config(D, L=3.0)
        assert Ds * Dr == D
        assert Dr <= m.optimal_continuous(D, L=3.0)[1] + 1e-9
        bDs, bDr = m.best_integer_config(D, L=3.0)
        assert m.latency(bDs, bDr, L=3.0) <= m.latency(Ds, Dr, L=3.0) + 1e-12


def test_eq16_limits():
    N1 = m.throughput_one(1.0, 2.7)
    assert N1 == pytest.approx(1 / 3.7)
    # many outstanding requests: every disk busy
    assert m.throughput_array(6, 100, N1) == pytest.approx(6 * N1)
    # one disk is always busy when there is any request
    assert m.throughput_array(1, 1, N1) == pytest.approx(N1)
    # Q = D, D large: 1 - 1/e of the disks busy
    assert m.throughput_array(1000, 1, N1) / (1000 * N1) == pytest.approx(1 - 1 / math.e, rel=1e-3)
    ts = [m.throughput_array(8, q, N1) for q in (1, 2, 4, 8)]
    assert all(a < b for a, b in zip(ts, ts[1:]))


def test_cli_runs(capsys):
    args = cli.build_parser().parse_args(
        ["model", "p002", "--workload", "cello-base", "--disks", "6", "9"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "2x3" in out and "5.79" in out


# ------------------------------------------------------------ configurator
def test_configure_paper_examples():
    # section 4.1: 2x3 for Cello base on six disks, 9x4 for TPC-C on 36
    c = m.configure(6, L=LOC["cello-base"])
    assert (c["Ds"], c["Dr"], c["Dm"]) == (2, 3, 1)
    assert c["T_ms"] == pytest.approx(m.latency(2, 3, L=LOC["cello-base"]), abs=1e-3)
    assert (m.configure(36, L=LOC["tpcc"])["Ds"], m.configure(36, L=LOC["tpcc"])["Dr"]) == (9, 4)
    # every shape of the copy's disks is listed with its model latency
    assert set(c["shapes_T_ms"]) == {"6x1x1", "3x2x1", "2x3x1", "1x6x1"}
    # two copies: the mirrors count as replicas (section 2.5), Dr* halves
    c2 = m.configure(6, L=LOC["cello-base"], copies=2)
    assert (c2["Ds"], c2["Dr"], c2["Dm"]) == (3, 1, 2)
    assert c2["Dr_opt"] == pytest.approx(c["Dr_opt"] / 2, abs=1e-3)
    # the capacity's floor on Ds wins over the optimum
    c3 = m.configure(6, L=LOC["cello-base"], min_ds=3)
    assert (c3["Ds"], c3["Dr"]) == (3, 2)
    # the heads (or the prototype's 6) cap Dr
    assert m.configure(36, L=LOC["cello-disk6"], max_dr=2)["Dr"] == 2
    with pytest.raises(ValueError, match="holds the capacity"):
        m.configure(6, min_ds=7)
    with pytest.raises(ValueError, match="copies"):
        m.configure(6, copies=4)


def test_disk_times_from_geometry():
    g = srlayout.parse_geom(srlayout.resolve_geom("st39133"))
    S, R = m.disk_times(g)
    assert R == pytest.approx(6.0)
    # 0.541 + 0.000459 x 9999 + 0.05874 x sqrt(9999): 11 ms, the datasheet's full stroke
    assert S == pytest.approx(0.541 + 0.000459 * 9999 + 0.05874 * math.sqrt(9999), rel=1e-9)


def _trace_lines(reqs):
    """blkparse lines: (time, kind, sector, n, done) each a D and a C."""
    out = []
    for i, (t, kind, sector, n, done) in enumerate(reqs):
        out.append(f"8,16 0 {2 * i} {t:.9f} 1 D {kind} {sector} + {n} [fio]")
        out.append(f"8,16 0 {2 * i + 1} {done:.9f} 1 C {kind} {sector} + {n} [0]")
    return "\n".join(sorted(out, key=lambda ln: float(ln.split()[3]))) + "\n"


def test_trace_workload():
    # sequential-ish: seeks of 0 over an extent of 1000 -> L from the floor
    # of one sector; three reads, one write; one request in flight at a time
    reqs = [(0.0, "R", 0, 8, 0.01), (0.01, "R", 8, 8, 0.02), (0.02, "W", 16, 8, 0.03),
            (0.03, "R", 992, 8, 0.04)]
    wl = m.trace_workload(blkparse.parse(_trace_lines(reqs))["8,16"])
    assert wl["read_share"] == pytest.approx(0.75)
    assert wl["q"] == pytest.approx(1.0)
    # seeks 0, 0, 968: mean 322.7; a random one over 1000 sectors 333.3
    assert wl["L"] == pytest.approx((1000 / 3) / (968 / 3))
    # two at a time: q 2
    reqs2 = [(0.0, "R", 0, 8, 0.02), (0.0, "R", 500, 8, 0.02), (0.02, "R", 1000, 8, 0.04),
             (0.02, "R", 100, 8, 0.04)]
    assert m.trace_workload(blkparse.parse(_trace_lines(reqs2))["8,16"])["q"] == \
        pytest.approx(2.0)
    with pytest.raises(ValueError, match="fewer than two"):
        m.trace_workload(blkparse.parse(_trace_lines(reqs[:1]))["8,16"])


def test_cli_configure(capsys, tmp_path):
    args = cli.build_parser().parse_args(
        ["model", "p002", "--configure", "--disks", "6", "--geom", "st39133", "--workload",
         "cello-base", "--json"])
    assert args.func(args) == 0
    c = json.loads(capsys.readouterr().out)
    assert (c["Ds"], c["Dr"], c["Dm"], c["R_ms"]) == (2, 3, 1, 6.0)
    tr = tmp_path / "t.txt"
    tr.write_text(_trace_lines([(0.0, "R", 0, 8, 0.01), (0.01, "W", 4000000, 8, 0.02),
                                (0.02, "R", 8, 8, 0.03)]))
    args = cli.build_parser().parse_args(
        ["model", "p002", "--configure", "--disks", "6", "--geom", "st39133", "--trace",
         str(tr), "--propagate", "fg"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "p=0.667" in out and "chosen: " in out and "table options: dr " in out


def test_cli_configure_refuses(capsys):
    for argv, msg in ((["--disks", "6", "9"], "one --disks value"),
                      (["--disks", "6", "--geom", "nope"], "no geometry for disk model"),
                      (["--disks", "6", "--copies", "4"], "copies")):
        args = cli.build_parser().parse_args(["model", "p002", "--configure", *argv])
        assert args.func(args) == 1
        assert msg in capsys.readouterr().err
