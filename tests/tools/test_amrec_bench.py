# SPDX-License-Identifier: GPL-2.0
"""raidlab amrec-bench (issue 17, paper 003 section 4): the plan, the model
beside the measurement, and the files from a synthetic guest run (no VM)."""
import csv
import json
import pathlib
import subprocess
import sys

import pytest

from raidlab_lib.bench import amrec
from raidlab_lib.models import p003_alternating as p003

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_plan_and_rate():
    text = amrec.plan_text(32, 40, 10, ["two", "one"], 900)
    assert "set span_mib 32\n" in text and "set configs two one\n" in text
    assert "set rate 40\n" in text and "set max 900\n" in text
    # 1 / t_ran of the span: shorter seeks than the whole disk's 28.4 ms
    r = amrec.load_rate(32)
    assert 1000 / p003.t_ran() < r < 1000 / 8.3


def test_model_scaling():
    m = amrec.model(32, 8.0)
    assert m["blocks"] == 32 * 256
    # the paper's figure: 18.29 minutes at g = 8, f = 1 %
    assert m["paper_min"] == pytest.approx(18.29, abs=0.01)
    # scaled by blocks and t_ran to the lab; the lab model at g = 8 agrees
    want = 18.29 * 60 * m["blocks"] / (840 * 20 * 8) * m["t_ran_ms"] / p003.t_ran()
    assert m["paper_scaled_s"] == pytest.approx(want, rel=0.01)
    assert m["model_g8_s"] == pytest.approx(m["paper_scaled_s"], rel=0.02)
    assert m["model_g_s"] == pytest.approx(m["model_g8_s"])
    # a larger g recovers sooner; g <= 1 gives no model time
    assert amrec.model(32, 12.0)["model_g_s"] < m["model_g_s"]
    assert "model_g_s" not in amrec.model(32, 0.0)


def _guest(tmp_path):
    d = tmp_path / "vm" / "amrec"
    d.mkdir(parents=True)
    (d / "events.txt").write_text("recovery two 120.00\ncheck two 0\n"
                                  "recovery one 200.00\ncheck one 0\n")
    rest = "RR 0/81 81 0 10 5.0 30.0 0 0 100 pmem"
    (d / "two-status.txt").write_text(
        f"1.0 0/65536 {rest} active 0/8192 10 0.0 1000\n"
        f"60.0 32768/65536 {rest} active 4096/8192 300 6.4 60000\n"
        f"119.0 65536/65536 {rest} active 8192/8192 420 6.0 119000\n"
        f"120.0 end {rest} none 8192/8192 420 6.0 120000\n")
    (d / "one-status.txt").write_text(
        f"1.0 0/65536 {rest} none 0/8192 0 0.0 0\n"
        f"100.0 32768/65536 {rest} none 0/8192 0 0.0 0\n")
    job = {"jobs": [{"read": {"iops": 40.0, "clat_ns": {
        "mean": 25e6, "percentile": {"90.000000": 50e6}}}}]}
    for c in ("two", "one"):
        (d / f"{c}-reads.json").write_text("fio: terminating on signal 2\n" + json.dumps(job))
    return tmp_path


def test_collect_rows(tmp_path):
    rows, trace = amrec.collect(_guest(tmp_path), 32)
    two, one = rows
    assert two["config"] == "two" and two["seconds"] == 120.0
    # g and modified: the last sample while active
    assert two["g"] == 6.0 and two["modified"] == 420 and two["mismatches"] == 0
    assert two["vs_one"] == pytest.approx(0.6)
    assert two["vs_model_g"] == pytest.approx(120.0 / two["model_g_s"])
    assert one["g"] is None and "model_g_s" not in one
    assert two["read_mean_ms"] == 25.0 and two["read_p90_ms"] == 50.0
    assert [t["copied"] for t in trace if t["config"] == "two"] == [0, 4096, 8192]


def test_finish_files(tmp_path):
    out = _guest(tmp_path)
    assert amrec.finish(out, 321.0, "tools/raidlab amrec-bench", 32, 40) == 0
    rows = list(csv.DictReader(open(out / "amrec.csv")))
    assert [r["config"] for r in rows] == ["two", "one"]
    assert float(rows[0]["seconds"]) == 120.0
    md = (out / "summary.md").read_text()
    assert "18.29 minutes" in md and "| altmirror, two spares (section 4) | 120.0 | 0.60 |" in md
    assert json.loads((out / "amrec.json").read_text())["rate"] == 40
    trace = list(csv.DictReader(open(out / "amrec-trace.csv")))
    assert len(trace) == 5


def test_finish_fails_on_mismatches(tmp_path):
    out = _guest(tmp_path)
    ev = out / "vm" / "amrec" / "events.txt"
    ev.write_text(ev.read_text().replace("check two 0", "check two 8"))
    assert amrec.finish(out, 1.0, "x", 32, 40) == 1


def test_dry_run():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "amrec-bench",
                        "--dry-run", "--configs", "two", "--rate", "30"],
                       capture_output=True, text=True, check=True)
    assert "set configs two\n" in r.stdout and "set rate 30\n" in r.stdout
