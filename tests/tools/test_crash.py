# SPDX-License-Identifier: GPL-2.0
"""Crash consistency, the pure parts (tools/raidlab_lib/crash.py): block
content, generations, the verifier on an in-memory device that loses
unflushed writes, the file-system model, crash point selection."""
import random
import types

import pytest

from raidlab_lib import crash
from raidlab_lib import logwrites as lw


def wl(**kw):
    d = dict(seed=7, nblocks=256, generations=6, ops=12, max_run=8, row_blocks=12)
    d.update(kw)
    return crash.BlockWorkload(**d)


# ---------------------------------------------------------- content ---
def test_block_content_describes_itself():
    b = crash.block_content(5, 3, 17)
    assert len(b) == crash.BLOCK
    info = crash.decode_block(b)
    assert (info.kind, info.block, info.gen, info.seed) == ("valid", 17, 3, 5)
    assert b == crash.block_content(5, 3, 17)
    assert b != crash.block_content(5, 4, 17) and b != crash.block_content(5, 3, 18)
    assert crash.decode_block(bytes(crash.BLOCK)).kind == "zero"


@pytest.mark.parametrize("where", [0, 9, 40, 4095])
def test_a_flipped_byte_is_corrupt(where):
    b = bytearray(crash.block_content(5, 3, 17))
    b[where] ^= 0x10
    assert crash.decode_block(bytes(b)).kind == "corrupt"


def test_torn_block_is_corrupt():
    a, b = crash.block_content(1, 1, 2), crash.block_content(1, 2, 2)
    assert crash.decode_block(a[:512] + b[512:]).kind == "corrupt"
    assert crash.decode_block(b[:2048] + a[2048:]).kind == "corrupt"


# ------------------------------------------------------- generations ---
def test_generations_are_deterministic_disjoint_in_range():
    w = wl()
    for g in range(1, w.generations + 1):
        runs = w.gen_runs(g)
        assert runs == wl().gen_runs(g)
        blocks = [b for s, n in runs for b in range(s, s + n)]
        assert len(blocks) == len(set(blocks))
        assert all(0 <= b < w.nblocks for b in blocks)
    assert w.gen_runs(1) != w.gen_runs(2)
    assert w.gen_runs(1) != wl(seed=8).gen_runs(1)


def test_full_rows_are_aligned():
    w = wl(ops=40)
    rows = [(s, n) for g in range(1, 7) for s, n in w.gen_runs(g) if n == 12]
    assert rows and all(s % 12 == 0 for s, n in rows)


def test_allowed_sets():
    w = wl()
    h = w.history()
    for n in range(0, w.generations + 1):
        al = w.allowed(n)
        for b, gens in h.items():
            flushed = [g for g in gens if g <= n]
            if not flushed and n + 1 not in gens:
                assert b not in al
                continue
            exp = {flushed[-1] if flushed else 0} | ({n + 1} if n + 1 in gens else set())
            assert al[b] == exp


# ------------------------------------------ verifier on a memory device ---
def record(w, dev, upto, crash_keep=None):
    """Generations 1..upto flushed; then generation upto + 1 written and
    crashed with crash_keep deciding what landed."""
    for g in range(1, upto + 1):
        crash.run_generation(w, g, dev.write)
        dev.flush()
    if upto < w.generations:
        crash.run_generation(w, upto + 1, dev.write)
        dev.crash(crash_keep or (lambda i, b: False))


@pytest.mark.parametrize("keep", ["none", "all", "half"])
def test_verify_accepts_every_possible_crash_state(keep):
    w = wl()
    rng = random.Random(3)
    k = {"none": lambda i, b: False, "all": lambda i, b: True,
         "half": lambda i, b: rng.random() < 0.5}[keep]
    for n in range(0, w.generations):
        dev = crash.MemDevice(w.nblocks)
        record(w, dev, n, k)
        r = crash.verify_blocks(w, n, dev.read_blocks, chunk_blocks=37)
        assert r.failures == 0, r.to_json()
        assert r.blocks == w.nblocks
        if keep == "all" and n < w.generations:
            assert r.in_flight > 0


def test_verify_end_state():
    w = wl()
    dev = crash.MemDevice(w.nblocks)
    record(w, dev, w.generations)
    r = crash.verify_blocks(w, w.generations, dev.read_blocks)
    assert r.failures == 0 and r.in_flight == 0


def test_a_lost_flushed_write_is_reported():
    w = wl()
    dev = crash.MemDevice(w.nblocks)
    record(w, dev, 3)
    s, n = w.gen_runs(3)[0]
    # generation 3's first run did not survive: the block holds its older value
    for b in range(s, s + n):
        older = [g for g in w.history(2).get(b, [])]
        data = crash.block_content(w.seed, older[-1], b) if older else bytes(crash.BLOCK)
        dev.durable[b * crash.BLOCK:(b + 1) * crash.BLOCK] = data
    r = crash.verify_blocks(w, 3, dev.read_blocks)
    # a block generation 4 rewrote may legally hold 4's value, not an older one
    assert len(r.lost) == n
    assert {x[0] for x in r.lost} == set(range(s, s + n))


def test_one_generation_too_late_is_detected():
    w = wl()
    dev = crash.MemDevice(w.nblocks)
    record(w, dev, 2)          # crash after mark g2, nothing of generation 3 landed
    assert crash.verify_blocks(w, 2, dev.read_blocks).failures == 0
    r = crash.verify_blocks(w, 3, dev.read_blocks)
    g3 = {b for s, n in w.gen_runs(3) for b in range(s, s + n)}
    assert {x[0] for x in r.lost} == g3


def test_garbage_torn_and_misplaced_blocks():
    w = wl()
    dev = crash.MemDevice(w.nblocks)
    record(w, dev, w.generations)
    B = crash.BLOCK
    dev.durable[5 * B:6 * B] = bytes(random.Random(1).randbytes(B))
    dev.durable[6 * B:7 * B] = crash.block_content(w.seed, 1, 99)      # another block's
    dev.durable[7 * B:8 * B] = crash.block_content(w.seed + 1, 1, 7)   # another seed's
    t = bytearray(crash.block_content(w.seed, 2, 8))
    t[1024:] = bytes(B - 1024)
    dev.durable[8 * B:9 * B] = t
    r = crash.verify_blocks(w, w.generations, dev.read_blocks)
    assert 5 in r.corrupt and 8 in r.corrupt
    assert {m[0] for m in r.misplaced} >= {6, 7}


def test_a_block_from_the_future_is_misplaced():
    w = wl()
    dev = crash.MemDevice(w.nblocks)
    record(w, dev, 1)
    s, _ = w.gen_runs(4)[0]
    dev.durable[s * crash.BLOCK:(s + 1) * crash.BLOCK] = crash.block_content(w.seed, 4, s)
    r = crash.verify_blocks(w, 1, dev.read_blocks)
    assert [m[0] for m in r.misplaced] == [s]


# ---------------------------------------------------- file-system model ---
def fs_apply(fw, g, files, keep=True):
    for op, name, ver in fw.gen_ops(g, fw.states(g - 1)[g - 1]):
        if not keep:
            continue
        if op == "delete":
            files.pop(name, None)
        else:
            files[name] = fw.content(name, ver)


def test_fs_model_and_verify():
    fw = crash.FsWorkload(seed=3, generations=5, ops=8)
    st = fw.states()
    assert len(st) == 6 and any(st) and st == crash.FsWorkload(3, 5, 8).states()
    ops = [op for g in range(1, 6) for op, _, _ in fw.gen_ops(g, st[g - 1])]
    assert {"create", "replace"} <= set(ops)
    files = {}
    for n in range(0, 5):
        fs_apply(fw, n, files) if n else None
        # crash with nothing / everything of generation n + 1
        for keep in (False, True):
            f = dict(files)
            fs_apply(fw, n + 1, f, keep)
            r = crash.verify_files(fw, n, list(f), f.__getitem__)
            assert r["failures"] == 0, r
    # a lost file
    f = dict(files)
    gone = sorted(f)[0]
    del f[gone]
    r = crash.verify_files(fw, 4, list(f), f.__getitem__)
    if gone not in {name for _, name, _ in fw.gen_ops(5, st[4])}:
        assert r["lost"] == [gone]
    # a corrupted one, an unexpected one; temporaries are ignored
    f = dict(files)
    name = sorted(f)[-1]
    f[name] = f[name][:-1] + b"!"
    f["zzz"] = b"x"
    f["f000.tmp"] = b"partial"
    r = crash.verify_files(fw, 4, list(f), f.__getitem__)
    assert "zzz" in r["unexpected"] and r["failures"] >= 2


# ------------------------------------------------------------- points ---
def synthetic(path):
    """g0, then per generation: writes, a flush per member, a FUA write,
    the mark."""
    w = lw.Writer(path)
    w.write(0, bytes(512))
    w.flush()
    w.mark("g0")
    for g in range(1, 4):
        for i in range(3):
            w.write(8 * i, bytes([g]) * 512)
        w.write(100, bytes(512), flags=lw.FUA)
        w.flush()
        w.flush()
        w.mark(f"g{g}")
    w.write(200, bytes(512))
    w.flush()
    w.mark("dm-log-writes-end")
    w.close()


def test_select_points(tmp_path):
    p = tmp_path / "log"
    synthetic(p)
    ents = [(e.flags, e.mark) for e in lw.Log(p).entries()]
    g0 = next(i for i, (f, m) in enumerate(ents) if m == "g0")
    pts = crash.select_points(ents, random_n=10, seed=4, start=g0 + 1)
    ks = [x.k for x in pts]
    assert ks == sorted(set(ks)) and ks[0] > g0
    assert ks == [x.k for x in crash.select_points(ents, 10, 4, g0 + 1)]
    kinds = crash.count_kinds(pts)
    assert kinds["flush"] == 7 and kinds["fua"] == 3 and kinds["end"] == 1
    assert 1 <= kinds["random"] <= 10 and kinds["write"] == 1
    first = next(x.k for x in pts if x.kind == "write")
    assert first == g0 + 2 and not ents[first - 1][0] & (lw.FLUSH | lw.MARK)
    many = crash.select_points(ents, seed=4, start=g0 + 1, total=20)
    assert len(many) == 20 and len({x.k for x in many}) == 20
    assert len(crash.select_points(ents, seed=4, start=g0 + 1, total=10 ** 6)) == \
        len(ents) - g0
    for x in pts:
        marks = [crash.mark_gen(m) for f, m in ents[:x.k] if f & crash.MARK
                 and crash.mark_gen(m) is not None]
        assert x.gen == marks[-1]
    few = crash.select_points(ents, 0, 0, g0 + 1, max_flush=3)
    assert crash.count_kinds(few)["flush"] + crash.count_kinds(few)["fua"] == 3
    assert crash.count_kinds(crash.select_points(ents, 0, 0, g0 + 1, max_flush=0))["flush"] == 0
    assert few[-1].k == len(ents)
    flushes = [k + 1 for k, (f, _) in enumerate(ents) if k + 1 >= g0 + 1
               and f & (crash.FLUSH | crash.FUA)]
    head = crash.select_points(ents, 0, 0, g0 + 1, max_flush=1, keep_first=4)
    hk = {x.k for x in head if x.kind in ("flush", "fua")}
    assert set(flushes[:4]) <= hk and len(hk) <= 5


def test_late_control_point(tmp_path):
    p = tmp_path / "log"
    synthetic(p)
    ents = [(e.flags, e.mark) for e in lw.Log(p).entries()]
    k, against = crash.late_control_point(ents)
    assert ents[k - 1][1] == f"g{against - 1}" and against >= 2


# --------------------------------------------------------- crash-bench ---
def test_crash_bench_script_and_summary(tmp_path):
    import argparse
    import json
    from raidlab_lib import crashbench
    a = argparse.Namespace(schemes=["raid5", "mirror"], workloads=["block", "ext4"], points=50,
                           generations=None, seed=3, data_mib=4)
    s = crashbench.guest_script(a)
    assert s.count("crash-test --scheme") == 4 and "--total-points 50" in s
    assert "--workload ext4" in s and "--controls" in s and "--max-flush 35" in s
    vm = tmp_path / "vm"
    vm.mkdir()
    for scheme, fails in (("raid5", 0), ("mirror", 1)):
        d = {"scheme": scheme, "workload": "block",
             "checked": {"flush": 10, "fua": 0, "write": 1, "random": 38, "end": 1},
             "failures": [{"index": 4}] * fails, "controls_ok": True,
             "log": {"entries": 400}, "workload_params": {"generations": 4},
             "record": {"seconds": 3.0}, "replay_seconds": 80.0,
             "points": [{"seconds": 1.5, "check_s": 0.5, "resync_s": 0.1}] * 50}
        (vm / f"crash-{scheme}-block.json").write_text(json.dumps(d))
    rows = crashbench.summarize(tmp_path, wall=100)
    assert [(r["scheme"], r["points"], r["failures"]) for r in rows] == \
        [("mirror", 50, 1), ("raid5", 50, 0)]
    assert rows[0]["s_per_point"] == 1.5
    csv = (tmp_path / "summary.csv").read_text().splitlines()
    assert csv[0].startswith("scheme,workload,points,flush") and len(csv) == 3
    assert json.loads((tmp_path / "summary.json").read_text())["wall_s"] == 100
    pytest.importorskip("matplotlib")
    assert (tmp_path / "crash-points.png").stat().st_size > 1000


def test_mismatch_cnt_follows_bg_issued():
    from raidlab_lib import crashlab
    line = ("0 8 raidlab raid5 3 AAA 8/8 idle 17 8192 - optimal 8 0 0 0 0 0 0 0:0:0:0 0:0:0:0 "
            "0:0:0:0 fifo 32 0 0 bufio ok 3 0")
    assert crashlab.mismatch_cnt(line) == 17
    assert crashlab.mismatch_cnt(line.replace(" 17 8192", " 0 8192")) == 0
    t = crashlab.Rig("raid5", 4, chunk=32, data_mib=4).table().line()
    assert " metadata /dev/mapper/rlc-md " in t and "assume_clean" in t
    assert t.endswith("4 /dev/mapper/rlc-m0 /dev/mapper/rlc-m1 /dev/mapper/rlc-m2 "
                      "/dev/mapper/rlc-m3")
    r = crashlab.Rig("mirror", 2, data_mib=4, md_mib=4)
    assert r.slices("X")[2] == ("rlc-m1", f"0 {2048 + 8192} linear X {8192 + 2048 + 8192}")


def test_plog_rig_and_status_fields():
    from raidlab_lib import crashlab
    r = crashlab.Rig("plog", 4, chunk=crashlab.PLOG_CHUNK, data_mib=4)
    assert r.length is None                       # found by discover() in the guest
    assert r.opts == crashlab.PLOG_OPTS.split() and r.log_disks == 1
    assert r.row_blocks() == 16 * 2 // 8          # N - L - 1 = 2 data chunks a row
    # a segment (track_sectors x 1) holds a chunk's record and a header
    ts = int(r.opts[r.opts.index("track_sectors") + 1])
    assert ts >= crashlab.PLOG_CHUNK + 1 and ts % 8 == 0
    assert ts % crashlab.PLOG_CHUNK == 0 or crashlab.PLOG_CHUNK % ts == 0
    r.length = 4096
    t = r.table().line()
    assert t.startswith("0 4096 raidlab plog ") and "assume_clean" in t
    assert " log_disks 1 log_ratio 0.25 track_sectors 32 log_buffers 4 regions 8 " in t
    assert t.endswith("4 /dev/mapper/rlc-m0 /dev/mapper/rlc-m1 /dev/mapper/rlc-m2 "
                      "/dev/mapper/rlc-m3")
    r2 = crashlab.Rig("plog", 6, chunk=16, opts="log_disks 2 log_buffers 2")
    assert r2.log_disks == 2 and r2.row_blocks() == 16 * 3 // 8
    r3 = crashlab.Rig("plog", 8, chunk=16, opts="log_disks 1 faults 2")
    assert r3.faults == 2 and r3.row_blocks() == 16 * 4 // 8   # 8 - 2 * 1 - 2
    assert crashlab.Rig("raid5", 4).opts == []
    assert crashlab.kind("plog") == "parity" and crashlab.kind("raid0") == "stripe"
    line = ("0 4096 raidlab plog 4 AAAA 4096/4096 idle 0 8192 - optimal 32 1 2 3 4 5 6 0:0:0:0 "
            "0:0:0:0 0:0:0:0 0:0:0:0 fifo 32 0 0 bufio ok 3 0 off 0 0 0 "
            "plog 20 1 1.000 1 8 12 12 16 6144 intent 0 4 4 1 7 9 2 5 0 0 2")
    f = crashlab.plog_fields(line)
    assert f["capacity_sectors"] == 6144 and f["A"] == "1.000" and f["durability"] == "intent"
    assert (f["pool_waits"], f["reintegrations"], f["cache_misses"]) == (7, 9, 0)
    assert f["faults"] == 2
    assert crashlab.mismatch_cnt(line) == 0
    assert crashlab.plog_fields(line.replace(" plog 20 1 1.000", " raid5 20 1 1.000").replace(
        "raidlab plog", "raidlab raid5")) == {}
    # a line before 1.8 (no count): no group; not a raidlab line: none
    assert crashlab.plog_fields(line.replace(" plog 20 1 1.000", " plog 1 1.000")) == {}
    assert crashlab.plog_fields("0 8 linear 8:0 0") == {}


def test_rig_degraded_and_rebuild_tables():
    # issue 13: the harness over raid6, a degraded array, an interrupted rebuild
    from raidlab_lib import crashlab
    r6 = crashlab.Rig("raid6", 4, chunk=32, data_mib=4)
    assert r6.length == 2 * 8192 and r6.row_blocks() == 2 * 32 // 8
    assert r6.dirty_degraded_refused()
    assert not crashlab.Rig("raid5", 4, opts="journal on").dirty_degraded_refused()
    assert not crashlab.Rig("mirror", 2).dirty_degraded_refused()
    # a member given as "-"
    t = crashlab.Rig("raid5", 4, missing=2).table(flags=["start_dirty_degraded"]).line()
    assert t.endswith("4 /dev/mapper/rlc-m0 /dev/mapper/rlc-m1 - /dev/mapper/rlc-m3")
    assert " start_dirty_degraded " in t and " spare " not in t
    # a spare slice after the members; it takes role 1 in the replay line
    r = crashlab.Rig("raid5", 4, chunk=32, data_mib=4, md_mib=4, spares=1)
    assert r.used == 8192 + 5 * (2048 + 8192)
    assert r.slices("X")[-1] == ("rlc-s0", f"0 {2048 + 8192} linear X {8192 + 4 * 10240}")
    assert " spare /dev/mapper/rlc-s0 " in r.table().line()
    t = r.table(roles={1: "rlc-s0"}, spares=False).line()
    assert " spare " not in t and t.endswith(
        "4 /dev/mapper/rlc-m0 /dev/mapper/rlc-s0 /dev/mapper/rlc-m2 /dev/mapper/rlc-m3")
    # the CLI's options reach the rig and the replay line
    a = types.SimpleNamespace(scheme="raid5", members=4, chunk=32, data_mib=4, md_mib=4,
                              region_size=None, prefix="rlc", no_metadata=False,
                              plog_opts=None, opts=None, missing=None, fail=1, rebuild=None,
                              workload="block", seed=1, generations=2, ops=4, max_run=2,
                              base="b", log="l", replay="r", cow="c")
    ct = crashlab.CrashTest(a)
    assert ct.degraded and ct.sdd and ct.result["start_dirty_degraded"]
    (name, t), = ct.replay_tables(True)
    assert name == "as created" and " - " in t.line() and "start_dirty_degraded" in t.line()
    assert "start_dirty_degraded" not in ct.replay_tables(False)[0][1].line()
    a.opts, a.fail, a.rebuild = "journal on", None, 1
    ct = crashlab.CrashTest(a)
    assert not ct.degraded and not ct.sdd and ct.rig.nspares == 1      # journal on
    # the spare in its role first, then the array as created (a crash
    # before the commit that gave the role)
    (n1, t1), (n2, t2) = ct.replay_tables(False)
    assert (n1, n2) == ("spare in role", "as created")
    assert " journal on " in t1.line() and " spare " not in t1.line()
    assert "/dev/mapper/rlc-s0 /dev/mapper/rlc-m2" in t1.line()
    assert " spare /dev/mapper/rlc-s0 " in t2.line() and "rlc-m1 /dev/mapper/rlc-m2" in t2.line()


def test_assemble_tries_each_line(monkeypatch):
    # a point is assembled with the first line the kernel takes, each
    # without start_dirty_degraded first; the first refusal is raised
    from raidlab_lib import crashlab, dm
    a = types.SimpleNamespace(scheme="raid5", members=4, chunk=32, data_mib=4, md_mib=4,
                              region_size=None, prefix="rlc", no_metadata=False,
                              plog_opts=None, opts=None, missing=None, fail=None, rebuild=1,
                              workload="block", seed=1, generations=2, ops=4, max_run=2,
                              base="b", log="l", replay="r", cow="c")
    ct = crashlab.CrashTest(a)
    assert ct.sdd
    tried = []

    def create(name, line, take):
        tried.append(line)
        if len(tried) != take:
            raise dm.DmError(f"refused {len(tried)}")
    for take, table, sdd in ((1, "spare in role", "not needed"),
                             (2, "spare in role", "refused without it"),
                             (3, "as created", "not needed"),
                             (4, "as created", "refused without it")):
        tried.clear()
        monkeypatch.setattr(crashlab, "dm_create", lambda n, l: create(n, l, take))
        r = {}
        ct.assemble(r)
        assert r == {"table": table, "start_dirty_degraded": sdd} and len(tried) == take
        assert ("start_dirty_degraded" in tried[-1]) == (take % 2 == 0)
    tried.clear()
    monkeypatch.setattr(crashlab, "dm_create", lambda n, l: create(n, l, 0))
    try:
        ct.assemble({})
        raise AssertionError("no refusal raised")
    except dm.DmError as e:
        assert str(e) == "refused 1" and len(tried) == 4


def test_rig_copyset_schemes():
    # issue 15: raid10 and chained under the harness
    from raidlab_lib import crashlab, dm
    assert crashlab.kind("raid10") == "copyset" and crashlab.kind("chained") == "copyset"
    far = crashlab.Rig("raid10", 4, chunk=32, data_mib=4, opts="layout far copies 2")
    near = crashlab.Rig("raid10", 4, chunk=32, data_mib=4)
    ch = crashlab.Rig("chained", 5, chunk=32, data_mib=4)
    # the length is the layout's (the options reach dm.max_length)
    assert far.length == dm.copyset_capacity("far", 4, 2, 32, 8192) == 2 * 8192
    assert near.length == 2 * 8192 and ch.length == 5 * 8192 // 2
    off3 = crashlab.Rig("raid10", 5, chunk=32, data_mib=4, opts="layout offset copies 3")
    assert off3.length == dm.copyset_capacity("offset", 5, 3, 32, 8192) < 5 * 8192 // 2
    # no rows to write whole; no assume_clean (a copy-set array resyncs)
    assert far.row_blocks() == 0 and ch.row_blocks() == 0
    t = far.table().line()
    assert " layout far copies 2 " in t and "assume_clean" not in t
    assert not ch.dirty_degraded_refused()
    t = ch.table(missing=[1]).line()
    assert t.endswith("5 /dev/mapper/rlc-m0 - /dev/mapper/rlc-m2 /dev/mapper/rlc-m3 "
                      "/dev/mapper/rlc-m4")


def test_sr_rig_sized_by_its_geometry():
    from raidlab_lib import crashlab, srlayout
    r = crashlab.Rig("sr", 4, chunk=32, data_mib=4)
    assert crashlab.kind("sr") == "copyset" and r.row_blocks() == 0
    d = dict(zip(r.opts[::2], r.opts[1::2]))
    # dr 2 over st39133 unless given, the model resolved to its line
    assert d["dr"] == "2" and d["dm"] == "1" and d["geom"].startswith("period_ns=6000000,")
    assert r.length == srlayout.max_length(4, 32, 8192, 2, 1, d["geom"], 2048)
    assert r.length > 0 and r.length % 32 == 0
    t = r.table().line()
    assert t.startswith(f"0 {r.length} raidlab sr ") and "assume_clean" not in t
    assert f" dr 2 dm 1 geom {d['geom']} " in t and " metadata /dev/mapper/rlc-md " in t
    # the corrupt control's block: the first whole cylinder after 1 MiB
    # (st39133's zone 0: 6 heads x 334 sectors a track)
    assert r.first_data_sector() == 2 * 6 * 334
    assert crashlab.Rig("raid5", 4).first_data_sector() == 2048
    r3 = crashlab.Rig("sr", 6, chunk=32, data_mib=4, opts="dr 3 propagate fg")
    d3 = dict(zip(r3.opts[::2], r3.opts[1::2]))
    assert d3["dr"] == "3" and d3["propagate"] == "fg"
    assert r3.opts[:4] == ["dr", "3", "dm", "1"]


def test_wait_propagated_reads_sr_pending(monkeypatch):
    from raidlab_lib import crashlab, dm
    line = ("0 4096 raidlab sr 4 AAAA 4096/4096 idle 0 8192 - optimal 32 1 2 3 4 5 6 0:0:0:0 "
            "0:0:0:0 0:0:0:0 0:0:0:0 rsatf 32 0 0 bufio ok 3 0 off 0 0 0 "
            "sr 11 2 2 1 10:4 bg {} 0 0 0 intent 5:0")
    seen = iter(["3", "1", "0"])
    monkeypatch.setattr(crashlab, "dm_status", lambda n: dm.parse_status(line.format(next(seen))))
    monkeypatch.setattr(crashlab.time, "sleep", lambda s: None)
    assert crashlab.wait_propagated("x") is not None
    assert next(seen, None) is None               # it waited for the third status
    # still waiting at the timeout: None (the caller goes on)
    monkeypatch.setattr(crashlab, "dm_status", lambda n: dm.parse_status(line.format("2")))
    assert crashlab.wait_propagated("x", timeout=0) is None
    # another scheme: nothing to wait for
    monkeypatch.setattr(crashlab, "dm_status", lambda n: dm.parse_status(
        line.format("2").replace("raidlab sr", "raidlab raid10").replace(" sr 11", " raid10 11")))
    assert crashlab.wait_propagated("x", timeout=0) is not None
