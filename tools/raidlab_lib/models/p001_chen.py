# SPDX-License-Identifier: GPL-2.0
"""Chen, Gibson, Katz, Patterson: "An Evaluation of Redundant Arrays of Disks
using an Amdahl 5890" (SIGMETRICS 1990): the simple and the adjusted models
of relative throughput (sections 3 and 7.2).

Relative throughput is throughput per disk relative to a non-redundant array
(RAID Level 0) running the same workload.

Simple model (section 3, from the RAID paper): the fraction of disk accesses
that carry useful data, i.e. logical accesses / physical accesses.
  * reads, all levels: 100%;
  * RAID 1 writes: 50% (data disk and shadow disk);
  * RAID 5 full-stripe write on N disks: (N-1)/N (no pre-reads);
  * RAID 5 partial-stripe write of D data disks: D writes plus one parity
    write, plus the cheaper of D+1 pre-reads or N-(D+1) reads of the rest of
    the stripe; an individual write (D=1, N>=4) is 1/4 = 25%.

Adjusted model (section 7.2): relative throughput is the disk-time of a
RAID 0 logical request divided by the disk-time of the same request on the
RAID level in question, so accesses of different cost count differently:
  * RAID 1 reads: seek optimisation (the nearer of two arms) saves about
    4 ms per access (sections 7.1.3, 7.2);
  * RAID 5 individual write: each of two disks does a seek, an average
    rotation, a track transfer, a full rotation and a second transfer
    ("saving a seek", section 7.1.1), against one seek + average rotation +
    transfer for RAID 0;
  * everything else is unchanged ("The adjusted model does not change the
    relative throughput estimates for other RAID Levels and workloads").

Disk parameters (Table 1, section 7.1): Amdahl 6380, average seek 15 ms,
average rotational latency 8.3 ms, full rotation 16.7 ms (section 7.1.1),
full-track (40 KB) connect time 16.2 ms; N = 11 in Figure 2 (10 data disks
plus parity, track striping).

Reproduced figures and discrepancies
  * Figure 2 (simple model, N = 11): reads 100%, RAID 1 writes 50%, RAID 5
    large writes 10/11 = 91%, RAID 5 small writes 25% -- exact.
  * Section 7.2, RAID 5 small write: the paper rounds the component times to
    "approximately 40 disk-ms" for RAID 0 and "72 ms" per disk (144 disk-ms)
    and prints 40/144 = 28%.  From the stated components the model gets
    15 + 8.3 + 16.2 = 39.5 ms and 15 + 8.3 + 16.2 + 16.7 + 16.2 = 72.4 ms per
    disk, i.e. 39.5/144.8 = 27.3%.  The difference is the paper's rounding.
  * Section 7.2, RAID 1 reads: 39.5/(39.5 - 4) = 111%; the paper says the
    4 ms is "approximately 10%" of the disk-time and predicts 110%
    (measured 112-115%).
  * Section 7.1.1 synchronisation: E[max of N rotations] = N/(N+1) x 16.7 ms.
    The paper's Monte-Carlo figure of +3.6 ms for synchronising two
    seek+rotation pairs needs the Amdahl seek-time distribution, which the
    paper does not give; it is not modelled.
"""

T_SEEK = 15.0        # ms, Table 1 average seek
T_ROT_AVG = 8.3      # ms, Table 1 average rotational latency
T_ROT_FULL = 16.7    # ms, section 7.1.1
T_TRACK = 16.2       # ms, section 7.1: full-track connect time
N_DISKS = 11         # Figure 2: "assuming 11 total disks (N=11)"
SEEK_SAVING = 4.0    # ms, section 7.2: RAID 1 read seek optimisation


# ------------------------------------------------------------ simple model
def raid5_write_accesses(D, N):
    """Physical disk accesses of a RAID 5 write of D data disks (1 <= D <= N-1)."""
    if not 1 <= D <= N - 1:
        raise ValueError("D must be between 1 and N-1")
    if D == N - 1:
        return N                       # full stripe: data + parity, no reads
    reads = min(D + 1, N - (D + 1))    # pre-read old data+parity, or read the rest
    return D + 1 + reads


def simple_relative_throughput(level, op, D=1, N=N_DISKS):
    """Simple model: logical / physical disk accesses.

    level 0, 1 or 5; op "read" or "write"; D data disks per request
    (1 = individual, N-1 = full stripe)."""
    if op == "read" or level == 0:
        return 1.0
    if level == 1:
        return 0.5
    if level == 5:
        return D / raid5_write_accesses(D, N)
    raise ValueError(f"unknown RAID level {level}")


# ------------------------------------------------------------ adjusted model
def access_time(t_seek=T_SEEK, t_rot=T_ROT_AVG, t_xfer=T_TRACK):
    """Disk-time of one random track access: seek + avg rotation + transfer."""
    return t_seek + t_rot + t_xfer


def raid5_small_write_disk_time(t_seek=T_SEEK, t_rot=T_ROT_AVG, t_full=T_ROT_FULL,
                                t_xfer=T_TRACK):
    """Section 7.2: two disks, each seek + avg rotation + transfer + full
    rotation + transfer (read old, write new without a second seek)."""
    return 2 * (t_seek + t_rot + t_xfer + t_full + t_xfer)


def adjusted_relative_throughput(level, op, D=1, N=N_DISKS, t_seek=T_SEEK,
                                 t_rot=T_ROT_AVG, t_full=T_ROT_FULL, t_xfer=T_TRACK,
                                 seek_saving=SEEK_SAVING):
    """Adjusted model: RAID 0 disk-time / this level's disk-time."""
    base = access_time(t_seek, t_rot, t_xfer)
    if level == 1 and op == "read":
        return base / (base - seek_saving)
    if level == 5 and op == "write" and D == 1 and N >= 4:
        return base / raid5_small_write_disk_time(t_seek, t_rot, t_full, t_xfer)
    return simple_relative_throughput(level, op, D, N)


def sync_rotation(n, t_full=T_ROT_FULL):
    """Section 7.1.1: expected max of n uniform rotational latencies."""
    return n / (n + 1.0) * t_full


def sync_penalty(n, t_full=T_ROT_FULL):
    """Extra latency of synchronising n rotations over one average latency."""
    return sync_rotation(n, t_full) - t_full / 2.0


# ------------------------------------------------------------ CLI
WORKLOADS = [("small read", "read", 1), ("small write", "write", 1),
             ("large read", "read", None), ("large write", "write", None)]


def _run(args):
    N = args.disks
    kw = dict(t_seek=args.seek, t_rot=args.rot, t_full=args.full_rot,
              t_xfer=args.xfer, seek_saving=args.seek_saving)
    print(f"Relative throughput per disk vs RAID 0 (N={N}; seek={args.seek} "
          f"rot={args.rot} full rot={args.full_rot} track xfer={args.xfer} ms, "
          f"RAID 1 read seek saving={args.seek_saving} ms)")
    print(f"{'workload':<12} {'RAID1 simple':>12} {'RAID1 adj':>10} "
          f"{'RAID5 simple':>12} {'RAID5 adj':>10}")
    for name, op, D in WORKLOADS:
        D = N - 1 if D is None else D
        print(f"{name:<12} "
              f"{simple_relative_throughput(1, op, D, N):12.1%} "
              f"{adjusted_relative_throughput(1, op, D, N, **kw):10.1%} "
              f"{simple_relative_throughput(5, op, D, N):12.1%} "
              f"{adjusted_relative_throughput(5, op, D, N, **kw):10.1%}")
    print(f"\nRAID 0 access disk-time {access_time(args.seek, args.rot, args.xfer):.1f} ms; "
          f"RAID 5 small write {raid5_small_write_disk_time(args.seek, args.rot, args.full_rot, args.xfer):.1f} disk-ms")
    print("RAID 5 partial-stripe writes (simple model): " + ", ".join(
        f"D={d}: {simple_relative_throughput(5, 'write', d, N):.0%}" for d in range(1, N)))
    print("Rotation sync penalty (ms): " + ", ".join(
        f"n={n}: {sync_penalty(n, args.full_rot):.1f}" for n in (1, 2, 4, 10, 20)))
    return 0


def register(subparsers):
    p = subparsers.add_parser(
        "p001", help="Chen et al. 1990: simple and adjusted RAID throughput models",
        description="Relative throughput of RAID 1 and RAID 5 against RAID 0: "
                    "the simple (access-count) and adjusted (disk-time) models.")
    p.add_argument("--disks", type=int, default=N_DISKS, help="N, disks per RAID 5 group")
    p.add_argument("--seek", type=float, default=T_SEEK, help="average seek, ms")
    p.add_argument("--rot", type=float, default=T_ROT_AVG, help="average rotational latency, ms")
    p.add_argument("--full-rot", type=float, default=T_ROT_FULL, help="full rotation, ms")
    p.add_argument("--xfer", type=float, default=T_TRACK, help="track transfer, ms")
    p.add_argument("--seek-saving", type=float, default=SEEK_SAVING,
                   help="RAID 1 read seek-optimisation saving, ms")
    p.set_defaults(func=_run)
