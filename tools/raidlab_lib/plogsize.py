# SPDX-License-Identifier: GPL-2.0
"""plog's capacity without a kernel: rl_plog_layout_init() of
dm-raidlab/schemes/plog/plog_layout.c, the same integer arithmetic, so that
`raidlab create` and `raidlab size` know a parity-logging array's length
before its table exists. The VM test 97-ops compares it with the
capacity_sectors the kernel prints, over several shapes.
"""
import math
import re

DEF_TRACK = 256             # plog.h: RL_PLOG_DEF_TRACK
DEF_K = 1                   # RL_PLOG_DEF_K
DEF_A = 1000                # RL_PLOG_DEF_A (thousandths)
MAX_K = 64
MAX_SEG = 8192
MAX_REGIONS = 65536
MAX_SLICE = 131072
MAX_RATIO = 64000           # RL_PLOG_MAX_RATIO (thousandths)
SEG_HDR_BYTES = 40          # sizeof(struct rl_plog_seg_disk), plog.h
REC_BYTES = 16              # sizeof(struct rl_plog_rec_disk)
# the Figure 12 disk of rl_plog_default_l(), microseconds
FIG12 = dict(s=12500, r=6950, h=1160, m=2000, t=14, d=12, k=1, cl=10)


class PlogSizeError(ValueError):
    pass


def default_l(n):
    f = FIG12
    t_rmw = f["s"] + (3 * f["d"] + 2) * f["r"] // f["d"]
    t_ktrack = f["s"] + (2 * f["k"] + 1) * f["r"] + (f["k"] - 1) * f["h"]
    t_cl = f["s"] + (2 * f["t"] * f["cl"] + 1) * f["r"] + (f["t"] - 1) * f["h"] * f["cl"] + \
        (f["cl"] - 1) * f["m"]
    log = f["t"] * f["cl"] // f["k"] * t_ktrack + t_cl
    data = f["d"] * f["t"] * f["cl"] * t_rmw
    if n < 3:
        return 1
    l_ = (n * log * 2 + data + log) // (2 * (data + log))
    return min(max(l_, 1), n - 2)


def log_ratio_milli(word):
    """The table's log_ratio word ("1", "0.5", "2.25") in thousandths, as
    rl_parse_log_ratio() reads it: digits, then at most three places."""
    m = re.fullmatch(r"([0-9]+)(?:\.([0-9]{1,3}))?", word)
    milli = int(m.group(1)) * 1000 + int((m.group(2) or "").ljust(3, "0")) if m else 0
    if not 0 < milli <= MAX_RATIO:
        raise PlogSizeError(f"Invalid log_ratio {word!r}: a decimal such as 1, 0.5 or 2.25, "
                            "at most 64")
    return milli


def _hdr_sectors(m):
    """Header sectors of a segment with @m records (rl_plog_hdr_sectors())."""
    return -(-(SEG_HDR_BYTES + REC_BYTES * m) // 512)


def max_recs(seg_sectors):
    """(records, header sectors) of a segment: the most one-sector records
    that fit with their header, at most 65535 (rl_plog_max_recs())."""
    lo, hi = 1, seg_sectors
    while hi - lo > 1:
        mid = lo + (hi - lo) // 2
        if _hdr_sectors(mid) + mid <= seg_sectors:
            lo = mid
        else:
            hi = mid
    lo = min(lo, 0xFFFF)
    return lo, _hdr_sectors(lo)


def _rup(x, m):
    return (x + m - 1) // m * m


def _rdown(x, m):
    return x // m * m


def capacity(n, chunk, member_sectors, opts=()):
    """The largest length of a plog array of @n members of @member_sectors
    data sectors each (after the metadata's data offset), or PlogSizeError
    with the kernel's reason. @opts: the table's plog options as pairs."""
    o = {k.lower(): v for k, v in opts}
    c = chunk
    if c <= 0 or c & (c - 1):
        raise PlogSizeError("plog: chunk size must be a power of two")
    if c > 0x10000:
        raise PlogSizeError("plog: chunk size must be at most 32 MiB")
    if n < 3:
        raise PlogSizeError("plog: parity logging needs at least three members")
    f = int(o.get("faults", 1))
    l_ = int(o.get("log_disks", 0)) or default_l(n)
    if f == 1 and (l_ >= n or n - l_ < 2):
        raise PlogSizeError("plog: log_disks must leave at least two data members")
    if f == 2 and (l_ >= n or n < 2 * l_ + 4):
        raise PlogSizeError("plog: faults 2 needs N >= 2 * log_disks + 4 members")
    nlog = f * l_
    g = n - nlog
    cols = g - f
    a_milli = log_ratio_milli(o["log_ratio"]) if "log_ratio" in o else DEF_A
    k = int(o.get("log_tracks", DEF_K))
    ts = int(o.get("track_sectors", DEF_TRACK))
    regions = int(o.get("regions", 0))
    if k > MAX_K or ts % 8 or (ts % c and c % ts) or k * ts > MAX_SEG:
        raise PlogSizeError("plog: log_tracks and track_sectors out of range")
    seg = k * ts
    recs, hdr = max_recs(seg)
    if g < 2 or recs < 1 or seg < hdr + c:       # plog_layout()'s check
        raise PlogSizeError("plog: a log segment cannot hold a chunk's record")
    cycle = n // math.gcd(n, nlog)
    avail = member_sectors // c
    tu = ts // c if ts >= c else 1
    su = g * tu // math.gcd(g, tu)
    gu = seg // math.gcd(c, seg)
    logs = cycle * nlog // n
    datas = cycle - logs

    def fit(b):
        cycles = b // cycle
        if not cycles:
            return None
        s = (avail // cycles) * 1000 * l_ // (datas * 1000 * l_ + logs * a_milli)
        s = _rdown(s, su)
        while s >= su:
            gl = (a_milli * s + 500 * l_) // (1000 * l_)
            gl = max(_rup(gl, gu), gu)
            used = cycles * ((cycle - logs) * s + logs * gl)
            if used <= avail and s <= 0xFFFFFFFF and gl <= 0xFFFFFFFF:
                return used, s
            s -= su
        return None

    if regions:
        b0 = b_lo = b_hi = _rup(regions, cycle)
    else:
        b0 = math.isqrt(member_sectors // ts // k)
        bmin = -(-member_sectors // MAX_SLICE)
        b0 = max(b0, bmin)
        b_lo = max(_rup(b0 * 9 // 10, cycle), _rup(bmin, cycle))
        b_hi = (b0 * 11 + 9) // 10
        b_lo = min(b_lo, _rdown(MAX_REGIONS, cycle))
        b_hi = min(max(b_hi, b_lo), _rdown(MAX_REGIONS, cycle))
    best = None                 # (waste, dist, b, s)
    for b in range(b_lo, b_hi + 1, cycle):
        r = fit(b)
        if r is None:
            continue
        key = (avail - r[0], abs(b - b0))
        if best is None or key < best[:2]:
            best = (key[0], key[1], b, r[1])
    if best is None or best[2] > MAX_REGIONS:
        raise PlogSizeError("plog: the members are too small for this parity-log layout")
    _, _, b, s = best
    return b * s * cols * c
