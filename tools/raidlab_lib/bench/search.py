# SPDX-License-Identifier: GPL-2.0
"""The load search of ``raidlab bench`` (Chen et al. section 6: control the
number of outstanding logical requests so that the 90th percentile response
time meets a target).

The guest (tools/bench/guest.sh, ``job``) runs fio closed-loop at the depths
of a ladder (1, 2, 4, ...) until a run's p90 completion latency exceeds the
target, then bisects between the last depth that met the target and the
first that did not, ``refine`` times. ``search_depths`` is the same algorithm
in Python: the tests drive it with synthetic latency curves, and the host
checks that the depths the guest ran are the ones it would have chosen.

``operating_point`` then picks the throughput at the target from the
measured points: the best point that meets the target, moved along the
straight line to the next deeper point that misses it until p90 equals the
target (linear interpolation of throughput in p90).
"""


def search_depths(p90_at, target, ladder, refine):
    """Depths the search runs, in order. p90_at(depth) -> p90 of a run."""
    ran = []
    good = bad = 0
    for d in ladder:
        ran.append(d)
        if p90_at(d) > target:
            bad = d
            break
        good = d
    k = 0
    while bad and k < refine:
        mid = (good + bad) // 2
        if mid <= good or mid < 1:
            break
        ran.append(mid)
        if p90_at(mid) > target:
            bad = mid
        else:
            good = mid
        k += 1
    return ran


def operating_point(points, target):
    """points: dicts with depth, p90 and tput (any throughput measure; also
    iops/mb_s, interpolated alike when present). Returns a dict with depth,
    p90, tput (and iops/mb_s) at the target and how it was found:

    * ``met``: a measured point met the target, the next deeper one missed
      it: interpolated between the two;
    * ``saturated``: every point met the target (the array was saturated or
      the ladder too short): the best point;
    * ``over``: no point met the target: the shallowest point, marked.
    """
    pts = sorted(points, key=lambda p: p["depth"])
    if not pts:
        raise ValueError("no points")
    ok = [p for p in pts if p["p90"] <= target]
    keys = [k for k in ("tput", "iops", "mb_s") if k in pts[0]]
    if not ok:
        r = dict(pts[0])
        r["how"] = "over"
        return r
    best = max(ok, key=lambda p: p["tput"])
    deeper = [p for p in pts if p["depth"] > best["depth"] and p["p90"] > target]
    if not deeper:
        r = dict(best)
        r["how"] = "saturated"
        return r
    nxt = deeper[0]
    r = dict(best)
    r["how"] = "met"
    span = nxt["p90"] - best["p90"]
    f = (target - best["p90"]) / span if span > 0 else 0.0
    f = min(max(f, 0.0), 1.0)
    for k in keys:
        # more load past the target only counts if it raised throughput
        r[k] = best[k] + f * max(nxt[k] - best[k], 0.0) if nxt["tput"] >= best["tput"] else best[k]
    r["p90"] = target if nxt["tput"] >= best["tput"] else best["p90"]
    r["depth"] = best["depth"] + f * (nxt["depth"] - best["depth"])
    return r
