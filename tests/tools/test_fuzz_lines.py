# SPDX-License-Identifier: GPL-2.0
"""raidlab fuzz-lines: deterministic for a seed, the line kinds and
mutations it promises, and valid base lines the table parser accepts."""
import subprocess
import sys
import pathlib

from raidlab_lib import dm, fuzz, ondisk

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEVS = ["/dev/rl/m0", "/dev/rl/m1", "/dev/rl/m2", "/dev/rl/m3"]


def test_deterministic():
    a = fuzz.generate(7, 300, DEVS, "/dev/rl/pmem")
    assert a == fuzz.generate(7, 300, DEVS, "/dev/rl/pmem")
    assert a != fuzz.generate(8, 300, DEVS, "/dev/rl/pmem")
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "fuzz-lines", "--seed",
                        "7", "--count", "300"], capture_output=True, text=True, check=True)
    assert r.stdout.splitlines() == a


def test_kinds_and_mutations():
    lines = fuzz.generate(1, 2000, DEVS, "/dev/rl/pmem", ["/dev/rl/m4"])
    assert all(ln.startswith(("table ", "message ")) and "\n" not in ln for ln in lines)
    tables = [ln[6:] for ln in lines if ln.startswith("table ")]
    msgs = [ln[8:] for ln in lines if ln.startswith("message ")]
    assert len(tables) > 1000 and len(msgs) > 300
    assert any(len(w) > 255 for ln in tables for w in ln.split())        # long words
    assert any("-1" in ln.split() or "18446744073709551616" in ln.split() for ln in tables)
    assert any("bogus" in ln.split() for ln in tables + msgs)
    assert any("/dev/nonexistent" in ln for ln in tables)
    assert any(ln.split()[:1] == ["fail"] for ln in msgs)
    # some lines still parse as raidlab lines (near misses), most do not
    ok = 0
    for ln in tables:
        try:
            dm.parse_table(ln)
            ok += 1
        except (dm.ParseError, ValueError, IndexError):
            pass
    assert 0 < ok < len(tables)


def test_valid_base_lines():
    g = fuzz.Gen(3, DEVS, "/dev/rl/pmem", ["/dev/rl/m4"], 1 << 22)
    for _ in range(500):
        t = dm.parse_table(" ".join(g.valid_table()))
        ms = (1 << 22) - (ondisk.MD_DATA_OFFSET if t.get("metadata") else 0)
        assert dm.check_length(t.scheme, len(t.devs), int(t.get("chunk_size")), ms,
                               t.length) is None


def test_target_type_fits_dmsetup():
    # libdevmapper aborts on a target type of 16 characters or more (86-fuzz
    # saw dmsetup die in libc): no line may carry one
    for ln in fuzz.generate(4, 3000, DEVS, "/dev/rl/pmem", ["/dev/rl/m4"]):
        if ln.startswith("table "):
            w = ln[6:].split()
            assert len(w) < 3 or len(w[2]) < fuzz.DM_MAX_TYPE_NAME, ln[:80]
