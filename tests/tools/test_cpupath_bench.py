# SPDX-License-Identifier: GPL-2.0
"""raidlab bench --preset cpu-path: the plan's rounds, and the ratios and
files from the guest's fio output."""
import json

from raidlab_lib.bench import cpupath


def _fio(path, r_iops, w_iops=0.0):
    path.write_text(json.dumps({"jobs": [{"read": {"iops": r_iops},
                                          "write": {"iops": w_iops}}]}))


def test_plan_rounds_rotate_and_cover_every_group():
    text = cpupath.plan_text(3, 5, 4, 128, 64, 32)
    lines = text.splitlines()
    assert lines[:5] == ["set runtime 5", "set members 4", "set member_mb 128",
                         "set chunk_kb 64", "set iodepth 32"]
    rounds = [[]]
    for ln in lines[5:]:
        if ln.startswith("round") and ln != "round 0":
            rounds.append([])
        if ln.startswith("config"):
            rounds[-1].append(ln.split()[1])
    assert len(rounds) == 3
    # every round runs every configuration once, and no two start alike
    assert all(sorted(r) == sorted(rounds[0]) for r in rounds)
    assert len({r[0] for r in rounds}) == 3
    cfgs = set(rounds[0])
    for _, wl, rl, others in cpupath.GROUPS:
        assert {rl, f"{rl}:look", f"{rl}:satf", *others} <= cfgs
    assert text.count("job ") == cpupath.nr_runs(3)
    # raid5 runs its three workloads in each round, md raid5 too
    assert text.count("config rl-raid5\njob 4k-randread\njob 1m-write\njob 4k-randwrite") == 3


def test_ratios_per_round_then_median(tmp_path):
    d = tmp_path / "vm" / "cpupath"
    d.mkdir(parents=True)
    # three rounds; the machine gets slower each round, the ratio does not
    for r, speed in enumerate((1.0, 0.5, 0.8)):
        _fio(d / f"{r}-rl-mirror-4k-randread.json", 900 * speed)
        _fio(d / f"{r}-md-raid1-4k-randread.json", 1000 * speed)
        _fio(d / f"{r}-rl-mirror:look-4k-randread.json", 810 * speed)
        _fio(d / f"{r}-linear-4k-randread.json", 1200 * speed)
        _fio(d / f"{r}-rl-raid5-4k-randwrite.json", 0, 300 * speed)
        _fio(d / f"{r}-md-raid5-4k-randwrite.json", 0, 100 * speed)
    # a run of round 1 missing: that round's ratio is left out, not made up
    (d / "1-md-raid1-4k-randread.json").unlink()
    runs = cpupath.collect(tmp_path)
    assert runs[(0, "rl-mirror:look", "4k-randread")] == 810
    rows = {(r["config"], r["against"], r["workload"]): r for r in cpupath.ratios(runs)}
    m = rows[("rl-mirror", "md-raid1", "4k-randread")]
    assert m["rounds"] == 2 and abs(m["ratio"] - 0.9) < 1e-9
    assert m["before"] == 0.82 and m["goal"] == 1.0 and m["kind"] == "path"
    assert abs(rows[("rl-mirror:look", "rl-mirror", "4k-randread")]["ratio"] - 0.9) < 1e-9
    assert rows[("rl-mirror", "linear", "4k-randread")]["kind"] == "queue"
    w = rows[("rl-raid5", "md-raid5", "4k-randwrite")]
    assert abs(w["ratio"] - 3.0) < 1e-9 and w["before"] == 2.1
    # no md raid0 run at all: no row for it
    assert ("rl-raid0", "md-raid0", "4k-randread") not in rows
    text = cpupath.summary(runs, cpupath.ratios(runs), 12.0, "tools/raidlab bench")
    assert "| mirror 4 KiB random reads | rl-mirror | md-raid1 | 0.90 | 0.90..0.90 | 0.82 | ≥ 1.00 (not met) |" in text


def test_finish_writes_files(tmp_path):
    d = tmp_path / "vm" / "cpupath"
    d.mkdir(parents=True)
    _fio(d / "0-rl-raid0-4k-randread.json", 950)
    _fio(d / "0-dm-stripe-4k-randread.json", 1000)
    assert cpupath.finish(tmp_path, 30.0, "cmd") == 0
    j = json.loads((tmp_path / "cpupath.json").read_text())
    assert j["ratios"][0]["ratio"] == 0.95 and j["runs"][0]["iops"] in (950, 1000)
    assert (tmp_path / "cpupath.csv").read_text().splitlines()[0] == "round,config,workload,iops"
    assert (tmp_path / "summary.md").exists()
