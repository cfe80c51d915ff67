# SPDX-License-Identifier: GPL-2.0
"""Paper 000: Stodolsky, Holland, Courtright, Gibson, "A Redundant Disk Array
Architecture for Efficient Small Writes" (parity logging), CMU-CS-93-200.

Utilization models of sections 2-4, overheads of sections 2 and 4, the load
balance and reintegration latency of section 6 and the reliability of
section 7 (figure 20). All times are in milliseconds unless a name says
otherwise; the symbols are the paper's (figure 5):

    D data units per track        T tracks per cylinder   V cylinders per disk
    S average seek                R half a revolution     M single-cylinder seek
    H head switch                 K tracks buffered per region
    L log striping degree         A log/parity ratio      B regions per disk
    N disks in the array          C_L, C_P, C_D cylinders of log/parity/data
                                  per region

Preset (figure 12, IBM 0661 "Lightning"): 949 cylinders, 14 heads, 48
sectors of 512 bytes a track, 13.9 ms revolution, seek 2.0 + 0.01 d +
0.46 sqrt(d) ms where d excludes the destination cylinder (so M = seek(0) =
2.0 ms, the "2 ms min" of figure 12 and the 2 ms of section 5.2), 12.5 ms
average seek, 1.16 ms head switch; 22 disks, 2 KB data units (D = 12), about
100 regions per disk (section 2.1), K = 1, unstriped log (L = 1), A = 1.

Reproduced (see tests/tools/test_p000_parity_logging.py) and the remaining
discrepancies, none fitted away:

* Figure 13. Log writes (S + 3R)/12 = 2.78 ms as printed. The three
  cylinder-rate transfers come to 1.271 ms each against the paper's "about
  1.29 ms" (1.5 % low): the per-cylinder part (2RT + (T-1)H + M)/(DT) alone
  is 1.260 ms and the per-region seek and latency add 0.011 ms for
  C_L = V/B = 9.49 cylinders. No reading of the printed formulas with the
  figure 12 values gives 1.29; the nearest is the (T+1)H of the printed t_CP
  plus a 2.47 ms seek(1) single-cylinder seek, which contradicts section
  5.2's own 2 ms. The total, 6.59 ms, matches section 5.2's "6.6 ms", and
  the no-preread rate is 36.76 I/Os per disk per second against section
  10's 36.7.
* Figure 13 and section 5.2 treat the parity read and the parity write like
  the log read, as one sequential access of C cylinders. Section 3's t_CP
  instead stripes each over N-1 disks, adding (N-1)(S+R-M) per region
  (0.23 ms a small write for the preset: 1.50 ms each, not "about 1.29").
  ``Params.parity_stripe`` selects: 1 (default) is figure 13's accounting,
  ``0`` means N-L as in section 3. Our striped form uses (T-1)H per cylinder,
  as the per-subaccess expression does; the (T+1)H in the printed total t_CP
  is taken as a typo.
* The average of the seek curve over uniformly random cylinder pairs is
  12.70 ms, not figure 12's 12.5 ms; the model uses the stated 12.5 ms (with
  12.70 the log write term would be 2.80, not 2.78). ``avg_seek_ms=None``
  uses the curve.
* Section 2.3's space overheads "13.5 %" (A = 2) and "6.75 %" (A = 0.5) are
  (1 + A) x 4.5 %, a linearisation; the formula (1+A)/(N-L+A) it derives gives
  13.0 % and 6.98 % for the 22-disk, L = 1 array.
* Section 6: the model gives L = 0.105 N with t_z = t_rmw and 0.164 N with
  t_z = t_w; the paper prints 0.16 N for blind writes (t_rmw) and 0.11 N
  for the write-hit case (t_w): the labels are swapped in the paper (the
  smaller t_z must need the larger share of log disks).
* Figure 16: mirroring beats parity logging (blind writes) for D <= 11 in
  the model; the paper says for 13 or fewer, and its caption says parity
  logging is better from 13 on; the crossover is within a few hundredths of
  a millisecond at D = 12, so the 1.5 % of the first point decides it.
  Likewise section 5.1 has RAID 5 beating parity logging at D = 2; the
  model has parity logging ahead there by 0.9 % (79.9 vs 80.6 ms).
* Figure 20(b). The paper cites [Gibson93] for the single-spare model and
  prints no formula. ``mttdl_single_spare`` is our reconstruction as a
  Markov chain: one shared spare that can itself fail while idle; once the
  spare is used or lost a replacement takes MTTR_spare (72 h); a disk that
  fails while no spare is on hand waits half the replacement time on
  average (the residual of a fixed-length delivery), then is rebuilt in
  MTTR_disk. It gives 18,566.5 years (paper 18,568.4) and 389,713 years
  (paper 389,688), within 0.01 %. Years are 8766 hours (365.25 days), which
  is what the figure 20(a) values need.
* Not modelled: floating data and parity without preread (the paper gives
  no formula), figure 30's multiple-failure arrays.
"""
import math
import re
from dataclasses import dataclass, fields, replace

HOURS_PER_YEAR = 365.25 * 24


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Params:
    """Disk (figure 12), array and parity-logging parameters."""
    cylinders: int = 949            # V
    heads: int = 14                 # T
    sectors_per_track: int = 48
    sector_bytes: int = 512
    revolution_ms: float = 13.9
    seek_a: float = 2.0             # seek(d) = a + b d + c sqrt(d)
    seek_b: float = 0.01
    seek_c: float = 0.46
    avg_seek_ms: float = 12.5       # S; None: average of the seek curve
    head_switch_ms: float = 1.16    # H
    unit_bytes: int = 2048          # small write (and stripe unit) size
    disks: int = 22                 # N
    K: int = 1                      # tracks buffered per region
    L: int = 1                      # log striping degree
    A: float = 1.0                  # log/parity ratio C_L/C_P
    regions: int = 100              # B, regions per disk
    parity_stripe: int = 1          # disks per parity transfer; 0: N - L

    # -- derived ----------------------------------------------------------
    @property
    def V(self):
        return self.cylinders

    @property
    def T(self):
        return self.heads

    @property
    def track_bytes(self):
        return self.sectors_per_track * self.sector_bytes

    @property
    def D(self):
        return self.track_bytes / self.unit_bytes

    @property
    def R(self):
        return self.revolution_ms / 2.0

    @property
    def H(self):
        return self.head_switch_ms

    @property
    def M(self):
        """Single-cylinder seek: zero cylinders traversed besides the target."""
        return seek_time(self, 0)

    @property
    def S(self):
        if self.avg_seek_ms is None:
            return mean_seek_from_curve(self)
        return self.avg_seek_ms

    @property
    def N(self):
        return self.disks

    @property
    def B(self):
        return self.regions

    @property
    def P(self):
        """Disks each parity read or write of a region is spread over."""
        return self.parity_stripe or (self.disks - self.L)


FIGURE12 = Params()


def seek_time(p, dist):
    """Figure 12 seek curve; dist = cylinders traversed excluding the target."""
    return p.seek_a + p.seek_b * dist + p.seek_c * math.sqrt(dist)


def mean_seek_from_curve(p):
    """Mean seek between two uniformly random, distinct cylinders."""
    V = p.cylinders
    # |i - j| = d occurs 2 (V - d) times among the V (V - 1) ordered pairs.
    total = sum(2 * (V - d) * seek_time(p, d - 1) for d in range(1, V))
    return total / (V * (V - 1))


# --------------------------------------------------------------------------
# Sections 3-4: disk busy time per small write
# --------------------------------------------------------------------------

def t_w(p):
    """Small write without preread (section 3): S + (1 + 2/D) R."""
    return p.S + (1 + 2 / p.D) * p.R


def t_rmw(p):
    """Read-rotate-write of one unit (section 3): S + (3 + 2/D) R."""
    return p.S + (3 + 2 / p.D) * p.R


def nonredundant_busy(p, preread=True):
    """RAID 0 (section 4): (S + R) + 2R/D; never prereads."""
    return t_w(p)


def mirror_busy(p, preread=True):
    """Mirroring (section 4): two writes, 2S + (2 + 4/D) R."""
    return 2 * t_w(p)


def raid5_busy(p, preread=True):
    """RAID 5 (section 4): two read-rotate-writes, 2S + (6 + 4/D) R.

    Without the data preread the data access is a plain write and only the
    parity is read-rotate-written: 2S + (4 + 4/D) R.
    """
    return (t_rmw(p) if preread else t_w(p)) + raid5_extra(p)


def raid5_extra(p):
    """The parity read-rotate-write RAID 5 adds to every small write."""
    return t_rmw(p)


def floating_access(p, delay_units=0.76):
    """One floated read-rotate-write (section 4): S + (1 + 5.52/D) R + H.

    delay_units is Menon and Kasson's mean rotational delay to the nearest
    free unit, in data units (0.76).
    """
    return p.S + (1 + (4 + 2 * delay_units) / p.D) * p.R + p.H


def floating_busy(p, preread=True, delay_units=0.76):
    """Floating data and parity: 2S + (2 + 11.04/D) R + 2H (preread only)."""
    if not preread:
        return None
    return 2 * floating_access(p, delay_units)


# -- parity logging ---------------------------------------------------------

def region_cylinders(p):
    """(C_D, C_P, C_L) cylinders per region.

    A region is a band of V/B cylinders on each of the N disks, holding
    C_L = A C_P of log and C_D = (N - L - 1) C_P of data (sections 2.2-2.3),
    so (N - L + A) C_P = N V / B. For the preset C_L = C_P = V/B = 9.49.
    """
    cp = p.N * p.V / (p.B * (p.N - p.L + p.A))
    return (p.N - p.L - 1) * cp, cp, p.A * cp


def t_ktrack(p):
    """K-track log write on one cylinder (section 3): S + (2K+1)R + (K-1)H."""
    return p.S + (2 * p.K + 1) * p.R + (p.K - 1) * p.H


def t_sequential(p, cylinders, stripe=1):
    """Sequential transfer of `cylinders`, split over `stripe` disks.

    stripe (S + R) + C (2RT + (T-1) H) + (C - stripe) M: each subaccess
    seeks and waits once, then moves cylinder by cylinder. stripe = 1 is the
    paper's t_CL; stripe = N - 1 its t_CP (with (T-1)H, see module notes).
    """
    per_cyl = 2 * p.R * p.T + (p.T - 1) * p.H
    return stripe * (p.S + p.R) + cylinders * per_cyl + (cylinders - stripe) * p.M


@dataclass(frozen=True)
class PLBreakdown:
    """Parity-maintenance disk time per small write (figure 13), ms."""
    log_write: float
    log_read: float
    parity_read: float
    parity_write: float

    @property
    def total(self):
        return self.log_write + self.log_read + self.parity_read + self.parity_write


def parity_logging_overhead(p):
    """Amortized terms of t_amw after t_rmw (section 3, figure 13).

    One K-track log write every K D small writes; one reintegration (log
    read, parity read, parity write) every D T C_L small writes.
    """
    _, cp, cl = region_cylinders(p)
    writes_per_reint = p.D * p.T * cl
    parity = t_sequential(p, cp, p.P) / writes_per_reint
    return PLBreakdown(
        log_write=t_ktrack(p) / (p.K * p.D),
        log_read=t_sequential(p, cl, p.L) / writes_per_reint,
        parity_read=parity,
        parity_write=parity,
    )


def parity_logging_busy(p, preread=True):
    """t_amw: t_rmw (or t_w without preread) plus the amortized overhead."""
    return (t_rmw(p) if preread else t_w(p)) + parity_logging_overhead(p).total


SCHEMES = {
    "raid0": ("nonredundant (RAID 0)", nonredundant_busy),
    "mirror": ("mirroring (RAID 1)", mirror_busy),
    "raid5": ("RAID level 5", raid5_busy),
    "floating": ("floating data and parity", floating_busy),
    "plog": ("parity logging", parity_logging_busy),
}


def busy_time(scheme, p, preread=True):
    return SCHEMES[scheme][1](p, preread)


def ios_per_disk_second(busy_ms):
    """Figure 15: peak small writes per disk per second at 100 % utilization."""
    return None if busy_ms is None else 1000.0 / busy_ms


def first_d_where_plog_beats(p, other, preread=True, d_range=range(1, 65)):
    """Figure 16: smallest D (track size fixed) at which parity logging wins."""
    for d in d_range:
        q = replace(p, unit_bytes=p.track_bytes / d)
        if parity_logging_busy(q, preread) < busy_time(other, q, preread):
            return d
    return None


def random_bandwidths_kb_s(p):
    """Figure 3: KB/s of random unit, track and cylinder accesses."""
    kb = 1024.0
    unit = p.unit_bytes / kb / (t_w(p) / 1000)
    track = p.track_bytes / kb / ((p.S + 3 * p.R) / 1000)
    cyl = p.T * p.track_bytes / kb / ((p.S + p.R + 2 * p.R * p.T + (p.T - 1) * p.H) / 1000)
    return unit, track, cyl


# --------------------------------------------------------------------------
# Section 2: the back-of-envelope model
# --------------------------------------------------------------------------

def rough_parity_work(A=1.0):
    """Random small accesses of parity work per small write, section 2.3.

    Log tracks cost D/10 random accesses, cylinders T/2 x D/10; a log of A
    times the parity: (3/20 + 1/(10A)). A = 1 is section 2's TVD/4 per TVD.
    """
    return 3 / 20 + 1 / (10 * A)


RAID5_ROUGH_PARITY_WORK = 2.0   # parity read + parity write per small write


# --------------------------------------------------------------------------
# Storage and controller memory (sections 2.2-2.4, 4)
# --------------------------------------------------------------------------

def storage_overhead(scheme, p):
    """Fraction of raw capacity holding redundancy (or left free)."""
    if scheme == "raid0":
        return 0.0
    if scheme == "mirror":
        return 0.5
    if scheme == "raid5":
        return 1 / p.N
    if scheme == "floating":
        return (p.T + p.N - 1) / (p.T * p.N)
    if scheme == "plog":
        return (1 + p.A) / (p.N - p.L + p.A)
    raise KeyError(scheme)


def floating_map_bits_per_disk(p):
    """V D (T + (T-1) ceil(log2 DT)) bits of fault-tolerant map (section 4)."""
    D = round(p.D)
    return p.V * D * (p.T + (p.T - 1) * math.ceil(math.log2(D * p.T)))


def plog_buffer_tracks(p):
    """K B log track buffers plus one region's parity, VT/B tracks (2.2)."""
    return p.K * p.B + math.ceil(p.V * p.T / p.B)


def controller_memory_bytes(scheme, p):
    """Array controller memory needed beyond an ordinary controller's."""
    if scheme == "floating":
        return p.N * floating_map_bits_per_disk(p) / 8
    if scheme == "plog":
        return plog_buffer_tracks(p) * p.track_bytes
    return 0


def memory_cost_in_disks(p, memory_cost_ratio=20.0):
    """Parity-logging buffer cost, in disks, at memory_cost_ratio x disk $/B."""
    disk_bytes = p.V * p.T * p.track_bytes
    return controller_memory_bytes("plog", p) * memory_cost_ratio / disk_bytes


def optimal_regions(p):
    """B minimizing K B + T V / B tracks (section 2.4): sqrt(T V / K)."""
    return math.sqrt(p.T * p.V / p.K)


# --------------------------------------------------------------------------
# Section 6: balance and reintegration latency
# --------------------------------------------------------------------------

def balanced_log_fraction(p, preread=True):
    """L/N that balances an all-in-one-region workload (section 6)."""
    _, _, cl = region_cylinders(replace(p, L=1))
    tz = t_rmw(p) if preread else t_w(p)
    log_work = (p.T * cl / p.K) * t_ktrack(p) + t_sequential(p, cl, 1)
    return log_work / (p.D * p.T * cl * tz + log_work)


def expected_max_seek_fraction(n):
    """I_n: expected longest of n random seeks, as a fraction of the stroke."""
    prod = 1.0
    for k in range(1, n + 1):
        prod *= 2 * k / (2 * k + 1)
    return 1 - prod


def reintegration_latency(p, t_cpu=0.0):
    """T_load + T_cpu + T_write for one region (section 6, figure 19)."""
    _, cp, cl = region_cylinders(p)
    seek = p.S * (0.5 + 1.5 * expected_max_seek_fraction(p.N))
    per_cyl = 2 * p.R * p.T + (p.T - 1) * p.H + p.M
    t_load = seek + p.R + (cl / p.L + cp / p.N) * per_cyl - p.M
    t_write = seek + p.R + (cp / p.N) * per_cyl - p.M
    return t_load + t_cpu + t_write


def reintegration_period(p, preread=True):
    """Mean time between reintegrations of a saturated array: t_amw DTC_L / N."""
    _, _, cl = region_cylinders(p)
    return parity_logging_busy(p, preread) * p.D * p.T * cl / p.N


# --------------------------------------------------------------------------
# Section 7: reliability (figure 20)
# --------------------------------------------------------------------------

def mttdl_pool(n_per_group, groups, mttf, mttr):
    """MTTDL with a large pool of spares [Gibson93], hours.

    ((2N-1) MTTF MTTR + MTTF^2) / (G N (N-1) MTTR).
    """
    N = n_per_group
    return ((2 * N - 1) * mttf * mttr + mttf ** 2) / (groups * N * (N - 1) * mttr)


def mttdl_nonredundant(disks, mttf):
    return mttf / disks


def _absorption_time(rates, start):
    """Mean time to absorption of a CTMC; rates[s] = [(dest|None, rate)]."""
    states = sorted(rates)
    idx = {s: i for i, s in enumerate(states)}
    n = len(states)
    a = [[0.0] * n for _ in range(n)]
    b = [1.0] * n
    for s in states:
        i = idx[s]
        for dest, r in rates[s]:
            a[i][i] += r
            if dest is not None:
                a[i][idx[dest]] -= r
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[piv] = a[piv], a[c]
        b[c], b[piv] = b[piv], b[c]
        for r in range(n):
            if r != c and a[r][c]:
                f = a[r][c] / a[c][c]
                for k in range(c, n):
                    a[r][k] -= f * a[c][k]
                b[r] -= f * b[c]
    return b[idx[start]] / a[idx[start]][idx[start]]


def mttdl_single_spare(n_per_group, groups, mttf, mttr, mttr_spare):
    """MTTDL with one shared on-line spare, hours (our reconstruction).

    States: 0 all good, spare on hand; 1 a disk rebuilding onto the spare;
    2 all good, spare being replaced; 3 a disk failed with no spare. The idle
    spare fails at 1/MTTF (0 -> 2); 2 -> 0 at 1/MTTR_spare; a failure in
    state 3 waits MTTR_spare/2 on average before its rebuild starts. A
    second failure in the degraded group ((N-1)/MTTF) loses data.
    """
    lam = 1.0 / mttf
    total = n_per_group * groups
    loss = (n_per_group - 1) * lam
    rates = {
        0: [(1, total * lam), (2, lam)],
        1: [(2, 1.0 / mttr), (None, loss)],
        2: [(0, 1.0 / mttr_spare), (3, total * lam)],
        3: [(1, 2.0 / mttr_spare), (None, loss)],
    }
    return _absorption_time(rates, 0)


def reliability(hours, mttdl_hours):
    """R(t) = exp(-t / MTTDL)."""
    return math.exp(-hours / mttdl_hours)


def figure20(disks=22, mttf=300000.0, mttr=1.0, mttr_spare=None, p=FIGURE12):
    """Figure 20 rows for mirroring, parity logging and nonredundant arrays.

    mttr_spare=None: large spare pool (20a); else one spare (20b).
    Returns {name: dict(capacity, mttdl_hours, r5, r10)}.
    """
    def mttdl(n, g):
        if mttr_spare is None:
            return mttdl_pool(n, g, mttf, mttr)
        return mttdl_single_spare(n, g, mttf, mttr, mttr_spare)

    q = replace(p, disks=disks)
    rows = {
        "mirror": (0.5, mttdl(2, disks // 2)),
        "plog": (1 - storage_overhead("plog", q), mttdl(disks, 1)),
        "raid0": (1.0, mttdl_nonredundant(disks, mttf)),
    }
    out = {}
    for name, (cap, m) in rows.items():
        out[name] = dict(capacity=cap, mttdl_hours=m,
                         r5=reliability(5 * HOURS_PER_YEAR, m),
                         r10=reliability(10 * HOURS_PER_YEAR, m))
    return out


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

_OVERRIDES = {
    "cylinders": int, "heads": int, "sectors_per_track": int,
    "sector_bytes": int, "revolution_ms": float, "seek_a": float,
    "seek_b": float, "seek_c": float, "head_switch_ms": float,
    "unit_bytes": int, "disks": int, "K": int, "L": int, "A": float,
    "regions": int, "parity_stripe": int,
}


def _params_from_args(args):
    kw = {}
    for f in fields(Params):
        v = getattr(args, f.name, None)
        if v is not None:
            kw[f.name] = v
    if args.seek_from_curve:
        kw["avg_seek_ms"] = None
    return replace(FIGURE12, **kw)


def _fmt(x, spec):
    if x is None:
        return "-".rjust(int(re.match(r"\d*", spec).group() or 0))
    return format(x, spec)


def _years(h):
    y = h / HOURS_PER_YEAR
    return f"{h:,.0f} hours" if y < 10 else f"{y:,.1f} years"


def _run(args):
    p = _params_from_args(args)
    schemes = args.scheme or list(SCHEMES)
    print(f"Disk: V={p.V} T={p.T} D={p.D:g} S={p.S:.2f} R={p.R:.3f} "
          f"M={p.M:.2f} H={p.H:.2f} ms; N={p.N} K={p.K} L={p.L} A={p.A:g} "
          f"B={p.B} parity stripe={p.P}")
    print()
    hdr = (f"{'scheme':26} {'busy ms':>8} {'IO/s/dk':>8} {'no-pre ms':>9} "
           f"{'IO/s/dk':>8} {'space ovh':>9} {'ctrl mem KB':>11}")
    print(hdr)
    print("-" * len(hdr))
    for s in schemes:
        b1, b0 = busy_time(s, p, True), busy_time(s, p, False)
        print(f"{SCHEMES[s][0]:26} {_fmt(b1, '8.2f')} "
              f"{_fmt(ios_per_disk_second(b1), '8.1f')} {_fmt(b0, '9.2f')} "
              f"{_fmt(ios_per_disk_second(b0), '8.1f')} "
              f"{storage_overhead(s, p):9.1%} "
              f"{controller_memory_bytes(s, p) / 1024:11,.0f}")
    if "plog" in schemes:
        o = parity_logging_overhead(p)
        _, cp, cl = region_cylinders(p)
        print()
        print(f"Parity logging overhead per small write (figure 13), "
              f"C_L={cl:.2f} C_P={cp:.2f} cylinders:")
        for name in ("log_write", "log_read", "parity_read", "parity_write"):
            v = getattr(o, name)
            print(f"  {name.replace('_', ' '):13} {v:6.3f} ms  {v / o.total:5.1%}")
        print(f"  {'total':13} {o.total:6.3f} ms   (RAID 5 adds "
              f"{raid5_extra(p):.2f} ms)")
        print(f"  reintegration latency {reintegration_latency(p) / 1000:.2f} s; "
              f"balanced log striping L/N = {balanced_log_fraction(p, True):.3f} "
              f"(preread), {balanced_log_fraction(p, False):.3f} (no preread)")
        print(f"  buffer {plog_buffer_tracks(p)} tracks = "
              f"{memory_cost_in_disks(p):.0%} of a disk at 20x cost/byte; "
              f"optimal B = {optimal_regions(p):.0f}")
    for title, spare in (("large pool of spares", None),
                         (f"single spare, {args.spare_hours:g} h replacement",
                          args.spare_hours)):
        rows = figure20(p.N, args.mttf, args.mttr, spare, p)
        print()
        print(f"Reliability, {title} (figure 20), MTTF {args.mttf:,.0f} h, "
              f"MTTR {args.mttr:g} h:")
        print(f"  {'':14} {'capacity':>8} {'MTTDL':>20} {'5 yr':>9} {'10 yr':>9}")
        for s in ("mirror", "plog", "raid0"):
            r = rows[s]
            print(f"  {s:14} {r['capacity']:8.1%} {_years(r['mttdl_hours']):>20} "
                  f"{r['r5']:9.3%} {r['r10']:9.3%}")
    return 0


def register(subparsers):
    sp = subparsers.add_parser(
        "p000", help="parity logging (Stodolsky et al. 1993)",
        description="Small-write disk busy time, overheads and reliability "
                    "of nonredundant, mirrored, RAID 5, floating data/parity "
                    "and parity logging arrays; defaults are figure 12.")
    sp.add_argument("--scheme", action="append", choices=list(SCHEMES),
                    help="scheme(s) to show (repeatable; default all)")
    g = sp.add_argument_group("disk (figure 12 defaults)")
    for name in ("cylinders", "heads", "sectors_per_track", "sector_bytes",
                 "revolution_ms", "seek_a", "seek_b", "seek_c",
                 "head_switch_ms"):
        g.add_argument("--" + name.replace("_", "-"), dest=name,
                       type=_OVERRIDES[name], metavar="X",
                       help=f"the disk's {name.replace('_', ' ')} (default: figure 12's)")
    g.add_argument("--avg-seek-ms", dest="avg_seek_ms", type=float, metavar="X",
                   help="average seek S (default 12.5)")
    g.add_argument("--seek-from-curve", action="store_true",
                   help="take S as the mean of the seek curve instead")
    g = sp.add_argument_group("array and parity logging")
    g.add_argument("--unit-bytes", dest="unit_bytes", type=int, metavar="X",
                   help="small write size (default 2048)")
    g.add_argument("--disks", "-N", dest="disks", type=int, metavar="N",
                   help="disks in the array (default: figure 12's)")
    g.add_argument("-K", dest="K", type=int, help="tracks per log write")
    g.add_argument("-L", dest="L", type=int, help="log striping degree")
    g.add_argument("-A", dest="A", type=float, help="log/parity ratio")
    g.add_argument("-B", "--regions", dest="regions", type=int,
                   help="regions per disk")
    g.add_argument("--parity-stripe", dest="parity_stripe", type=int,
                   metavar="W", help="disks per parity transfer (default 1 "
                   "as in figure 13; 0 = N-L as in section 3)")
    g = sp.add_argument_group("reliability (figure 20)")
    g.add_argument("--mttf", type=float, default=300000.0, help="disk MTTF, h")
    g.add_argument("--mttr", type=float, default=1.0, help="disk MTTR, h")
    g.add_argument("--spare-hours", type=float, default=72.0,
                   help="single-spare replacement time, h")
    sp.set_defaults(func=_run)
