# SPDX-License-Identifier: GPL-2.0
"""Mirrored layouts with failed disks: RAID-10 against chained declustering
(Hsiao and DeWitt, "Chained Declustering: A New Availability Strategy for
Multiprocessor Database Machines", 1990), the mirrored baselines of paper
004 (Mogi and Kitsuregawa, "Hot Mirroring", section 4: "Both naive
mirrored disk array and data floated mirrored disk array adopt the chained
declustering method").

A bottleneck model of throughput. Logical requests fall uniformly on the
array's chunks, a fraction r of them reads, the rest writes; every disk
serves at the same rate. Throughput is bounded by the busiest disk, so the
ratio of degraded to healthy throughput is the busiest disk's load healthy
over its load degraded. Loads are exact fractions: disk accesses per
logical request.

RAID-10, n disks in mirror sets of Dm (md's near layout with Dm copies when
Dm divides n): a request falls on a set with probability Dm/n; a read goes
to one survivor of the set (spread evenly), a write to every survivor. With
one disk of a set failed its partners carry Dm/(Dm - 1) of the set's reads:
random reads keep (Dm - 1)/Dm of their throughput, 0.5 for two copies.

Chained declustering, n disks: partition i (a 1/n share of the chunks) has
its primary copy on disk i and its backup on disk i + 1. After failures a
run of L survivors serves L + 1 partitions, and the survivor k steps into
the run serves k/L of its own partition's reads, the rest going to its
backup (dm-raidlab's rl_cs_chained_share(), engines/copyset_layout.c, the
same rule). Every survivor then carries (L + 1)/L of a partition's reads:
random reads keep L/(L + 1), (n - 1)/n after one failure, 0.83 for six
disks. Writes go to both copies of a partition, so with a failure every
survivor still writes two partitions: writes keep all their throughput in
both layouts.

The issue's expectations (issue 15): RAID-10 degraded random reads about
0.5 of healthy, chained declustering about (N - 1)/N. What the model leaves
out: seek and rotation (a disk's service time does not depend on where its
requests fall), and the queueing that decides response time; it gives the
throughput at saturation, which Chen's p90 method approaches from below.
"""
from fractions import Fraction


def _alive(n, failed):
    return [d for d in range(n) if d not in failed]


def chained_share(n, failed, part):
    """The share of partition @part's reads its primary serves, or None if
    both its disks failed (the kernel's rl_cs_chained_share())."""
    failed = set(failed)
    if not failed:
        return Fraction(1, 2)
    if part in failed:
        return None if (part + 1) % n in failed else Fraction(0)
    back = 1
    while (part - back) % n not in failed:
        back += 1
    fwd = 0
    while (part + fwd + 1) % n not in failed:
        fwd += 1
    return Fraction(back, back + fwd)


def chained_loads(n, failed, read_fraction):
    """Disk accesses per logical request on each disk (None: data lost)."""
    r, w = Fraction(read_fraction), 1 - Fraction(read_fraction)
    shares = [chained_share(n, failed, p) for p in range(n)]
    if any(s is None for s in shares):
        return None
    loads = []
    for d in range(n):
        if d in failed:
            loads.append(Fraction(0))
            continue
        prev = (d - 1) % n
        reads = shares[d] + (1 - shares[prev])
        loads.append(Fraction(1, n) * (r * reads + 2 * w))
    return loads


def raid10_loads(n, copies, failed, read_fraction):
    """The same for RAID-10: mirror sets of @copies consecutive disks."""
    if n % copies:
        raise ValueError("the model takes mirror sets: copies must divide disks")
    r, w = Fraction(read_fraction), 1 - Fraction(read_fraction)
    loads = [Fraction(0)] * n
    for s in range(0, n, copies):
        alive = [d for d in range(s, s + copies) if d not in failed]
        if not alive:
            return None
        for d in alive:
            loads[d] = Fraction(copies, n) * (r / len(alive) + w)
    return loads


def relative(loads_healthy, loads_degraded):
    """Degraded throughput over healthy: the busiest disk's loads."""
    if loads_degraded is None:
        return None
    return max(loads_healthy) / max(loads_degraded)


def degraded_ratio(layout, n, failed, read_fraction, copies=2):
    """Throughput with @failed disks over healthy throughput."""
    if layout == "raid10":
        return relative(raid10_loads(n, copies, (), read_fraction),
                        raid10_loads(n, copies, failed, read_fraction))
    if layout == "chained":
        return relative(chained_loads(n, (), read_fraction),
                        chained_loads(n, failed, read_fraction))
    raise ValueError(f"unknown layout {layout}")


def closed_form(layout, n, read_fraction, copies=2):
    """One failed disk, closed form: (r/Dm + w)/(r/(Dm-1) + w) for RAID-10,
    (r + 2w)/(r n/(n-1) + 2w) for chained declustering."""
    r, w = Fraction(read_fraction), 1 - Fraction(read_fraction)
    if layout == "raid10":
        return (r / copies + w) / (r / (copies - 1) + w)
    return (r + 2 * w) / (r * Fraction(n, n - 1) + 2 * w)


def _run(args):
    failed = tuple(args.failed)
    print(f"{args.disks} disks, failed {list(failed) or 'none'}, "
          f"{args.copies} copies for raid10: throughput degraded / healthy "
          "(bottleneck model)")
    print(f"{'layout':8} {'reads':>6} {'model':>7} {'1-failure form':>15}")
    for layout in ("raid10", "chained"):
        for rf in args.read_fraction:
            ratio = degraded_ratio(layout, args.disks, failed, rf, args.copies)
            text = "lost" if ratio is None else f"{float(ratio):.3f}"
            form = (f"{float(closed_form(layout, args.disks, rf, args.copies)):.3f}"
                    if len(failed) == 1 else "-")
            print(f"{layout:8} {rf:>6.2f} {text:>7} {form:>15}")
    return 0


def register(subparsers):
    p = subparsers.add_parser(
        "p004-degraded",
        help="RAID-10 vs chained declustering with failed disks (load balance)",
        description="Throughput of RAID-10 and chained declustering with failed "
                    "disks, relative to healthy: a bottleneck model (the baselines "
                    "of paper 004; issue 15's degraded-read claim).")
    p.add_argument("--disks", type=int, default=6, help="disks in the array (default 6)")
    p.add_argument("--copies", type=int, default=2, help="RAID-10 mirror set size")
    p.add_argument("--failed", type=int, nargs="*", default=[0],
                   help="failed disks (default: disk 0)")
    p.add_argument("--read-fraction", type=float, nargs="+", default=[1.0, 0.0, 0.7],
                   help="fractions of reads in the mixes (default 1, 0, 0.7)")
    p.set_defaults(func=_run)
