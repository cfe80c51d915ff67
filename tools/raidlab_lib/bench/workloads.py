# SPDX-License-Identifier: GPL-2.0
"""Workloads of ``raidlab bench``: names, request-size distributions and the
fio options that produce them.

A workload name is ``SIZE-MIX[-OPTION...]``:

SIZE
  ``ind``        individual requests: one chunk (Chen et al.'s "individual
                 block", one track there);
  ``fs``         full-stripe requests: one chunk on every data column of the
                 array under test (so its size depends on the array);
  ``exp<N>k``    exponential sizes of mean N KiB (Chen's small requests,
                 mean 6 KiB in Fig. 9), as a fio ``bssplit`` in 1 KiB steps;
  ``norm<N>k``   normal sizes of mean N KiB and standard deviation N/3 KiB
                 (Chen's large requests, mean 1.5 MB in Fig. 9), as a
                 ``bssplit`` in one-chunk steps;
  ``airline``    paper 000 Fig. 26: the airline-reservation mix (82 % reads
                 of 1/2/4/24 KiB, writes of 1/8/24 KiB); MIX is implied and
                 must be left out (``airline`` or ``airline-ua``);
  ``<N>k``       fixed requests of N KiB (1..1024), aligned on N KiB (paper
                 000's small writes: ``4k-w``, ``2k-w``);
  ``<N>b``       fixed requests of N bytes (a multiple of 512 below 1 MiB),
                 aligned on N bytes (paper 002 Fig. 5's 512-byte I/O:
                 ``512b-r``).
MIX
  ``r``          reads only; ``w`` writes only; ``rNN`` NN % reads.
OPTION
  ``ua``         unaligned: requests start on any 4 KiB boundary (default:
                 aligned, requests start on a chunk boundary, full-stripe and
                 normal-size requests on a stripe boundary);
  ``locXxY``     x-y locality: X % of the accesses go to Y % of the space
                 (fio ``random_distribution=zoned``);
  ``ws<N>m``     working set: only the first N MiB of the array (fio
                 ``size``), written once sequentially before the measured
                 run to warm plog's data cache (paper 000's "data cache
                 hit" case);
  ``span<N>m``   only the first N MiB of the array (fio ``size``), nothing
                 written first: a data set of that size, or with a third
                 of it paper 002's seek locality index 3 (section 4.2);
  ``poisson<N>`` open loop: requests arrive as a Poisson process of N per
                 second over the whole array (fio ``rate_iops`` with
                 ``rate_process=poisson``; reads and writes each at their
                 share of N), whatever the responses; the ladder's depth
                 is then only the most that may be outstanding (paper 002
                 section 4.1 and paper 003's arrival-rate curves: the
                 response time against the rate, and the highest rate
                 the array sustains).

Examples: ``ind-r``, ``fs-w``, ``exp6k-r50-ua``, ``norm1536k-r0-ua``,
``ind-r-loc80x20``, ``airline``, ``4k-w``, ``4k-w-ws32m``,
``4k-r-poisson200``, ``512b-r50-span512m``.
"""
import math
import re
from dataclasses import dataclass, field

KIB = 1024
# Airline reservation workload, paper 000 Figure 26: (op, % of workload, KiB)
AIRLINE = [("r", 20, 1), ("r", 20, 2), ("r", 33, 4), ("r", 9, 24),
           ("w", 9, 1), ("w", 7, 8), ("w", 2, 24)]
UNALIGNED_KIB = 4
BSSPLIT_MAX = 64          # fio's limit on bssplit entries


@dataclass(frozen=True)
class Geometry:
    """The array a workload runs on: chunk size and data columns."""
    chunk_kib: int
    data_cols: int

    @property
    def stripe_kib(self):
        return self.chunk_kib * self.data_cols


@dataclass
class Workload:
    name: str
    size: str                 # ind | fs | exp | norm | airline | fixed
    mean_kib: float = 0.0     # exp / norm; fixed: the request size
    read_pct: int = 100
    aligned: bool = True
    locality: tuple = None    # (x, y): x % of accesses to y % of the space
    ws_mib: int = 0           # working set (first MiB of the array), 0: all
    span_mib: int = 0         # requests over the first MiB only, 0: all
    rate_iops: int = 0        # open loop: Poisson arrivals a second, 0: closed loop
    notes: list = field(default_factory=list)

    @property
    def kind(self):
        """Chen's classes: individual/small or full-stripe/large."""
        return "large" if self.size in ("fs", "norm") else "small"


def parse(name):
    """Parse a workload name (see the module doc); ValueError if bad."""
    parts = name.split("-")
    head = parts.pop(0)
    w = Workload(name=name, size="")
    m = re.fullmatch(r"(ind|fs|airline|exp(\d+(?:\.\d+)?)k|norm(\d+)k|(\d+)k|(\d+)b)", head)
    if not m:
        raise ValueError(f"workload {name!r}: size must be ind, fs, expNk, normNk, Nk, Nb "
                         "or airline")
    if m.group(5):
        w.size, w.mean_kib = "fixed", int(m.group(5)) / KIB
        if int(m.group(5)) % 512 or not 512 <= int(m.group(5)) < 1024 * KIB:
            raise ValueError(f"workload {name!r}: a size in bytes is a multiple of 512 "
                             "below 1 MiB")
    elif m.group(4):
        w.size, w.mean_kib = "fixed", float(m.group(4))
        if not 1 <= w.mean_kib <= 1024:
            raise ValueError(f"workload {name!r}: fixed size must be 1..1024 KiB")
    elif head.startswith("exp"):
        w.size, w.mean_kib = "exp", float(m.group(2))
    elif head.startswith("norm"):
        w.size, w.mean_kib = "norm", float(m.group(3))
    else:
        w.size = head
    if w.size in ("exp", "norm") and w.mean_kib <= 0:
        raise ValueError(f"workload {name!r}: mean must be positive")
    if w.size == "airline":
        w.read_pct = sum(p for op, p, _ in AIRLINE if op == "r")
    else:
        if not parts:
            raise ValueError(f"workload {name!r}: missing mix (r, w or rNN)")
        mix = parts.pop(0)
        mm = re.fullmatch(r"r(\d{1,3})?|w", mix)
        if not mm:
            raise ValueError(f"workload {name!r}: mix must be r, w or rNN, not {mix!r}")
        w.read_pct = 0 if mix == "w" else int(mm.group(1) or 100)
        if w.read_pct > 100:
            raise ValueError(f"workload {name!r}: read % above 100")
    for opt in parts:
        lm = re.fullmatch(r"loc(\d+)x(\d+)", opt)
        wm = re.fullmatch(r"ws(\d+)m", opt)
        sm = re.fullmatch(r"span(\d+)m", opt)
        pm = re.fullmatch(r"poisson(\d+)", opt)
        if pm:
            if w.rate_iops or not 1 <= int(pm.group(1)) <= 1_000_000:
                raise ValueError(f"workload {name!r}: one Poisson rate of 1..1000000 a second")
            w.rate_iops = int(pm.group(1))
        elif sm:
            if w.span_mib or w.ws_mib or not 1 <= int(sm.group(1)) <= 65536:
                raise ValueError(f"workload {name!r}: one span (not with ws) of 1..65536 MiB")
            w.span_mib = int(sm.group(1))
        elif wm:
            if w.ws_mib or w.span_mib or not 1 <= int(wm.group(1)) <= 65536:
                raise ValueError(f"workload {name!r}: one working set of 1..65536 MiB")
            w.ws_mib = int(wm.group(1))
        elif opt == "ua":
            w.aligned = False
        elif lm:
            x, y = int(lm.group(1)), int(lm.group(2))
            if not (0 < x < 100 and 0 < y < 100):
                raise ValueError(f"workload {name!r}: locality needs 0 < x, y < 100")
            w.locality = (x, y)
        else:
            raise ValueError(f"workload {name!r}: unknown option {opt!r}")
    return w


# ------------------------------------------------------------ size splits
def _percentages(weights):
    """Integer percentages (largest remainder) of positive weights, sum 100."""
    total = sum(weights)
    raw = [100.0 * x / total for x in weights]
    pct = [int(math.floor(r)) for r in raw]
    order = sorted(range(len(raw)), key=lambda i: raw[i] - pct[i], reverse=True)
    for i in order[:100 - sum(pct)]:
        pct[i] += 1
    return pct


def _split(sizes_kib, weights):
    """[(size KiB, percent)] with zero-percent entries dropped."""
    pct = _percentages(weights)
    return [(s, p) for s, p in zip(sizes_kib, pct) if p > 0]


def exp_split(mean_kib, step_kib=1, cap=8.0):
    """Exponential sizes of the given mean, rounded to the nearest step:
    size k*step takes the probability mass of ((k-1/2)step, (k+1/2)step],
    the first bin also takes [0, step/2] and the last the tail beyond
    ``cap`` means."""
    kmax = max(2, int(round(cap * mean_kib / step_kib)))
    cdf = lambda x: 1.0 - math.exp(-x / mean_kib)  # noqa: E731
    sizes, weights = [], []
    for k in range(1, kmax + 1):
        lo = 0.0 if k == 1 else (k - 0.5) * step_kib
        hi = math.inf if k == kmax else (k + 0.5) * step_kib
        sizes.append(k * step_kib)
        weights.append((1.0 if hi == math.inf else cdf(hi)) - cdf(lo))
    return _split(sizes, weights)


def norm_split(mean_kib, sd_kib, step_kib):
    """Normal sizes rounded to the nearest step, truncated to [step, mean+4sd]
    (the mass below one step goes to the first bin)."""
    phi = lambda x: 0.5 * (1.0 + math.erf((x - mean_kib) / (sd_kib * math.sqrt(2))))  # noqa: E731
    kmax = max(1, int(math.ceil((mean_kib + 4 * sd_kib) / step_kib)))
    sizes, weights = [], []
    for k in range(1, kmax + 1):
        lo = -math.inf if k == 1 else (k - 0.5) * step_kib
        hi = math.inf if k == kmax else (k + 0.5) * step_kib
        sizes.append(k * step_kib)
        weights.append((1.0 if hi == math.inf else phi(hi)) - (0.0 if lo == -math.inf else phi(lo)))
    return _split(sizes, weights)


def split_mean(split):
    return sum(s * p for s, p in split) / sum(p for _, p in split)


def bssplit(split):
    return ":".join(f"{s}k/{p}" for s, p in split)


def airline_splits():
    """(read split, write split) of paper 000 Fig. 26, each summing to 100."""
    reads = [(s, p) for op, p, s in AIRLINE if op == "r"]
    writes = [(s, p) for op, p, s in AIRLINE if op == "w"]
    return (_split([s for s, _ in reads], [p for _, p in reads]),
            _split([s for s, _ in writes], [p for _, p in writes]))


# ------------------------------------------------------------ fio options
def fio_args(w, geo):
    """fio options (a list of --key=value words, no spaces) for workload w on
    an array of geometry geo; with rw, sizes, alignment and locality."""
    args = []
    if w.read_pct == 100:
        args.append("--rw=randread")
    elif w.read_pct == 0:
        args.append("--rw=randwrite")
    else:
        args += ["--rw=randrw", f"--rwmixread={w.read_pct}"]
    chunk, stripe = geo.chunk_kib, geo.stripe_kib
    if w.size == "ind":
        args.append(f"--bs={chunk}k")
        align = chunk
    elif w.size == "fs":
        args.append(f"--bs={stripe}k")
        align = stripe
    elif w.size == "exp":
        sp = exp_split(w.mean_kib)
        args.append(f"--bssplit={bssplit(sp)}")
        align = chunk
    elif w.size == "norm":
        sp = norm_split(w.mean_kib, w.mean_kib / 3.0, chunk)
        if len(sp) > BSSPLIT_MAX:
            raise ValueError(f"{w.name}: {len(sp)} bssplit entries (fio allows {BSSPLIT_MAX})")
        args.append(f"--bssplit={bssplit(sp)}")
        align = stripe
    elif w.size == "airline":
        r, wr = airline_splits()
        args.append(f"--bssplit={bssplit(r)},{bssplit(wr)}")
        align = UNALIGNED_KIB      # "natural boundaries" approximated by 4 KiB
    elif w.size == "fixed":
        args.append(f"--bs={_kib_word(w.mean_kib)}")
        align = w.mean_kib
    else:
        raise ValueError(w.size)
    if not w.aligned:
        align = min(UNALIGNED_KIB, align)
    args.append(f"--blockalign={_kib_word(align)}")
    if w.ws_mib or w.span_mib:
        args.append(f"--size={w.ws_mib or w.span_mib}m")
    if w.locality:
        x, y = w.locality
        args.append(f"--random_distribution=zoned:{x}/{y}:{100 - x}/{100 - y}")
    if w.rate_iops:
        args += rate_args(w)
    return args


def _kib_word(kib):
    """A size for fio: N KiB as ``Nk``, a part of one in bytes (``512``)."""
    return f"{kib:g}k" if kib == int(kib) else str(round(kib * KIB))


def rate_args(w):
    """fio's open-loop options: Poisson arrivals at w.rate_iops a second,
    split between reads and writes by the mix (fio rates each direction on
    its own: ``rate_iops=R,W``)."""
    r = round(w.rate_iops * w.read_pct / 100)
    wr = w.rate_iops - r
    return [f"--rate_iops={r},{wr}", "--rate_process=poisson"]


def request_kib(w, geo):
    """Mean request size in KiB (for reporting)."""
    if w.size == "ind":
        return float(geo.chunk_kib)
    if w.size == "fs":
        return float(geo.stripe_kib)
    if w.size == "fixed":
        return w.mean_kib
    if w.size == "exp":
        return split_mean(exp_split(w.mean_kib))
    if w.size == "norm":
        return split_mean(norm_split(w.mean_kib, w.mean_kib / 3.0, geo.chunk_kib))
    r, wr = airline_splits()
    return (w.read_pct * split_mean(r) + (100 - w.read_pct) * split_mean(wr)) / 100.0
