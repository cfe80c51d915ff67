# SPDX-License-Identifier: GPL-2.0
"""raidlab array verbs without a kernel: status and table lines, the
length rule (the kernel's rl_size_rows()), create and assemble planned over image
files holding hand-made superblocks, and the progress wait loop."""
import io
import json
import subprocess
import sys
import pathlib

import pytest

from raidlab_lib import admin, blockdev, cli, dm, ondisk as od, ops, srlayout

ROOT = pathlib.Path(__file__).resolve().parents[2]
UUID = bytes(range(16))

# status lines (Documentation/dm-raidlab.rst, 1.20: dm-raid's eight fields
# first): the head and the queues only, and with the metadata's fields
STATUS_11 = ("0 6291456 raidlab raid5 4 AADA 393216/6291456 resync 0 8192 - degraded 128 10 20 "
             "30 40 50 60 1:2:3:4 5:6:7:8 0:0:0:0 9:9:9:9 fifo 32 100 7")
STATUS_13 = ("0 6291456 raidlab raid5 4 AAaA 1000/6291456 recover 17 8192 A degraded 128 "
             "0 0 0 0 0 0 0:0:0:0 0:0:0:0 0:0:0:0 0:0:0:0 satf 8 1 2 dax ok 3 1")
# the journal's fields, the 1.7 bad-block counts, and a field of a newer module
STATUS_17 = STATUS_13 + " dax 5 4096 0 0:2:0:1 future-field 42"


def test_parse_status_scheme_group():
    # 1.8: the line ends with the scheme's counted group
    base = STATUS_13 + " dax 5 4096 0 0:2:0:1"
    st = dm.parse_status(base + " raid5 0")
    assert st.scheme_fields == [] and st.extra == [] and st.bad_blocks == [0, 2, 0, 1]
    plog = base.replace("raidlab raid5", "raidlab plog") + " plog 3 1 0.250 pmem"
    st = dm.parse_status(plog)
    assert st.scheme_fields == ["1", "0.250", "pmem"] and st.extra == []
    assert st.to_json()["scheme_fields"] == ["1", "0.250", "pmem"]
    # --json names the group's fields (the names past the known ones: fieldN)
    assert st.to_json()["scheme_group"] == {"L": "1", "A": "0.250", "K": "pmem"}
    st = dm.parse_status(base.replace("raidlab raid5", "raidlab raid10") + " raid10 2 near 2")
    assert st.to_json()["scheme_group"] == {"layout": "near", "copies": "2"}
    st = dm.parse_status(base + " raid5 1 x")
    assert st.scheme_group() == {"field1": "x"}
    # a common field of a newer module comes before the group: extra
    st = dm.parse_status(base + " future 7 raid5 2 x y")
    assert st.extra == ["future", "7"] and st.scheme_fields == ["x", "y"]
    # a count that does not match is no group: a module before 1.8
    st = dm.parse_status(base + " raid5 3 x y")
    assert st.scheme_fields is None and st.extra == ["raid5", "3", "x", "y"]


def test_parse_status_current():
    st = dm.parse_status(STATUS_11)
    assert (st.scheme, st.nr_devs, st.health, st.array_state) == ("raid5", 4, "AADA", "degraded")
    assert (st.sync_action, st.synced, st.total) == ("resync", 393216, 6291456)
    assert st.members[1] == {"data_reads": 5, "data_writes": 6, "parity_reads": 7,
                             "parity_writes": 8, "health": "alive", "bad_blocks": None}
    assert st.members[2]["health"] == "failed"
    assert (st.sched, st.queue_depth, st.fg_issued, st.bg_issued) == ("fifo", 32, 100, 7)
    # dm-raid's fields: mismatches, data_offset, journal_char ("-": none)
    assert (st.mismatches, st.data_offset, st.journal_char) == (0, 8192, None)
    # the tail's fields this line has not are None
    assert st.md_backend is None and st.extra == []


def test_parse_status_extended_and_extra():
    st = dm.parse_status(STATUS_13)
    assert st.member_health() == ["alive", "alive", "rebuilding", "alive"]
    assert st.rebuilding() == [2] and st.journal_char == "A"
    assert (st.md_backend, st.md_state, st.intent_dirty_regions, st.spares_available) == \
        ("dax", "ok", 3, 1)
    assert st.mismatches == 17 and st.extra == []
    assert st.bad_blocks is None and st.members[0]["bad_blocks"] is None
    assert st.to_json()["synced"] == 1000
    st = dm.parse_status(STATUS_11.replace("AADA", "aaDa"))
    assert st.member_health() == ["resyncing", "resyncing", "failed", "resyncing"]
    assert st.rebuilding() == []
    st = dm.parse_status(STATUS_13.replace("dax ok", "- -"))
    assert st.md_backend is None and st.md_state is None and st.intent_dirty_regions == 3
    with pytest.raises(dm.ParseError):
        dm.parse_status(STATUS_11.replace("fifo 32 100", "fifo x 100"))


def test_parse_status_bad_blocks():
    st = dm.parse_status(STATUS_17)
    assert (st.journal, st.jnl_records, st.jnl_bytes, st.jnl_waits) == ("dax", 5, 4096, 0)
    assert st.bad_blocks == [0, 2, 0, 1]
    assert [m["bad_blocks"] for m in st.members] == [0, 2, 0, 1]
    assert st.extra == ["future-field", "42"]
    # no metadata device: "-"
    st = dm.parse_status(STATUS_17.replace("0:2:0:1", "-"))
    assert st.bad_blocks is None and st.extra == ["future-field", "42"]
    # a module before 1.7: the next word is no count list, it is extra
    st = dm.parse_status(STATUS_13 + " off 0 0 0 plog 3")
    assert st.bad_blocks is None and st.extra == ["plog", "3"]
    with pytest.raises(dm.ParseError):
        dm.parse_status(STATUS_17.replace("0:2:0:1", "0:2:0"))


@pytest.mark.parametrize("line", [
    "0 100 linear 8:0 0",
    "0 100 raidlab raid5 4 AAA 0/100 idle 0 0 - degraded 128 0 0 0 0 0 0 0:0:0:0 0:0:0:0 "
    "0:0:0:0",
    "0 100 raidlab raid5 2 AA 0/100 idle 0 0 - optimal 128 0 0 0 0 0 0 0:0:0 0:0:0:0",
    # a line before 1.20 (array_state where dm-raid has the progress)
    "0 100 raidlab raid5 2 AA optimal 128 idle 0/100 0 0 0 0 0 0 0:0:0:0 0:0:0:0",
    "0 100 raidlab raid5",
])
def test_parse_status_rejects(line):
    with pytest.raises(dm.ParseError):
        dm.parse_status(line)


def test_table_round_trip():
    line = ("0 6291456 raidlab raid5 11 chunk_size 128 assume_clean metadata 259:0 spare 8:64 "
            "spare 8:80 region_size 4096 4 8:0 - 8:32 8:48")
    t = dm.parse_table(line)
    assert t.scheme == "raid5" and t.devs == ["8:0", "-", "8:32", "8:48"]
    assert t.get("metadata") == "259:0" and t.get_all("spare") == ["8:64", "8:80"]
    assert t.get("assume_clean", "x") is None
    assert t.line() == line
    t.add("spare", "/dev/sdx")
    assert dm.parse_table(t.line()).get_all("spare")[-1] == "/dev/sdx"
    assert t.line().split()[4] == "13"
    for bad in ("0 1 raidlab raid5 3 chunk_size 8 2 a b", "0 1 raidlab raid5 1 bogus 1 a",
                "0 1 raidlab raid5 1 chunk_size 1 a", "0 1 raidlab raid5 0 3 a b"):
        with pytest.raises(dm.ParseError):
            dm.parse_table(bad)


def test_table_scheme_options_generic():
    # a scheme's options are "<name> <value>" pairs the tools need not know
    line = "0 8 raidlab raid10 6 copies 2 layout near journal on 4 a b c d"
    t = dm.parse_table(line)
    assert t.get("copies") == "2" and t.get("layout") == "near" and t.get("journal") == "on"
    assert t.line() == line
    plog = ("0 8 raidlab plog 18 chunk_size 16 queue_depth 32 log_disks 1 log_ratio 1.000 "
            "log_tracks 1 track_sectors 256 regions 4 log_buffers 16 data_cache 256 5 a b c d e")
    assert dm.parse_table(plog).get("log_ratio") == "1.000"


def test_length_rule():
    # raid5 over 4: three data columns, whole rows
    assert dm.max_length("raid5", 4, 128, 1000) == 7 * 128 * 3
    assert dm.max_length("raid0", 3, 8, 20) == 2 * 8 * 3
    assert dm.max_length("mirror", 2, 128, 1001) == 1001
    assert dm.check_length("raid5", 4, 128, 1000, 7 * 384) is None
    assert dm.check_length("raid5", 4, 128, 1000, 8 * 384) == \
        "Target length exceeds the members' capacity"
    assert dm.check_length("raid5", 4, 128, 1000, 385) == \
        "Target length is not a multiple of the stripe width"
    assert dm.check_length("mirror", 3, 128, 1000, 0) == "Zero target length"
    assert dm.check_length("mirror", 3, 128, 1000, 999) is None


# ---------------------------------------------------------- on images ---
def img(tmp_path, name, mib, block0=None):
    p = tmp_path / name
    with open(p, "wb") as f:
        f.truncate(mib << 20)
        if block0:
            f.write(block0)
    return str(p)


def msb(role, events=3, uuid=UUID, dev=None):
    dev = dev or bytes([role & 0xff]) * 16
    return od.encode_msb(od.MsbState(role=role, uuid=uuid, dev_uuid=dev, events=events,
                                     nr_members=4, chunk_sectors=128,
                                     member_sectors=(8 << 11) - 2048, scheme="raid5"))


def md_sb(events=3, failed=()):
    ms = (8 << 11) - 2048
    shift = od.default_region_shift(ms, 128)
    nr = od.nr_regions_of(ms, shift)
    return od.encode_sb(od.MdState(
        scheme="raid5", nr_members=4, chunk_sectors=128, seq=4, events=events, uuid=UUID,
        member_sectors=ms, array_sectors=dm.max_length("raid5", 4, 128, ms),
        region_shift=shift, nr_regions=nr, bitmap_start=2, bitmap_blocks=od.bitmap_blocks_of(nr),
        members=[od.MemberDisk(od.MS_FAILED if i in failed else od.MS_IN_SYNC, 0,
                               bytes([i]) * 16) for i in range(4)]))


def test_plan_create(tmp_path):
    m = [img(tmp_path, f"m{i}", 8 + i) for i in range(4)]
    md = img(tmp_path, "md", 4)
    sp = img(tmp_path, "sp", 9)
    p = admin.plan_create("raid5", m, md, [sp], chunk=128, region_size=4096, sched="satf")
    ms = (8 << 11) - 2048
    assert p.member_sectors == ms
    assert p.table.line() == (f"0 {(ms // 128) * 128 * 3} raidlab raid5 10 chunk_size 128 sched "
                              f"satf metadata {md} spare {sp} region_size 4096 4 " + " ".join(m))
    assert p.zero[0] == (md, 0, 1 << 20) and (m[2], 0, 1 << 20) in p.zero \
        and (sp, 0, 1 << 20) in p.zero
    # a missing member is allowed where the scheme survives it
    p = admin.plan_create("raid5", [m[0], "-", m[2], m[3]], md)
    assert p.table.devs[1] == "-"
    with pytest.raises(admin.ToolError, match="more than raid5 survives"):
        admin.plan_create("raid5", [m[0], "-", "-", m[3]], md)
    with pytest.raises(admin.ToolError, match="same device"):
        admin.plan_create("raid5", [m[0], m[1], m[2], m[0]], md)
    with pytest.raises(admin.ToolError, match="needs 3"):
        admin.plan_create("raid5", m[:2], md)
    with pytest.raises(admin.ToolError, match="smaller"):
        admin.plan_create("raid5", m[1:], md, [img(tmp_path, "tiny", 2)])
    with pytest.raises(admin.ToolError, match="assume-clean needs a redundant scheme"):
        admin.plan_create("raid0", m, md, assume_clean=True)
    # a copy scheme takes it as the kernel does (zeroed members agree)
    assert "assume_clean" in admin.plan_create("mirror", m[:2], md, assume_clean=True).table.line()


def test_plan_create_plog(tmp_path):
    # plog's length from its layout (plogsize.py, the kernel's arithmetic)
    m = [img(tmp_path, f"m{i}", 8) for i in range(5)]
    md = img(tmp_path, "md", 4)
    p = admin.plan_create("plog", m, md, chunk=16,
                          opts=admin.parse_opts(["log_disks=1", "regions=5"]))
    assert p.table.line() == (f"0 42240 raidlab plog 8 chunk_size 16 metadata {md} log_disks 1 "
                              "regions 5 5 " + " ".join(m))
    # faults 2 survives two missing members, the default one
    m.append(img(tmp_path, "m5", 8))    # faults 2: N >= 2 L + 4
    p = admin.plan_create("plog", [m[0], "-", "-", m[3], m[4], m[5]], md, chunk=16,
                          opts=[("faults", "2")])
    assert p.table.devs.count("-") == 2
    with pytest.raises(admin.ToolError, match="faults 2 needs N >= 2"):
        admin.plan_create("plog", m[:5], md, chunk=16, opts=[("faults", "2")])
    with pytest.raises(admin.ToolError, match="more than plog survives"):
        admin.plan_create("plog", [m[0], "-", "-", m[3], m[4]], md, chunk=16)
    with pytest.raises(admin.ToolError, match="needs 3"):
        admin.plan_create("plog", m[:2], md)
    with pytest.raises(admin.ToolError, match="no options of its own"):
        admin.plan_create("raid5", m, md, opts=[("log_disks", "1")])
    for bad in ("log_disks", "=1", "log_disks=", "a=b c"):
        with pytest.raises(admin.ToolError, match="NAME=VALUE"):
            admin.parse_opts([bad])


def test_create_refuses_superblocks(tmp_path):
    m = [img(tmp_path, f"m{i}", 8) for i in range(3)] + [img(tmp_path, "m3", 8, msb(3))]
    md = img(tmp_path, "md", 4)
    with pytest.raises(admin.ToolError, match=r"role 3\); use --force"):
        admin.plan_create("raid5", m, md)
    p = admin.plan_create("raid5", m, md, force=True)
    assert "overwritten" in p.notes[0]
    md2 = img(tmp_path, "md2", 4, md_sb())
    with pytest.raises(admin.ToolError, match="not blank: dm-raidlab metadata of array"):
        admin.plan_create("raid5", m[:3] + [img(tmp_path, "m4", 8)], md2)


def test_create_dry_run_cli(tmp_path):
    m = [img(tmp_path, f"m{i}", 8) for i in range(3)]
    md = img(tmp_path, "md", 4)
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab"), "create", "x",
                        "--scheme", "raid4", "--chunk", "64", "--metadata", md, "--dry-run",
                        "--homehost", "lab-1", "--json"] + m, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    import json
    d = json.loads(r.stdout)
    assert d["table"].split()[3:11] == ["raid4", "6", "chunk_size", "64", "metadata", md,
                                        "homehost", "lab-1"]
    # nothing was written
    assert blockdev.read_at(md, 0, 4096) == bytes(4096)


def test_plan_assemble(tmp_path):
    md = img(tmp_path, "md", 4, md_sb(events=5))
    d = {
        "m0": img(tmp_path, "m0", 8, msb(0, 5)),
        "m1": img(tmp_path, "m1", 8, msb(1, 6)),            # a commit torn after the msbs
        "m2": img(tmp_path, "m2", 8, msb(2, 4)),            # stale
        "m3": img(tmp_path, "m3", 8, msb(3, 5)),
        "sp": img(tmp_path, "sp", 8, msb(od.ROLE_SPARE, 5, dev=b"\xee" * 16)),
        "foreign": img(tmp_path, "foreign", 8, msb(0, 5, uuid=b"\x99" * 16)),
        "wrong": img(tmp_path, "wrong", 8, msb(2, 5, dev=b"\x77" * 16)),
        "blank": img(tmp_path, "blank", 8),
        "new": img(tmp_path, "new", 8),
    }
    p = admin.plan_assemble(md, [d[k] for k in ("m3", "foreign", "m2", "m0", "sp", "wrong",
                                                "m1", "blank")], spares=[d["new"]])
    assert p.roles == [d["m0"], d["m1"], "-", d["m3"]]
    assert p.spares == [d["sp"], d["new"]]
    verdict = {c.path: c.verdict for c in p.candidates}
    assert verdict[d["m2"]] == "stale" and verdict[d["foreign"]] == "foreign"
    assert verdict[d["wrong"]] == "wrong-disk" and verdict[d["blank"]] == "blank"
    assert any("stale" in x for x in p.problems) and any("foreign" in x for x in p.problems)
    t = p.table
    assert t.devs == [d["m0"], d["m1"], "-", d["m3"]] and t.get("metadata") == md
    assert t.get("chunk_size") == 128 and t.get_all("spare") == [d["sp"], d["new"]]
    assert t.length == dm.max_length("raid5", 4, 128, (8 << 11) - 2048)
    # two missing: more than raid5 survives
    with pytest.raises(admin.ToolError, match="2 of 4 members missing"):
        admin.plan_assemble(md, [d["m0"], d["m1"]])
    assert admin.plan_assemble(md, [d["m0"], d["m1"]], force=True).roles[2:] == ["-", "-"]


def test_assemble_failed_role_and_blank_metadata(tmp_path):
    md = img(tmp_path, "md", 4, md_sb(events=5, failed=(3,)))
    disks = [img(tmp_path, f"m{i}", 8, msb(i, 5)) for i in range(4)]
    p = admin.plan_assemble(md, disks)
    assert p.roles[3] == "-" and p.candidates[3].verdict == "failed"
    with pytest.raises(admin.ToolError, match="blank metadata"):
        admin.plan_assemble(img(tmp_path, "md0", 4), disks)
    bad = bytearray(md_sb())
    bad[100] ^= 1
    with pytest.raises(admin.ToolError, match="bad checksum"):
        admin.plan_assemble(img(tmp_path, "mdx", 4, bytes(bad)), disks)


def test_detail_offline_json(tmp_path):
    md = img(tmp_path, "md", 4)
    blockdev.write_at(md, 4096, md_sb(events=5))
    blockdev.write_at(md, 8192, od.encode_bitmap(2, 1, [1, 2, 3]))
    d = admin.md_dump(md)
    assert d["loaded_slot"] == 1 and d["slots"][0]["blank"] and d["bitmap_dirty_regions"] == 3
    assert d["superblock"]["events"] == 5
    # a torn bitmap block (bad checksum): all its regions dirty, as the kernel takes it
    torn = bytearray(od.encode_bitmap(2, 1, [1, 2, 3]))
    torn[2048] ^= 0xff
    blockdev.write_at(md, 8192, bytes(torn))
    d = admin.md_dump(md)
    nr = od.decode_sb(md_sb(events=5)).nr_regions
    assert d["bitmap_torn"] == [2] and d["bitmap_dirty_regions"] == min(nr, od.BITS_PER_BLOCK)
    assert "bitmap_errors" not in d


class FakeArray:
    """dm.status() of an array whose check goes 0 -> 50 -> 100 % then idle."""

    def __init__(self):
        self.calls = 0

    def __call__(self, name):
        self.calls += 1
        steps = [("idle", 0), ("check", 0), ("check", 50), ("check", 100), ("idle", 100)]
        act, done = steps[min(self.calls - 1, len(steps) - 1)]
        return dm.parse_status(STATUS_13.replace("1000/6291456 recover", f"{done}/100 {act}"))


def test_wait_action():
    buf = io.StringIO()
    t = [0.0]
    st = admin.wait_action("x", "check", status=FakeArray(), stream=buf,
                           sleep=lambda s: t.__setitem__(0, t[0] + s), now=lambda: t[0])
    assert st.sync_action == "idle" and st.mismatches == 17
    lines = buf.getvalue().splitlines()
    assert "50/100 sectors" in lines[1] and "100/100" in lines[-1]
    # never started: give up after the grace period
    idle = lambda n: dm.parse_status(STATUS_13.replace("1000/6291456 recover",  # noqa
                                                       "6291456/6291456 idle"))
    st = admin.wait_action("x", "repair", status=idle, stream=buf, start_grace=2,
                           sleep=lambda s: t.__setitem__(0, t[0] + s), now=lambda: t[0])
    assert st.sync_action == "idle"


def test_rebuild_stopped_is_an_error(monkeypatch):
    frozen = dm.parse_status(STATUS_13.replace("1000/6291456 recover", "1000/6291456 frozen"))
    monkeypatch.setattr(dm, "status", lambda name: frozen)
    monkeypatch.setattr(admin, "wait_action", lambda *a, **k: frozen)
    args = type("A", (), dict(name="r5", rate=None, wait=True, timeout=0, json=True))
    with pytest.raises(admin.ToolError, match="not running \\(frozen"):
        admin.cmd_rebuild(args)


def test_parse_locate_and_owner():
    d = dm.parse_locate("5 7 2 data:3:2107 p:0:2107 q:1:2107")
    assert (d["len"], d["row"], d["col"]) == (5, 7, 2)
    assert [(x["part"], x["member"], x["sector"]) for x in d["locations"]] == [
        ("data", 3, 2107), ("p", 0, 2107), ("q", 1, 2107)]
    d = dm.parse_locate("100 0 0 data:0:2148 copy:1:2148")
    assert [x["part"] for x in d["locations"]] == ["data", "copy"]
    for bad in ("5 7 2", "5 7 2 disk:0:1", "5 7 2 data:0"):
        with pytest.raises((dm.ParseError, ValueError)):
            dm.parse_locate(bad)
    assert dm.parse_owner("data 12345") == {"part": "data", "sector": 12345}
    assert dm.parse_owner("copy 7") == {"part": "copy", "sector": 7}
    assert dm.parse_owner("p") == {"part": "p", "sector": None}
    assert dm.parse_owner("log\n") == {"part": "log", "sector": None}
    for bad in ("", "data", "p 5", "parity"):
        with pytest.raises(dm.ParseError):
            dm.parse_owner(bad)


def test_locate_verb(monkeypatch, capsys):
    sent = []

    def fake_message(name, *words):
        sent.append(words)
        return "8 3 1 data:2:2107 p:0:2107" if words[0] == "locate" else "p"
    monkeypatch.setattr(dm, "message", fake_message)
    monkeypatch.setattr(dm, "table", lambda name: dm.parse_table(
        "0 786432 raidlab raid5 2 chunk_size 8 3 /dev/vdb /dev/vdc /dev/vdd"))
    p = cli.build_parser(lab=False)
    a = p.parse_args(["locate", "arr", "411", "--json"])
    assert a.func(a) == 0
    out = json.loads(capsys.readouterr().out)
    assert sent[-1] == ("locate", 411)
    assert out["locations"][0] == {"part": "data", "member": 2, "sector": 2107,
                                   "device": "/dev/vdd"}
    a = p.parse_args(["locate", "arr", "2107", "--member", "0"])
    assert a.func(a) == 0
    assert sent[-1] == ("owner", 0, 2107)
    assert capsys.readouterr().out.strip() == "member 0 sector 2107: p"


# ------------------------------------------------ copy-set schemes (raid10, chained) ---
def test_copyset_lengths():
    # the kernel's rl_copyset_capacity(), as KUnit's rl_layout_copyset_capacity
    # checks it: members of 5, 6 and 8 chunks hold 10 chunks
    assert dm.max_length("raid10", 4, 128, 5 * 128) == 10 * 128
    assert dm.max_length("raid10", 4, 128, 6 * 128, [("layout", "far")]) == 12 * 128
    assert dm.max_length("raid10", 4, 128, 5 * 128, [("layout", "far")]) == 8 * 128
    assert dm.max_length("raid10", 5, 128, 6 * 128, [("layout", "offset"), ("copies", "3")]) \
        == 10 * 128
    assert dm.max_length("raid10", 3, 128, 7 * 128) == 10 * 128
    assert dm.max_length("chained", 3, 128, 8 * 128) == 12 * 128
    assert dm.max_length("chained", 5, 128, 4 * 128) == 10 * 128
    assert dm.check_length("raid10", 4, 128, 5 * 128, 10 * 128) is None
    assert dm.check_length("raid10", 4, 128, 5 * 128, 10 * 128 + 8) == \
        "Target length is not a multiple of the chunk size"
    assert dm.check_length("raid10", 4, 128, 5 * 128, 11 * 128) == \
        "Target length exceeds the members' capacity"
    assert dm.check_length("chained", 3, 128, 8 * 128, 0) == "Zero target length"
    with pytest.raises(ValueError):
        dm.max_length("raid10", 4, 128, 1000, [("layout", "middle")])


def test_copyset_layout_record():
    blk = od.encode_cs_layout("far", 5, 3, 7, 768)
    assert od.decode_cs_layout(blk) == {"kind": "far", "nr": 5, "copies": 3,
                                        "chunk_shift": 7, "used": 768, "place": 0,
                                        "words": ""}
    # words filling the field without their NUL: damaged, as the kernel says
    bad = bytearray(blk)
    bad[40:40 + od.CS_WORDS_MAX] = b"x" * od.CS_WORDS_MAX
    bad[0:4] = od.block_csum(bad, od.CS_MD_CSUM_XOR).to_bytes(4, "little")
    with pytest.raises(od.FormatError, match="damaged"):
        od.decode_cs_layout(bytes(bad))
    with pytest.raises(od.BlankError):
        od.decode_cs_layout(bytes(od.BLOCK))
    bad = bytearray(blk)
    bad[100] ^= 1
    with pytest.raises(od.FormatError, match="damaged"):
        od.decode_cs_layout(bytes(bad))


def test_plan_create_raid10(tmp_path):
    m = [img(tmp_path, f"m{i}", 8) for i in range(4)]
    md = img(tmp_path, "md", 4)
    ms = (8 << 11) - 2048
    p = admin.plan_create("raid10", m, md, opts=[("layout", "far"), ("copies", "2")])
    assert p.table.length == dm.copyset_capacity("far", 4, 2, 128, ms) == (ms // 128 // 2) * 4 * 128
    assert p.table.get("layout") == "far" and str(p.table.get("copies")) == "2"
    # copies - 1 may be missing
    p = admin.plan_create("raid10", [m[0], "-", "-", m[3]], md, opts=[("copies", "3")])
    assert p.table.devs == [m[0], "-", "-", m[3]]
    with pytest.raises(admin.ToolError, match="more than raid10 survives"):
        admin.plan_create("raid10", [m[0], "-", "-", m[3]], md)
    with pytest.raises(admin.ToolError, match="no option 'faults'"):
        admin.plan_create("raid10", m, md, opts=[("faults", "2")])
    with pytest.raises(admin.ToolError, match="2..4 copies"):
        admin.plan_create("raid10", m, md, opts=[("copies", "5")])
    with pytest.raises(admin.ToolError, match="no option"):
        admin.plan_create("chained", m[:3], md, opts=[("copies", "2")])
    assert admin.plan_create("chained", m[:3], md).table.length == (ms // 128 // 2) * 3 * 128


def test_plan_assemble_raid10_layout(tmp_path):
    # the layout and copies come from the metadata's copy layout record
    ms = (8 << 11) - 2048
    shift = od.default_region_shift(ms, 128)
    nr = od.nr_regions_of(ms, shift)
    st = od.MdState(
        scheme="raid10", nr_members=4, chunk_sectors=128, seq=4, events=5, uuid=UUID,
        member_sectors=ms, array_sectors=dm.max_length("raid10", 4, 128, ms,
                                                       [("layout", "offset")]),
        region_shift=shift, nr_regions=nr, bitmap_start=2, bitmap_blocks=od.bitmap_blocks_of(nr),
        areas=[od.Area(od.CS_AREA_ID, 40, 1)],
        members=[od.MemberDisk(od.MS_IN_SYNC, 0, bytes([i]) * 16) for i in range(4)])
    md = img(tmp_path, "md", 4, od.encode_sb(st))
    with open(md, "r+b") as f:
        f.seek(40 * od.BLOCK)
        f.write(od.encode_cs_layout("offset", 4, 2, 7, ms))

    def r10_msb(role):
        return od.encode_msb(od.MsbState(role=role, uuid=UUID, dev_uuid=bytes([role]) * 16,
                                         events=5, nr_members=4, chunk_sectors=128,
                                         member_sectors=ms, scheme="raid10"))
    devs = [img(tmp_path, f"m{i}", 8, r10_msb(i)) for i in range(4)]
    t = admin.plan_assemble(md, devs).table
    assert t.scheme == "raid10" and t.get("layout") == "offset" and str(t.get("copies")) == "2"
    assert t.length == st.array_sectors
    # no record: the tool cannot know the layout
    st.areas = []
    md2 = img(tmp_path, "md2", 4, od.encode_sb(st))
    with pytest.raises(admin.ToolError, match="no copy layout record"):
        admin.plan_assemble(md2, devs)


# ------------------------------------------------------------------ sr ---
ST39133 = ("period_ns=6000000,cylinders=10000,heads=6,zones=0:334/2500:302/5000:270/7500:238,"
           "track_skew=34,cyl_skew=35,head_switch_ns=600000,seek_a_ns=541000,seek_b_ns=459,"
           "seek_c_ns=58740,ref=0")


def test_sr_capacity_by_hand():
    # 8 MiB members from sector 2048: ST39133's cylinders hold 6 x 334 =
    # 2004 sectors; the whole ones are 2 .. 7 (4008 .. 16032), six of them,
    # each K = 6 // dr logical tracks of 328 (334 rounded down to 4 KiB)
    g = srlayout.parse_geom(ST39133)
    assert srlayout.zone_cyls(g, 0, 2048, 16384) == (2, 6)
    for dr, k in ((1, 6), (2, 3), (3, 2), (6, 1)):
        assert srlayout.column_sectors(g, dr, 2048, 16384) == 6 * k * 328
    # 6 members dr 2 dm 1: 5904 // 128 = 46 chunks a column, 6 columns
    assert srlayout.max_length(6, 128, 16384 - 2048, 2, 1, ST39133, 2048) == 46 * 6 * 128
    # dm 2: three columns of two copies
    assert srlayout.max_length(6, 128, 16384 - 2048, 1, 2, ST39133, 2048) == \
        (6 * 6 * 328 // 128) * 3 * 128
    # past zone 0 (2500 cylinders of 2004): zone 1 adds its own spt
    end = 2500 * 2004 + 10 * 6 * 302
    assert srlayout.zone_cyls(g, 1, 2048, end) == (0, 10)
    assert srlayout.column_sectors(g, 3, 2048, end) == 2498 * 2 * 328 + 10 * 2 * 296
    with pytest.raises(srlayout.SrError, match="multiple of dr times dm"):
        srlayout.max_length(6, 128, 14336, 4, 1, ST39133, 2048)
    with pytest.raises(srlayout.SrError, match="at most the heads"):
        srlayout.column_sectors(g, 7, 2048, 16384)
    with pytest.raises(srlayout.SrError, match="no whole cylinder"):
        srlayout.column_sectors(g, 1, 2048, 4000)
    tiny = srlayout.parse_geom("cylinders=10,heads=2,spt=6")
    with pytest.raises(srlayout.SrError, match="fewer than 8 sectors"):
        srlayout.column_sectors(tiny, 1, 0, 120)


def test_sr_geom_models_and_refusals():
    assert srlayout.resolve_geom("st39133") == ST39133
    assert "period_ns=60000000," in srlayout.resolve_geom("st39133@1/10")
    assert srlayout.resolve_geom(ST39133) == ST39133
    with pytest.raises(srlayout.SrError, match="hddcalib"):
        srlayout.resolve_geom("wd800")
    with pytest.raises(srlayout.SrError, match="zones must start"):
        srlayout.parse_geom("cylinders=10,heads=2,zones=1:10")
    with pytest.raises(srlayout.SrError, match="need cylinders"):
        srlayout.parse_geom("heads=2,spt=10")
    assert srlayout.words_to_opts("dr 2 dm 1 geom " + ST39133) == \
        [("dr", "2"), ("dm", "1"), ("geom", ST39133)]
    with pytest.raises(srlayout.SrError, match="unexpected words"):
        srlayout.words_to_opts("dr 2 layout near")


def test_plan_create_sr(tmp_path):
    m = [img(tmp_path, f"m{i}", 8) for i in range(6)]
    md = img(tmp_path, "md", 4)
    p = admin.plan_create("sr", m, md, opts=[("geom", "st39133"), ("dr", "2")])
    assert p.table.length == 46 * 6 * 128
    assert p.table.get("dr") == "2" and p.table.get("dm") == "1"
    assert p.table.get("geom") == ST39133      # the model's line, for the kernel
    assert " dr 2 dm 1 geom " + ST39133 + " " in p.table.line()
    # dm - 1 may be missing
    p = admin.plan_create("sr", [m[0], "-", m[2], m[3], m[4], m[5]], md,
                          opts=[("geom", ST39133), ("dm", "2")])
    assert p.table.length == (6 * 6 * 328 // 128) * 3 * 128
    with pytest.raises(admin.ToolError, match="more than sr survives"):
        admin.plan_create("sr", [m[0], "-", m[2], m[3], m[4], m[5]], md,
                          opts=[("geom", ST39133)])
    with pytest.raises(admin.ToolError, match="sr needs --opt geom"):
        admin.plan_create("sr", m, md, opts=[("dr", "2")])
    with pytest.raises(admin.ToolError, match="no option 'layout'"):
        admin.plan_create("sr", m, md, opts=[("geom", ST39133), ("layout", "far")])
    # the propagation's options go through as given, after the layout's
    p = admin.plan_create("sr", m, md, opts=[("propagate", "fg"), ("geom", "st39133"),
                                             ("dr", "3"), ("table_entries", "64")])
    assert p.table.line().split(" 6 ")[0].endswith(
        " dr 3 dm 1 geom " + ST39133 + " propagate fg table_entries 64")
    with pytest.raises(admin.ToolError, match="multiple of dr times dm"):
        admin.plan_create("sr", m, md, opts=[("geom", ST39133), ("dr", "4")])


def test_plan_assemble_sr_words(tmp_path):
    # sr's options come back from the words of its copy layout record
    ms = 6 * 2 * 334 // 128 * 128
    shift = od.default_region_shift(ms, 128)
    nr = od.nr_regions_of(ms, shift)
    st = od.MdState(
        scheme="sr", nr_members=6, chunk_sectors=128, seq=4, events=5, uuid=UUID,
        member_sectors=ms, array_sectors=46 * 6 * 128 // 2,
        region_shift=shift, nr_regions=nr, bitmap_start=2, bitmap_blocks=od.bitmap_blocks_of(nr),
        areas=[od.Area(od.CS_AREA_ID, 40, 1)],
        members=[od.MemberDisk(od.MS_IN_SYNC, 0, bytes([i]) * 16) for i in range(6)])
    md = img(tmp_path, "md", 4, od.encode_sb(st))
    words = "dr 3 dm 2 geom " + ST39133

    def record(w):
        with open(md, "r+b") as f:
            f.seek(40 * od.BLOCK)
            f.write(od.encode_cs_layout("near", 6, 2, 7, ms, place=0x1234, words=w))

    def sr_msb(role):
        return od.encode_msb(od.MsbState(role=role, uuid=UUID, dev_uuid=bytes([role]) * 16,
                                         events=5, nr_members=6, chunk_sectors=128,
                                         member_sectors=ms, scheme="sr"))
    devs = [img(tmp_path, f"m{i}", 8, sr_msb(i)) for i in range(6)]
    record(words)
    t = admin.plan_assemble(md, devs).table
    assert t.scheme == "sr" and t.length == st.array_sectors
    assert (t.get("dr"), t.get("dm"), t.get("geom")) == ("3", "2", ST39133)
    # dm 2: one missing member is survived, two are not
    t = admin.plan_assemble(md, devs[1:]).table
    assert t.devs[0] == dm.MISSING
    with pytest.raises(admin.ToolError, match="more than sr survives"):
        admin.plan_assemble(md, devs[2:])
    # a record of 1.13.0 has no words: say how to mend it
    record("")
    with pytest.raises(admin.ToolError, match="before dm-raidlab 1.14.0"):
        admin.plan_assemble(md, devs)
    assert od.decode_cs_layout(od.encode_cs_layout("near", 6, 2, 7, ms, words=words))["words"] \
        == words


def test_create_sr_auto_opts(capsys):
    # --auto: dr from paper 002's configurator; dm kept; the choice said
    a = cli.build_parser().parse_args(
        ["create", "arr", *[f"/dev/m{i}" for i in range(6)], "--scheme", "sr", "--auto",
         "--workload", "cello-base", "--opt", "geom=st39133", "--opt", "dr=1",
         "--metadata", "/dev/md"])
    opts = admin.auto_opts(a, admin.parse_opts(a.opt))
    assert opts == [("geom", "st39133"), ("dr", "3"), ("dm", "1")]
    assert "sr 2x3x1" in capsys.readouterr().err
    a.opt = ["geom=st39133", "dm=2"]
    assert admin.auto_opts(a, admin.parse_opts(a.opt))[1:] == [("dr", "1"), ("dm", "2")]
    a.scheme = "raid10"
    with pytest.raises(admin.ToolError, match="--scheme sr"):
        admin.auto_opts(a, [])
    a.scheme = "sr"
    with pytest.raises(admin.ToolError, match="needs --opt geom"):
        admin.auto_opts(a, [("dr", "2")])


def test_parse_table_scheme_flag():
    # altmirror's volatile takes no value (a scheme flag, struct rl_opt's
    # .flag): the word after it is the next option, not its value
    t = dm.parse_table("0 131072 raidlab altmirror 7 metadata 259:0 volatile "
                       "mem_fraction 0.50 overlap allow 2 8:0 8:16")
    assert t.opts == [("metadata", "259:0"), ("volatile", None),
                      ("mem_fraction", "0.50"), ("overlap", "allow")]
    assert t.devs == ["8:0", "8:16"]


def test_readd_verb(monkeypatch, capsys):
    """raidlab re-add sends re_add with the member's index (1.21), "full"
    only when asked, and names a member by index."""
    sent = []
    monkeypatch.setattr(dm, "message", lambda name, *words: sent.append((name,) + words))
    monkeypatch.setattr(dm, "table", lambda name: dm.parse_table(
        "0 786432 raidlab raid5 2 chunk_size 8 3 /dev/vdb /dev/vdc /dev/vdd"))
    p = cli.build_parser(lab=False)
    a = p.parse_args(["re-add", "arr", "2"])
    assert a.func(a) == 0
    assert sent[-1] == ("arr", "re_add", 2)
    assert "member 2 re-added: rebuilt where written" in capsys.readouterr().out
    a = p.parse_args(["re-add", "--full", "arr", "1"])
    assert a.func(a) == 0
    assert sent[-1] == ("arr", "re_add", 1, "full")
    assert "rebuilt whole" in capsys.readouterr().out


def test_replace_state():
    """1.22: a replace is done when the table names another disk in the
    role, stopped when last_error says so for that member, else running
    (another member's reason, or none, does not stop it)."""
    t = dm.parse_table("0 786432 raidlab raid5 2 chunk_size 8 3 8:16 8:32 8:48")
    assert ops.replace_state("8:32", t, 1, "none") == ("running", None)
    assert ops.replace_state("8:32", t, 1, "replace of member 2 stopped: x") == \
        ("running", None)
    assert ops.replace_state("8:32", t, 1, "replace of member 1 stopped: the new disk "
                             "failed a write")[0] == "stopped"
    assert ops.replace_state("8:16", t, 0, "none") == ("running", None)
    t.devs[1] = "8:80"
    assert ops.replace_state("8:32", t, 1, "none") == ("done", "8:80")


def test_replace_verb(monkeypatch, capsys):
    """raidlab replace sends "replace <i> <maj:min>", waits for the table to
    name the new disk in the role, then removes the old one (a live reload
    dropping its spare word) unless --keep-old; a stop exits with the
    kernel's reason."""
    before = "0 786432 raidlab raid5 4 chunk_size 8 spare 8:80 3 8:16 8:32 8:48"
    after = "0 786432 raidlab raid5 4 chunk_size 8 spare 8:32 3 8:16 8:80 8:48"
    tables = [before, before, after, after]
    sent, reloaded = [], []

    def message(name, *words):
        sent.append(words)
        return "none" if words == ("last_error",) else ""

    monkeypatch.setattr(dm, "message", message)
    monkeypatch.setattr(dm, "table", lambda name: dm.parse_table(
        tables.pop(0) if len(tables) > 1 else tables[0]))
    monkeypatch.setattr(dm, "status", lambda name: dm.parse_status(
        "0 786432 raidlab raid5 3 AAA 100/786432 recover 0 2048 A optimal 128 "
        "0 0 0 0 0 0 0:0:0:0 0:0:0:0 0:0:0:0 fifo 32 1 2 dax ok 0 1 dax 0 0 0 0:0:0 raid5 0"))
    monkeypatch.setattr(dm, "reload_live", lambda name, new, old: reloaded.append(new.line()))
    monkeypatch.setattr(dm, "dev_path", lambda d: d)
    monkeypatch.setattr(ops, "dev_word", lambda p: "8:80")
    monkeypatch.setattr(ops.time, "sleep", lambda s: None)
    monkeypatch.setattr(ops, "plan_remove", lambda t, h, dev: (
        dm.Table(t.scheme, t.devs, t.length, t.start,
                 [(k, v) for k, v in t.opts if (k, v) != ("spare", dev)]), "spare"))
    p = cli.build_parser(lab=False)
    a = p.parse_args(["replace", "arr", "1", "--with", "/dev/sdf"])
    assert a.func(a) == 0
    assert sent[0] == ("replace", 1, "8:80")
    assert reloaded and "spare" not in reloaded[0] and " 8:80 " in reloaded[0]
    assert "member 1 replaced: 8:80 serves it" in capsys.readouterr().out
    # stopped by the kernel: its reason, exit through ToolError
    tables[:] = [before]
    sent.clear()
    monkeypatch.setattr(dm, "message", lambda name, *w: sent.append(w) or (
        "replace of member 1 stopped: the new disk failed a write"
        if w == ("last_error",) else ""))
    a = p.parse_args(["replace", "arr", "1", "--keep-old"])
    with pytest.raises(admin.ToolError, match="the new disk failed a write"):
        a.func(a)
    assert sent[0] == ("replace", 1)


def test_homehost_policy(tmp_path):
    """1.21: the name recorded and checked (mdadm's homehost): --homehost,
    else the config's HOMEHOST (<system>: the host name, <ignore>: none),
    else the host name; an array of another host is refused unless
    take_over, and the table records this host."""
    def name():
        return "box.example"
    assert admin.homehost_of("n1", hostname=name) == "n1"
    assert admin.homehost_of(None, hostname=name) == "box.example"
    assert admin.homehost_of("<system>", hostname=name) == "box.example"
    assert admin.homehost_of("<ignore>", hostname=name) is None
    assert admin.homehost_of(None, hostname=lambda: "(none)") is None
    conf = tmp_path / "raidlab.conf"
    conf.write_text("HOMEHOST fromconf\n")
    assert admin.homehost_of(None, str(conf), hostname=name) == "fromconf"
    assert admin.homehost_of("cli", str(conf), hostname=name) == "cli"
    assert admin.homehost_of(None, str(tmp_path / "none.conf"), hostname=name) == "box.example"
    with pytest.raises(admin.ToolError, match="homehost 'a:b'"):
        admin.homehost_of("a:b")

    m = [img(tmp_path, f"m{i}", 8) for i in range(4)]
    md = img(tmp_path, "md", 4)
    p = admin.plan_create("raid5", m, md, homehost="h1")
    assert p.table.get("homehost") == "h1"
    assert admin.plan_create("raid5", m, None, homehost="h1").table.get("homehost") is None

    st = od.decode_sb(md_sb(events=5))
    st.homehost = "h1"
    md2 = img(tmp_path, "md2", 4, od.encode_sb(st))
    disks = [img(tmp_path, f"d{i}", 8, msb(i, 5)) for i in range(4)]
    assert admin.plan_assemble(md2, disks, homehost="h1").table.get("homehost") == "h1"
    with pytest.raises(admin.ToolError, match="belongs to host h1, this host is h2"):
        admin.plan_assemble(md2, disks, homehost="h2")
    assert admin.plan_assemble(md2, disks, homehost="h2",
                               take_over=True).table.get("homehost") == "h2"
    # <ignore>: nothing checked, nothing recorded
    assert admin.plan_assemble(md2, disks, homehost=None).table.get("homehost") is None
    # an array of no host: any host assembles it, and records itself
    md3 = img(tmp_path, "md3", 4, md_sb(events=5))
    assert admin.plan_assemble(md3, disks, homehost="h2").table.get("homehost") == "h2"


def test_reload_live(monkeypatch):
    """1.21: add-spare and remove reload the running array; a refused
    resume (the old table is gone then) loads the old line again."""
    calls = []
    monkeypatch.setattr(dm, "reload", lambda name, t: calls.append(("reload", t)))

    def fake_dmsetup(*args, **kw):
        calls.append(args)
        if args[0] == "resume" and len(calls) == 2:
            raise dm.DmError("resume ioctl failed")
        return ""
    monkeypatch.setattr(dm, "dmsetup", fake_dmsetup)
    new, old = "NEW", "OLD"
    with pytest.raises(dm.DmError, match="the array is back as it was"):
        dm.reload_live("arr", new, old)
    assert calls == [("reload", "NEW"), ("resume", "arr"), ("reload", "OLD"), ("resume", "arr")]
    calls.clear()
    calls.append("x")       # the first resume succeeds now
    dm.reload_live("arr", new, old)
    assert calls[1:] == [("reload", "NEW"), ("resume", "arr")]
