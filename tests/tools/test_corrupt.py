# SPDX-License-Identifier: GPL-2.0
"""raidlab corrupt: every kind of damage makes the block fail validation
with the message of the check it targets (a re-checksummed field change
gets past the checksum), and the verb's slot choice."""
import random
import subprocess
import sys
import pathlib

import pytest

from raidlab_lib import blockdev, corrupt, ondisk as od

from test_raidlab_admin import md_sb, msb

ROOT = pathlib.Path(__file__).resolve().parents[2]

MD_EXPECT = {"flip": "bad checksum|bad magic", "truncate": "bad checksum", "magic": "bad magic",
             "csum": "bad checksum", "version": "unsupported version",
             "feature": "unknown incompatible feature", "geometry": "member state out of range",
             "chunk": "chunk size is not a power of two", "zero": "is blank",
             "bitmap": "bitmap past the last block number"}


@pytest.mark.parametrize("kind", sorted(MD_EXPECT))
def test_md_kinds(kind):
    bad = corrupt.damage(md_sb(), kind, random.Random(1), bits=3)
    with pytest.raises(od.FormatError, match=MD_EXPECT[kind]):
        od.decode_sb(bad)


def test_md_uuid_still_valid_but_foreign():
    good = od.decode_sb(md_sb())
    st = od.decode_sb(corrupt.damage(md_sb(), "uuid", random.Random(2)))
    assert st.uuid != good.uuid and st.seq == good.seq


@pytest.mark.parametrize("kind,check", [
    ("stale", lambda s: s.events == 2), ("role", lambda s: s.role == 2),
    ("uuid", lambda s: s.uuid != bytes(range(16))),
    ("dev-uuid", lambda s: s.dev_uuid != b"\1" * 16),
])
def test_msb_field_kinds(kind, check):
    assert check(od.decode_msb(corrupt.damage(msb(1), kind, random.Random(3), member=True)))


def test_msb_invalid_kinds():
    for kind, msg in (("flip", "checksum|magic"), ("magic", "magic"), ("version", "version"),
                      ("truncate", "checksum")):
        with pytest.raises(od.FormatError, match=msg):
            od.decode_msb(corrupt.damage(msb(1), kind, random.Random(4), member=True))


def test_verb_slots(tmp_path):
    p = tmp_path / "md"
    p.write_bytes(bytes(1 << 20))
    old = md_sb()
    new = bytearray(md_sb())
    st = od.decode_sb(bytes(new))
    st.seq += 1
    blockdev.write_at(str(p), 0, old)
    blockdev.write_at(str(p), 4096, od.encode_sb(st))
    tool = [sys.executable, str(ROOT / "tools" / "raidlab"), "corrupt", str(p)]
    subprocess.run(tool + ["--kind", "version", "--slot", "newest"], check=True,
                   capture_output=True)
    slot, st2, errs = blockdev.read_md(str(p))
    assert slot == 0 and "version" in str(errs[1])      # the older slot loads now
    subprocess.run(tool + ["--kind", "flip", "--bits", "4"], check=True, capture_output=True)
    slot, st2, errs = blockdev.read_md(str(p))
    assert slot is None
    r = subprocess.run(tool + ["--kind", "flip"], capture_output=True, text=True)
    assert r.returncode == 1 and "no valid superblock" in r.stderr
