# SPDX-License-Identifier: GPL-2.0
"""Polyzois, Bhide, Dias: "Disk Mirroring with Alternating Deferred Updates"
(VLDB 1993) -- the analytic models of section 3.1 and section 4.

Times are in milliseconds unless a name says otherwise.

Section 3.1, efficiency ratio (hybrid analytic / Monte-Carlo model)
    t_ran          = t_avseek + t_hrot + t_xfer
    batch_size     = f * blks_trk * surfs * cyls
    cylinders_hit  = cyls * (1 - (1 - 1/cyls) ** batch_size)
    blocks_amort.  = batch_size / cylinders_hit
    t_seeknext     = 4.6 + 0.87 * sqrt(cyls / cylinders_hit)
    t_amw          = (t_seeknext + number_of_rotations * t_rot) / blocks_amort.
    D_base/D_alt   = 1 / (1 + w (2 t_amw / t_ran - 1)) * 1 / (1 - f)

``number_of_rotations`` comes from a seeded Monte-Carlo subroutine
(:func:`rotations_per_cylinder`): n blocks are placed at random distinct
(track, sector) slots of one cylinder, the head arrives at a uniformly random
rotational position, and the paper's greedy heuristic installs them: keep
writing *consecutive* blocks on the current track; when the run ends switch to
another track, under constraint P (after a write on one track the heads cannot
write a different track at the very next sector position in the same
rotation).  Following the paper's own example ("if only one block needs to be
written, half a rotation is necessary on the average ... plus the time
necessary to transfer the data") the result is the elapsed time, in
rotations, from the head's arrival to the end of the last transfer, so one
block costs 1/2 + 1/blks_trk rotation on average.

Faithfulness notes and remaining discrepancies
  * t_rot.  Table 1 lists t_rot = 16.6, t_hrot = 8.3, t_xfer = 2 and
    t_ran = 28.4 ms, but 18 + 8.3 + 2 = 28.3.  Section 4 uses "a single
    rotation (16.66 msec)"; with t_rot = 16.66, t_hrot = t_rot/2 and
    t_xfer = t_rot/blks_trk the sum is 28.41 ms, i.e. Table 1's t_ran.  We use
    that derivation (which also makes t_ran follow blks_trk for Figure 5).
  * blocks_amortized is not an integer (2.004 at f = 1%) but the simulator
    "takes as input the number of blocks"; by default we interpolate linearly
    between the two neighbouring integers.  ``occupancy="binomial"`` instead
    averages over the actual (zero-truncated binomial) number of blocks per hit
    cylinder, a refinement the paper does not make.
  * The paper prints no numeric value of the analytic curves (Figures 3-5);
    it says they "match very well" the simulation ratios it does print:
    1.11 / 1.35 / 1.5 for f = 1/5/10 %, 1.05 / 1.11 / 1.18 for w = .25/.5/.75,
    1.11 / 1.20 / 1.27 for 8/12/16 blocks per track.  This model gives
    1.087 / 1.360 / 1.532, 1.047 / 1.087 / 1.131, 1.087 / 1.186 / 1.270
    (interpolate; 2000 trials, seed 1993): within 5% everywhere, the largest
    gap (-4.2%) at w = 0.75, where the model is pessimistic (the paper calls
    its model conservative).  ``occupancy="binomial"`` gives 1.098 / 1.367 /
    1.535, 1.052 / 1.098 / 1.149, 1.098 / 1.195 / 1.277 (within 2.7%).
  * Recovery: g = 8, f = 1% gives 18.3 min (paper: "t = 18 min"); g = 10,
    f = 5% gives 13.7 min where the paper prints "13 min" -- the printed
    formula cannot give less than 13.6 min with Table 1's parameters, so the
    paper apparently truncated rather than rounded.
  * The "opt" curve (infinitely fast head switch): the paper says the number
    of rotations is then the largest collision group.  That integer count is
    an upper bound which for one block (1 rotation) exceeds the constraint-P
    time (0.625); we use the consistent elapsed-time version (every pending
    block at the sector under the head can be written), which never exceeds
    the paper's bound and never exceeds the constraint-P time.
  * Cost per I/O per second (Figures 6, 7; Table 2): the minimum falls at
    f = 0.06% as in the paper (grid minimum 0.064%, $110 against the paper's
    $107 when the arm price is back-solved from the $94 base), but the
    paper's absolute figures ($94 base,
    $107 alternating, $141 plain mirror) imply about $3290 per disk arm,
    which Table 2 ($3000 disk, $1000 controller, no stated disks per
    controller) does not determine.  ``cost_per_io`` therefore takes the
    per-arm price as a parameter.

Section 4, recovery time
    r_r  = 1 / (t_ran * cyls * blks_trk * surfs)     (disk fraction per ms)
    x(t) = (f + 1/(g-1)) e^{(g-1) r_r t} - 1/(g-1)
    t    = (ln g - ln(f g - f + 1)) / ((g - 1) r_r)
    mttf_sys = mttf_s^2 / (N t_rec)
"""
import functools
import math
import random

# Table 1 (Fujitsu Eagle) and the seek curve quoted from [17].
CYLS = 840
SURFS = 20
BLKS_TRK = 8
T_ROT = 16.66          # ms, section 4 ("a single rotation (16.66 msec)")
T_AVSEEK = 18.0        # ms
T_TRKSEEK = 5.47       # ms
SEEK_A, SEEK_B = 4.6, 0.87   # seek(d) = 4.6 + .87 sqrt(d) ms
F_DEFAULT = 0.01
W_DEFAULT = 0.5
TRIALS = 2000
SEED = 1993


# --------------------------------------------------------------- section 3.1
def t_ran(t_avseek=T_AVSEEK, t_rot=T_ROT, blks_trk=BLKS_TRK):
    """Average random access: average seek + half rotation + one block."""
    return t_avseek + t_rot / 2.0 + t_rot / blks_trk


def seek_time(distance):
    """The Fujitsu seek approximation 4.6 + .87 sqrt(d) ms (d > 0)."""
    return SEEK_A + SEEK_B * math.sqrt(distance) if distance > 0 else 0.0


def avg_seek(cyls=CYLS):
    """t_avseek over @cyls cylinders: the mean of seek_time() between two
    uniformly random cylinders (the same one: no seek). Over the Eagle's
    840 it is Table 1's 18 ms; over a part of the disk (a benchmark's
    span) it is that part's random access. A fractional @cyls is
    rounded to whole cylinders (at least one)."""
    n = max(1, int(round(cyls)))
    return sum((2.0 * (n - d) / (n * n) * seek_time(d) for d in range(1, n)), 0.0)


def batch_size(f, cyls=CYLS, surfs=SURFS, blks_trk=BLKS_TRK):
    return f * blks_trk * surfs * cyls


def cylinders_hit(batch, cyls=CYLS):
    return cyls * (1.0 - (1.0 - 1.0 / cyls) ** batch)


def t_seeknext(hit, cyls=CYLS):
    """Seek time for the average distance between hit cylinders."""
    return seek_time(cyls / hit)


def _longest_run(pending, track, sector, blks_trk):
    run = 0
    bit = 1 << track
    while run < blks_trk and pending[(sector + run) % blks_trk] & bit:
        run += 1
    return run


def _one_cylinder(rng, n, surfs, blks_trk, constraint_p):
    """Elapsed rotations to install n random blocks in one cylinder."""
    pending = [0] * blks_trk          # per sector: bitmask of tracks
    for cell in rng.sample(range(surfs * blks_trk), n):
        pending[cell % blks_trk] |= 1 << (cell // blks_trk)
    theta = rng.random() * blks_trk   # head position, in sectors
    slot = math.ceil(theta)           # first sector boundary reached
    left, cur, wrote_prev, last = n, -1, False, slot
    while left:
        s = slot % blks_trk
        mask = pending[s]
        if cur >= 0 and mask >> cur & 1:          # continue the run
            track = cur
        elif mask and not (constraint_p and wrote_prev):
            tracks = [t for t in range(surfs) if mask >> t & 1]
            track = max(tracks, key=lambda t: _longest_run(pending, t, s, blks_trk))
        else:
            track = -1
        if track >= 0:
            pending[s] &= ~(1 << track)
            left -= 1
            cur, wrote_prev, last = track, True, slot
        else:
            wrote_prev = False
        slot += 1
    return (last + 1 - theta) / blks_trk


@functools.lru_cache(maxsize=None)
def rotations_per_cylinder(n, surfs=SURFS, blks_trk=BLKS_TRK, trials=TRIALS,
                           seed=SEED, constraint_p=True):
    """Monte-Carlo subroutine: mean number_of_rotations for n blocks.

    constraint_p=False is the paper's "opt" case (free head switches)."""
    if n <= 0:
        return 0.0
    if n > surfs * blks_trk:
        raise ValueError("more blocks than the cylinder holds")
    # The stream does not depend on constraint_p: "opt" and constraint P see
    # the same placements (common random numbers), so opt <= P trial by trial.
    rng = random.Random(f"{seed}:{n}:{surfs}:{blks_trk}")
    return sum(_one_cylinder(rng, n, surfs, blks_trk, constraint_p)
               for _ in range(trials)) / trials


def _binomial_truncated(batch, cyls, nmax):
    """P(k blocks | cylinder hit), k = 1..nmax, for batch uniform blocks."""
    p = 1.0 / cyls
    hit = 1.0 - (1.0 - p) ** batch
    out = {}
    logq = math.log1p(-p)
    for k in range(1, nmax + 1):
        if k > batch:
            break
        lp = (math.lgamma(batch + 1) - math.lgamma(k + 1) - math.lgamma(batch - k + 1)
              + k * math.log(p) + (batch - k) * logq)
        out[k] = math.exp(lp) / hit
    return out


def number_of_rotations(blocks, surfs=SURFS, blks_trk=BLKS_TRK, trials=TRIALS,
                        seed=SEED, constraint_p=True, occupancy="interpolate",
                        batch=None, cyls=CYLS):
    """number_of_rotations for a (possibly fractional) blocks_amortized."""
    sim = lambda k: rotations_per_cylinder(k, surfs, blks_trk, trials, seed, constraint_p)
    if occupancy == "interpolate":
        lo = math.floor(blocks)
        frac = blocks - lo
        val = (1.0 - frac) * sim(lo) if lo else 0.0
        return val + (frac * sim(lo + 1) if frac > 1e-12 else 0.0)
    if occupancy == "binomial":
        if batch is None:
            raise ValueError("binomial occupancy needs the batch size")
        nmax = surfs * blks_trk
        probs = _binomial_truncated(int(round(batch)), cyls, nmax)
        return sum(pk * sim(k) for k, pk in probs.items() if pk > 1e-6)
    raise ValueError(f"unknown occupancy {occupancy!r}")


def t_amw(f=F_DEFAULT, cyls=CYLS, surfs=SURFS, blks_trk=BLKS_TRK, t_rot=T_ROT,
          trials=TRIALS, seed=SEED, constraint_p=True, occupancy="interpolate"):
    """Amortized time of one batched block write, with its ingredients."""
    batch = batch_size(f, cyls, surfs, blks_trk)
    hit = cylinders_hit(batch, cyls)
    blocks = batch / hit
    seek = t_seeknext(hit, cyls)
    rots = number_of_rotations(blocks, surfs, blks_trk, trials, seed, constraint_p,
                               occupancy, batch, cyls)
    return {"batch_size": batch, "cylinders_hit": hit, "blocks_amortized": blocks,
            "t_seeknext": seek, "number_of_rotations": rots,
            "t_amw": (seek + rots * t_rot) / blocks}


def efficiency_ratio_from(t_amw_ms, t_ran_ms, w=W_DEFAULT, f=F_DEFAULT):
    """D_base / D_alt, with the 1/(1-f) memory-hit correction."""
    return 1.0 / (1.0 + w * (2.0 * t_amw_ms / t_ran_ms - 1.0)) / (1.0 - f)


def efficiency_ratio(f=F_DEFAULT, w=W_DEFAULT, cyls=CYLS, surfs=SURFS,
                     blks_trk=BLKS_TRK, t_rot=T_ROT, t_avseek=T_AVSEEK,
                     trials=TRIALS, seed=SEED, constraint_p=True,
                     occupancy="interpolate"):
    """Alternating mirrors vs. non-redundant disks (Figures 3-5, solid)."""
    amw = t_amw(f, cyls, surfs, blks_trk, t_rot, trials, seed, constraint_p, occupancy)
    return efficiency_ratio_from(amw["t_amw"], t_ran(t_avseek, t_rot, blks_trk), w, f)


def plain_mirror_ratio(w=W_DEFAULT):
    """Plain mirroring: reads on one disk, each write random on both."""
    return 1.0 / (1.0 + w)


def raid5_ratio(w=W_DEFAULT):
    """Best-case RAID-5 ("raid" curve of Figure 4): a write is a data write
    plus a read-modify-write of the checksum, three random accesses."""
    return 1.0 / (1.0 + 2.0 * w)


def cost_per_io(ratio, f=0.0, arm_price=3000.0, mem_price_mb=250.0,
                disk_mb=1200.0, ios_per_disk=35.0):
    """$ per I/O per second (Figure 7): one arm's price plus its memory
    (f of the disk), over the I/O rate one base arm's worth delivers."""
    return (arm_price + f * disk_mb * mem_price_mb) / (ios_per_disk * ratio)


def non_overlap_bounds(rate_per_s, t_ran_ms, t_amw_ms):
    """Section 5: write fractions for which the write-only periods of the two
    mirrors do not overlap: 1 - 1/(lambda t_ran) <= w <= 1/(2 lambda t_amw)."""
    lam = rate_per_s / 1000.0
    return 1.0 - 1.0 / (lam * t_ran_ms), 1.0 / (2.0 * lam * t_amw_ms)


# ----------------------------------------------------------------- section 4
def random_rate(t_ran_ms=None, cyls=CYLS, blks_trk=BLKS_TRK, surfs=SURFS):
    """r_r: random reads at 1/t_ran, as a fraction of the disk per ms."""
    if t_ran_ms is None:
        t_ran_ms = t_ran(blks_trk=blks_trk)
    return 1.0 / (t_ran_ms * cyls * blks_trk * surfs)


def copied_fraction(t_ms, g, f=F_DEFAULT, r_r=None):
    """x(t), the solution of dx/dt = x g r_r + (1 - x) r_r, x(0) = f."""
    r_r = random_rate() if r_r is None else r_r
    if g == 1:
        return f + r_r * t_ms
    return (f + 1.0 / (g - 1)) * math.exp((g - 1) * r_r * t_ms) - 1.0 / (g - 1)


def recovery_time(g, f=F_DEFAULT, r_r=None):
    """Time (ms) for x to reach 1: (ln g - ln(fg - f + 1)) / ((g-1) r_r)."""
    r_r = random_rate() if r_r is None else r_r
    if g == 1:
        return (1.0 - f) / r_r
    return (math.log(g) - math.log(f * g - f + 1.0)) / ((g - 1) * r_r)


def scan_seek_integral(cyls=CYLS, surfs=SURFS):
    """Amortized scan seek distance, the integral of seek_scan(u) =
    0.25 / (1 - (1 - 1/cyls)^(u total_tracks)) from 1/total_tracks to 1,
    via the paper's antiderivative (the paper: 0.33 cylinders)."""
    tracks = cyls * surfs
    lnq = math.log1p(-1.0 / cyls)

    def anti(u):
        return u - math.log(-math.expm1(u * tracks * lnq)) / (tracks * lnq)
    return 0.25 * (anti(1.0) - anti(1.0 / tracks))


def mttf_system_hours(mttf_disk_h, n_disks, t_rec_h):
    return mttf_disk_h ** 2 / (n_disks * t_rec_h)


HOURS_PER_YEAR = 24 * 365


# ----------------------------------------------------------------- CLI
def _run(args):
    tr = t_ran(args.t_avseek, args.t_rot, args.blks_trk)
    print(f"Fujitsu Eagle model: cyls={args.cyls} surfs={args.surfs} "
          f"blks/trk={args.blks_trk} t_rot={args.t_rot} ms t_ran={tr:.2f} ms; "
          f"Monte-Carlo trials={args.trials} seed={args.seed}")
    print()
    print("Efficiency ratio D_base/D_alt (section 3.1)")
    hdr = (f"{'f':>7} {'w':>5} {'batch':>7} {'cyl_hit':>7} {'blk/cyl':>7} "
           f"{'seek':>6} {'rots':>6} {'t_amw':>6} {'alt':>6} {'opt':>6} "
           f"{'plain':>6} {'raid5':>6}")
    print(hdr)
    for f in args.f:
        for w in args.w:
            amw = t_amw(f, args.cyls, args.surfs, args.blks_trk, args.t_rot,
                        args.trials, args.seed, True, args.occupancy)
            opt = t_amw(f, args.cyls, args.surfs, args.blks_trk, args.t_rot,
                        args.trials, args.seed, False, args.occupancy)
            print(f"{f:7.4f} {w:5.2f} {amw['batch_size']:7.0f} "
                  f"{amw['cylinders_hit']:7.1f} {amw['blocks_amortized']:7.3f} "
                  f"{amw['t_seeknext']:6.2f} {amw['number_of_rotations']:6.3f} "
                  f"{amw['t_amw']:6.2f} "
                  f"{efficiency_ratio_from(amw['t_amw'], tr, w, f):6.3f} "
                  f"{efficiency_ratio_from(opt['t_amw'], tr, w, f):6.3f} "
                  f"{plain_mirror_ratio(w):6.3f} {raid5_ratio(w):6.3f}")
    print()
    rr = random_rate(tr, args.cyls, args.blks_trk, args.surfs)
    print(f"Recovery time (section 4), r_r = {rr * 60000:.5f} disk/min, "
          f"amortized scan seek = {scan_seek_integral(args.cyls, args.surfs):.3f} cyl")
    print(f"{'g':>4} " + " ".join(f"{'f=' + format(f, 'g'):>9}" for f in args.rec_f)
          + "   (minutes)")
    for g in args.g:
        print(f"{g:4g} " + " ".join(f"{recovery_time(g, f, rr) / 60000:9.2f}"
                                     for f in args.rec_f))
    t_rec = recovery_time(args.g[0], args.rec_f[0], rr) / 3.6e6
    print(f"\nmttf_sys for {args.disks} disks, mttf_s={args.mttf:g} h, "
          f"t_rec={args.t_rec:g} h: "
          f"{mttf_system_hours(args.mttf, args.disks, args.t_rec) / HOURS_PER_YEAR:.0f} years"
          f" (with the modelled t_rec={t_rec:.3f} h: "
          f"{mttf_system_hours(args.mttf, args.disks, t_rec) / HOURS_PER_YEAR:.0f} years)")
    return 0


def register(subparsers):
    p = subparsers.add_parser(
        "p003", help="Polyzois et al. 1993: alternating deferred-update mirrors",
        description="Efficiency ratio (section 3.1) and recovery time (section 4) "
                    "of mirroring with alternating deferred updates.")
    p.add_argument("--f", type=float, nargs="+", default=[0.01, 0.05, 0.10],
                   help="memory fractions for the efficiency table")
    p.add_argument("--w", type=float, nargs="+", default=[W_DEFAULT], help="write fractions")
    p.add_argument("--cyls", type=int, default=CYLS, help="disk cylinders (default the paper's)")
    p.add_argument("--surfs", type=int, default=SURFS, help="disk surfaces (default the paper's)")
    p.add_argument("--blks-trk", type=int, default=BLKS_TRK,
                   help="blocks per track (default the paper's)")
    p.add_argument("--t-rot", type=float, default=T_ROT, help="rotation time, ms")
    p.add_argument("--t-avseek", type=float, default=T_AVSEEK, help="average seek, ms")
    p.add_argument("--trials", type=int, default=TRIALS, help="Monte-Carlo trials")
    p.add_argument("--seed", type=int, default=SEED, help="random seed of the simulation")
    p.add_argument("--occupancy", choices=["interpolate", "binomial"], default="interpolate",
                   help="how the pool's occupancy is modelled (default interpolate)")
    p.add_argument("--g", type=float, nargs="+", default=[8, 10, 2, 4, 6, 12],
                   help="blocks read per scan slot (recovery)")
    p.add_argument("--rec-f", type=float, nargs="+", default=[0.01, 0.05, 0.10],
                   help="memory fractions for the recovery table")
    p.add_argument("--mttf", type=float, default=30000.0, help="disk MTTF, hours")
    p.add_argument("--disks", type=int, default=1000, help="disks simulated (default 1000)")
    p.add_argument("--t-rec", type=float, default=0.25, help="recovery time, hours")
    p.set_defaults(func=_run)
