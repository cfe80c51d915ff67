# SPDX-License-Identifier: GPL-2.0
"""dm-log-writes logs: a synthetic log built at dm-log-writes.c's layout
(super block, one header sector per entry, data after it, none for
discards), parsed, crash points found, replayed whole and incrementally."""
import json
import struct
import subprocess
import sys
import pathlib

import pytest

from raidlab_lib import logwrites as lw

ROOT = pathlib.Path(__file__).resolve().parents[2]


def pattern(tag, nsec, S):
    return bytes([tag]) * (nsec * S)


def build(path, S=512):
    """Entries: 0 W@0x2, 1 W@4x1, 2 FLUSH, 3 MARK m1, 4 W@0x1, 5 DISCARD@4x1,
    6 W@8x1 FUA, 7 W@1x1, 8 FLUSH."""
    w = lw.Writer(path, S)
    w.write(0, pattern(1, 2, S))
    w.write(4, pattern(2, 1, S))
    w.flush()
    w.mark("m1")
    w.write(0, pattern(3, 1, S))
    w.discard(4, 1)
    w.write(8, pattern(4, 1, S), flags=lw.FUA)
    w.write(1, pattern(5, 1, S))
    w.flush()
    w.close()
    return path


def test_layout_by_hand(tmp_path):
    p = build(str(tmp_path / "log"))
    raw = open(p, "rb").read()
    magic, version, n, S = struct.unpack_from("<QQQI", raw)
    assert (magic, version, n, S) == (0x6A736677736872, 1, 9, 512)
    # entry 0 header at sector 1, its 2 data sectors, entry 1 header at sector 4
    assert struct.unpack_from("<QQQQ", raw, 512) == (0, 2, 0, 0)
    assert raw[1024:1536] == b"\x01" * 512
    assert struct.unpack_from("<QQQQ", raw, 4 * 512) == (4, 1, 0, 0)
    # the mark carries its name after the header
    hdr3 = 512 * (1 + 3 + 2 + 1)
    assert struct.unpack_from("<QQQQ", raw, hdr3) == (0, 0, lw.MARK, 2)
    assert raw[hdr3 + 32:hdr3 + 34] == b"m1"


def test_entries_and_points(tmp_path):
    with lw.Log(build(str(tmp_path / "log"))) as lg:
        es = lg.entries()
        assert [lw.flag_str(e.flags) for e in es] == \
            ["-", "-", "FLUSH", "MARK", "-", "DISCARD", "FUA", "-", "FLUSH"]
        assert es[3].mark == "m1" and lg.mark_index("m1") == 3 and lg.mark_index("x") is None
        assert lg.data(es[6]) == pattern(4, 1, 512) and lg.data(es[5]) == b""
        assert lg.flush_points() == [3, 7, 9]
        assert lg.crash_points() == [0, 3, 7, 9]
        pts = lg.crash_points(random_n=20, seed=5)
        assert pts == lg.crash_points(random_n=20, seed=5)
        assert set([0, 3, 7, 9]) <= set(pts) and all(0 <= p <= 9 for p in pts)
        assert pts != lg.crash_points(random_n=20, seed=6) or len(pts) == 10


def expected_image(k, S=512, size=16):
    """The device after entries [0, k), computed by hand."""
    img = bytearray(size * S)
    ops = [(0, pattern(1, 2, S)), (4, pattern(2, 1, S)), None, None, (0, pattern(3, 1, S)),
           (4, bytes(S)), (8, pattern(4, 1, S)), (1, pattern(5, 1, S)), None]
    for op in ops[:k]:
        if op:
            img[op[0] * S:op[0] * S + len(op[1])] = op[1]
    return bytes(img)


@pytest.mark.parametrize("S", [512, 4096])
def test_replay_every_point_and_incremental(tmp_path, S):
    p = build(str(tmp_path / "log"), S)
    dest = tmp_path / "dev"
    with lw.Log(p) as lg:
        for k in range(10):
            dest.write_bytes(bytes(16 * S))
            lg.replay(str(dest), 0, k)
            assert dest.read_bytes() == expected_image(k, S), k
        # incremental: one device walked through the flush points
        dest.write_bytes(bytes(16 * S))
        prev = 0
        for k in lg.crash_points():
            lg.replay(str(dest), prev, k)
            prev = k
            assert dest.read_bytes() == expected_image(k, S)
        # discards skipped: entry 1's data stays
        dest.write_bytes(bytes(16 * S))
        lg.replay(str(dest), 0, 6, discard="skip")
        assert dest.read_bytes()[4 * S:5 * S] == pattern(2, 1, S)
        with pytest.raises(lw.LogError):
            lg.replay(str(dest), 5, 3)


def test_bad_logs(tmp_path):
    p = tmp_path / "bad"
    p.write_bytes(b"\0" * 4096)
    with pytest.raises(lw.LogError, match="magic"):
        lw.Log(str(p))
    good = build(str(tmp_path / "log"))
    raw = open(good, "rb").read()
    p.write_bytes(raw[:2000])                       # cut inside the entries
    with pytest.raises(lw.LogError):
        with lw.Log(str(p)) as lg:
            lg.entries()
            lg.data(lg.entries()[-1])


def test_aligned_points(tmp_path):
    logs = []
    for i in range(3):
        w = lw.Writer(str(tmp_path / f"l{i}"))
        for j in range(i + 1):                      # members log different amounts
            w.write(j, pattern(j + 1, 1, 512))
        w.flush()
        w.mark("cut1")
        w.write(0, pattern(9, 1, 512))
        w.flush()
        w.close()
        logs.append(lw.Log(str(tmp_path / f"l{i}")))
    pts = lw.aligned_points(logs, random_n=10, seed=1)
    named = {p["name"]: p["points"] for p in pts}
    assert named["flush:0"] == [2, 3, 4]
    assert named["mark:cut1"] == [3, 4, 5]
    assert named["flush:1"] == [5, 6, 7]
    rnd = [p for p in pts if p["name"].startswith("random")]
    assert rnd and rnd == [p for p in lw.aligned_points(logs, random_n=10, seed=1)
                           if p["name"].startswith("random")]
    for lg in logs:
        lg.close()


def test_cli(tmp_path):
    p = build(str(tmp_path / "log"))
    tool = [sys.executable, str(ROOT / "tools" / "raidlab"), "replay-log", p]
    r = subprocess.run(tool + ["--list-points", "--json"], capture_output=True, text=True,
                       check=True)
    d = json.loads(r.stdout)
    assert d["flush_points"] == [3, 7, 9] and d["points"] == [0, 3, 7, 9]
    r = subprocess.run(tool + ["--mark", "m1"], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["4"]
    dest = tmp_path / "dev"
    dest.write_bytes(bytes(16 * 512))
    subprocess.run(tool + ["--to", "3", "--dest", str(dest)], check=True, capture_output=True)
    subprocess.run(tool + ["--from", "3", "--to", "9", "--dest", str(dest)], check=True,
                   capture_output=True)
    assert dest.read_bytes() == expected_image(9)
    r = subprocess.run(tool + ["--list"], capture_output=True, text=True, check=True)
    assert "mark m1" in r.stdout and "DISCARD" in r.stdout
