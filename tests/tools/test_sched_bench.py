# SPDX-License-Identifier: GPL-2.0
"""raidlab sched-bench: geometry lines, configuration options, the plan
directives, tracker maths (pooling, 98 % bound, goal), point rows, the
policy/mirror tables and the plots, on synthetic guest output."""
import json
import math
import pathlib
import subprocess
import sys

import pytest

from raidlab_lib.bench import geom, plan, runner, sched

ROOT = pathlib.Path(__file__).resolve().parents[2]


# ------------------------------------------------------------ geometry
def test_time_scale():
    assert geom.time_scale("1/5") == pytest.approx(0.2)
    assert geom.time_scale("4") == 4
    for bad in ("0", "1/0", "x", "1/", "-1"):
        with pytest.raises(ValueError):
            geom.time_scale(bad)


def test_lightning_line_matches_70_tracker():
    # tests/vm/70-tracker.sh builds the same line for time_scale 1/5
    s = 5
    want = (f"period_ns={13900000 * s},cylinders=949,heads=14,spt=48,track_skew=5,cyl_skew=9,"
            f"head_switch_ns={1160000 * s},seek_a_ns={2000000 * s},seek_b_ns={10000 * s},"
            f"seek_c_ns={460000 * s},ref=0")
    assert geom.geom_line("lightning", "1/5") == want
    # faster than real time: times shrink
    assert geom.geometry("lightning", "2")["period_ns"] == 6950000
    assert "period_ns=16600000," in geom.geom_line("eagle")


def test_zoned_line_matches_28_sr():
    # tests/vm/28-sr.sh spells out the ST39133 line dm-hddsim's preset gives
    want = ("period_ns=6000000,cylinders=10000,heads=6,zones=0:334/2500:302/5000:270/7500:238,"
            "track_skew=34,cyl_skew=35,head_switch_ns=600000,seek_a_ns=541000,seek_b_ns=459,"
            "seek_c_ns=58740,ref=0")
    assert geom.geom_line("st39133") == want
    assert "zones=0:2000/25000:1875/50000:1750/" in geom.geom_line("modern7200")
    assert geom.geometry("st39133", "1/10")["period_ns"] == 60_000_000


def test_geometry_refuses():
    with pytest.raises(ValueError, match="hddcalib"):
        geom.geom_line("wd800")
    with pytest.raises(ValueError, match="outside"):
        geom.geom_line("lightning", "1/100")     # 1.39 s period: beyond the tracker


# ------------------------------------------------------------ configurations
def test_config_options_and_cid():
    c = plan.parse_config("rl-raid0@2[sched=satf,depth=1,track]", 4, 4)
    assert (c.level, c.disks, c.opts, c.track) == ("raid0", 2, ("sched", "satf",
                                                                "queue_depth", "1"), True)
    assert c.cid == "rl-raid0_2.sched-satf.depth-1.track"
    m = plan.parse_config("rl-mirror[sched=look]", 4, 64)
    assert (m.disks, m.opts, m.track) == (2, ("sched", "look"), False)
    # without options: as before
    assert plan.parse_config("rl-raid5", 4, 64).opts == ()


@pytest.mark.parametrize("bad", ["md-raid0[sched=satf]", "rl-raid0[sched=best]",
                                 "rl-raid0[depth=0]", "rl-raid0[track=1]",
                                 "rl-raid0[sched=look,sched=fifo]", "rl-raid0[foo]"])
def test_config_options_refused(bad):
    with pytest.raises(ValueError):
        plan.parse_config(bad, 4, 64)


def test_plan_text_geom_directive():
    p = plan.build(["rl-raid0@2[sched=satf,depth=1,track]", "rl-raid0@2[sched=fifo]"],
                   ["ind-r"], [1, 2], 0, 3, chunk_kib=4, target_ms=sched.NO_TARGET_MS,
                   disk_model="lightning", time_scale="1/5")
    t = plan.plan_text(p)
    assert ("config rl-raid0_2.sched-satf.depth-1.track rl raid0 2 4 sched satf "
            "queue_depth 1\ngeom rl-raid0_2.sched-satf.depth-1.track "
            + geom.geom_line("lightning", "1/5") + "\n") in t
    assert "config rl-raid0_2.sched-fifo rl raid0 2 4 sched fifo\njob " in t
    assert t.count("\ngeom ") == 1
    d = plan.describe(p)
    assert d["configs"][0]["track"] and d["configs"][0]["opts"][:2] == ["sched", "satf"]
    # track needs a disk model with a geometry
    with pytest.raises(ValueError):
        plan.build(["rl-raid0[track]"], ["ind-r"], [1], 0, 3, target_ms=10.0)


def test_wrapper_script_guest():
    s = runner.wrapper_script("set x 1\n", guest="bench/tracker-guest.sh")
    assert s.rstrip().endswith('exec sh "$RL_TOOLS/bench/tracker-guest.sh" /tmp/bench.plan')
    assert 'bench/guest.sh" /tmp/bench.plan' in runner.wrapper_script("set x 1\n")


# ------------------------------------------------------------ parsing
TRK = ("0 samples=5 errors=0 period_ns=69500123.456 cal=1 refs=5 restarts=0 cal_age_ms=100 "
       "n={n} err_mean_ns={m} err_std_ns={s} miss_pct={miss} demerit_ns=400000 "
       "access_ns=100000000 slack=2")


def test_parse_kv_and_tracker_lines():
    t = ("before-trk " + TRK.format(n=0, m=0, s=0, miss=0) + "\n"
         "after-trk " + TRK.format(n=10, m=-500, s=2000, miss="0.5000") + "\nafter x 1 2\n")
    a = sched.tracker_lines(t, "after-trk")
    assert len(a) == 1 and a[0]["n"] == 10 and a[0]["err_mean_ns"] == -500
    assert a[0]["period_ns"] == pytest.approx(69500123.456) and a[0]["cal"] == 1


def test_hdd_late_pct():
    st = "0 637728 hddsim lightning 637728 {} 0 0 0 0 0 0 0 0 {} 0 0"
    t = (f"before {st.format(100, 1)}\nbefore {st.format(50, 0)}\n"
         f"after {st.format(300, 3)}\nafter {st.format(250, 2)}\n")
    assert sched.hdd_late_pct(t) == pytest.approx(100.0 * 4 / 400)
    assert sched.hdd_late_pct("before x\n") is None


# ------------------------------------------------------------ tracker maths
def test_tracker_row_pools_members():
    period = 69_500_000
    a = sched.parse_kv(TRK.format(n=100, m=1000, s=30000, miss="0.0000"))
    b = sched.parse_kv(TRK.format(n=300, m=-1000, s=50000, miss="1.0000"))
    r = sched.tracker_row("1/5", period, [a, b], cal_s=2, iops=40.0)
    mean = (100 * 1000 + 300 * -1000) / 400
    var = (100 * (30000 ** 2 + (1000 - mean) ** 2) + 300 * (50000 ** 2 + (-1000 - mean) ** 2)) / 400
    assert r["err_mean_us"] == pytest.approx(mean / 1e3)
    assert r["err_std_us"] == pytest.approx(math.sqrt(var) / 1e3)
    assert r["err98_pct"] == pytest.approx(100 * (abs(mean) + 2.3263 * math.sqrt(var)) / period,
                                           rel=1e-4)
    assert r["miss_pct"] == pytest.approx(0.75)
    assert r["slow"] == 5 and r["requests"] == 400 and r["iops_per_disk"] == 20
    assert r["period_err_pct"] == pytest.approx(100 * 123.456 / period)
    assert r["demerit_pct"] == pytest.approx(0.4)
    # 0.75 % misses: the goal is missed even though the error is small
    assert r["err98_pct"] < 1 and not r["meets_goal"]
    good = sched.tracker_row("1/5", period, [a])
    assert good["meets_goal"]
    assert sched.tracker_row("1", period, [sched.parse_kv("n=0")]) is None


def test_paper_row():
    p = sched.paper_row()
    # 31 us std of a 6 ms rotation: 0.52 %; |3| + 2.33 x 31 = 75 us = 1.25 %
    assert p["err_std_pct"] == pytest.approx(0.5167, abs=1e-3)
    assert p["err98_pct"] == pytest.approx(1.252, abs=1e-2)
    assert p["demerit_pct"] == pytest.approx(1.89, abs=0.01)


def test_tracker_plan_text():
    t = sched.tracker_plan_text(["1", "1/20"], "lightning", 30, 8, 2)
    assert "set runtime 30\nset depth 8\nset disks 2\n" in t
    assert "\nscale 1_20 1/20 period_ns=278000000," in t


def test_tracker_rows_and_summary(tmp_path):
    base = tmp_path / "vm" / "tracker"
    st = "0 637728 hddsim lightning 637728 {} 0 0 0 0 0 0 0 0 {} 0 0"
    for ts, std in (("1", 900000), ("1_5", 200000)):
        d = base / ts
        d.mkdir(parents=True)
        (d / "trk").write_text("".join(
            f"before {TRK.format(n=0, m=0, s=0, miss='0.0')}\n" for _ in range(2)) + "".join(
            f"after {TRK.format(n=200, m=100, s=std, miss='0.1000')}\n" for _ in range(2)))
        (d / "hdd").write_text(f"before {st.format(0, 0)}\nafter {st.format(400, 4)}\n")
        (d / "cal_s").write_text("3\n")
        (d / "fio.json").write_text(json.dumps({"jobs": [{"read": {
            "iops": 20.0, "bw_bytes": 81920, "total_ios": 400, "clat_ns": {"mean": 1e8}},
            "write": {"iops": 0, "bw_bytes": 0, "total_ios": 0}}]}))
    nd = base / "1_10"      # a scale whose trackers never calibrated
    nd.mkdir()
    (nd / "trk").write_text("after 0 samples=9 errors=0 period_ns=70000000.000 cal=0 n=0\n")
    (nd / "cal_s").write_text("nocal\n")
    meta = dict(scales=["1", "1/5", "1/10"], preset="lightning", runtime=30, depth=8, ndisks=2,
                sched="satf")
    assert sched.finish_tracker(tmp_path, meta, 100.0, "cmd", log=open("/dev/null", "w")) == 0
    rows = json.loads((tmp_path / "tracker.json").read_text())["rows"]
    assert [r["time_scale"] for r in rows] == ["1", "1/5", "1/10"]
    # 200 us std of a 69.5 ms rotation meets the goal; 900 us of 13.9 ms does not
    assert [r["meets_goal"] for r in rows] == [False, True, False]
    assert rows[2]["cal_s"] == "nocal" and rows[2]["period_est_us"] == 70000
    assert rows[0]["hdd_late_pct"] == pytest.approx(1.0)
    md = (tmp_path / "summary.md").read_text()
    assert "| paper 002 |" in md and "Scales meeting the goal: 1/5\n" in md
    assert "| 1/10 | 139000 | 49.64 | 0 | - |" in md and "not calibrated" in md
    assert "| 1/5 | 1 | +0.00 | 0 | 200 | 0 | 200 | 0.29 | 0.10 | 2 |" in md


# ------------------------------------------------------------ policy / mirror
def _fio(iops, mean_ns, p90_ns):
    return json.dumps({"jobs": [{"mixed": {
        "iops": iops, "bw_bytes": iops * 4096, "total_ios": int(iops * 10),
        "clat_ns": {"mean": mean_ns, "percentile": {"50.000000": mean_ns,
                                                     "90.000000": p90_ns,
                                                     "99.000000": p90_ns}}}}]})


def _fake(tmp, desc, curves):
    for cid, pts in curves.items():
        d = tmp / "vm" / "bench" / cid / "ind-r"
        d.mkdir(parents=True)
        for depth, iops in pts:
            (d / f"d{depth}.json").write_text(_fio(iops, 1e9 * depth / iops, 2e9 * depth / iops))
            (d / f"d{depth}.mstat").write_text(
                "before /dev/mapper/hdd0 " + " ".join(["0"] * 11) + "\n"
                "after-trk " + TRK.format(n=50, m=0, s=1000, miss="0.2") + "\n")


def test_policy_rows_gain_and_plot(tmp_path):
    cfgs = sched.configs_for(type("A", (), {"which": "policy", "members": 2,
                                            "policies": ["fifo", "look", "satf"]})())
    p = plan.build(cfgs, ["ind-r"], [1, 8], 0, 3, chunk_kib=4, target_ms=sched.NO_TARGET_MS,
                   disk_model="lightning", time_scale="1/5")
    desc = plan.describe(p)
    ids = [c["id"] for c in desc["configs"]]
    _fake(tmp_path, desc, {ids[0]: [(1, 10), (8, 12)], ids[1]: [(1, 10), (8, 18)],
                           ids[2]: [(1, 10), (8, 24)]})
    rows = sched.point_rows(tmp_path / "vm" / "bench", desc)
    assert len(rows) == 6
    r = rows[1]
    assert (r["label"], r["depth"], r["iops_per_disk"]) == ("raid0 fifo+trk", 8, 6)
    assert r["mean_ms"] == pytest.approx(8000 / 12)
    assert r["trk_n"] == 50 and r["trk_err_std_us"] == 1.0
    labels, table = sched.gain_table(rows, "ind-r")
    assert labels == ["raid0 fifo+trk", "raid0 look+trk", "raid0 satf+trk"]
    d8 = dict(table)[8]
    assert [c[3] for c in d8] == pytest.approx([1.0, 1.5, 2.0])
    assert "| 8 | 6.0 |" in sched.policy_markdown(rows)
    assert sched.finish_bench(tmp_path, desc, "policy", 60.0, "cmd",
                              log=open("/dev/null", "w")) == 0
    assert (tmp_path / "sched-points.csv").read_text().startswith(",".join(sched.POINT_FIELDS))
    if (tmp_path / "policy.png").exists():
        assert (tmp_path / "policy.png").read_bytes()[:4] == b"\x89PNG"


def test_mirror_pairs(tmp_path):
    cfgs = sched.configs_for(type("A", (), {"which": "mirror"})())
    p = plan.build(cfgs, ["ind-r"], [1, 8], 0, 3, chunk_kib=4, target_ms=sched.NO_TARGET_MS,
                   disk_model="lightning", time_scale="1/5")
    desc = plan.describe(p)
    ids = {c["name"]: c["id"] for c in desc["configs"]}
    _fake(tmp_path, desc, {
        ids["rl-raid0@2[sched=look,depth=1]"]: [(1, 10), (8, 20)],
        ids["rl-mirror[sched=look,depth=1]"]: [(1, 10), (8, 22)],
        ids["rl-raid0@2[sched=satf,depth=1,track]"]: [(1, 10), (8, 30)],
        ids["rl-mirror[sched=satf,depth=1,track]"]: [(1, 11), (8, 36)],
        ids["rl-raid0@2[sched=look,depth=1,track]"]: [(1, 10), (8, 20)],
        ids["rl-mirror[sched=look,depth=1,track]"]: [(1, 10), (8, 24)]})
    rows = sched.point_rows(tmp_path / "vm" / "bench", desc)
    pairs = sched.mirror_pairs(rows, "ind-r")
    got = {(v, d): ratio for v, d, _, _, ratio in pairs}
    assert got == pytest.approx({("look", 1): 1.0, ("look", 8): 1.1,
                                 ("look+trk", 1): 1.0, ("look+trk", 8): 1.2,
                                 ("satf+trk", 1): 1.1, ("satf+trk", 8): 1.2})
    md = sched.mirror_markdown(rows)
    assert "| look | 8 | 10.0 | 11.0 | 1.10 |" in md
    vr = {(v, d): r for v, d, _, r in sched.variant_ratios(rows, "ind-r")}
    assert vr == pytest.approx({("look", 1): 1.0, ("look", 8): 1.0, ("look+trk", 1): 1.0,
                                ("look+trk", 8): 24 / 22, ("satf+trk", 1): 1.1,
                                ("satf+trk", 8): 36 / 22})
    assert "| look+trk | 8 | 12.0 | 1.09 |" in md


# ------------------------------------------------------------ command line
def test_cli_dry_runs():
    raidlab = str(ROOT / "tools" / "raidlab")
    r = subprocess.run([sys.executable, raidlab, "sched-bench", "policy", "--dry-run"],
                       capture_output=True, text=True, check=True)
    assert r.stdout.count("\ngeom ") == 3 and "set target 1000000.0" in r.stdout
    r = subprocess.run([sys.executable, raidlab, "sched-bench", "tracker", "--dry-run",
                        "--scales", "1,1/200"], capture_output=True, text=True)
    assert r.returncode == 2 and "outside" in r.stderr


def test_guest_scripts_parse():
    for g in ("guest.sh", "tracker-guest.sh"):
        subprocess.run(["sh", "-n", str(ROOT / "tools" / "bench" / g)], check=True)
