# SPDX-License-Identifier: GPL-2.0
"""raidlab bench: plan building, workloads, the p90 search on synthetic
latency curves, per-disk/relative numbers, the CSV/JSON schema and plots."""
import csv
import io
import json
import pathlib
import subprocess
import sys

import pytest

from raidlab_lib.bench import plan, plots, results, runner, search
from raidlab_lib.bench import workloads as wl

ROOT = pathlib.Path(__file__).resolve().parents[2]


# ------------------------------------------------------------ workloads
def test_parse_names():
    w = wl.parse("exp6k-r70-ua-loc80x20")
    assert (w.size, w.mean_kib, w.read_pct, w.aligned, w.locality) == ("exp", 6.0, 70, False, (80, 20))
    assert wl.parse("ind-r").read_pct == 100
    assert wl.parse("fs-w").read_pct == 0
    assert wl.parse("airline").read_pct == 82
    assert wl.parse("norm1536k-r0").kind == "large"


@pytest.mark.parametrize("bad", ["foo-r", "ind", "ind-x", "ind-r101", "ind-r-zz",
                                 "ind-r-loc0x20", "exp0k-r"])
def test_parse_rejects(bad):
    with pytest.raises(ValueError):
        wl.parse(bad)


def test_exp_split_mean_and_sum():
    sp = wl.exp_split(6.0)
    assert sum(p for _, p in sp) == 100
    assert sp[0][0] == 1 and all(s % 1 == 0 for s, _ in sp)
    # rounding to 1 KiB keeps the mean within 10 % of the exponential's
    assert abs(wl.split_mean(sp) - 6.0) < 0.6
    # decreasing weights: an exponential density
    ps = [p for _, p in sp]
    assert ps[0] >= ps[3] >= ps[8]


def test_norm_split_mean_and_limit():
    sp = wl.norm_split(1536, 512, 64)
    assert sum(p for _, p in sp) == 100
    assert abs(wl.split_mean(sp) - 1536) < 0.05 * 1536
    assert len(sp) <= wl.BSSPLIT_MAX
    assert all(s % 64 == 0 for s, _ in sp)


def test_airline_matches_paper_000_fig26():
    r, w = wl.airline_splits()
    assert sum(p for _, p in r) == 100 and sum(p for _, p in w) == 100
    # the table's means (408/82 = 4.98 KiB reads, 113/18 = 6.28 KiB writes;
    # the caption's 4.61 and 5.71 KB do not follow from the table)
    assert wl.split_mean(r) == pytest.approx(408 / 82, abs=0.05)
    assert wl.split_mean(w) == pytest.approx(113 / 18, abs=0.05)
    assert [s for s, _ in r] == [1, 2, 4, 24] and w == [(1, 50), (8, 39), (24, 11)]


def test_fio_args_geometry_and_alignment():
    geo = wl.Geometry(64, 3)
    assert wl.fio_args(wl.parse("fs-w"), geo) == ["--rw=randwrite", "--bs=192k",
                                                  "--blockalign=192k"]
    assert "--blockalign=64k" in wl.fio_args(wl.parse("ind-r"), geo)
    assert "--blockalign=4k" in wl.fio_args(wl.parse("ind-r-ua"), geo)
    a = wl.fio_args(wl.parse("exp6k-r25-ua-loc90x10"), geo)
    assert "--rw=randrw" in a and "--rwmixread=25" in a
    assert "--random_distribution=zoned:90/10:10/90" in a
    assert any(x.startswith("--bssplit=1k/") for x in a)
    assert all(" " not in x for x in a)
    air = wl.fio_args(wl.parse("airline"), geo)
    assert any(x.startswith("--bssplit=") and "," in x for x in air)


# ------------------------------------------------------------ plans
def test_config_names():
    c = plan.parse_config("rl-raid5", 4, 64)
    assert (c.kind, c.level, c.disks, c.data_cols) == ("rl", "raid5", 4, 3)
    assert plan.parse_config("rl-mirror", 4, 64).disks == 2
    assert plan.parse_config("md-raid10", 4, 64).data_cols == 2
    assert plan.parse_config("rl-mirror@3", 4, 64).disks == 3
    c = plan.parse_config("rl-raid6", 5, 64)
    assert (c.level, c.disks, c.data_cols) == ("raid6", 5, 3)
    for bad in ("rl-raid7", "xx-raid0", "md-raid10@3", "rl-raid5@9", "md-raid5@2",
                "rl-raid6@3"):
        with pytest.raises(ValueError):
            plan.parse_config(bad, 4, 64)


def test_build_baseline_first_and_jobs():
    p = plan.build(["md-raid5", "rl-raid0"], ["ind-r", "fs-w"], [1, 2, 4], 1, 3)
    assert [c.name for c in p.configs] == ["rl-raid0", "md-raid5"]
    assert len(p.jobs) == 4 and p.max_points() == 4 * 4
    fs = [a for c, w, a in p.jobs if c.name == "md-raid5" and w.name == "fs-w"][0]
    assert "--bs=192k" in fs
    text = plan.plan_text(p)
    lines = text.splitlines()
    assert "set ladder 1 2 4" in lines
    assert lines.index("config rl-raid0 rl raid0 4 64") < lines.index("config md-raid5 md raid5 4 64")
    assert all(len(l.split()) >= 3 for l in lines if l.startswith("job "))
    assert json.loads(json.dumps(plan.describe(p)))["configs"][0]["id"] == "rl-raid0"


def test_build_rejects():
    with pytest.raises(ValueError):
        plan.build(["rl-raid5"], ["ind-r"], [1, 2], 0, 2)          # auto target, no raid0
    with pytest.raises(ValueError):
        plan.build(["rl-raid0"], ["ind-r"], [4, 2], 0, 2)          # ladder order
    with pytest.raises(ValueError):
        plan.build(["rl-raid0", "rl-raid0"], ["ind-r"], [1], 0, 2)
    assert plan.build(["rl-raid5"], ["ind-r"], [1], 0, 2, target_ms=5.0).baseline is None


@pytest.mark.parametrize("name", sorted(plan.PRESETS))
def test_presets_build(name):
    pre = plan.PRESETS[name]
    p = plan.build(pre["configs"], pre["workloads"], pre["ladder"], pre["refine"],
                   pre["runtime"], disks=pre.get("disks", 4),
                   disk_model=pre.get("disk_model", "none"), procs=pre.get("procs", 0),
                   target_ms=pre.get("p90_ms", "auto"), only=pre.get("only"),
                   ladders=pre.get("ladders"))
    if pre.get("p90_ms", "auto") == "auto":
        assert p.baseline is not None and p.configs[0] is p.baseline
    text = plan.plan_text(p)
    only = pre.get("only", {})
    assert text.count("\njob ") + text.count("\nrun ") == \
        sum(len(only.get(w.name, p.configs)) for w in p.workloads)


def test_quick_preset_fits_the_demo():
    pre = plan.PRESETS["quick"]
    p = plan.build(pre["configs"], pre["workloads"], pre["ladder"], pre["refine"], pre["runtime"])
    # measured in the lab: a fio run costs its runtime plus ~1.5 s; with the
    # boot and array creation (~30 s) the demo's VM time stays under 3 minutes
    assert p.max_points() * (p.runtime + 1.5) + 30 < 180


def test_wrapper_script():
    s = runner.wrapper_script("set runtime 2\n")
    assert "guest.sh" in s and s.count("RAIDLAB_PLAN_END") == 2
    with pytest.raises(ValueError):
        runner.wrapper_script("RAIDLAB_PLAN_END\n")


# ------------------------------------------------------------ search
def mm1_p90(service_ms, disks):
    """Synthetic p90 latency of a closed loop: flat until the disks are busy,
    then linear in the depth (Little's law)."""
    return lambda d: service_ms * max(1.0, d / disks) * 2.3


def test_search_ladder_then_bisect():
    f = mm1_p90(5.0, 4)           # p90 = 11.5 ms up to depth 4, then 2.875 ms per request
    target = 4 * f(1)             # 46 ms: met up to depth 16
    ran = search.search_depths(f, target, [1, 2, 4, 8, 16, 32], 2)
    assert ran == [1, 2, 4, 8, 16, 32, 24, 20]
    ok = [d for d in ran if f(d) <= target]
    assert max(ok) == 16


def test_search_stops_at_first_miss_without_refine():
    f = mm1_p90(5.0, 1)
    assert search.search_depths(f, f(1) * 1.5, [1, 2, 4, 8], 0) == [1, 2]


def test_search_all_met_and_none_met():
    assert search.search_depths(lambda d: 1.0, 2.0, [1, 2, 4], 3) == [1, 2, 4]
    assert search.search_depths(lambda d: 9.0, 2.0, [1, 2, 4], 3) == [1]


def test_operating_point_interpolates():
    pts = [dict(depth=1, p90=10.0, tput=100.0), dict(depth=2, p90=20.0, tput=180.0),
           dict(depth=4, p90=40.0, tput=220.0)]
    op = search.operating_point(pts, 30.0)
    assert op["how"] == "met"
    assert op["tput"] == pytest.approx(200.0)
    assert op["depth"] == pytest.approx(3.0)
    assert op["p90"] == 30.0


def test_operating_point_saturated_and_over():
    pts = [dict(depth=1, p90=10.0, tput=100.0), dict(depth=2, p90=12.0, tput=150.0)]
    assert search.operating_point(pts, 50.0)["how"] == "saturated"
    assert search.operating_point(pts, 50.0)["tput"] == 150.0
    op = search.operating_point(pts, 5.0)
    assert op["how"] == "over" and op["depth"] == 1


def test_operating_point_on_synthetic_curve():
    # throughput of a closed loop over 4 disks of 5 ms service: depth/latency
    f = mm1_p90(5.0, 4)
    tput = lambda d: min(d, 4) / 5.0 * 1000            # noqa: E731
    target = 46.0
    ran = search.search_depths(f, target, [1, 2, 4, 8, 16, 32], 3)
    op = search.operating_point([dict(depth=d, p90=f(d), tput=tput(d)) for d in ran], target)
    assert op["p90"] <= target + 1e-9
    assert op["tput"] == pytest.approx(800.0)


# ------------------------------------------------------------ results
def fio_json(iops, bw, p90_ns, ios, prefix=""):
    pct = {"50.000000": p90_ns // 2, "90.000000": p90_ns, "99.000000": p90_ns * 2}
    return prefix + json.dumps({"jobs": [{"mixed": {
        "iops": iops, "bw_bytes": bw, "total_ios": ios,
        "clat_ns": {"percentile": pct}}}]})


def fake_run(tmp, desc, curves):
    """Write guest-like output: curves[(config id, workload)] = [(depth, iops, p90 ms)]."""
    for (cid, w), pts in curves.items():
        d = tmp / cid / w
        d.mkdir(parents=True)
        (d / "target").write_text(str(int(30e6)))
        for depth, iops, p90 in pts:
            ios = int(iops * 2)
            (d / f"d{depth}.json").write_text(
                fio_json(iops, iops * 65536, int(p90 * 1e6), ios,
                         prefix="fio: Any use of blockalign= turns off randommap\n"))
            (d / f"d{depth}.mstat").write_text(
                f"before /dev/rl/m0 {' '.join(['0'] * 11)}\n"
                f"after /dev/rl/m0 {ios} 0 {128 * ios} 0 {3 * ios} 0 {3 * 128 * ios} 0 0 {ios} 0\n")


def test_collect_relative_and_schema(tmp_path):
    p = plan.build(["rl-raid0", "rl-mirror", "rl-raid5"], ["ind-w"], [1, 2, 4], 0, 2,
                   target_ms=30.0)
    desc = plan.describe(p)
    fake_run(tmp_path / "bench", desc, {
        ("rl-raid0", "ind-w"): [(1, 400, 10), (2, 800, 20), (4, 1000, 40)],
        ("rl-mirror", "ind-w"): [(1, 200, 10), (2, 300, 20), (4, 350, 40)],
        ("rl-raid5", "ind-w"): [(1, 100, 35)],
    })
    points, res = results.collect(tmp_path / "bench", desc)
    assert len(points) == 7
    by = {r["config"]: r for r in res}
    # raid0: interpolated at 30 ms between depth 2 and 4: 900 IOPS over 4 disks
    assert by["rl-raid0"]["iops"] == pytest.approx(900)
    assert by["rl-raid0"]["iops_per_disk"] == pytest.approx(225)
    assert by["rl-raid0"]["relative"] == pytest.approx(1.0)
    # mirror: 325 IOPS over 2 disks = 162.5 per disk -> 0.722 of raid0
    assert by["rl-mirror"]["relative"] == pytest.approx(162.5 / 225)
    assert by["rl-mirror"]["model_simple"] == pytest.approx(0.5)
    assert by["rl-raid5"]["how"] == "over"
    assert by["rl-raid5"]["model_simple"] == pytest.approx(0.25)
    assert by["rl-raid0"]["member_ios_per_req"] == pytest.approx(4.0)
    assert all(r["search_ok"] for r in res)
    results.write_all(tmp_path / "out", points, res, desc, 12.0, "tools/raidlab bench x")
    with open(tmp_path / "out" / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == results.RESULT_FIELDS and len(rows) == 3
    with open(tmp_path / "out" / "points.csv") as f:
        assert list(next(csv.reader(f))) == results.POINT_FIELDS
    js = json.loads((tmp_path / "out" / "results.json").read_text())
    assert set(js) == {"plan", "wall_s", "command", "points", "results"}
    assert set(js["results"][0]) == set(results.RESULT_FIELDS)
    md = (tmp_path / "out" / "summary.md").read_text()
    assert "| ind-w | rl-mirror |" in md and "tools/raidlab bench x" in md
    assert "rl-mirror" in results.table(res)


def test_search_check_flags_a_wrong_ladder(tmp_path):
    p = plan.build(["rl-raid0"], ["ind-r"], [1, 2, 4], 0, 2, target_ms=30.0)
    desc = plan.describe(p)
    # depth 4 should not have run: depth 2 already missed the target
    fake_run(tmp_path, desc, {("rl-raid0", "ind-r"): [(1, 10, 10), (2, 20, 35), (4, 30, 50)]})
    _, res = results.collect(tmp_path, desc)
    assert res[0]["search_ok"] is False


def test_table_columns_line_up():
    r = {k: "" for k in results.RESULT_FIELDS}
    r.update(config="rl-raid0", workload="exp6k-r0-ua", p90_ms=1.0, depth=2.0,
             iops_per_disk=3.0, mb_s_per_disk=4.0, relative=1.0, member_ios_per_req=1.0,
             how="met")
    head, _, line = results.table([r]).splitlines()
    assert len(line) == len(head) + len("met") - len("how")
    assert results.fmt("", "8.2f") == "       -" and results.fmt(None, ".2f") == "-"


def test_member_deltas():
    t = ("before a 1 0 0 0 2 0 0 0 0 0 0\nbefore b 5 0 0 0 5 0 0 0 0 0 0\n"
         "after a 11 0 0 0 4 0 0 0 0 0 0\nafter b 6 0 0 0 9 0 0 0 0 0 0\n")
    assert results.member_deltas(t) == (11, 6)


def test_member_accesses_md_raid5_pages():
    # issue 14: one 64 KiB ind-w of md raid5 over dm-hddsim: 16 stripe-cache
    # pages, each 2 reads and 2 writes of 4 KiB bios (reconstruct-write),
    # over 4 members; as accesses that is 2 chunk reads and 2 chunk writes
    before = "".join(f"before /dev/mapper/hdd{m} {' '.join(['0'] * 11)}\n" for m in range(4))
    after = ("after /dev/mapper/hdd0 16 0 128 0 16 0 128 0 0 0 0\n"
             "after /dev/mapper/hdd1 16 0 128 0 0 0 0 0 0 0 0\n"
             "after /dev/mapper/hdd2 0 0 0 0 16 0 128 0 0 0 0\n"
             "after /dev/mapper/hdd3 0 0 0 0 0 0 0 0 0 0 0\n")
    t = before + after
    assert results.member_deltas(t) == (32, 32)
    assert results.member_deltas(t, sectors=True) == (256, 256)
    cfg = {"name": "md-raid5", "disks": 4, "chunk_kib": 64}
    job = {"mixed": {"iops": 1.0, "bw_bytes": 65536, "total_ios": 1,
                     "clat_ns": {"percentile": {"90.000000": 1000000}}}}
    row = results.point_row(cfg, "ind-w", 1, job, t)
    assert (row["member_reads_per_req"], row["member_writes_per_req"]) == (2.0, 2.0)
    assert row["member_bios_per_req"] == 64.0
    # a workload whose accesses are not whole chunks counts bios
    row = results.point_row(cfg, "4k-w", 1, job, t)
    assert (row["member_reads_per_req"], row["member_writes_per_req"]) == (32.0, 32.0)
    assert results.chunk_accesses(cfg, "fs-w") == 128
    assert results.chunk_accesses({"chunk_kib": 64}, "exp6k-r50-ua") == 0


def test_hdd_late():
    st = "0 637728 hddsim lightning 637728 {} 0 0 0 0 0 0 0 0 {} 0 0"
    t = (f"before /dev/mapper/hdd0 {' '.join(['0'] * 11)}\n"
         f"before-hdd /dev/mapper/hdd0 {st.format(100, 1)}\n"
         f"after /dev/mapper/hdd0 {' '.join(['0'] * 11)}\n"
         f"after-hdd /dev/mapper/hdd0 {st.format(300, 3)}\n")
    assert results.hdd_late(t) == (200, 2)
    assert results.member_deltas(t) == (0, 0)
    assert results.hdd_late("before a 1 2 3\n") is None
    cfg = {"name": "rl-raid0", "disks": 4}
    job = {"mixed": {"iops": 10.0, "bw_bytes": 1e6, "total_ios": 20,
                     "clat_ns": {"percentile": {"90.000000": 1000000}}}}
    assert results.point_row(cfg, "ind-r", 1, job, t)["hdd_late_pct"] == pytest.approx(1.0)


def test_plots_written(tmp_path):
    pytest.importorskip("matplotlib")
    p = plan.build(["rl-raid0", "rl-raid5"], [f"exp6k-r{x}-ua" for x in (0, 50, 100)],
                   [1, 2], 0, 2, target_ms=30.0)
    desc = plan.describe(p)
    curves = {}
    for c in ("rl-raid0", "rl-raid5"):
        for x in (0, 50, 100):
            curves[(c, f"exp6k-r{x}-ua")] = [(1, 100 + x, 10), (2, 150 + x, 40)]
    fake_run(tmp_path / "b", desc, curves)
    points, res = results.collect(tmp_path / "b", desc)
    out = plots.write_all(tmp_path, points, res)
    names = sorted(pathlib.Path(x).name for x in out)
    assert names == ["fig4-tput-vs-p90.png", "fig5-relative.png", "fig9-read-fraction.png"]
    for n in names:
        assert (tmp_path / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list(plots.families(res)) == ["exp6k-ua"]


def test_progress_line():
    t = [0.0]
    buf = io.StringIO()
    pr = runner.Progress(10, stream=buf, now=lambda: t[0])
    pr.update(0, note="boot")
    t[0] = 30.0
    pr.update(2)
    t[0] = 40.0
    pr.update(3, total=8)
    line = buf.getvalue().splitlines()[-1]
    assert "3/8 points" in line and "0:40 elapsed" in line
    # (40 - 0) s for 3 points since the first update: 13.3 s each, 5 left
    assert "ETA 1:06" in line


def test_cli_dry_run():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "bench", "--preset",
                        "quick", "--dry-run"], capture_output=True, text=True, check=True)
    assert r.stdout.startswith("# raidlab bench plan")
    assert "config md-raid5 md raid5 4 64" in r.stdout
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "bench", "--configs",
                        "rl-raid9", "--workloads", "ind-r", "--dry-run"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "rl-raid9" in r.stderr


def test_guest_script_parses():
    subprocess.run(["sh", "-n", str(ROOT / "tools" / "bench" / "guest.sh")], check=True)


def test_fail_option_and_copyset_configs():
    # issue 15: raid10/chained configurations, and a member failed before the jobs
    c = plan.parse_config("rl-chained@6[fail=2]", 6, 64)
    assert (c.kind, c.level, c.disks, c.data_cols, c.fail) == ("rl", "chained", 6, 3, 2)
    assert c.cid == "rl-chained_6.fail-2" and c.chen_level == 1
    m = plan.parse_config("md-raid10[fail=0]", 6, 64)
    assert (m.kind, m.level, m.fail, m.opts) == ("md", "raid10", 0, ())
    t = plan.parse_config("rl-raid10[track,fail=1]", 6, 64)
    assert t.track and t.fail == 1 and t.opts == ()
    assert plan.parse_config("rl-raid10", 6, 64).fail is None
    for bad in ("md-raid10[sched=satf]", "rl-raid10[fail=6]", "rl-raid0[fail=1]",
                "rl-raid10[fail=x]", "rl-raid10[fail=1,fail=2]", "rl-chained@2"):
        with pytest.raises(ValueError):
            plan.parse_config(bad, 6, 64)
    p = plan.build(["rl-raid0", "rl-chained[fail=2]"], ["4k-r"], [1], 0, 3, disks=6)
    lines = plan.plan_text(p).splitlines()
    i = lines.index("config rl-chained.fail-2 rl chained 6 64")
    assert lines[i + 1] == "fail rl-chained.fail-2 2" and lines[i + 2].startswith("job ")
    assert plan.describe(p)["configs"][1]["fail"] == 2
    pre = plan.PRESETS["copyset"]
    plan.build(pre["configs"], pre["workloads"], pre["ladder"], 1, 3, disks=pre["disks"],
               disk_model=pre["disk_model"])


def test_degraded_ratios_and_model(tmp_path):
    from raidlab_lib.bench import degraded
    assert degraded.healthy_name("rl-raid10@6[track,fail=2]") == "rl-raid10@6[track]"
    assert degraded.healthy_name("md-raid10[fail=2]") == "md-raid10"
    p = plan.build(["rl-raid0", "rl-raid10", "rl-chained", "md-raid10", "rl-raid10[fail=2]",
                    "rl-chained[fail=2]", "md-raid10[fail=2]"], ["4k-r", "4k-w"], [1], 0, 3,
                   disks=6)
    desc = plan.describe(p)
    iops = {("rl-raid10", "4k-r"): 600, ("rl-raid10[fail=2]", "4k-r"): 330,
            ("rl-chained", "4k-r"): 600, ("rl-chained[fail=2]", "4k-r"): 500,
            ("md-raid10", "4k-r"): 580, ("md-raid10[fail=2]", "4k-r"): 300}
    res = [{"config": c, "workload": w, "iops": v, "read_pct": 100 if w == "4k-r" else 0}
           for (c, w), v in iops.items()]
    rows = {r["config"]: r for r in degraded.rows(res, desc)}
    assert set(rows) == {"rl-raid10[fail=2]", "rl-chained[fail=2]", "md-raid10[fail=2]"}
    assert rows["rl-raid10[fail=2]"]["measured"] == pytest.approx(0.55)
    assert rows["rl-raid10[fail=2]"]["model"] == pytest.approx(0.5)
    assert rows["rl-chained[fail=2]"]["model"] == pytest.approx(5 / 6)
    vs = {(r["config"], r["workload"]): r["ratio"] for r in degraded.versus_md(res)}
    assert vs == {("rl-raid10", "4k-r"): pytest.approx(600 / 580),
                  ("rl-raid10[fail=2]", "4k-r"): pytest.approx(1.1)}
    (tmp_path / "summary.md").write_text("# raidlab bench\n")
    r, v, files = degraded.write_all(tmp_path, res, desc)
    assert "degraded.csv" in files and "| 4k-r | rl-chained[fail=2] | 100 |" in \
        (tmp_path / "summary.md").read_text()


def test_sr_configs():
    c = plan.parse_config("rl-sr@6[dr=3,sched=rsatf,track]", 6, 64)
    assert c.level == "sr" and c.track and c.opt("dr") == "3" and c.opt("sched") == "rsatf"
    assert c.data_cols == 6
    m = plan.parse_config("rl-sr@6[dr=1,dm=2,prop=fg,md=pmem]", 6, 64)
    assert m.data_cols == 3 and m.opt("propagate") == "fg" and m.opt("metadata") == plan.PMEM
    for bad in ("rl-sr@6[dr=4]", "rl-sr@6[dr=7]", "rl-raid5[dr=2]", "rl-sr[prop=later]",
                "rl-sr[md=disk]"):
        with pytest.raises(ValueError):
            plan.parse_config(bad, 6, 64)
    # the table gets the disk model's geometry line; none without a model
    p = plan.build(["rl-raid0@6", "rl-sr@6[dr=3]"], ["4k-r"], [8], 0, 3, disks=6,
                   disk_model="st39133", time_scale="1/10")
    sr = p.configs[1]
    assert sr.opt("geom") == plan.geommod.geom_line("st39133", "1/10")
    assert " rl sr 6 64 dr 3 geom period_ns=60000000," in plan.plan_text(p)
    with pytest.raises(ValueError, match="sr needs a disk model"):
        plan.build(["rl-raid0@6", "rl-sr@6[dr=3]"], ["4k-r"], [8], 0, 3, disks=6)


def test_poisson_open_loop():
    w = wl.parse("4k-r-poisson200")
    assert w.rate_iops == 200 and w.read_pct == 100
    args = wl.fio_args(w, wl.Geometry(64, 4))
    assert "--rate_iops=200,0" in args and "--rate_process=poisson" in args
    m = wl.parse("4k-r75-poisson100")
    assert wl.rate_args(m) == ["--rate_iops=75,25", "--rate_process=poisson"]
    assert wl.parse("4k-r").rate_iops == 0
    assert not any(a.startswith("--rate") for a in wl.fio_args(wl.parse("4k-r"),
                                                               wl.Geometry(64, 4)))
    for bad in ("4k-r-poisson0", "4k-r-poisson10-poisson20", "4k-r-poissonx"):
        with pytest.raises(ValueError):
            wl.parse(bad)


def test_span_and_byte_sizes():
    w = wl.parse("512b-r50-span512m")
    assert w.size == "fixed" and w.mean_kib == 0.5 and w.span_mib == 512 and w.read_pct == 50
    args = wl.fio_args(w, wl.Geometry(64, 2))
    assert "--bs=512" in args and "--blockalign=512" in args and "--size=512m" in args
    # whole KiB keep their form
    assert "--bs=4k" in wl.fio_args(wl.parse("4k-r-span8m"), wl.Geometry(64, 2))
    for bad in ("500b-r", "1048576b-r", "4k-r-span0m", "4k-r-span8m-ws8m",
                "4k-r-span8m-span9m"):
        with pytest.raises(ValueError):
            wl.parse(bad)


def test_job_ladders_and_pairs():
    # a workload's own ladder, an open loop's one depth, the rest the plan's
    assert plan.job_ladder([8, 32], 1, "a", 0) == ([8, 32], 1)
    assert plan.job_ladder([8, 32], 1, "a", 0, {"a": [1, 2, 4]}) == ([1, 2, 4], 0)
    assert plan.job_ladder([8, 32], 1, "a", 50, {"a": [1, 2, 4]}) == ([4], 0)
    assert plan.job_ladder([8, 32], 1, "b", 50) == ([32], 0)
    cfgs = ["rl-raid0@6", "rl-raid10@6"]
    p = plan.build(cfgs, ["4k-r", "4k-w", "4k-r-poisson40"], [8, 32], 1, 3, disks=6,
                   only={"4k-w": ["rl-raid10@6"]}, ladders={"4k-r": [1, 2]})
    jobs = [(c.name, w.name) for c, w, _ in p.jobs]
    assert ("rl-raid0@6", "4k-w") not in jobs and ("rl-raid10@6", "4k-w") in jobs
    assert len(jobs) == 5
    # 4k-r: 2 x 2 (its own ladder, no refinement); 4k-w: 1 x (2 + 1);
    # the open loop: 2 x 1
    assert p.max_points() == 2 * 2 + 3 + 2
    text = plan.plan_text(p).splitlines()
    i = text.index(next(t for t in text if t.startswith("job rl-raid0_6 4k-r ")))
    assert text[i - 2:i] == ["set ladder 1 2", "set refine 0"]
    j = text.index(next(t for t in text if t.startswith("job rl-raid0_6 4k-r-poisson40")))
    assert text[j - 2:j] == ["set ladder 32", "set refine 0"]
    with pytest.raises(ValueError, match="only"):
        plan.build(cfgs, ["4k-r"], [8], 0, 3, disks=6, only={"4k-r": ["md-raid10@6"]})
    with pytest.raises(ValueError, match="ladders"):
        plan.build(cfgs, ["4k-r"], [8], 0, 3, disks=6, ladders={"4k-r": [4, 2]})


def test_srarray_model_ratios_and_rates(tmp_path):
    from raidlab_lib.bench import srarray
    from raidlab_lib.models import p002_sr_array as p002
    pre = plan.PRESETS["p002"]
    p = plan.build(pre["configs"], pre["workloads"], pre["ladder"], pre["refine"],
                   pre["runtime"], disks=6, disk_model="st39133", time_scale="1/10",
                   target_ms=pre["p90_ms"], only=pre["only"], ladders=pre["ladders"])
    desc = plan.describe(p)
    sr = plan.SR_CFG
    span = f"4k-r-span{plan.SR_SPAN_MIB}m"
    pts = [{"config": sr[k], "workload": span, "depth": d, "iops": v, "mean_ms": 50.0,
            "p90_ms": 90.0} for k, d, v in (("6x1x1", 8, 100.0), ("2x3x1", 8, 150.0),
                                           ("6x1x1", 32, 200.0), ("2x3x1", 32, 260.0))]
    # Poisson (rates 40, 80, 120, ...): 2x3x1-bg crosses 150 ms between 120
    # and 160 a second, raid10 between 80 and 120
    for cfg, means in ((sr["2x3x1-bg"], (60, 80, 120, 200, 400, 900)),
                       ("rl-raid10[sched=satf,depth=1,track]", (80, 120, 240, 600, 900, 990))):
        for rate, m in zip(plan.SR_RATES, means):
            pts.append({"config": cfg, "workload": f"4k-r55-span{plan.SR_CELLO_MIB}m-poisson{rate}",
                        "depth": 32, "iops": float(rate), "mean_ms": float(m), "p90_ms": 2.0 * m})
    # 6x1x1 held by the bound on outstanding requests from 200 a second:
    # its mean stays under the target, but it did not sustain the rate
    for rate, got in zip(plan.SR_RATES[:5], (40.0, 80.0, 120.0, 158.0, 170.0)):
        pts.append({"config": sr["6x1x1"], "workload": f"4k-r55-span{plan.SR_CELLO_MIB}m-poisson{rate}",
                    "depth": 64, "iops": got, "mean_ms": 100.0, "p90_ms": 200.0})
    # Fig. 12 against the disks: two disks, each shape over striping on two
    for k, v in (("2x1x1", 60.0), ("1x2x1", 90.0), ("1x1x2", 75.0), ("4x1x1", 80.0),
                 ("2x2x1", 120.0)):
        pts.append({"config": plan.SR_SWEEP[k], "workload": span, "depth": 8, "iops": v,
                    "mean_ms": 50.0, "p90_ms": 90.0})
    rws = srarray.rows(pts, desc)
    by = {(r["shape"], r["sched"], r["depth"], r["rate"]): r for r in rws}
    assert by[("1x2x1", "rsatf", 8, 0)]["ratio"] == pytest.approx(1.5)
    assert by[("2x2x1", "rsatf", 8, 0)]["ratio"] == pytest.approx(1.5)
    assert by[("2x2x1", "rsatf", 8, 0)]["disks"] == 4
    best = srarray.fig12_disks(rws)
    assert best[("SR-Array", 8, 2)]["shape"] == "1x2x1"
    assert best[("RAID-10", 8, 2)]["iops"] == 75.0
    assert best[("SR-Array", 8, 6)]["shape"] == "2x3x1"
    assert ("RAID-10", 8, 4) not in best
    r = by[("2x3x1", "rsatf", 8, 0)]
    assert r["figure"] == "12" and r["ratio"] == pytest.approx(1.5)
    S, R, spt = srarray.disk_params(desc)
    assert R == pytest.approx(60.0) and spt == 334 and 20 < S < 60
    want = p002.array_throughput(2, 3, 8 / 6, S=S, R=R, p=1.0, L=3.0, Dm=1, T_o=8 / 334 * R)
    assert r["model_iops"] == pytest.approx(want)
    assert r["model_ratio"] == pytest.approx(want / by[("6x1x1", "rsatf", 8, 0)]["model_iops"])
    assert srarray.target_ms(desc) == pytest.approx(150.0)
    rates = {x["config"]: x for x in srarray.sustained(rws, 150.0)}
    bg = rates[sr["2x3x1-bg"]]
    assert bg["how"] == "crossed" and bg["sustained_iops"] == pytest.approx(120 + 40 * 30 / 80)
    assert (rates[sr["6x1x1"]]["how"], rates[sr["6x1x1"]]["sustained_iops"]) == ("saturated", 158.0)
    # a Poisson count's own spread is not a shortfall (400 +- 20 in 10 s)
    assert not srarray.short_of({"iops": 36.0, "rate": 40}, 10)
    assert srarray.short_of({"iops": 250.0, "rate": 280}, 10)
    r10 = rates["rl-raid10[sched=satf,depth=1,track]"]
    assert r10["sustained_iops"] == pytest.approx(80 + 40 * 30 / 120)
    assert f"{bg['sustained_iops'] / r10['sustained_iops']:.2f} x rl-raid10" in bg["ratio_to"]
    (tmp_path / "summary.md").write_text("# raidlab bench\n")
    # the trackers after the 2x3x1 depth 8 run (guest's .mstat, after-trk lines)
    d = tmp_path / "vm" / "bench" / plan.parse_config(sr["2x3x1"], 6, 64).cid / span
    d.mkdir(parents=True)
    (d / "d8.mstat").write_text("".join(
        f"after-trk period_ns=60000000.000 cal=1 refs=3 n={n} err_mean_ns=1000 "
        f"err_std_ns=2000 miss_pct={m} demerit_ns={dm} access_ns=40000000 slack=2\n"
        for n, m, dm in ((100, "0.2000", 400000), (300, "0.6000", 1200000))))
    rws, rates, trk, files = srarray.write_all(tmp_path, pts, desc)
    assert "p002.csv" in files and "p002-rates.csv" in files and "p002-track.csv" in files
    assert len(trk) == 1 and trk[0]["requests"] == 400
    assert trk[0]["miss_pct"] == pytest.approx(0.4) and trk[0]["demerit_pct"] == pytest.approx(2.0)
    text = (tmp_path / "summary.md").read_text()
    assert "| 12 | " in text and "Table 2" in text
    assert "| 2 | 8 | 60 2x1x1 (" in text and "p002-fig12-disks.png" in files
