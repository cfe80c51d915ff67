# SPDX-License-Identifier: GPL-2.0
"""raidlab bench, paper 003 (issue 17): rl-altmirror configurations, the
p003 presets' plans, and bench/altmirror.py on synthetic points (no VM)."""
import csv
import io
import json
import pathlib
import re
import subprocess
import sys

import pytest

from raidlab_lib import bench
from raidlab_lib.bench import altmirror, plan, results
from raidlab_lib.models import p003_alternating as p003

ROOT = pathlib.Path(__file__).resolve().parents[2]
AM = plan.P003_CFG


# ------------------------------------------------------------ configurations
def test_altmirror_options():
    c = plan.parse_config("rl-altmirror[mf=5,overlap=allow,reads=defer,cmin=50,cmax=5000,"
                          "vol,sched=look,depth=1,span=8]", 4, 64)
    assert (c.kind, c.level, c.disks, c.data_cols, c.span_mib, c.track) == \
        ("rl", "altmirror", 2, 1, 8, False)
    # the pool's metadata device always, the flag last, span= no table word
    assert c.opts == ("metadata", plan.PMEM, "mem_fraction", "5", "overlap", "allow",
                      "overlap_reads", "defer", "cycle_min", "50", "cycle_max", "5000",
                      "sched", "look", "queue_depth", "1", "volatile")
    assert c.opt("mem_fraction") == "5" and c.opt("volatile") is True
    assert c.opt("queue_depth") == "1" and c.opt("spare") is None
    bare = plan.parse_config("rl-altmirror", 6, 64)
    assert bare.disks == 2 and bare.opts == ("metadata", plan.PMEM) and bare.span_mib == 0
    t = plan.parse_config("rl-altmirror@2[mf=0.05,sched=satf,depth=1,track,fail=1]", 2, 64)
    assert t.track and t.fail == 1 and t.opt("mem_fraction") == "0.05"
    assert plan.parse_config("rl-altmirror[mf=100]", 2, 64).opt("mem_fraction") == "100"
    # a flag between pairs does not shift them
    v = plan.Config("x", "rl", "altmirror", 2, 64, ("volatile", "sched", "satf"))
    assert v.opt("sched") == "satf" and v.opt("volatile") is True


@pytest.mark.parametrize("bad,msg", [
    ("rl-altmirror[mf=0]", "percentage"), ("rl-altmirror[mf=100.01]", "percentage"),
    ("rl-altmirror[mf=1.234]", "two decimals"), ("rl-altmirror[mf=x]", "mf="),
    ("rl-altmirror[mf=.5]", "mf="), ("rl-altmirror[vol=1]", "vol"),
    ("rl-altmirror[overlap=sometimes]", "never or allow"),
    ("rl-altmirror[reads=later]", "serve or defer"), ("rl-altmirror[cmin=0]", "3600000"),
    ("rl-altmirror[cmax=3600001]", "3600000"),
    ("rl-altmirror[cmin=500,cmax=100]", "cmin 500 ms is above cmax 100 ms"),
    ("rl-altmirror[cmin=40000]", "above cmax 30000"),
    ("rl-altmirror[span=0]", "span="), ("rl-altmirror[mf=1,mf=2]", "given twice"),
    ("rl-altmirror[sched=look,sched=satf]", "given twice"),
    ("rl-altmirror[sched=scan]", "sched="), ("rl-altmirror[dr=2]", "altmirror takes"),
    ("rl-altmirror@3", "exactly two"), ("rl-altmirror@1", "at least 2"),
    ("rl-mirror[mf=1]", "option"), ("md-raid1[mf=1]", "rl- configurations"),
    ("rl-sr[span=8]", "option"),
])
def test_altmirror_options_refused(bad, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        plan.parse_config(bad, 4, 64)


def test_plan_text_span_and_ramp():
    p = plan.build(["rl-sr@1", "rl-altmirror[mf=10,sched=satf,depth=1,track,span=8]"],
                   ["4k-r50-span8m-poisson10"], [64], 0, 30, disks=2, disk_model="eagle",
                   time_scale="1/5", target_ms=1e6, ramp=8)
    lines = plan.plan_text(p).splitlines()
    assert "set ramp 8" in lines and not any(x.startswith("set procs") for x in lines)
    cid = "rl-altmirror.mf-10.sched-satf.depth-1.track.span-8"
    i = lines.index(f"span {cid} 8")
    assert lines[i + 1] == (f"config {cid} rl altmirror 2 64 metadata /dev/rl/pmem "
                            "mem_fraction 10 sched satf queue_depth 1")
    assert lines[i + 2].startswith(f"geom {cid} period_ns=83000000,")
    assert plan.describe(p)["configs"][1]["span_mib"] == 8
    assert p.seconds_per_point() == 38
    # no ramp, no line; a saturation plan keeps its two lines
    assert "set ramp" not in plan.plan_text(plan.build(["rl-raid0"], ["4k-r"], [1], 0, 3))
    pp = plan.build(["rl-raid0"], ["4k-w"], [1], 0, 3, procs=4, ramp=0)
    assert "set procs 4\nset ramp 0\n" in plan.plan_text(pp)
    # the span and the data offset must fit the disk model's capacity (525 MiB)
    plan.build(["rl-altmirror[span=524]"], ["4k-r"], [1], 0, 3, disks=2, disk_model="eagle",
               target_ms=1e6)
    with pytest.raises(ValueError, match="do not fit a member of 525 MiB"):
        plan.build(["rl-altmirror[span=525]"], ["4k-r"], [1], 0, 3, disks=2,
                   disk_model="eagle", target_ms=1e6)
    with pytest.raises(ValueError, match="do not fit a member of 64 MiB"):
        plan.build(["rl-altmirror[span=64]"], ["4k-r"], [1], 0, 3, disks=2, member_mb=64,
                   target_ms=1e6)


# ------------------------------------------------------------ the presets
def _build(name):
    pre = plan.PRESETS[name]
    return plan.build(pre["configs"], pre["workloads"], pre["ladder"], pre["refine"],
                      pre["runtime"], disks=pre["disks"], disk_model=pre["disk_model"],
                      time_scale=pre["time_scale"], target_ms=pre["p90_ms"], only=pre["only"],
                      ladders=pre["ladders"], ramp=pre["ramp"])


def vm_seconds(p):
    """The preset comment's estimate: boot, ~25 s an array (sr through
    raidlab create, a tracker's calibration), ~2 s a point beyond its
    ramp and runtime (fio's start, the snapshots)."""
    return 60 + 25 * len(p.configs) + len(p.jobs) * (p.seconds_per_point() + 2)


def test_p003_preset_plan():
    p = _build("p003")
    names = [c.name for c in p.configs]
    assert names == [AM[k] for k in ("single", "am1", "am5", "am10", "mirror", "md",
                                     "single-batch", "am1-satf")]
    assert all(c.disks in (1, 2) for c in p.configs)
    am = [c for c in p.configs if c.level == "altmirror" and c.fail is None]
    assert [c.opt("mem_fraction") for c in am] == ["1", "5", "10", "1"]
    assert all(c.span_mib == plan.P003_SPAN_MIB and c.opt("metadata") == plan.PMEM for c in am)
    assert [c.opt("sched") for c in am] == ["look", "look", "look", "satf"]
    assert am[3].track and not any(c.track for c in am[:3])
    assert p.configs[0].level == "sr" and p.configs[0].opt("geom")   # its geometry line
    # every workload an open loop over the span, its rates ascending per mix
    assert all(w.rate_iops and w.span_mib == plan.P003_SPAN_MIB and w.mean_kib == 4
               for w in p.workloads)
    jobs = {}
    for c, w, _ in p.jobs:
        jobs.setdefault(c.name, []).append((w.read_pct, w.rate_iops))
    for name, js in jobs.items():
        assert [r for r, _ in js] == sorted((r for r, _ in js), key=lambda r: (r != 50, -r))
        for pct in {r for r, _ in js}:
            rates = [x for r, x in js if r == pct]
            assert rates == sorted(rates)
    # w = 0.25 and 0.75 for the single disk, altmirror 1 % look and the mirror
    assert {n for n, js in jobs.items() if {25, 75} <= {r for r, _ in js}} == \
        {AM["single"], AM["am1"], AM["mirror"]}
    assert len(p.jobs) == 62 and p.max_points() == 62
    # section 5's baseline: member 1 failed, batches every T, reads deferred
    sb = p.configs[-2]
    assert (sb.fail, sb.opt("single"), sb.opt("overlap_reads")) == (1, "batch", "defer")
    # the budget: about 45 minutes of VM time
    assert vm_seconds(p) <= 45 * 60
    text = plan.plan_text(p)
    assert "set ramp 8" in text and "set time_scale 1\n" in text and "set ladder 64" in text


def test_p003_rates_bracket_the_models_saturation():
    # each configuration's rates run from below its expected sustained rate
    # (0.85 / t_ran a disk, times the model's ratio for a pair) to beyond it
    d = plan.p003_disk()
    c1 = 1000 / (d["t_ran"] * d["slow"])
    assert 50 < c1 < 60      # the Eagle over 51.2 cylinders
    runs = plan.P003_RUNS
    for key, mixes in runs.items():
        if key == "single-batch":       # a baseline at low rates
            continue
        for pct, rates in mixes.items():
            w = 1 - pct / 100
            if key == "single":
                ratio = 0.5
            elif key.startswith("am"):
                ratio = altmirror.model_ratio("altmirror", re.search(r"mf=(\d+)",
                                                                    AM[key]).group(1), w, d)[0]
            else:
                ratio = p003.plain_mirror_ratio(w)
            expect = 0.85 * c1 * 2 * ratio
            assert min(rates) < expect < max(rates), (key, pct, rates, expect)
    # and the cycle: at mf 10 near its saturation T = a batch (half the pool
    # of 10 % of the span's blocks) over the write rate; a point holds 4+
    batch = 0.10 * plan.P003_SPAN_MIB * 256 / 2
    t_s = batch / (0.5 * 0.85 * c1 * 2 * altmirror.model_ratio("altmirror", 10, 0.5, d)[0])
    assert (plan.P003_RUNTIME + plan.P003_RAMP) / t_s >= 4


def test_p003_quick_preset():
    p = _build("p003-quick")
    assert {c.level for c in p.configs} == {"sr", "altmirror", "mirror", "raid1"}
    assert any(c.track for c in p.configs)
    assert vm_seconds(p) <= 6 * 60


def test_p003_disk():
    full = plan.p003_disk(span_mib=0, time_scale="1")
    assert (full["cyls"], full["surfs"], full["blks_trk"], full["slow"]) == (840, 20, 8, 1.0)
    assert full["t_avseek"] == pytest.approx(18.04, abs=0.01)
    assert full["t_ran"] == pytest.approx(16.6 / 2 + 16.6 / 8 + full["t_avseek"])
    d = plan.p003_disk()
    assert d["cyls"] == pytest.approx(51.2) and d["slow"] == 1.0
    c1 = 1000 / d["t_ran"]
    assert plan.p003_rates((0.5, 1.0), d) == [round(0.5 * c1), round(c1)]


def test_cli_dry_run_p003():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "bench", "--preset",
                        "p003", "--dry-run"], capture_output=True, text=True, check=True)
    assert "\nspan rl-altmirror.mf-1.sched-look.depth-1.span-32 32\n" in r.stdout
    assert "62 searches, at most 62 fio runs of 33 s" in r.stderr


# ------------------------------------------------------------ the guest
def test_guest_reads_the_mixed_section(tmp_path):
    # with unified_rw_reporting=both fio writes the reads' and the writes'
    # sections before the unified one: the search must read the latter
    text = (ROOT / "tools" / "bench" / "guest.sh").read_text()
    funcs = "".join(re.search(rf"^{f}\(\) {{\n.*?^}}\n", text, re.S | re.M).group(0)
                    for f in ("p90_of", "iops_of"))
    js = ('{\n  "jobs" : [\n    {\n      "read" : {\n        "iops" : 5.5,\n'
          '          "percentile" : {\n            "90.000000" : 111\n          }\n      },\n'
          '      "mixed" : {\n        "iops" : 10.75,\n          "percentile" : {\n'
          '            "90.000000" : 222\n          }\n      }\n    }\n  ]\n}\n')
    (tmp_path / "fio.json").write_text(js)
    r = subprocess.run(["sh", "-c", funcs + 'echo "$(p90_of "$1") $(iops_of "$1")"', "sh",
                        str(tmp_path / "fio.json")], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["222", "10"]


def test_point_rows_carry_the_reads_apart():
    cfg = {"name": "rl-altmirror", "disks": 2}
    mixed = {"iops": 10.0, "bw_bytes": 40960, "total_ios": 300,
             "clat_ns": {"mean": 50e6, "percentile": {"90.000000": 90e6}}}
    both = {"mixed": mixed, "read": {"total_ios": 150, "clat_ns": {"mean": 20e6}},
            "write": {"total_ios": 150, "clat_ns": {"mean": 80e6}}}
    row = results.point_row(cfg, "4k-r50", 64, both)
    assert (row["mean_ms"], row["read_mean_ms"], row["write_mean_ms"]) == (50.0, 20.0, 80.0)
    old = results.point_row(cfg, "4k-r50", 64, {"mixed": mixed})
    assert old["read_mean_ms"] == "" and old["write_mean_ms"] == ""
    reads = results.point_row(cfg, "4k-r", 64, {"mixed": mixed, "read": both["read"],
                                                 "write": {"total_ios": 0, "clat_ns": {}}})
    assert reads["read_mean_ms"] == 20.0 and reads["write_mean_ms"] == ""
    assert "read_mean_ms" in results.POINT_FIELDS


# ------------------------------------------------------------ the analysis
HEAD = ("0 16384 raidlab altmirror 2 AA 0/16384 idle 0 8192 - optimal 128 10 10 10 20 0 0 "
        "5:10:0:0 5:10:0:0 look 1 30 40 dax clean 0 0 none 0 0 0 0:0")


def st(label, used, batches, mean, inst, waits=0, overlaps=0, hits=0, cycle=8000):
    return (f"{label} {HEAD} altmirror 11 RR {used}/204 150 {waits} {batches} {mean} {inst} "
            f"{overlaps} {hits} {cycle} pmem\n")


def test_pool_stats():
    assert altmirror.am_group(HEAD + " altmirror 11 RW 1/20 15 0 2 3.5 40.0 0 1 100 pmem") == \
        dict(zip(altmirror.AM_FIELDS, "RW 1/20 15 0 2 3.5 40.0 0 1 100 pmem".split()))
    assert altmirror.am_group("0 8 raidlab mirror 2 AA optimal") == {}
    text = ("before /dev/mapper/hdd0 0 0 0 0 0 0 0 0 0 0 0\n"
            + st("before-st", 10, 10, 40.0, 500.0, 1, 0, 7)
            + st("after-st", 60, 30, 50.0, 600.0, 4, 2, 19, 7500))
    s = altmirror.pool_stats(text)
    # 20 batches: (50 x 30 - 40 x 10) / 20 = 55 blocks, (600 x 30 - 500 x 10) / 20 = 650 ms
    assert s == {"batches": 20, "mean_batch": pytest.approx(55.0),
                 "install_ms": pytest.approx(650.0), "waits": 3, "overlaps": 2, "hits": 12,
                 "cycle_ms": 7500, "used": 60, "slots": 204, "min_free": 150}
    assert altmirror.pool_stats(st("after-st", 5, 3, 1.0, 2.0))["used"] == 5
    assert "batches" not in altmirror.pool_stats(st("after-st", 5, 3, 1.0, 2.0))
    assert altmirror.pool_stats("before a 1 2\n") == {}


# The analysis is tested on a plan of its own, as p003 was first laid out
# (1/5 of the Eagle, an 8 MiB span, its rates), so that tuning the
# preset's constants moves no expectation below.
AM8 = {"single": "rl-sr@1[sched=look,depth=1]",
       "am1": "rl-altmirror[mf=1,sched=look,depth=1,span=8]",
       "am5": "rl-altmirror[mf=5,sched=look,depth=1,span=8]",
       "am10": "rl-altmirror[mf=10,sched=look,depth=1,span=8]",
       "am1-satf": "rl-altmirror[mf=1,sched=satf,depth=1,track,span=8]",
       "mirror": "rl-mirror[sched=look,depth=1]", "md": "md-raid1"}
RUNS8 = {"single": {50: [6, 8, 10, 12, 14], 75: [8, 10, 12, 14], 25: [8, 10, 12, 14]},
         "am1": {50: [6, 12, 16, 20, 23], 75: [12, 16, 20, 23], 25: [12, 16, 20, 23]},
         "am5": {50: [6, 12, 16, 20, 23, 27]}, "am10": {50: [6, 12, 20, 23, 27, 31]},
         "am1-satf": {50: [6, 12, 16, 20, 23, 27]},
         "mirror": {50: [6, 12, 16, 20], 75: [6, 12, 16, 20], 25: [6, 12, 16, 20]},
         "md": {50: [6, 12, 16, 20]}}


def _desc():
    only = {}
    for key, mixes in RUNS8.items():
        for pct, rates in mixes.items():
            for r in rates:
                only.setdefault(f"4k-r{pct}-span8m-poisson{r}", []).append(AM8[key])
    p = plan.build(list(AM8.values()), list(only), [64], 0, 30, disks=2,
                   disk_model="eagle", time_scale="1/5", target_ms=1e6, only=only,
                   ladders={w: [64] for w in only}, ramp=8)
    return plan.describe(p), None


def _point(cfg, read_pct, rate, iops, mean, read_mean=None):
    return {"config": cfg, "workload": f"4k-r{read_pct}-span8m-poisson{rate}", "depth": 64,
            "iops": float(iops), "mean_ms": float(mean), "p90_ms": 2.0 * mean,
            "read_mean_ms": float(read_mean if read_mean is not None else mean),
            "write_mean_ms": float(mean), "hdd_late_pct": 0.0}


def synthetic(target):
    """Points of the p003 preset's rates: single disk crossing @target
    between 10 and 12 a second, altmirror 1 % between 16 and 20, 10 %
    kept up to 31 (over), the mirror short of 16 (saturated), md raid1
    missing the lowest (under)."""
    t = target
    pts = []
    for rate, mean in ((6, 0.3 * t), (8, 0.4 * t), (10, 0.8 * t), (12, 1.2 * t), (14, 3 * t)):
        pts.append(_point(AM8["single"], 50, rate, rate, mean))
    for rate, mean in ((6, 0.2 * t), (12, 0.4 * t), (16, 0.9 * t), (20, 1.9 * t),
                       (23, 5 * t)):
        pts.append(_point(AM8["am1"], 50, rate, rate, mean, read_mean=mean / 2))
    for rate in (6, 12, 20, 23, 27, 31):
        pts.append(_point(AM8["am10"], 50, rate, rate, 0.5 * t, read_mean=0.2 * t))
    for rate, got in ((6, 6), (12, 12), (16, 13), (20, 13)):
        pts.append(_point(AM8["mirror"], 50, rate, got, 0.6 * t))
    for rate in (6, 12, 16, 20):
        pts.append(_point(AM8["md"], 50, rate, rate, 2 * t))
    # w = 0.25: the single disk and altmirror 1 %
    for rate, mean in ((8, 0.5 * t), (10, 0.9 * t), (12, 1.1 * t), (14, 2 * t)):
        pts.append(_point(AM8["single"], 75, rate, rate, mean))
    for rate, mean in ((12, 0.5 * t), (16, 0.8 * t), (20, 1.2 * t), (23, 2 * t)):
        pts.append(_point(AM8["am1"], 75, rate, rate, mean))
    return pts


def test_sustained_ratios_and_model():
    desc, _ = _desc()
    d = altmirror.disk(desc, 8)
    target = altmirror.target_ms(d)
    assert target == pytest.approx(4 * d["t_ran"] * 5)
    assert 300 < target < 350
    rws = altmirror.rows(synthetic(target), desc)
    assert {r["kind"] for r in rws} == {"single", "altmirror", "mirror", "md-raid1"}
    assert all(r["_target"] == target for r in rws)
    rates = altmirror.sustained(rws, desc["runtime_s"])
    altmirror.ratios(rates, desc)
    by = {(r["config"], r["w"]): r for r in rates}
    s = by[(AM8["single"], 0.5)]
    # 0.8 t at 10, 1.2 t at 12: half-way, 11 a second
    assert (s["how"], s["kept_rate"], s["ratio"]) == ("crossed", 10, "")
    assert s["sustained_iops"] == pytest.approx(11.0)
    a1 = by[(AM8["am1"], 0.5)]
    assert a1["how"] == "crossed" and a1["sustained_iops"] == pytest.approx(16 + 4 * 0.1)
    assert a1["ratio"] == pytest.approx(16.4 / 22.0) and a1["single_iops"] == pytest.approx(11)
    assert (a1["mf"], a1["sched"], a1["kind"], a1["label"]) == \
        ("1", "look", "altmirror", "altmirror f=1% look")
    # the model: section 3.1 over the span's 12.8 cylinders, t_avseek over them
    want = p003.efficiency_ratio(0.01, 0.5, cyls=12.8, surfs=20, blks_trk=8, t_rot=16.6,
                                 t_avseek=p003.avg_seek(12.8))
    assert a1["model"] == pytest.approx(want)
    half = p003.t_amw(0.005, cyls=12.8, t_rot=16.6)["t_amw"]
    assert a1["model_half_batch"] == pytest.approx(
        p003.efficiency_ratio_from(half, d["t_ran"], 0.5, 0.01))
    assert a1["model_half_batch"] < a1["model"]
    a10 = by[(AM8["am10"], 0.5)]
    assert (a10["how"], a10["sustained_iops"], a10["kept_rate"]) == ("over", 31.0, 31)
    assert a10["model"] > a1["model"]
    m = by[(AM8["mirror"], 0.5)]
    assert (m["how"], m["sustained_iops"], m["kept_rate"]) == ("saturated", 12.0, 12)
    assert m["model"] == pytest.approx(p003.plain_mirror_ratio(0.5)) and \
        m["model_half_batch"] == ""
    md = by[(AM8["md"], 0.5)]
    assert (md["how"], md["kept_rate"]) == ("under", "")
    # w = 0.25 against the single disk's at w = 0.25
    a25 = by[(AM8["am1"], 0.25)]
    assert a25["single_iops"] == pytest.approx(10 + 2 * 0.5)
    assert a25["sustained_iops"] == pytest.approx(16 + 4 * 0.5)
    assert a25["model"] == pytest.approx(
        p003.efficiency_ratio(0.01, 0.25, cyls=12.8, surfs=20, blks_trk=8, t_rot=16.6,
                              t_avseek=p003.avg_seek(12.8)))
    # kept: not short, mean within the target
    k = {(r["config"], r["w"], r["rate"]): r["kept"] for r in rws}
    assert k[(AM8["single"], 0.5, 10)] and not k[(AM8["single"], 0.5, 12)]
    assert not k[(AM8["mirror"], 0.5, 16)]


def test_write_all_from_a_guest_folder(tmp_path):
    desc, _ = _desc()
    target = altmirror.target_ms(altmirror.disk(desc, 8))
    pts = synthetic(target)
    cid = {c["name"]: c["id"] for c in desc["configs"]}
    # the altmirror 1 % point at 12 a second: its status around the run
    d = tmp_path / "vm" / "bench" / cid[AM8["am1"]] / "4k-r50-span8m-poisson12"
    d.mkdir(parents=True)
    (d / "d64.mstat").write_text(st("before-st", 3, 100, 9.0, 300.0, 0, 0, 2)
                                 + st("after-st", 12, 140, 9.5, 310.0, 1, 0, 30, 1600))
    (tmp_path / "summary.md").write_text("# raidlab bench\n")
    rws, rates, files = altmirror.write_all(tmp_path, pts, desc)
    assert files[:3] == ["p003.csv", "p003-rates.csv", "p003.md"]
    with open(tmp_path / "p003.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == altmirror.FIELDS and len(rows) == len(pts)
    r12 = next(r for r in rows if r["config"] == AM8["am1"] and r["rate"] == "12"
               and r["w"] == "0.5")
    assert (r12["batches"], r12["hits"], r12["cycle_ms"], r12["used"]) == ("40", "28", "1600", "12")
    assert float(r12["mean_batch"]) == pytest.approx((9.5 * 140 - 9.0 * 100) / 40)
    with open(tmp_path / "p003-rates.csv") as f:
        rr = list(csv.DictReader(f))
    assert list(rr[0]) == altmirror.RATE_FIELDS
    md = (tmp_path / "p003.md").read_text()
    assert "12.8 cylinders" in md and "Fig. 8" in md and "| altmirror f=1% look | 0.50 | 12 |" in md
    assert md in (tmp_path / "summary.md").read_text()
    # nothing for a plan without altmirror
    plain = plan.describe(plan.build(["rl-raid0", "rl-mirror"], ["4k-r50-poisson10"], [64], 0, 3,
                                     target_ms=1e6))
    assert altmirror.write_all(tmp_path, pts, plain) == ([], [], [])


def test_plots(tmp_path):
    pytest.importorskip("matplotlib")
    desc, _ = _desc()
    pts = synthetic(altmirror.target_ms(altmirror.disk(desc, 8)))
    # w = 0.75 for the ratio against w to have three points
    for rate in (8, 10, 12):
        pts.append(_point(AM8["single"], 25, rate, rate, 100.0))
        pts.append(_point(AM8["am1"], 25, rate + 6, rate + 6, 100.0))
    (tmp_path / "summary.md").write_text("")
    _, _, files = altmirror.write_all(tmp_path, pts, desc)
    assert files[3:] == ["p003-efficiency.png", "p003-fig8.png"]
    for n in files[3:]:
        assert (tmp_path / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_finish_writes_p003_not_p002(tmp_path):
    # the whole host side over a fake guest folder: rl-sr@1 is no paper 002 shape here
    desc, _ = _desc()
    target = altmirror.target_ms(altmirror.disk(desc, 8))
    cid = {c["name"]: c["id"] for c in desc["configs"]}
    for p in synthetic(target):
        d = tmp_path / "vm" / "bench" / cid[p["config"]] / p["workload"]
        d.mkdir(parents=True)
        mixed = {"iops": p["iops"], "bw_bytes": p["iops"] * 4096, "total_ios": 300,
                 "clat_ns": {"mean": p["mean_ms"] * 1e6,
                             "percentile": {"90.000000": int(p["p90_ms"] * 1e6)}}}
        side = {"total_ios": 150, "clat_ns": {"mean": p["read_mean_ms"] * 1e6}}
        (d / "d64.json").write_text(json.dumps({"jobs": [{"mixed": mixed, "read": side,
                                                          "write": side}]}))
    log = io.StringIO()
    assert bench.finish(tmp_path, desc, 10.0, "tools/raidlab bench --preset p003", log) == 0
    assert (tmp_path / "p003-rates.csv").exists() and not (tmp_path / "p002.csv").exists()
    out = log.getvalue()
    assert "Paper 003" in out and "Paper 002" not in out
    assert "## Paper 003" in (tmp_path / "summary.md").read_text()
