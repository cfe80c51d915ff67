# SPDX-License-Identifier: GPL-2.0
"""Configurations, presets and the plan file the guest runs.

A configuration name is ``rl-<scheme>`` (dm-raidlab raid0, mirror, raid4,
raid5, raid6, plog, raid10 in its default near-2 layout, chained) or
``md-<level>`` (Linux md raid0, raid1, raid5, raid10 built with mdadm, near 2),
optionally ``@N`` for N member disks. Mirrors (rl-mirror, md-raid1) default
to two members, as Chen et al.'s RAID Level 1; everything else uses all
``--disks`` members. Any configuration may end in ``[fail=I]``: member I is
failed once the array is made (no spare, no rebuild), so that its jobs
measure the array degraded, e.g. ``md-raid10@6[fail=2]``.

dm-raidlab configurations may end in ``[OPT,...]`` (see rl_options):
``sched=POLICY``, ``depth=N`` (member queue_depth) and ``track`` (load the
disk model's geometry into every member's tracker and wait for it to
calibrate), e.g. ``rl-raid0@2[sched=satf,depth=1,track]``. ``rl-sr``
(SR-Array, paper 002) also takes ``dr=N``, ``dm=N``, ``prop=fg|bg`` and
``md=pmem`` (the metadata on the lab's pmem: propagate bg's records), and
its table gets the disk model's geometry line (``geom``), e.g.
``rl-sr@6[dr=3,sched=rsatf,track]``: Ds x Dr x Dm = 2 x 3 x 1. ``rl-plog``
(parity logging, paper 000) also takes its own options (plog_options):
``L=``, ``A=``, ``K=``, ``B=``, ``cache=``, ``bufs=``, ``ts=``, ``md=``, e.g.
``rl-plog[L=1,A=1,K=1,cache=0]``. ``rl-altmirror`` (alternating
deferred-update mirrors, paper 003) is two members with its pool on the
lab's pmem (``metadata``, always) and takes its own options
(altmirror_options): ``mf=``, ``vol``, ``overlap=``, ``reads=``,
``cmin=``, ``cmax=`` and ``span=N`` (the array is the first N MiB of its
members), e.g. ``rl-altmirror[mf=5,sched=look,depth=1,span=8]``.

Two kinds of plan: the p90 search of Chen et al. (``job`` lines, a ladder of
outstanding requests), and with ``procs`` > 0 the saturation runs of paper
000 section 8 (``run`` lines: PROCS closed-loop fio processes, one request
outstanding each, ``ramp`` seconds unmeasured first).
"""
import dataclasses
import re
from dataclasses import dataclass, field

from ..models import p003_alternating as p003model
from . import geom as geommod

from . import workloads as wl

RL_SCHEMES = ("raid0", "mirror", "raid4", "raid5", "raid6", "plog", "raid10", "chained", "sr",
              "altmirror")
MD_LEVELS = ("raid0", "raid1", "raid5", "raid10")
MIRRORS = ("rl-mirror", "md-raid1")
# table words that stand alone (no value): Config.opt() steps over them
FLAG_WORDS = ("volatile", "assume_clean")
# RAID level of Chen's models (tools/raidlab_lib/models/p001_chen.py)
CHEN_LEVEL = {"raid0": 0, "mirror": 1, "raid1": 1, "raid10": 1, "chained": 1, "raid4": 5,
              "raid5": 5}


@dataclass(frozen=True)
class Config:
    name: str        # e.g. rl-raid5, md-raid10@4
    kind: str        # rl | md
    level: str       # raid0 mirror raid4 raid5 | raid0 raid1 raid5 raid10
    disks: int
    chunk_kib: int
    opts: tuple = ()     # extra dm-raidlab table words, e.g. ("sched", "satf")
    track: bool = False  # load the disk model's geometry (geom message)
    plog: tuple = ()     # plog parameters as (key, value) pairs (plog_options)
    fail: int = None     # member failed before the jobs (fail=I)
    span_mib: int = 0    # altmirror: the array is the first MiB of its members (0: all)

    @property
    def log_disks(self):
        return int(dict(self.plog).get("L", 1)) if self.level == "plog" else 0

    @property
    def cid(self):
        """File-system safe id (also the guest's directory name)."""
        out = self.name.replace("@", "_")
        for a, b in (("[", "."), ("]", ""), ("=", "-"), (",", ".")):
            out = out.replace(a, b)
        return out

    @property
    def data_cols(self):
        if self.level in ("mirror", "raid1", "altmirror"):
            return 1
        if self.level in ("raid10", "chained"):
            return self.disks // 2
        if self.level in ("raid4", "raid5"):
            return self.disks - 1
        if self.level == "raid6":
            return self.disks - 2
        if self.level == "plog":
            return self.disks - self.log_disks - 1
        if self.level == "sr":
            return self.disks // int(self.opt("dm", 1))
        return self.disks

    def opt(self, name, default=None):
        """A table option's value in opts (words in pairs, but for the
        FLAG_WORDS, which stand alone), or @default; a flag's own name
        gives True when it is there."""
        w, i = self.opts, 0
        while i < len(w):
            if w[i] in FLAG_WORDS:
                if w[i] == name:
                    return True
                i += 1
                continue
            if w[i] == name and i + 1 < len(w):
                return w[i + 1]
            i += 2
        return default

    @property
    def geometry(self):
        return wl.Geometry(self.chunk_kib, self.data_cols)

    @property
    def chen_level(self):
        return CHEN_LEVEL.get(self.level)


SCHED_POLICIES = ("fifo", "look", "rlook", "satf", "rsatf")


# rl-sr's own options: key -> (table words, check of the value)
SR_OPTS = {
    "dr": ("dr", lambda v: v.isdigit() and 1 <= int(v) <= 6),
    "dm": ("dm", lambda v: v.isdigit() and int(v) >= 1),
    "prop": ("propagate", lambda v: v in ("fg", "bg")),
    "md": ("metadata", lambda v: v == "pmem"),
}


def rl_options(text, level=None):
    """``sched=P,depth=N,track`` (and sr's ``dr=N,dm=N,prop=fg|bg,md=pmem``)
    -> (table words, track)."""
    words, track, seen = [], False, set()
    for item in [x for x in text.split(",") if x]:
        key, eq, val = item.partition("=")
        if key in seen:
            raise ValueError(f"option {key} given twice")
        seen.add(key)
        if key == "sched" and val in SCHED_POLICIES:
            words += ["sched", val]
        elif key == "depth" and val.isdigit() and 1 <= int(val) <= 1024:
            words += ["queue_depth", val]
        elif key == "track" and not eq:
            track = True
        elif level == "sr" and key in SR_OPTS and SR_OPTS[key][1](val):
            words += [SR_OPTS[key][0], PMEM if key == "md" else val]
        else:
            raise ValueError(f"option {item!r}: use sched={{{','.join(SCHED_POLICIES)}}}, "
                             "depth=N (1..1024) or track"
                             + (", dr=1..6, dm=N, prop=fg|bg, md=pmem" if level == "sr" else ""))
    return tuple(words), track


# rl-plog options: key -> (table option, check of the value's form, what it
# takes). Only the form is checked here: the ranges are the kernel's own
# (plog's struct rl_opt table), and a value out of range is refused at
# load with the kernel's message, so that no copy of them can drift.
PLOG_OPTS = {
    "L": ("log_disks", lambda v: v.isdigit() and int(v) >= 1, "log disks"),
    "A": ("log_ratio", lambda v: _decimal(v), "a decimal log/parity ratio, e.g. 1 or 0.5"),
    "K": ("log_tracks", lambda v: v.isdigit(), "tracks per log write"),
    "B": ("regions", lambda v: v.isdigit(), "regions"),
    "cache": ("data_cache", lambda v: v.isdigit(), "4 KiB blocks (0: always preread)"),
    "bufs": ("log_buffers", lambda v: v.isdigit(), "log buffers"),
    "ts": ("track_sectors", lambda v: v.isdigit(), "sectors per track"),
    "md": ("metadata", lambda v: v in ("pmem", "none"), "pmem or none"),
}
PMEM = "/dev/rl/pmem"


def _decimal(v):
    """A decimal number's form (the kernel checks its range)."""
    return v.count(".") <= 1 and v.replace(".", "").isdigit()


def plog_options(text):
    """``L=1,A=0.5,K=1,cache=0,md=pmem`` -> (table words, ((key, value), ...))."""
    words, pairs, seen = [], [], set()
    for item in [x for x in text.split(",") if x]:
        key, eq, val = item.partition("=")
        if key in ("sched", "depth", "track"):
            w, _ = rl_options(item)
            words += list(w)
            continue
        if key in seen:
            raise ValueError(f"option {key} given twice")
        seen.add(key)
        spec = PLOG_OPTS.get(key)
        if spec is None or not eq or not spec[1](val):
            raise ValueError(f"option {item!r}: plog takes "
                             + ", ".join(f"{k}= ({d})" for k, (_, _, d) in PLOG_OPTS.items())
                             + ", sched=, depth=")
        pairs.append((key, val))
        if key == "md":
            if val == "pmem":
                words += ["metadata", PMEM]
        else:
            words += [spec[0], val]
    return tuple(words), tuple(pairs)


def _percent(v):
    """mem_fraction's form: a percentage 0.01..100, two decimals at most
    (the kernel's am_parse_fraction())."""
    return bool(re.fullmatch(r"\d{1,3}(\.\d{1,2})?", v)) and 0 < float(v) <= 100


def _cycle_ms(v):
    return v.isdigit() and 1 <= int(v) <= 3_600_000


# rl-altmirror's own options: key -> (table option, check of the value,
# what it takes). Unlike plog's, the ranges are checked here: they are
# few and fixed (Documentation/dm-raidlab.rst, altmirror), and a run of
# tens of minutes should not stop at its third array's table load.
# span= is no table word: the array is the first N MiB of its members,
# so that its pool, mem_fraction of the array, holds a batch the cycle
# installs within a run (see PRESETS["p003"]).
AM_OPTS = {
    "mf": ("mem_fraction", _percent, "a percentage 0.01..100, two decimals at most"),
    "overlap": ("overlap", lambda v: v in ("never", "allow"), "never or allow"),
    "reads": ("overlap_reads", lambda v: v in ("serve", "defer"), "serve or defer"),
    "cmin": ("cycle_min", _cycle_ms, "ms, 1..3600000"),
    "cmax": ("cycle_max", _cycle_ms, "ms, 1..3600000"),
    "single": ("single", lambda v: v in ("through", "batch"), "through or batch"),
    "span": (None, lambda v: v.isdigit() and int(v) >= 1, "MiB: the array's length"),
}
AM_CYCLE_DEFAULT = (100, 30000)     # the kernel's cycle_min and cycle_max (ms)


def altmirror_options(text):
    """``mf=5,vol,overlap=allow,reads=defer,cmin=50,cmax=5000,span=8`` and
    the generic ``sched=,depth=,track`` -> (table words, track, span MiB).
    ``vol`` (``volatile``, a flag) goes last, after the words in pairs."""
    words, flags, track, span, seen = [], [], False, 0, set()
    for item in [x for x in text.split(",") if x]:
        key, eq, val = item.partition("=")
        if key in seen:
            raise ValueError(f"option {key} given twice")
        seen.add(key)
        if key in ("sched", "depth", "track"):
            w, t = rl_options(item)
            words += list(w)
            track = track or t
        elif key == "vol" and not eq:
            flags.append("volatile")
        elif key in AM_OPTS and eq and AM_OPTS[key][1](val):
            if key == "span":
                span = int(val)
            else:
                words += [AM_OPTS[key][0], val]
        else:
            raise ValueError(f"option {item!r}: altmirror takes "
                             + ", ".join(f"{k}= ({d})" for k, (_, _, d) in AM_OPTS.items())
                             + ", vol (volatile), sched=, depth=, track")
    w = dict(zip(words[::2], words[1::2]))
    cmin = int(w.get("cycle_min", AM_CYCLE_DEFAULT[0]))
    cmax = int(w.get("cycle_max", AM_CYCLE_DEFAULT[1]))
    if cmin > cmax:
        raise ValueError(f"cmin {cmin} ms is above cmax {cmax} ms (the kernel's defaults: "
                         f"{AM_CYCLE_DEFAULT[0]} and {AM_CYCLE_DEFAULT[1]})")
    return tuple(words + flags), track, span


def _take_fail(inner):
    """(fail=I's I or None, the other options of @inner)."""
    fail, rest = None, []
    for item in [x for x in inner.split(",") if x]:
        key, _, val = item.partition("=")
        if key != "fail":
            rest.append(item)
        elif fail is not None or not val.isdigit():
            raise ValueError(f"option {item!r}: fail=I once, I a member index")
        else:
            fail = int(val)
    return fail, ",".join(rest)


def parse_config(name, disks, chunk_kib):
    opts, track, pl, fail, span = (), False, (), None, 0
    if name.endswith("]") and "[" in name:
        bare, _, inner = name[:-1].partition("[")
        try:
            fail, inner = _take_fail(inner)
        except ValueError as e:
            raise ValueError(f"configuration {name!r}: {e}") from None
        if inner and not bare.startswith("rl-"):
            raise ValueError(f"configuration {name!r}: [options] other than fail= are "
                             "for rl- configurations")
        try:
            if bare.partition("@")[0] == "rl-plog":
                opts, pl = plog_options(inner)
            elif bare.partition("@")[0] == "rl-altmirror":
                opts, track, span = altmirror_options(inner)
            else:
                opts, track = rl_options(inner, bare.partition("@")[0][3:])
        except ValueError as e:
            raise ValueError(f"configuration {name!r}: {e}") from None
    else:
        bare = name
    base, _, n = bare.partition("@")
    kind, _, level = base.partition("-")
    if kind == "rl" and level in RL_SCHEMES or kind == "md" and level in MD_LEVELS:
        pass
    else:
        raise ValueError(f"configuration {name!r}: use rl-{{{','.join(RL_SCHEMES)}}} "
                         f"or md-{{{','.join(MD_LEVELS)}}}, optionally @N disks")
    if n:
        if not n.isdigit():
            raise ValueError(f"configuration {name!r}: @N must be a number")
        nd = int(n)
    else:
        nd = 2 if base in MIRRORS or base == "rl-altmirror" else disks
    if nd > disks:
        raise ValueError(f"configuration {name!r}: {nd} disks, the lab has {disks}")
    need = {"raid0": 2, "mirror": 2, "raid1": 2, "raid4": 3, "raid5": 3, "raid6": 4, "raid10": 4,
            "plog": 3, "chained": 3, "sr": 1, "altmirror": 2}[level]
    if level == "plog":
        need = int(dict(pl).get("L", 1)) + 2      # L log disks and a row of 2 or more
    if nd < need or (level == "raid10" and nd % 2):
        raise ValueError(f"configuration {name!r}: {level} needs at least {need} disks"
                         + (" (an even number)" if level == "raid10" else ""))
    if level == "altmirror":
        if nd != 2:
            raise ValueError(f"configuration {name!r}: altmirror needs exactly two disks")
        # its pool (or, volatile, its bitmap) is on the metadata device
        opts = ("metadata", PMEM) + opts
    if level == "sr":
        w = dict(zip(opts[::2], opts[1::2]))
        dr, dmc = int(w.get("dr", 1)), int(w.get("dm", 1))
        if nd % (dr * dmc):
            raise ValueError(f"configuration {name!r}: sr's members must be a multiple of "
                             f"dr x dm ({dr} x {dmc})")
    if fail is not None and (fail >= nd or level == "raid0"):
        raise ValueError(f"configuration {name!r}: fail={fail}: "
                         + ("raid0 has no redundancy" if level == "raid0"
                            else f"members are 0..{nd - 1}"))
    return Config(name, kind, level, nd, chunk_kib, opts, track, pl, fail, span)


# ---------------------------------------------------------------- presets
MIXES = (0, 25, 50, 75, 100)
PRESETS = {
    # The demo: small enough for ~2 minutes of VM time.
    "quick": dict(
        doc="demo-sized: individual reads/writes and full-stripe writes, raidlab vs md raid5",
        configs=["rl-raid0", "rl-mirror", "rl-raid5", "md-raid5"],
        workloads=["ind-r", "ind-w", "fs-w"],
        ladder=[1, 4, 16], refine=0, runtime=2),
    # 001 Fig. 4 and 5: the RAID paper workloads; relative throughput
    # against Chen's simple and adjusted models.
    "chen-fig5": dict(
        doc="Chen et al. Fig. 4/5: individual and full-stripe reads and writes",
        configs=["rl-raid0", "rl-mirror", "rl-raid4", "rl-raid5",
                 "md-raid0", "md-raid1", "md-raid5", "md-raid10"],
        workloads=["ind-r", "ind-w", "fs-r", "fs-w"],
        ladder=[1, 2, 4, 8, 16, 32], refine=1, runtime=3),
    # 001 Fig. 8: distributed sizes, aligned and unaligned.
    "chen-fig8": dict(
        doc="Chen et al. Fig. 8: exponential small and normal large sizes, aligned and unaligned",
        configs=["rl-raid0", "rl-mirror", "rl-raid5", "md-raid1", "md-raid5"],
        workloads=["exp6k-r", "exp6k-w", "norm1536k-r", "norm1536k-w",
                   "exp6k-w-ua", "norm1536k-w-ua"],
        ladder=[1, 2, 4, 8, 16], refine=1, runtime=3),
    # 001 Fig. 9: read-fraction curves, small and large, unaligned.
    "chen-fig9": dict(
        doc="Chen et al. Fig. 9: throughput per disk against the read fraction",
        configs=["rl-raid0", "rl-mirror", "rl-raid5", "md-raid1", "md-raid5"],
        workloads=[f"exp6k-r{p}-ua" for p in MIXES] + [f"norm1536k-r{p}-ua" for p in MIXES],
        ladder=[1, 2, 4, 8, 16], refine=1, runtime=3),
    # 000 Fig. 26/27: airline reservation mix, with and without locality.
    "airline": dict(
        doc="Stodolsky et al. Fig. 26: airline reservation mix (82% reads, 1-24 KiB)",
        configs=["rl-raid0", "rl-mirror", "rl-raid4", "rl-raid5", "md-raid1", "md-raid5",
                 "md-raid10"],
        workloads=["airline", "ind-r-loc80x20", "ind-w-loc80x20"],
        ladder=[1, 2, 4, 8, 16, 32], refine=1, runtime=3),
}
# 000 section 8 / Fig. 23: 100 % small (2 KiB, the paper's) random writes,
# closed loop, peak throughput per disk; parity logging with preread
# (cache=0, the paper's "data cache miss") and with the data cached (the
# paper's "data cache hit": a 128 MiB working set, most of the array and so
# most regions, warmed by a write pass, and a data cache that holds all of
# it; every configuration runs on the same working set). Emulated Lightning
# disks (Fig. 12), 64 MiB of each used, so that the logs fill and
# reintegrate within a run; 128 log buffers: one per region (paper 2.2: K B
# track buffers; B is 55 here) and as many in flight to the log writer;
# K = 2 tracks per log write and A = 2 (sec. 2.3: twice as much log as
# parity, fewer reintegrations); 8 KiB chunks (plog's chunk must divide its
# 48-sector track, or be a multiple of it). 30 closed-loop processes (six
# per disk): with 15, plog's members sat idle a quarter of the time (one
# member I/O per write, three writes per disk in flight) while the
# mirror's were saturated; the paper's model is at full utilisation. 120 s
# measured: long enough for every region to be reintegrated at least once
# in the window (steady state), where 30 s after the warm-up pass could
# miss them or catch a backlog.
PRESETS["plog"] = dict(
    doc="Stodolsky et al. sec. 8: small random writes, plog vs mirror, raid5 and md raid5",
    configs=["rl-raid0", "rl-mirror", "rl-raid5", "rl-plog[L=1,A=2,K=2,cache=0,bufs=128]",
             "rl-plog[L=1,A=2,K=2,cache=49152,bufs=128]", "md-raid5"],
    workloads=["2k-w", "2k-w-ws128m"],
    ladder=[1], refine=0, runtime=120, procs=30, ramp=20, disks=5, member_mb=64,
    disk_model="lightning", time_scale="2", chunk_kb=8)
# Issue 15 (papers 002 and 004's baselines): six emulated Lightning disks,
# raidlab raid10 (near 2) and chained declustering against md raid10 (near
# 2) on the same members, 4 KiB random reads, writes and a 70/30 mix at
# Chen's p90 target; each healthy and with member 2 failed (no spare), so
# that degraded/healthy and raidlab/md are ratios of one run
# (bench/degraded.py, with paper 004's model); raid10 and chained again
# with the head tracker loaded ([track]: reads go to the copy predicted to
# complete first), raid10 also with its member queues kept short
# ([track,depth=2], as paper 002's scheduler keeps the disk's).
PRESETS["copyset"] = dict(
    doc="issue 15: raid10 (near 2), chained and md raid10 over 6 disks, healthy and degraded",
    configs=["rl-raid0", "rl-raid10", "rl-chained", "md-raid10",
             "rl-raid10[fail=2]", "rl-chained[fail=2]", "md-raid10[fail=2]",
             "rl-raid10[track]", "rl-chained[track]", "rl-raid10[track,depth=2]"],
    workloads=["4k-r", "4k-w", "4k-r70"],
    ladder=[1, 2, 4, 8, 16, 32], refine=1, runtime=3, disks=6, disk_model="lightning")
# Issue 16 (paper 002, Yu et al.): six emulated ST39133 disks at time
# scale 1/10 (the trackers stay healthy there), every array over the same
# data set: the workloads touch the first SR_SPAN_MIB of the array, a
# third of an SR_DATA_MIB data set (paper 002 section 4.2's Iometer runs:
# seek locality index 3), so that every configuration seeks over the same
# data, placed by its own layout (bench/srarray.py puts eq. 16 beside).
#   Fig. 12: random 4 KiB reads at 8 and 32 outstanding, 6x1x1 (striping,
#     SATF: rsatf with one replica), 3x2x1, 2x3x1 (rsatf) and 3x1x2
#     (RAID-10 as sr, rsatf); and against the disks (SR_SWEEP): the same
#     span over 2, 3 and 4 of them, striped, as an SR-Array (Ds 1 or 2)
#     and as RAID-10 (D even);
#   Fig. 13: the same with 33, 67 and 100 % writes, propagated in the
#     foreground (propagate fg: the write share is 1 - p);
#   Fig. 9: 2x3x1 under rlook, 6x1x1 under look, beside the above;
#   Fig. 5: 2x3x1 rsatf, 512-byte random reads and a 50/50 mix, 1 to 32
#     outstanding;
#   section 4.1 / Fig. 10(a): Poisson arrivals of a Cello-base stand-in
#     (Table 3: 55 % reads, seek locality 4: a quarter of the data set),
#     2x3x1 with background propagation on pmem against 3x1x2, raidlab
#     raid10 and md raid10 (near 2), and 6x1x1: the mean response against
#     the rate (srarray.py: the highest rate within the target).
# Every raidlab array issues one I/O at a time to a member (depth=1), the
# rest waiting in the member's queue for its policy, as paper 002's driver
# did with the drive's own queueing off.
SR_DATA_MIB = 1536
SR_SPAN_MIB = SR_DATA_MIB // 3
SR_CELLO_MIB = SR_DATA_MIB // 4
SR_RATES = (40, 80, 120, 160, 200, 240, 280, 320, 360, 400)
_SR = "rl-sr@6[{}sched={},depth=1,track]"
SR_CFG = {
    "6x1x1": _SR.format("dr=1,prop=fg,", "rsatf"),
    "3x2x1": _SR.format("dr=2,prop=fg,", "rsatf"),
    "2x3x1": _SR.format("dr=3,prop=fg,", "rsatf"),
    "3x1x2": _SR.format("dm=2,prop=fg,", "rsatf"),
    "2x3x1-rlook": _SR.format("dr=3,prop=fg,", "rlook"),
    "6x1x1-look": _SR.format("dr=1,prop=fg,", "look"),
    "2x3x1-bg": _SR.format("dr=3,prop=bg,md=pmem,", "rsatf"),
}
# Fig. 12's disks axis: (Ds, Dr, Dm) over 2, 3 and 4 disks (6: SR_CFG)
SR_SWEEP = {f"{ds}x{dr}x{dm}": f"rl-sr@{ds * dr * dm}[dr={dr},{'dm=2,' if dm > 1 else ''}"
            "prop=fg,sched=rsatf,depth=1,track]"
            for ds, dr, dm in ((2, 1, 1), (1, 2, 1), (1, 1, 2), (3, 1, 1), (1, 3, 1),
                               (4, 1, 1), (2, 2, 1), (2, 1, 2))}
_SR_MIX = [f"4k-r-span{SR_SPAN_MIB}m"] + [f"4k-r{r}-span{SR_SPAN_MIB}m" for r in (67, 33)] + \
    [f"4k-w-span{SR_SPAN_MIB}m"]
_SR_FIG5 = [f"512b-r-span{SR_SPAN_MIB}m", f"512b-r50-span{SR_SPAN_MIB}m"]
_SR_POISSON = [f"4k-r55-span{SR_CELLO_MIB}m-poisson{n}" for n in SR_RATES]
_SR_HEADLINE = [SR_CFG["2x3x1-bg"], SR_CFG["3x1x2"], SR_CFG["6x1x1"],
                "rl-raid10[sched=satf,depth=1,track]", "md-raid10@6"]
PRESETS["p002"] = dict(
    doc="issue 16: paper 002's Fig. 12 (2 to 6 disks), 13, 9, 5 and section 4.1 on "
        "st39133 disks",
    configs=list(SR_CFG.values()) + ["rl-raid10[sched=satf,depth=1,track]", "md-raid10@6"]
    + list(SR_SWEEP.values()),
    workloads=_SR_MIX + _SR_FIG5 + _SR_POISSON,
    only={**{w: [SR_CFG[k] for k in ("6x1x1", "3x2x1", "2x3x1", "3x1x2")]
             for w in _SR_MIX[1:]},
          _SR_MIX[0]: [SR_CFG[k] for k in ("6x1x1", "3x2x1", "2x3x1", "3x1x2",
                                            "2x3x1-rlook", "6x1x1-look")]
          + list(SR_SWEEP.values()),
          **{w: [SR_CFG["2x3x1"]] for w in _SR_FIG5},
          **{w: _SR_HEADLINE for w in _SR_POISSON}},
    # the open loops: at most 64 outstanding (a bound of 32 held 6x1x1's
    # mean under 150 ms at saturation: 32 / 264 a second)
    ladders={**{w: [1, 2, 4, 8, 16, 32] for w in _SR_FIG5}, **{w: [64] for w in _SR_POISSON}},
    ladder=[8, 32], refine=0, runtime=10, disks=6, disk_model="st39133", time_scale="1/10",
    p90_ms=1e6)
# Issue 17 (paper 003, Polyzois et al.: alternating deferred-update
# mirrors): the efficiency ratio of Fig. 3 and 4 (section 3.1) and the
# read response of Fig. 8 on dm-hddsim's Fujitsu Eagle (Table 1's disk),
# open loops of random 4 KiB requests arriving as a Poisson process, the
# highest rate each array sustains (bench/altmirror.py: achieved rate
# and mean response within 4 x t_ran) over twice a single disk's.
#   single disk: rl-sr@1 (sr over one member maps it as it is), look;
#   altmirror at mem_fraction 1, 5 and 10 % under look (the paper's SCAN
#     for a batch, and for the reads), and 1 % under satf with the
#     tracker (the rotation-aware installation the paper leaves out);
#   the plain mirrors: raidlab mirror (look) and md raid1;
# every raidlab array one I/O at a time to a member (depth=1: the
# member's policy orders the rest, as the paper's disks did).
#   w = 0.5 (r50) for all; w = 0.25 and 0.75 (r75, r25) for the single
#   disk, altmirror 1 % and the raidlab mirror (Fig. 4's axis).
# Time scale 1: the Eagle's own speed (a turn of 16.6 ms, as long as the
# Lightning's whose trackers calibrate in the lab's copyset runs); a disk
# does about 55 random requests a second over the span, a pair up to
# about 2.5 x that, so a point holds thousands of requests.
# The span: every workload touches the first P003_SPAN_MIB of its array,
# and altmirror's array is that long (span=), so that its pool (mf % of
# the array) fills a batch (half the pool) within seconds: the cycle T =
# batch / write rate is about 7 s at mf 10 near its saturation, and a
# point (P003_RAMP + P003_RUNTIME s) holds 4 or more cycles after the one
# before it (the rates of a configuration run in ascending order on one
# array). Over the whole disk T would be 30 s (cycle_max) and more. The
# model (models/p003_alternating.py) then takes the 51.2 cylinders the
# span covers, with t_avseek over them (7.8 ms, not Table 1's 18 ms):
# seeks are shorter, so batching gains less than over the paper's full
# disk (f = 1 %: 0.86 at w = 0.5 here, 1.09 over 840 cylinders).
# Section 5's single-disk batching: altmirror with member 1 failed, its
# batches every T (single batch), reads held behind them (reads=defer).
# The rates are fractions of c1 = 1 / t_ran at the time scale (p003_rates),
# each configuration's from half a disk's to beyond its model's
# saturation; 62 points of 8 + 25 s, the tracked satf array last (the
# only one whose trackers must calibrate: a failure there costs no other).
# VM time: 62 x (33 + ~2) s, the boot (~1 min) and eight arrays (~25 s
# each) = about 40 minutes. p003-quick: 8 points of 3 + 10 s, about 6.
P003_DISK = "eagle"
P003_TIME_SCALE = "1"
P003_SPAN_MIB = 32
P003_RUNTIME, P003_RAMP = 25, 8
# (rate / c1): a single disk's, and a pair's
P003_SINGLE = (0.5, 0.65, 0.8, 0.95, 1.1)
P003_PAIR = (0.5, 1.0, 1.3, 1.6, 1.9, 2.2, 2.5)


def p003_disk(disk_model=P003_DISK, time_scale=P003_TIME_SCALE, span_mib=P003_SPAN_MIB):
    """The paper 003 model's disk from a dm-hddsim preset's geometry: surfs,
    blks_trk (4 KiB blocks per track), t_rot (ms, emulated), cyls (the
    cylinders @span_mib covers, all without a span), t_avseek over them
    (the paper's seek curve, p003model.avg_seek()), t_ran, and slow (wall
    time per emulated time at @time_scale)."""
    g = geommod.PRESETS[disk_model]
    spt = g["zones"][0][1] if "zones" in g else g["spt"]
    per_cyl = g["heads"] * spt
    cyls = span_mib * 2048 / per_cyl if span_mib else geommod.capacity_sectors(disk_model) / per_cyl
    cyls = min(cyls, float(g["cylinders"]))
    t_rot = g["period_ns"] / 1e6
    blks = spt // 8
    seek = p003model.avg_seek(cyls)
    return dict(surfs=g["heads"], blks_trk=blks, t_rot=t_rot, cyls=cyls, t_avseek=seek,
                t_ran=p003model.t_ran(seek, t_rot, blks),
                slow=float(1 / geommod.time_scale(time_scale)))


def p003_rates(factors, disk=None):
    """Poisson rates (whole requests a second, each once) at @factors of
    c1, one disk's random requests a second at the time scale (1 / t_ran)."""
    d = disk or p003_disk()
    c1 = 1000.0 / (d["t_ran"] * d["slow"])
    return sorted({max(1, round(f * c1)) for f in factors})


def _p003_wl(read_pct, rate):
    return f"4k-r{read_pct}-span{P003_SPAN_MIB}m-poisson{rate}"


_AM = "rl-altmirror[mf={},sched={},depth=1{},span=" + str(P003_SPAN_MIB) + "]"
P003_CFG = {
    "single": "rl-sr@1[sched=look,depth=1]",
    "am1": _AM.format(1, "look", ""),
    "am5": _AM.format(5, "look", ""),
    "am10": _AM.format(10, "look", ""),
    "am1-satf": _AM.format(1, "satf", ",track"),
    "am10-satf": _AM.format(10, "satf", ",track"),     # p003-quick's
    "mirror": "rl-mirror[sched=look,depth=1]",
    "md": "md-raid1",
    # section 5's single-disk batching: altmirror with member 1 failed,
    # batches every T (single batch), reads held behind them (defer)
    "single-batch": "rl-altmirror[mf=1,sched=look,depth=1,reads=defer,single=batch,span="
                    + str(P003_SPAN_MIB) + ",fail=1]",
}
_S, _P = p003_rates(P003_SINGLE), p003_rates(P003_PAIR)
# configuration -> {read %: its rates}: from half a disk's rate to beyond
# the model's saturation (over the span, w = 0.5: single 0.85 c1, mirror
# 1.1 c1, altmirror 1 % 1.4 c1, 5 % 1.8 c1, 10 % 2.1 c1)
P003_RUNS = {
    "single": {50: _S, 75: _S[1:], 25: _S[1:]},
    "am1": {50: _P[:5], 75: _P[1:5], 25: _P[1:5]},
    "am5": {50: _P[:6]},
    "am10": {50: _P[:2] + _P[3:]},
    "mirror": {50: _P[:4], 75: _P[:4], 25: _P[:4]},
    "md": {50: _P[:4]},
    "single-batch": {50: _S[:2]},
    # last: the only array that needs its trackers calibrated
    "am1-satf": {50: _P[:6]},
}


def _p003_preset(runs, runtime, ramp, doc):
    """A preset of @runs ({config key: {read %: rates}}): its workloads in
    ascending rate within each mix (r50 first), each paired with the
    configurations that run it."""
    only = {}
    for key, mixes in runs.items():
        for pct, rates in mixes.items():
            for r in rates:
                only.setdefault((pct != 50, -pct, r), []).append(P003_CFG[key])
    order = sorted(only)
    wls = [_p003_wl(-k[1], k[2]) for k in order]
    return dict(
        doc=doc, configs=[P003_CFG[k] for k in runs], workloads=wls,
        only={w: only[k] for w, k in zip(wls, order)},
        ladders={w: [64] for w in wls}, ladder=[64], refine=0, runtime=runtime, ramp=ramp,
        disks=4, disk_model=P003_DISK, time_scale=P003_TIME_SCALE, p90_ms=1e6)


PRESETS["p003"] = _p003_preset(
    P003_RUNS, P003_RUNTIME, P003_RAMP,
    "issue 17: paper 003's efficiency ratio (Fig. 3, 4) and read response (Fig. 8): "
    "altmirror at f = 1, 5, 10 % against a single disk and the plain mirrors, eagle disks")
# the smoke run: every kind of array (the tracked satf one at mf 10),
# one or two rates each
PRESETS["p003-quick"] = _p003_preset(
    {"single": {50: [_S[0], _S[3]]}, "am1": {50: [_P[1], _P[3]]},
     "am10-satf": {50: [_P[3]]}, "mirror": {50: [_P[1]]}, "md": {50: [_P[1]]},
     "single-batch": {50: [_S[0]]}},
    10, 3, "a smoke run of p003 (about 6 minutes of VM time)")
PRESETS["full"] = dict(
    doc="everything: chen-fig5 + chen-fig9 + airline over every configuration",
    configs=PRESETS["chen-fig5"]["configs"],
    workloads=(PRESETS["chen-fig5"]["workloads"] + PRESETS["chen-fig9"]["workloads"]
               + ["exp6k-w-ua", "fs-w-ua"] + PRESETS["airline"]["workloads"]),
    ladder=[1, 2, 4, 8, 16, 32], refine=1, runtime=3)


@dataclass
class Plan:
    configs: list
    workloads: list                  # parsed Workload objects
    ladder: list
    refine: int
    runtime: int
    target_ms: object = "auto"       # "auto" or a float
    auto_factor: float = 4.0
    disk_model: str = "none"
    time_scale: str = "1"
    disks: int = 4
    jobs: list = field(default_factory=list)   # (Config, Workload, [fio args])
    procs: int = 0                   # > 0: saturation runs of PROCS processes
    ramp: int = 0                    # seconds of each run left out of the stats
    member_mb: int = 0               # MiB of each member used (0: all)
    only: dict = field(default_factory=dict)     # workload -> the configs it runs on
    ladders: dict = field(default_factory=dict)  # workload -> its own ladder

    @property
    def baseline(self):
        """The raid0 configuration relative throughput is measured against."""
        for c in self.configs:
            if c.level == "raid0":
                return c
        return None

    def ladder_of(self, w):
        """(depths, refinements) of a job of workload @w (job_ladder())."""
        return job_ladder(self.ladder, self.refine, w.name, w.rate_iops, self.ladders)

    def max_points(self):
        """Upper bound of fio runs: every ladder step and every refinement."""
        if self.procs:
            return len(self.jobs)
        return sum(len(d) + k for d, k in (self.ladder_of(w) for _, w, _ in self.jobs))

    def seconds_per_point(self):
        return self.runtime + self.ramp


def job_ladder(ladder, refine, name, rate_iops, ladders=None):
    """A job's (depths, refinements): workload @name's own ladder from
    @ladders if it has one, else @ladder; with Poisson arrivals (@rate_iops
    > 0) only the deepest step, the most that may be outstanding, and no
    refinement."""
    own = (ladders or {}).get(name)
    depths = list(own) if own else list(ladder)
    if rate_iops:
        return [max(depths)], 0
    return depths, refine if not own else 0


def build(configs, workloads, ladder, refine, runtime, disks=4, chunk_kib=64,
          target_ms="auto", auto_factor=4.0, disk_model="none", time_scale="1",
          procs=0, ramp=0, member_mb=0, only=None, ladders=None):
    """Build a Plan: configurations x workloads, baseline raid0 first;
    @only maps a workload to the configurations it runs on (else all),
    @ladders a workload to its own ladder (increasing depths)."""
    cfgs = [parse_config(c, disks, chunk_kib) for c in configs]
    spt = geommod.PRESETS.get(disk_model, {}).get("spt")
    for i, c in enumerate(cfgs):
        # plog's track is the disk model's (Fig. 12: 48 sectors) unless ts= is given
        if c.level == "plog" and "ts" not in dict(c.plog) and spt:
            cfgs[i] = dataclasses.replace(c, opts=c.opts + ("track_sectors", str(spt)))
        # sr places its replicas by the disk model's geometry (its line)
        if c.level == "sr":
            if disk_model == "none":
                raise ValueError(f"configuration {c.name!r}: sr needs a disk model "
                                 "(--disk-model, its geometry)")
            cfgs[i] = dataclasses.replace(
                c, opts=c.opts + ("geom", geommod.geom_line(disk_model, time_scale)))
    if procs < 0 or ramp < 0 or member_mb < 0:
        raise ValueError("procs, ramp and member size must not be negative")
    room = [x for x in (geommod.capacity_sectors(disk_model), member_mb * 2048) if x]
    for c in cfgs:
        # a metadata device's data offset (1 MiB) comes before the span
        if c.span_mib and room and (c.span_mib + 1) * 2048 > min(room):
            raise ValueError(f"configuration {c.name!r}: span={c.span_mib} MiB and the 1 MiB "
                             f"data offset do not fit a member of {min(room) // 2048} MiB")
    if len({c.cid for c in cfgs}) != len(cfgs):
        raise ValueError("a configuration is listed twice")
    wls = [wl.parse(w) for w in workloads]
    if len({w.name for w in wls}) != len(wls):
        raise ValueError("a workload is listed twice")
    if not cfgs or not wls:
        raise ValueError("need at least one configuration and one workload")
    if sorted(set(ladder)) != list(ladder) or ladder[0] < 1:
        raise ValueError("the ladder must be increasing depths >= 1")
    only, ladders = dict(only or {}), dict(ladders or {})
    names, wnames = {c.name for c in cfgs}, {w.name for w in wls}
    for wname, cnames in only.items():
        if wname not in wnames or not set(cnames) <= names:
            raise ValueError(f"only: {wname!r} on {cnames}: not a workload and configurations "
                             "of the plan")
    for wname, lad in ladders.items():
        if wname not in wnames or not lad or sorted(set(lad)) != list(lad) or lad[0] < 1:
            raise ValueError(f"ladders: {wname!r}: a workload of the plan, increasing depths >= 1")
    p = Plan(cfgs, wls, list(ladder), refine, runtime, target_ms, auto_factor,
             disk_model, time_scale, disks, procs=procs, ramp=ramp, member_mb=member_mb,
             only=only, ladders=ladders)
    base = p.baseline
    if any(c.track for c in cfgs):
        geommod.geom_line(disk_model, time_scale)   # refuses models without a geometry
    if target_ms == "auto" and base is None and not procs:
        raise ValueError("--p90-ms auto needs a raid0 configuration (the baseline)")
    if base is not None:   # the baseline runs first (auto target, relative throughput)
        p.configs = [base] + [c for c in cfgs if c is not base]
    for c in p.configs:
        for w in wls:
            if w.name in only and c.name not in only[w.name]:
                continue
            p.jobs.append((c, w, wl.fio_args(w, c.geometry)))
    return p


def plan_text(p):
    """The plan file tools/bench/guest.sh reads (see its header)."""
    out = ["# raidlab bench plan (generated by tools/raidlab_lib/bench/plan.py)",
           f"set runtime {p.runtime}",
           f"set target {p.target_ms}",
           f"set auto_factor {p.auto_factor:g}",
           "set ladder " + " ".join(str(d) for d in p.ladder),
           f"set refine {p.refine}",
           f"set disk_model {p.disk_model}",
           f"set time_scale {p.time_scale}"]
    if p.procs:
        out += [f"set procs {p.procs}", f"set ramp {p.ramp}"]
    elif p.ramp:
        # every point's first seconds unmeasured (fio ramp_time): an open
        # loop's array settles at the new rate first (altmirror's cycle)
        out.append(f"set ramp {p.ramp}")
    if p.member_mb:
        out.append(f"set member_mb {p.member_mb}")
    cur = (p.ladder, p.refine)          # the guest's ladder and refinements
    for c in p.configs:
        if c.span_mib:
            out.append(f"span {c.cid} {c.span_mib}")
        out.append(f"config {c.cid} {c.kind} {c.level} {c.disks} {c.chunk_kib}"
                   + "".join(" " + w for w in c.opts))
        if c.track:
            out.append(f"geom {c.cid} {geommod.geom_line(p.disk_model, p.time_scale)}")
        if c.fail is not None:
            out.append(f"fail {c.cid} {c.fail}")
        for cc, w, args in p.jobs:
            if cc is not c:
                continue
            if p.procs:
                # run CID WID WS_MIB FIO-ARGS: PROCS processes, after a read
                # pass over the working set when there is one
                out.append(f"run {c.cid} {w.name} {w.ws_mib} " + " ".join(args))
            else:
                # a job with its own depths (an open loop: one) sets them
                if p.ladder_of(w) != cur:
                    cur = p.ladder_of(w)
                    out += ["set ladder " + " ".join(str(d) for d in cur[0]),
                            f"set refine {cur[1]}"]
                out.append(f"job {c.cid} {w.name} " + " ".join(args))
    return "\n".join(out) + "\n"


def describe(p):
    """A JSON-able description of the plan (written next to the results)."""
    return {
        "configs": [dict(name=c.name, id=c.cid, kind=c.kind, level=c.level, disks=c.disks,
                         chunk_kib=c.chunk_kib, data_cols=c.data_cols, opts=list(c.opts),
                         track=c.track, plog=dict(c.plog), fail=c.fail, span_mib=c.span_mib)
                    for c in p.configs],
        "workloads": [dict(name=w.name, size=w.size, mean_kib=w.mean_kib, read_pct=w.read_pct,
                           aligned=w.aligned, locality=w.locality, ws_mib=w.ws_mib,
                           span_mib=w.span_mib, rate_iops=w.rate_iops)
                      for w in p.workloads],
        "procs": p.procs, "ramp_s": p.ramp, "member_mb": p.member_mb,
        "ladder": p.ladder, "refine": p.refine, "runtime_s": p.runtime,
        "ladders": p.ladders,
        "p90_target_ms": p.target_ms, "auto_factor": p.auto_factor,
        "disk_model": p.disk_model, "time_scale": p.time_scale, "lab_disks": p.disks,
        "jobs": [dict(config=c.cid, workload=w.name, fio=args) for c, w, args in p.jobs],
    }
