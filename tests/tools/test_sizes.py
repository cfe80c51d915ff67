# SPDX-License-Identifier: GPL-2.0
"""sizes.py and plogsize.py: an array's length before its table exists.
The kernel's own numbers are compared in the VM test 97-ops."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
from raidlab_lib import cli, plogsize, sizes  # noqa: E402


def test_default_l_as_the_kernel():
    # rl_plog_default_l(): 0.105 N rounded, clamped to [1, N - 2]
    assert [plogsize.default_l(n) for n in (3, 5, 10, 14, 15, 20, 32)] == [1, 1, 1, 1, 2, 2, 3]


def test_plog_capacity_shape():
    ms = 1 << 21
    c = plogsize.capacity(5, 16, ms, [("log_disks", "1")])
    # whole chunks; at most the data columns' share of the members
    assert c % 16 == 0 and 0 < c <= 3 * ms
    # more log (A = 2) leaves less data; faults 2 leaves less than faults 1
    assert plogsize.capacity(5, 16, ms, [("log_disks", "1"), ("log_ratio", "2")]) < c
    assert plogsize.capacity(8, 16, ms, [("faults", "2")]) < \
        plogsize.capacity(8, 16, ms, [("faults", "1")])
    for bad in ([("log_disks", "4")], [("faults", "2"), ("log_disks", "1")],
                [("log_ratio", "0.0001")], [("track_sectors", "12")]):
        with pytest.raises(plogsize.PlogSizeError):
            plogsize.capacity(5, 16, ms, bad)
    with pytest.raises(plogsize.PlogSizeError, match="too small"):
        plogsize.capacity(5, 16, 64, ())


def test_array_sectors_every_scheme():
    ms = 1 << 20
    data = ms - 2048
    assert sizes.array_sectors("raid5", 4, 128, ms) == data // 128 * 128 * 3
    assert sizes.array_sectors("raid6", 6, 64, ms) == data // 64 * 64 * 4
    assert sizes.array_sectors("raid0", 3, 128, ms, metadata=False) == ms * 3
    assert sizes.array_sectors("mirror", 3, 128, ms) == data
    assert sizes.array_sectors("altmirror", 2, 128, ms + 3) == data
    assert sizes.array_sectors("plog", 5, 16, ms, [("log_disks", "1")]) == \
        plogsize.capacity(5, 16, data, [("log_disks", "1")])
    with pytest.raises(sizes.SizeError):
        sizes.array_sectors("altmirror", 3, 128, ms)


def test_size_cli(capsys):
    assert cli.main(["size", "--scheme", "raid5", "--member-sectors", str(1 << 20),
                     "a", "b", "c"]) == 0
    assert capsys.readouterr().out.strip() == str(((1 << 20) - 2048) // 128 * 128 * 2)
    line = "0 8 raidlab plog 4 chunk_size 16 log_disks 1 5 a b c d e"
    assert cli.main(["size", "--table", line, "--member-sectors", str(1 << 21)]) == 0
    assert int(capsys.readouterr().out) == plogsize.capacity(5, 16, (1 << 21) - 0,
                                                              [("log_disks", "1")])


def test_plog_segment_must_hold_a_chunk():
    # plog_layout(): a 256-sector log write cannot hold a 256-sector chunk
    # and its header (the kernel refuses the line; so does size)
    assert plogsize.max_recs(256) == (248, 8)
    with pytest.raises(plogsize.PlogSizeError, match="cannot hold a chunk's record"):
        plogsize.capacity(5, 256, 1 << 22)
    assert plogsize.capacity(5, 128, 1 << 22) > 0
    with pytest.raises(plogsize.PlogSizeError, match="at most 32 MiB"):
        plogsize.capacity(5, 1 << 17, 1 << 30)


@pytest.mark.parametrize("word,milli", [("1", 1000), ("0.5", 500), ("2.25", 2250),
                                        ("64", 64000), ("0.001", 1)])
def test_log_ratio_as_the_kernel(word, milli):
    assert plogsize.log_ratio_milli(word) == milli


@pytest.mark.parametrize("word", ["1e-1", "1.5000", ".5", "0", "65", "-1", "1.", ""])
def test_log_ratio_refused_as_the_kernel(word):
    with pytest.raises(plogsize.PlogSizeError):
        plogsize.log_ratio_milli(word)
