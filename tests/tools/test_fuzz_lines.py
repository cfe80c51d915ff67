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
        if t.scheme == "plog":          # its capacity is the kernel's: test_valid_plog_lines
            continue
        ms = (1 << 22) - (ondisk.MD_DATA_OFFSET if t.get("metadata") else 0)
        assert dm.check_length(t.scheme, len(t.devs), int(t.get("chunk_size")), ms,
                               t.length, t.opts) is None
        # the kernel refuses a region smaller than a chunk
        if t.get("region_size") is not None:
            assert int(t.get("region_size")) >= int(t.get("chunk_size"))


def test_target_type_fits_dmsetup():
    # libdevmapper aborts on a target type of 16 characters or more (86-fuzz
    # saw dmsetup die in libc): no line may carry one
    for ln in fuzz.generate(4, 3000, DEVS, "/dev/rl/pmem", ["/dev/rl/m4"]):
        if ln.startswith("table "):
            w = ln[6:].split()
            assert len(w) < 3 or len(w[2]) < fuzz.DM_MAX_TYPE_NAME, ln[:80]


def test_every_scheme_raid6_and_plog():
    # issue 13: the fuzzed lines cover raid6 and plog too, valid and mutated
    lines = fuzz.generate(5, 3000, DEVS, "/dev/rl/pmem", ["/dev/rl/m4"])
    schemes = {}
    for ln in lines:
        w = ln.split()
        if w[0] == "table" and len(w) > 4 and w[3] == "raidlab":
            schemes[w[4]] = schemes.get(w[4], 0) + 1
    for s in ("raid0", "mirror", "raid4", "raid5", "raid6", "plog"):
        assert schemes.get(s, 0) > 100, (s, schemes)
    plog = [ln for ln in lines if " raidlab plog " in ln]
    assert any(o in ln.split() for ln in plog for o in ("log_ratio", "log_buffers"))


def test_valid_lines_first():
    lines = fuzz.generate(6, 10, DEVS, "/dev/rl/pmem", ["/dev/rl/m4"], valid=3)
    assert len(lines) == 3 * len(fuzz.SCHEMES) + 10
    head = lines[:3 * len(fuzz.SCHEMES)]
    assert all(ln.startswith("valid ") for ln in head)
    assert not any(ln.startswith("valid ") for ln in lines[len(head):])
    assert [ln.split()[4] for ln in head] == [s for s in fuzz.SCHEMES for _ in range(3)]
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "fuzz-lines", "--seed",
                        "6", "--count", "10", "--valid", "3", "--spares", "/dev/rl/m4"],
                       capture_output=True, text=True, check=True)
    assert r.stdout.splitlines() == lines


def test_valid_plog_lines():
    # what the kernel takes for plog (Documentation/dm-raidlab.rst, "Parity
    # logging"): 3 members or more, faults 1 (log_disks <= N - 2), a chunk
    # of at most 2048 whose record fits the default 256-sector segment, a
    # length that is a positive multiple of the chunk, known options only
    g = fuzz.Gen(9, DEVS, "/dev/rl/pmem", ["/dev/rl/m4"], 1 << 22)
    for _ in range(300):
        t = dm.parse_table(" ".join(g.valid_table("plog")))
        c = int(t.get("chunk_size"))
        assert t.scheme == "plog" and len(t.devs) >= 3
        assert c in (8, 16, 64, 128) and t.length > 0 and t.length % c == 0
        assert int(t.get("log_disks", 1)) <= len(t.devs) - 2
        assert t.get("faults") in (None, "1")
        assert not t.get_all("spare") or t.get("metadata")
