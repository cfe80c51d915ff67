# SPDX-License-Identifier: GPL-2.0
"""raidlab bench, preset plog (paper 000): rl-plog options, fixed-size and
working-set workloads, the saturation plan, plog status parsing, and the
ratios and model predictions of plogcmp.py (not timed)."""
import csv
import json
import pathlib
import subprocess
import sys

import pytest

from raidlab_lib.bench import plan, plogcmp, results
from raidlab_lib.bench import workloads as wl
from raidlab_lib.models import p000_parity_logging as m000

ROOT = pathlib.Path(__file__).resolve().parents[2]


# ------------------------------------------------------------ workloads
def test_fixed_size_and_working_set():
    w = wl.parse("4k-w-ws32m")
    assert (w.size, w.mean_kib, w.read_pct, w.ws_mib) == ("fixed", 4.0, 0, 32)
    geo = wl.Geometry(64, 3)
    assert wl.fio_args(w, geo) == ["--rw=randwrite", "--bs=4k", "--blockalign=4k",
                                   "--size=32m"]
    assert wl.fio_args(wl.parse("2k-w"), geo) == ["--rw=randwrite", "--bs=2k",
                                                  "--blockalign=2k"]
    # unaligned keeps the smaller of 4 KiB and the size
    assert "--blockalign=2k" in wl.fio_args(wl.parse("2k-w-ua"), geo)
    assert wl.request_kib(wl.parse("2k-w"), geo) == 2.0
    assert wl.parse("ind-w").ws_mib == 0


@pytest.mark.parametrize("bad", ["0k-w", "2048k-w", "4k", "4k-w-ws0m", "4k-w-ws1m-ws2m",
                                 "4k-w-ws1g"])
def test_fixed_and_ws_reject(bad):
    with pytest.raises(ValueError):
        wl.parse(bad)


# ------------------------------------------------------------ configs
def test_plog_config_options():
    c = plan.parse_config("rl-plog[L=1,A=0.5,K=2,cache=0]", 5, 64)
    assert (c.kind, c.level, c.disks, c.log_disks, c.data_cols) == ("rl", "plog", 5, 1, 3)
    assert c.opts == ("log_disks", "1", "log_ratio", "0.5", "log_tracks", "2", "data_cache", "0")
    assert dict(c.plog) == {"L": "1", "A": "0.5", "K": "2", "cache": "0"}
    assert c.cid == "rl-plog.L-1.A-0.5.K-2.cache-0"
    c = plan.parse_config("rl-plog[L=2,md=pmem,bufs=4,B=12,ts=64,sched=satf]", 6, 64)
    assert c.opts == ("log_disks", "2", "metadata", plan.PMEM, "log_buffers", "4",
                      "regions", "12", "track_sectors", "64", "sched", "satf")
    assert c.data_cols == 3
    assert plan.parse_config("rl-plog", 4, 64).data_cols == 2   # L = 1 by default
    assert plan.parse_config("rl-plog[md=none]", 4, 64).opts == ()


@pytest.mark.parametrize("bad", ["rl-plog[L=0]", "rl-plog[A=x]", "rl-plog[A=-1]", "rl-plog[A=]",
                                 "rl-plog[foo=1]", "rl-plog[md=bufio]", "rl-plog[L=1,L=2]",
                                 "rl-plog[K=x]", "rl-plog[cache]", "rl-plog@3[L=2]",
                                 "rl-raid5[L=1]", "md-raid5[cache=0]"])
def test_plog_config_rejects(bad):
    with pytest.raises(ValueError):
        plan.parse_config(bad, 6, 64)


def test_plog_config_ranges_are_the_kernels():
    # issue 14: no copy of plog's ranges here; the kernel refuses them at load
    c = plan.parse_config("rl-plog[K=65,ts=1,bufs=1]", 5, 64)
    w = list(c.opts)
    assert w[w.index("log_tracks") + 1] == "65" and w[w.index("track_sectors") + 1] == "1"
    assert w[w.index("log_buffers") + 1] == "1"


def test_plog_preset_plan():
    pre = plan.PRESETS["plog"]
    p = plan.build(pre["configs"], pre["workloads"], pre["ladder"], pre["refine"],
                   pre["runtime"], disks=pre["disks"], disk_model=pre["disk_model"],
                   time_scale=pre["time_scale"], procs=pre["procs"], ramp=pre["ramp"],
                   member_mb=pre["member_mb"], chunk_kib=pre["chunk_kb"])
    names = [c.name for c in p.configs]
    # plog's chunk (8 KiB) divides the 48-sector track
    assert all(48 % (c.chunk_kib * 2) == 0 for c in p.configs)
    assert names[0] == "rl-raid0" and "md-raid5" in names and "rl-mirror" in names
    assert sum(c.level == "plog" for c in p.configs) == 2
    text = plan.plan_text(p)
    lines = text.splitlines()
    for want in ("set procs 30", "set ramp 20", "set member_mb 64", "set disk_model lightning"):
        assert want in lines
    # Figure 12's 48-sector tracks go to plog
    plogs = [ln for ln in lines if ln.startswith("config rl-plog")]
    assert len(plogs) == 2 and all(ln.endswith("track_sectors 48") for ln in plogs)
    runs = [ln.split() for ln in lines if ln.startswith("run ")]
    assert len(runs) == len(p.configs) * len(p.workloads) == p.max_points()
    # every configuration runs the cached comparison on the same working set
    ws = {r[1]: r[3] for r in runs if r[2] == "2k-w-ws128m"}
    assert set(ws.values()) == {"128"} and len(ws) == len(p.configs)
    assert not any(ln.startswith("job ") for ln in lines)
    # the cached plog's data cache holds the working set (4 KiB blocks)
    cached = [c for c in p.configs if dict(c.plog).get("cache", "0") != "0"][0]
    assert int(dict(cached.plog)["cache"]) * 4 >= 128 * 1024
    d = plan.describe(p)
    assert d["procs"] == 30 and d["member_mb"] == 64 and d["workloads"][1]["ws_mib"] == 128
    # wall time: boot, creations and every run must fit 40 minutes under TCG
    assert 60 + len(p.configs) * 40 + p.max_points() * (p.seconds_per_point() + 8) < 40 * 60


def test_ts_option_wins_over_the_disk_model():
    p = plan.build(["rl-plog[ts=96]"], ["4k-w"], [1], 0, 2, disks=5, target_ms=10.0,
                   disk_model="lightning", procs=3)
    assert plan.plan_text(p).count("track_sectors") == 1
    assert "track_sectors 96" in plan.plan_text(p)


def test_cli_dry_run_plog_preset():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "bench", "--preset",
                        "plog", "--dry-run"], capture_output=True, text=True, check=True)
    assert "set procs 30" in r.stdout and "set time_scale 2" in r.stdout
    assert "config md-raid5 md raid5 5 8" in r.stdout
    # command-line options still override the preset's
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "bench", "--preset",
                        "plog", "--disks", "6", "--procs", "6", "--time-scale", "1",
                        "--dry-run"], capture_output=True, text=True, check=True)
    assert "set procs 6" in r.stdout and "config md-raid5 md raid5 6 8" in r.stdout
    assert "set time_scale 1" in r.stdout


# ------------------------------------------------------------ results
STATUS = ("0 960 raidlab plog 5 AAAAA 960/960 idle 0 0 - optimal 128 1 2 3 4 5 6 "
          "1:1:1:1 1:1:1:1 1:1:1:1 1:1:1:1 1:1:1:1 fifo 1 10 0 - - 0 0 off 0 0 0 "
          "plog 19 1 1.000 1 52 20 20 48 {cap} pmem 1000 16 10 2 {waits} {reint} 7 9 {hits} "
          "{miss}")


def status_line(waits=0, reint=0, hits=0, miss=0, cap=200000):
    return STATUS.format(waits=waits, reint=reint, hits=hits, miss=miss, cap=cap)


def test_plog_status_parse():
    st = results.plog_status(status_line(3, 4, 5, 6))
    assert st["L"] == 1 and st["A"] == 1.0 and st["B"] == 52 and st["capacity_sectors"] == 200000
    assert (st["pool_waits"], st["reintegrations"], st["cache_hits"], st["cache_misses"]) \
        == (3, 4, 5, 6)
    assert st["durability"] == "pmem"
    assert results.plog_status("0 10 raidlab raid5 4 AAAA optimal") == {}


def fio_json(iops, p90_ns, ios):
    pct = {"50.000000": p90_ns // 2, "90.000000": p90_ns, "99.000000": p90_ns * 2}
    return json.dumps({"jobs": [{"mixed": {"iops": iops, "bw_bytes": iops * 4096,
                                           "total_ios": ios, "clat_ns": {"percentile": pct}}}]})


def fake_sat(tmp, desc, iops):
    """Guest-like saturation output: iops[(config id, workload)] = array IOPS."""
    procs = desc["procs"]
    for (cid, w), v in iops.items():
        d = tmp / cid / w
        d.mkdir(parents=True)
        ios = int(v * desc["runtime_s"])
        (d / f"d{procs}.json").write_text(fio_json(v, int(80e6), ios))
        (d / f"d{procs}.mstat").write_text(
            f"before /dev/mapper/hdd0 {' '.join(['0'] * 11)}\n"
            f"after /dev/mapper/hdd0 {ios} 0 0 0 {2 * ios} 0 0 0 0 {ios} 0\n")
        if cid.startswith("rl-plog"):
            (d / f"d{procs}.status").write_text(
                status_line(1, 10, 0, 0) + "\n" + status_line(5, 25, 300, 100) + "\n")


def sat_plan():
    return plan.build(["rl-raid0", "rl-mirror", "rl-plog[L=1,A=1,K=1,cache=0]",
                       "rl-plog[cache=8192]", "md-raid5"], ["4k-w", "4k-w-ws32m"], [1], 0, 30,
                      disks=5, disk_model="lightning", time_scale="2", procs=15, ramp=5,
                      member_mb=64)


def test_saturation_collect_and_ratios(tmp_path):
    desc = plan.describe(sat_plan())
    ids = {c["name"]: c["id"] for c in desc["configs"]}
    # per disk: raid0 100, mirror 50, plog 60 / 80, md-raid5 20
    arr = {"rl-raid0": 500, "rl-mirror": 100, "rl-plog[L=1,A=1,K=1,cache=0]": 300,
           "rl-plog[cache=8192]": 400, "md-raid5": 100}
    fake_sat(tmp_path / "bench", desc,
             {(ids[c], w): v for c, v in arr.items() for w in ("4k-w", "4k-w-ws32m")})
    points, res = results.collect(tmp_path / "bench", desc)
    assert len(res) == 10 and all(r["how"] == "procs" and r["depth"] == 15 for r in res)
    by = {(r["config"], r["workload"]): r for r in res}
    assert by[("rl-mirror", "4k-w")]["iops_per_disk"] == pytest.approx(50)
    assert by[("md-raid5", "4k-w")]["member_ios_per_req"] == pytest.approx(3.0)
    pr = by[("rl-plog[cache=8192]", "4k-w")]
    assert pr["plog_delta"] == {"pool_waits": 4, "reintegrations": 15, "cache_hits": 300,
                                "cache_misses": 100}
    rows = plogcmp.compare(res, desc)
    rb = {(r["config"], r["workload"]): r for r in rows}
    p0 = rb[("rl-plog[L=1,A=1,K=1,cache=0]", "4k-w")]
    assert p0["vs_mirror"] == pytest.approx(60 / 50)
    assert p0["vs_md_raid5"] == pytest.approx(60 / 20)
    assert rb[("rl-mirror", "4k-w")]["vs_mirror"] == ""
    assert rb[("rl-plog[cache=8192]", "4k-w")]["reintegrations"] == 15
    # every row has a model; plog's model ratios are the model's own quotients
    assert all(isinstance(r["model_iops_per_disk"], float) for r in rows)
    assert p0["model_vs_md_raid5"] == pytest.approx(
        p0["model_iops_per_disk"] / rb[("md-raid5", "4k-w")]["model_iops_per_disk"])
    # the cached plog skips the preread only where its cache holds the working set
    assert rb[("rl-plog[cache=8192]", "4k-w-ws32m")]["preread"] is False
    assert rb[("rl-plog[cache=8192]", "4k-w")]["preread"] is True
    assert rb[("rl-plog[L=1,A=1,K=1,cache=0]", "4k-w-ws32m")]["preread"] is True
    v = plogcmp.verdicts(rows)
    assert len(v) == 4
    assert any("plog/mirror 1.20 (meets" in x and "plog/md-raid5 3.00 (meets" in x for x in v)
    assert any("plog/mirror 1.60" in x for x in v)
    results.write_all(tmp_path / "out", points, res, desc, 10.0, "tools/raidlab bench --preset plog")
    rows2, files = plogcmp.write_all(tmp_path / "out", res, desc)
    with open(tmp_path / "out" / "plog.csv") as f:
        got = list(csv.DictReader(f))
    assert list(got[0]) == plogcmp.FIELDS and len(got) == 10
    js = json.loads((tmp_path / "out" / "plog.json").read_text())
    assert js["goal"] == [1.0, 2.5] and len(js["rows"]) == 10
    md = (tmp_path / "out" / "summary.md").read_text()
    assert "## Parity logging (paper 000)" in md and "Saturation runs: 15" in md
    if "plog.png" in files:
        assert (tmp_path / "out" / "plog.png").read_bytes()[:4] == b"\x89PNG"
    assert "rl-plog[cache=8192]" in plogcmp.table(rows2)


def test_model_follows_paper_000():
    desc = plan.describe(sat_plan())
    cfg = {c["name"]: c for c in desc["configs"]}
    w = {x["name"]: x for x in desc["workloads"]}
    m = {c: plogcmp.model_iops(desc, cfg[c], w["4k-w"]) for c in cfg}
    # section 4's order for preread small writes: raid0 > mirror, plog > raid5
    assert m["rl-raid0"] > m["rl-mirror"] and m["rl-plog[L=1,A=1,K=1,cache=0]"] > m["md-raid5"]
    # the time scale multiplies the emulated rates
    d1 = dict(desc, time_scale="1")
    assert plogcmp.model_iops(d1, cfg["md-raid5"], w["4k-w"]) == pytest.approx(m["md-raid5"] / 2)
    # no preread (cache holds the working set) is faster than with it
    hit = plogcmp.model_iops(desc, cfg["rl-plog[cache=8192]"], w["4k-w-ws32m"])
    miss = plogcmp.model_iops(desc, cfg["rl-plog[L=1,A=1,K=1,cache=0]"], w["4k-w-ws32m"])
    assert hit > miss
    # the full disk with figure 12's 2 KiB units and 22 disks is figure 15's number
    full = dict(desc, member_mb=0, time_scale="1")
    c22 = dict(cfg["rl-plog[L=1,A=1,K=1,cache=0]"], disks=22)
    p = m000.FIGURE12
    want = m000.ios_per_disk_second(m000.parity_logging_busy(
        m000.replace(p, avg_seek_ms=m000.mean_seek_from_curve(p), regions=100), True))
    got = plogcmp.model_iops(full, c22, dict(w["4k-w"], name="2k-w"), {"B": 100})
    assert got == pytest.approx(want, rel=1e-9)
    # reads are not modelled
    assert plogcmp.model_iops(desc, cfg["md-raid5"], dict(w["4k-w"], read_pct=100)) is None
    assert plogcmp.model_iops(dict(desc, disk_model="none"), cfg["md-raid5"], w["4k-w"]) is None


def test_config_list_keeps_bracketed_commas():
    from raidlab_lib import bench
    assert bench.config_list("rl-raid0,rl-plog[L=1,A=0.5,cache=0],md-raid5") == \
        ["rl-raid0", "rl-plog[L=1,A=0.5,cache=0]", "md-raid5"]
    assert bench.config_list("rl-raid0@2[sched=satf,depth=1,track]") == \
        ["rl-raid0@2[sched=satf,depth=1,track]"]
    for bad in ("rl-plog[L=1", "rl-plog]L=1["):
        with pytest.raises(ValueError):
            bench.config_list(bad)
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "bench", "--preset",
                        "plog", "--configs", "rl-raid0,rl-plog[L=2,A=0.25,bufs=64]",
                        "--workloads", "4k-w", "--dry-run"],
                       capture_output=True, text=True, check=True)
    assert "config rl-plog.L-2.A-0.25.bufs-64 rl plog 5 8 log_disks 2 log_ratio 0.25 " \
        "log_buffers 64 track_sectors 48" in r.stdout
