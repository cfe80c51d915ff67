# SPDX-License-Identifier: GPL-2.0
"""Geometry lines (the dm-raidlab ``geom`` message) for dm-hddsim presets.

Numbers from Documentation/dm-hddsim.rst's preset table (dm-hddsim/args.c):
the zoned ones, st39133 and modern7200, as ``zones=first_cyl:spt/...``; a disk
of another model is measured with tools/calib/hddcalib. dm-hddsim's ``time_scale N/M`` makes emulated
time run N/M times as fast as wall time, so the disk the tracker sees (wall
clock) has every time of the preset multiplied by M/N
(tests/vm/70-tracker.sh does the same for 1/5). The line format is
Documentation/raidlab-sched.rst's.
"""
from fractions import Fraction

PRESETS = {
    "lightning": dict(period_ns=13_900_000, cylinders=949, heads=14, spt=48, track_skew=5,
                      cyl_skew=9, head_switch_ns=1_160_000, seek_a_ns=2_000_000,
                      seek_b_ns=10_000, seek_c_ns=460_000),
    "eagle": dict(period_ns=16_600_000, cylinders=840, heads=20, spt=64, track_skew=4,
                  cyl_skew=22, head_switch_ns=1_000_000, seek_a_ns=4_927_000,
                  seek_b_ns=17_720, seek_c_ns=525_000),
    "st39133": dict(period_ns=6_000_000, cylinders=10_000, heads=6,
                    zones=((0, 334), (2500, 302), (5000, 270), (7500, 238)), track_skew=34,
                    cyl_skew=35, head_switch_ns=600_000, seek_a_ns=541_000, seek_b_ns=459,
                    seek_c_ns=58_740),
    "modern7200": dict(period_ns=8_333_333, cylinders=200_000, heads=4,
                       zones=tuple((25_000 * i, 2000 - 125 * i) for i in range(8)),
                       track_skew=193, cyl_skew=200, head_switch_ns=800_000,
                       seek_a_ns=800_000, seek_b_ns=20, seek_c_ns=25_000),
}
TIME_KEYS = ("period_ns", "head_switch_ns", "seek_a_ns", "seek_b_ns", "seek_c_ns")
ORDER = ("period_ns", "cylinders", "heads", "spt", "zones", "track_skew", "cyl_skew",
         "head_switch_ns", "seek_a_ns", "seek_b_ns", "seek_c_ns", "ref")
PERIOD_MIN, PERIOD_MAX = 100_000, 1_000_000_000     # the geom message's range


def time_scale(ts):
    """dm-hddsim's ``N`` or ``N/M`` as a Fraction (emulated / wall)."""
    n, slash, m = str(ts).partition("/")
    if not n.isdigit() or (slash and not m.isdigit()) or int(n) == 0 or (m and int(m) == 0):
        raise ValueError(f"time scale {ts!r}: use N or N/M")
    return Fraction(int(n), int(m or 1))


def capacity_sectors(preset):
    """The emulated disk's sectors (the sum over its zones of cylinders x
    heads x sectors per track), or 0 for a preset without a geometry."""
    g = PRESETS.get(preset)
    if g is None:
        return 0
    if "zones" not in g:
        return g["cylinders"] * g["heads"] * g["spt"]
    z = list(g["zones"]) + [(g["cylinders"], 0)]
    return sum((z[i + 1][0] - c) * g["heads"] * spt for i, (c, spt) in enumerate(z[:-1]))


def geometry(preset, ts="1", ref=0):
    """The preset's geometry in wall-clock ns at time scale ts (a dict)."""
    if preset not in PRESETS:
        raise ValueError(f"no geometry for disk model {preset!r}: the bench knows "
                         + ", ".join(PRESETS) + " (measure others with tools/calib/hddcalib)")
    slow = 1 / time_scale(ts)          # wall ns per emulated ns
    g = dict(PRESETS[preset])
    for k in TIME_KEYS:
        g[k] = int(round(g[k] * slow))
    if not PERIOD_MIN <= g["period_ns"] <= PERIOD_MAX:
        raise ValueError(f"{preset} at time_scale {ts}: period {g['period_ns']} ns is outside "
                         f"the tracker's {PERIOD_MIN}..{PERIOD_MAX} ns")
    g["ref"] = ref
    return g


def geom_line(preset, ts="1", ref=0):
    """``period_ns=..,cylinders=..,...,ref=..`` for ``dmsetup message D 0 geom M LINE``."""
    g = geometry(preset, ts, ref)
    if "zones" in g:
        g["zones"] = "/".join(f"{c}:{spt}" for c, spt in g["zones"])
    return ",".join(f"{k}={g[k]}" for k in ORDER if k in g)
