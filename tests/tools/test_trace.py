# SPDX-License-Identifier: GPL-2.0
"""raidlab trace: blkparse parsing and the member analyses, on a small
sample recorded in the VM lab (tests/tools/data/trace: rl-raid5 over four
members replaying individual 64 KiB writes; the first 48 events of each
member) and on hand-made events."""
import pathlib

import pytest

from raidlab_lib.trace import blkparse as bp
from raidlab_lib import trace

DATA = pathlib.Path(__file__).parent / "data" / "trace"
SAMPLE = DATA / "rl-raid5" / "ind-w"


def ev(t, act, rwbs, sector, n=128, dev="8,0"):
    return bp.Event(dev, t, act, rwbs, sector, n)


def test_parse_line_formats():
    e = bp.parse_line("  8,16   1       42     0.012345678   211  D   W 123456 128")
    assert (e.dev, e.act, e.rwbs, e.sector, e.n, e.kind) == ("8,16", "D", "W", 123456, 128, "write")
    # blkparse's default format: "sector + n [proc]"
    e = bp.parse_line("  8,0    0        3     0.000317425   134  D  RS 693376 + 128 [fio]")
    assert (e.sector, e.n, e.kind) == (693376, 128, "read")
    assert bp.parse_line("CPU0 (8,0):") is None
    assert bp.parse_line("  8,0    0        0     0.000000000     0  m   N cfq schedule") is None
    assert ev(0, "D", "FWS", 0).kind == "write" and ev(0, "D", "DS", 0).kind == "discard"
    assert ev(0, "D", "N", 0).kind is None


def test_sample_members():
    traces = bp.parse((SAMPLE / "members.txt").read_text())
    assert sorted(traces) == ["m0", "m1", "m2", "m3"]
    assert all(len(v) == 48 for v in traces.values())
    for name, evs in traces.items():
        a = bp.analyse(evs)
        # raid5 read-modify-write: every member write of a chunk is preceded
        # by a read of the same chunk, so reads and writes pair up
        assert a["reads"] >= a["writes"] > 0, name
        assert a["reads"] - a["writes"] <= 3
        assert a["read_sectors"] == 128 * a["reads"]
        assert 0.0 < a["util"] <= 1.0
        assert sum(a["seek_hist"]) == a["reads"] + a["writes"] - 1
    m0 = bp.analyse(traces["m0"])
    # first D events of m0: RS 693376, WS 693376 (seek back 128 sectors), ...
    assert m0["seek_hist"][bp.seek_bucket(128)] >= 1


def test_sample_dir_report(tmp_path):
    meta = [dict(name="rl-raid5", id="rl-raid5", kind="rl", level="raid5", disks=4)]
    rows, summary = trace.analyse_dir(DATA, meta)
    assert len(rows) == 4 and len(summary) == 1
    s = summary[0]
    assert s["logical_writes"] > 0 and s["logical_reads"] == 0
    assert s["iops"] > 0 and s["p90_ms"] > 0
    # the sample holds 48 events of each member, a few per cent of the run
    assert 0 < s["member_writes_per_req"] < 0.2
    assert all(r["util_sysfs"] != "" and r["util_sysfs"] >= 0 for r in rows)
    assert "rl-raid5" in trace.table(summary, rows)


def test_seek_buckets():
    assert bp.seek_bucket(0) == 0
    assert bp.seek_bucket(8) == 1 and bp.seek_bucket(9) == 2
    assert bp.seek_bucket(10 ** 9) == len(bp.SEEK_LABELS) - 1
    assert len(bp.SEEK_EDGES) == len(bp.SEEK_LABELS)


def test_utilisation_and_seeks_by_hand():
    evs = [ev(0.0, "D", "R", 1000), ev(0.5, "D", "R", 1128), ev(1.0, "C", "R", 1000),
           ev(1.5, "C", "R", 1128), ev(3.0, "D", "W", 0, 8), ev(4.0, "C", "W", 0, 8)]
    a = bp.analyse(evs, span=8.0)
    assert (a["reads"], a["writes"]) == (2, 1)
    # busy [0, 1.5] and [3, 4]: 2.5 s of 8
    assert a["busy_s"] == pytest.approx(2.5) and a["util"] == pytest.approx(2.5 / 8)
    # seeks: 1128 - 1128 = 0 (sequential), |0 - 1256| = 1256 sectors
    assert a["seek_hist"][0] == 1 and a["seek_hist"][bp.seek_bucket(1256)] == 1
    assert a["mean_seek_sectors"] == pytest.approx(628)
    assert bp.busy_time([(0, 1), (0.5, 2), (5, 6)]) == pytest.approx(3)


def test_bio_based_member_uses_queue_events():
    # a dm-hddsim member: Q and C only
    evs = [ev(0.0, "Q", "WS", 100), ev(0.2, "Q", "RS", 500), ev(0.5, "C", "WS", 100),
           ev(1.0, "C", "RS", 500)]
    a = bp.analyse(evs, span=2.0)
    assert (a["reads"], a["writes"], a["issue_action"]) == (1, 1, "Q")
    assert a["util"] == pytest.approx(0.5)
    # with D events the Q events are not counted again
    assert bp.analyse(evs + [ev(0.1, "D", "WS", 100)])["issue_action"] == "D"


def test_logical_requests_and_io_ticks():
    arr = bp.parse((SAMPLE / "array.txt").read_text())
    (evs,) = arr.values()
    c = bp.logical_requests(evs)
    assert c["write"] > 0 and c["read"] == 0
    ticks = trace.io_ticks((SAMPLE / "mstat").read_text())
    assert len(ticks) == 4 and all(v > 0 for v in ticks.values())


def test_trace_plan_records_then_replays():
    from raidlab_lib.bench import plan
    cfgs = [plan.parse_config(c, 4, 64) for c in ("rl-raid0", "rl-raid5", "md-raid5")]
    text = trace.plan_text(cfgs, "ind-w", 4, 5, 1024)
    lines = [l for l in text.splitlines() if l.split()[0] in ("trace", "replay")]
    assert lines[0].startswith("trace rl-raid0 ind-w 4 --rw=randwrite")
    assert "--size=1024m" in lines[0]
    assert lines[1:] == ["replay rl-raid5 ind-w 4", "replay md-raid5 ind-w 4"]
