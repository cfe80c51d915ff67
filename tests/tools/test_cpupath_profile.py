# SPDX-License-Identifier: GPL-2.0
"""raidlab bench --preset cpu-path --profile: perf's report read into the
array path's share of the busy CPU, the ratios the shares predict, the
plan, and perf's staging for the guest (tools/raidlab_lib/bench/profile.py)."""
import json

import pytest

from raidlab_lib.bench import cpupath, profile

# the shape of `perf report --children --sort sym -g none --stdio`
DM_REPORT = """\
# Samples: 8K of event 'cpu-clock'
#
# Children      Self  Symbol
# ........  ........  ......
#
    45.00%    45.00%  [k] native_safe_halt
    30.00%     0.10%  [k] io_submit_one
     7.00%     0.70%  [k] dm_submit_bio
     4.00%     0.30%  [k] clone_endio
     0.50%     0.10%  [k] blkdev_bio_end_io_async
     3.00%     3.00%  [.] syscall
"""

MD_REPORT = """\
    45.00%    45.00%  [k] native_safe_halt
     4.50%     0.20%  [k] md_handle_request
     0.30%     0.20%  [k] md_submit_bio
     3.00%     0.50%  [k] raid5_align_endio
     1.00%     0.10%  [k] md_end_io_acct
     0.50%     0.10%  [k] blkdev_bio_end_io_async
"""


def test_parse_reads_children_and_self():
    t = profile.parse(DM_REPORT)
    assert t["dm_submit_bio"] == (7.0, 0.7)
    assert t["native_safe_halt"] == (45.0, 45.0)
    assert "Samples:" not in t


def test_array_share_dm_and_md():
    # dm: submit 7 + completion 4 - the upper completion 0.5 over 55 busy
    assert profile.array_share(profile.parse(DM_REPORT), "rl-raid5") == pytest.approx(10.5 / 55)
    # md: the larger of its submit entries, the outermost completion
    assert profile.array_share(profile.parse(MD_REPORT), "md-raid5") == pytest.approx(7.0 / 55)
    # raw brd goes through neither
    assert profile.array_share(profile.parse(DM_REPORT.replace("dm_submit_bio", "x")),
                               "brd") is None


def test_predicted_ratio():
    # the same rest of an I/O: IOPS in the ratio of what is left
    assert profile.predicted(0.2, 0.1) == pytest.approx(0.8 / 0.9)
    assert profile.predicted(0.1, 0.1) == 1


def test_plan_asks_for_the_profile():
    assert "set profile 1" in cpupath.plan_text(1, 5, 4, 128, 64, 32, True).splitlines()
    assert "set profile 1" not in cpupath.plan_text(1, 5, 4, 128, 64, 32)


def _run(d, r, cfg, wl, iops):
    (d / f"{r}-{cfg}-{wl}.json").write_text(json.dumps(
        {"jobs": [{"read": {"iops": iops}, "write": {"iops": 0}}]}))


def test_finish_reports_shares_and_predictions(tmp_path):
    d = tmp_path / "vm" / "cpupath"
    d.mkdir(parents=True)
    (d / "kallsyms").write_text("")
    shares = {"rl-raid5": 0.20, "md-raid5": 0.14, "linear": 0.13}
    for r in range(3):
        for cfg, s in shares.items():
            _run(d, r, cfg, "4k-randread", 1000 * (1 - s) / (r + 1))
            (d / f"{r}-{cfg}-4k-randread.perf").write_text(str(s))

    def report(path, kallsyms):
        s = float(path.read_text())
        return (f"    50.00%    50.00%  [k] native_safe_halt\n"
                f"    {s * 50:.4f}%     0.10%  [k] "
                f"{'md_handle_request' if 'md-' in path.name else 'dm_submit_bio'}\n")
    assert cpupath.finish(tmp_path, 10.0, "test", report=report) == 0
    doc = json.loads((tmp_path / "cpupath.json").read_text())
    got = {(x["round"], x["config"]): x["share"] for x in doc["profile"]["shares"]}
    assert got[(2, "rl-raid5")] == pytest.approx(0.20, abs=1e-4)
    pred = {(p["config"], p["against"]): p for p in doc["profile"]["predicted"]}
    p = pred[("rl-raid5", "md-raid5")]
    assert p["predicted"] == pytest.approx(0.8 / 0.86, abs=1e-3)
    assert p["measured"] == pytest.approx(0.8 / 0.86, abs=1e-3)
    assert p["goal"] == 0.95 and p["rounds"] == 3
    text = (tmp_path / "summary.md").read_text()
    assert "## Profile" in text and "| rl-raid5 | 0.200 |" in text
    assert (tmp_path / "cpupath-profile.csv").read_text().startswith("round,config,share")


def test_finish_without_perf_files_has_no_profile(tmp_path):
    d = tmp_path / "vm" / "cpupath"
    d.mkdir(parents=True)
    _run(d, 0, "rl-raid5", "4k-randread", 900)
    _run(d, 0, "md-raid5", "4k-randread", 1000)

    def report(path, kallsyms):
        raise AssertionError("no perf file, no report")
    assert cpupath.finish(tmp_path, 1.0, "test", report=report) == 0
    assert "profile" not in json.loads((tmp_path / "cpupath.json").read_text())


def test_stage_copies_perf_its_libraries_and_the_loader(tmp_path, monkeypatch):
    binary = tmp_path / "perf_6.1"
    binary.write_bytes(b"\x7fELF fake")
    libs = []
    for name in ("libelf.so.1", "ld-linux-x86-64.so.2"):
        (tmp_path / name).write_text(name)
        libs.append(tmp_path / name)
    monkeypatch.setattr(profile, "_libraries", lambda b: libs)
    out = profile.stage(tmp_path / "extra", binary)
    assert (out / "perf" / "perf").read_bytes() == b"\x7fELF fake"
    assert (out / "perf" / "lib" / "libelf.so.1").exists()
    assert (out / "perf" / "lib" / profile.LOADER).exists()


def test_no_perf_is_a_clear_error(tmp_path):
    script = tmp_path / "perf"
    script.write_text("#!/bin/sh\nexec perf_6.1 \"$@\"\n")
    script.chmod(0o755)
    with pytest.raises(profile.ProfileError, match="linux-perf"):
        profile._perf_binary(path=str(tmp_path), bindir=str(tmp_path / "none"))
