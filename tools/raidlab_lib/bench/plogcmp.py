# SPDX-License-Identifier: GPL-2.0
"""Parity logging against the other schemes (paper 000, preset ``plog``).

From the results of a saturation run (``results.collect`` with plan
``procs`` > 0): for every workload, throughput per disk of each
configuration beside paper 000's analytic model (sections 3-4,
``models/p000_parity_logging.py``), and the ratios the issue asks about:
plog / mirror and plog / md raid5, measured and predicted.

The model. Busy time per small write at 100 % utilisation (figure 15),
1000 / busy = I/Os per disk per second of emulated time, times the
dm-hddsim time scale for wall time. Parameters: figure 12's Lightning
geometry (the disk model's own numbers, tools/raidlab_lib/bench/geom.py),
with

* V = the cylinders of the member span the arrays use (``member_mb``) for
  the region sizes (C_P, C_L: paper 2.2-2.3);
* S = the mean of the seek curve over the cylinders the workload touches
  on a member: a working set that is a fraction f of the array's capacity
  covers about f of every member's span (raid0, raid5 and plog layouts
  spread it evenly; a mirror holds it whole), so f x V cylinders (at least
  one);
* D = track bytes / request bytes; N, L, A, K and B (regions) from the plog
  status (B is also the regions per disk: every region has a slice or a
  sublog on every member);
* preread: plog and raid5 preread the old data, except plog with a data
  cache (``cache`` > 0) on a working-set workload (``wsNm``) that fits it,
  the paper's "data cache hit" (no preread) case; the raid5
  configurations keep the preread (their stripe caches are smaller than
  the working set).
"""
import csv
import json
import math
import pathlib
from dataclasses import replace

from ..models import p000_parity_logging as m000
from . import geom as geommod
from . import workloads as wlmod

SCHEME_OF = {"raid0": "raid0", "mirror": "mirror", "raid1": "mirror", "raid10": "mirror",
             "raid4": "raid5", "raid5": "raid5", "plog": "plog"}
FIELDS = ["workload", "config", "disks", "procs", "iops_per_disk", "mb_s_per_disk", "p50_ms",
          "p90_ms", "p99_ms", "member_ios_per_req", "preread", "model_iops_per_disk",
          "measured_over_model", "vs_mirror", "vs_md_raid5", "model_vs_mirror",
          "model_vs_md_raid5", "reintegrations", "pool_waits", "cache_hits", "cache_misses",
          "hdd_late_pct"]


def disk_params(disk_model):
    """Params with the disk model's geometry (Lightning: figure 12 itself)."""
    g = geommod.PRESETS.get(disk_model)
    if g is None:
        return None
    return replace(m000.FIGURE12, cylinders=g["cylinders"], heads=g["heads"],
                   sectors_per_track=g["spt"], revolution_ms=g["period_ns"] / 1e6,
                   head_switch_ms=g["head_switch_ns"] / 1e6, seek_a=g["seek_a_ns"] / 1e6,
                   seek_b=g["seek_b_ns"] / 1e6, seek_c=g["seek_c_ns"] / 1e6)


def capacity_fraction(cfg, plog):
    """Array capacity over one member's span (in member spans)."""
    n, lvl = cfg["disks"], cfg["level"]
    if lvl in ("mirror", "raid1"):
        return 1.0
    if lvl == "raid10":
        return n / 2
    if lvl in ("raid4", "raid5"):
        return n - 1.0
    if lvl == "plog":
        L = int(plog.get("L") or cfg.get("plog", {}).get("L", 1))
        A = float(plog.get("A") or cfg.get("plog", {}).get("A", 1))
        return n * (1 - (1 + A) / (n - L + A))
    return float(n)


def preread(cfg, w):
    """Does the configuration read the old data before a small write?"""
    if cfg["level"] != "plog":
        return True
    cache = int(cfg.get("plog", {}).get("cache", 256))
    # plog's data_cache holds 4 KiB blocks: the working set must fit it
    return not (w.get("ws_mib") and cache * 4 >= w["ws_mib"] * 1024)


def model_iops(desc, cfg, w, plog=None):
    """Model I/Os per disk per wall second, or None (no disk model, or a
    workload that is not small writes)."""
    p = disk_params(desc.get("disk_model"))
    if p is None or w["read_pct"] != 0:
        return None
    wk = wlmod.parse(w["name"])
    req = wlmod.request_kib(wk, wlmod.Geometry(cfg["chunk_kib"], cfg["data_cols"]))
    plog = plog or {}
    cyl_bytes = p.sectors_per_track * p.heads * 512
    member_mb = desc.get("member_mb") or p.cylinders * cyl_bytes / 2**20
    v = max(1, min(p.cylinders, math.ceil(member_mb * 2**20 / cyl_bytes)))
    frac = 1.0
    if w.get("ws_mib"):
        frac = min(1.0, w["ws_mib"] / (capacity_fraction(cfg, plog) * member_mb))
    span = max(1, min(v, math.ceil(frac * v)))
    seek = m000.mean_seek_from_curve(replace(p, cylinders=span)) if span > 1 \
        else m000.seek_time(p, 0)
    n = cfg["disks"]
    pl = cfg.get("plog", {})
    q = replace(p, cylinders=v, avg_seek_ms=seek, unit_bytes=int(req * 1024), disks=n,
                K=int(plog.get("K") or pl.get("K", 1)), L=int(plog.get("L") or pl.get("L", 1)),
                A=float(plog.get("A") or pl.get("A", 1)),
                regions=int(plog.get("B") or round(m000.optimal_regions(replace(p, cylinders=v)))))
    busy = m000.busy_time(SCHEME_OF[cfg["level"]], q, preread(cfg, w))
    scale = float(geommod.time_scale(desc.get("time_scale", "1")))
    return m000.ios_per_disk_second(busy) * scale


def _first(rows, pred):
    return next((r for r in rows if pred(r)), None)


def compare(results, desc):
    """Rows of FIELDS, one per result, with the model and the ratios."""
    cfgs = {c["name"]: c for c in desc["configs"]}
    wls = {w["name"]: w for w in desc["workloads"]}
    out = []
    for r in results:
        cfg, w = cfgs[r["config"]], wls[r["workload"]]
        pl = r.get("plog") or {}
        mdl = model_iops(desc, cfg, w, pl)
        d = r.get("plog_delta") or {}
        out.append({
            "workload": r["workload"], "config": r["config"], "disks": r["disks"],
            "procs": r["depth"], "iops_per_disk": r["iops_per_disk"],
            "mb_s_per_disk": r["mb_s_per_disk"], "p50_ms": r.get("p50_ms", ""),
            "p90_ms": r["p90_ms"], "p99_ms": r.get("p99_ms", ""),
            "member_ios_per_req": r["member_ios_per_req"],
            "preread": preread(cfg, w), "model_iops_per_disk": mdl if mdl else "",
            "measured_over_model": r["iops_per_disk"] / mdl if mdl else "",
            "vs_mirror": "", "vs_md_raid5": "", "model_vs_mirror": "", "model_vs_md_raid5": "",
            "reintegrations": d.get("reintegrations", ""), "pool_waits": d.get("pool_waits", ""),
            "cache_hits": d.get("cache_hits", ""), "cache_misses": d.get("cache_misses", ""),
            "hdd_late_pct": r.get("hdd_late_pct", ""),
            "_level": cfg["level"], "_kind": cfg["kind"],
        })
    ratios(out)
    for r in out:
        del r["_level"], r["_kind"]
    return out


def ratios(rows):
    """Fill vs_mirror / vs_md_raid5 (per-disk IOPS over the same workload's
    rl-mirror, resp. md-raid5, row) and the model's ratios, for plog rows."""
    for r in rows:
        if r["_level"] != "plog":
            continue
        same = [x for x in rows if x["workload"] == r["workload"]]
        for key, pred in (("mirror", lambda x: x["_kind"] == "rl" and x["_level"] == "mirror"),
                          ("md_raid5", lambda x: x["_kind"] == "md" and x["_level"] == "raid5")):
            ref = _first(same, pred)
            if ref is None:
                continue
            if ref["iops_per_disk"]:
                r[f"vs_{key}"] = r["iops_per_disk"] / ref["iops_per_disk"]
            if r["model_iops_per_disk"] and ref["model_iops_per_disk"]:
                r[f"model_vs_{key}"] = r["model_iops_per_disk"] / ref["model_iops_per_disk"]


def _f(v, spec):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return "-" if v in ("", None) else str(v)
    return format(v, spec)


def table(rows):
    cw = max([34] + [len(r["config"]) + 2 for r in rows])
    head = (f"{'workload':<12}{'config':<{cw}}{'IOPS/disk':>10}{'model':>8}{'meas/mdl':>9}"
            f"{'p90 ms':>8}{'mem I/O':>8}{'/mirror':>8}{'(mdl)':>7}{'/md-r5':>8}{'(mdl)':>7}"
            f"{'reint':>6}{'waits':>6}{'late%':>6}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['workload']:<12}{r['config']:<{cw}}{_f(r['iops_per_disk'], '10.1f')}"
                     f"{_f(r['model_iops_per_disk'], '8.1f'):>8}"
                     f"{_f(r['measured_over_model'], '9.2f'):>9}{_f(r['p90_ms'], '8.1f'):>8}"
                     f"{_f(r['member_ios_per_req'], '8.2f'):>8}{_f(r['vs_mirror'], '8.2f'):>8}"
                     f"{_f(r['model_vs_mirror'], '7.2f'):>7}{_f(r['vs_md_raid5'], '8.2f'):>8}"
                     f"{_f(r['model_vs_md_raid5'], '7.2f'):>7}{_f(r['reintegrations'], 'd'):>6}"
                     f"{_f(r['pool_waits'], 'd'):>6}{_f(r['hdd_late_pct'], '6.1f'):>6}")
    return "\n".join(lines)


GOAL = (1.0, 2.5)   # the issue: plog >= mirror and >= 2.5 x md raid5


def verdicts(rows):
    """One line per plog row: the issue's goal met or not (measured)."""
    out = []
    for r in rows:
        if r["vs_mirror"] == "" and r["vs_md_raid5"] == "":
            continue
        ok_m = r["vs_mirror"] != "" and r["vs_mirror"] >= GOAL[0]
        ok_5 = r["vs_md_raid5"] != "" and r["vs_md_raid5"] >= GOAL[1]
        out.append(f"{r['workload']} {r['config']}: plog/mirror {_f(r['vs_mirror'], '.2f')}"
                   f" ({'meets' if ok_m else 'misses'} >= {GOAL[0]:g}), plog/md-raid5 "
                   f"{_f(r['vs_md_raid5'], '.2f')} ({'meets' if ok_5 else 'misses'}"
                   f" >= {GOAL[1]:g})")
    return out


def summary_md(rows):
    out = ["", "## Parity logging (paper 000)", "",
           "Throughput per disk of every configuration (IOPS/disk, wall time) beside paper"
           " 000's model at 100 % utilisation (section 3-4, figure 15, times the disk model's"
           " time scale); *meas/mdl* their quotient (the paper's own simulations reach"
           " 75-95 % utilisation, figure 24); */mirror* and */md-r5*: plog's IOPS per disk"
           " over rl-mirror's and md-raid5's in the same workload, measured and (mdl)"
           " predicted; *reint*/*waits*: plog reintegrations and log-buffer pool waits"
           " during the run; *late %*: requests dm-hddsim completed later than its model"
           " (the emulation fell behind: keep it near 0).", "",
           "| workload | config | IOPS/disk | model | meas/mdl | p90 ms | mem I/O | /mirror |"
           " (mdl) | /md-r5 | (mdl) | reint | waits | cache hit/miss | late % |",
           "|" + "---|" * 15]
    for r in rows:
        cache = (f"{r['cache_hits']}/{r['cache_misses']}" if r["cache_hits"] != "" else "-")
        out.append(f"| {r['workload']} | {r['config']} | {_f(r['iops_per_disk'], '.1f')} | "
                   f"{_f(r['model_iops_per_disk'], '.1f')} | "
                   f"{_f(r['measured_over_model'], '.2f')} | {_f(r['p90_ms'], '.1f')} | "
                   f"{_f(r['member_ios_per_req'], '.2f')} | {_f(r['vs_mirror'], '.2f')} | "
                   f"{_f(r['model_vs_mirror'], '.2f')} | {_f(r['vs_md_raid5'], '.2f')} | "
                   f"{_f(r['model_vs_md_raid5'], '.2f')} | {_f(r['reintegrations'], 'd')} | "
                   f"{_f(r['pool_waits'], 'd')} | {cache} | {_f(r['hdd_late_pct'], '.1f')} |")
    v = verdicts(rows)
    if v:
        out += ["", "The issue's goal (plog >= mirror and >= 2.5 x md raid5 per disk):", ""]
        out += [f"* {x}" for x in v]
    return "\n".join(out) + "\n"


def plot(rows, path):
    """IOPS per disk per configuration, one panel per workload, the model
    as a black bar on each; None without matplotlib or rows."""
    from . import plots
    plt = plots._plt()
    if plt is None or not rows:
        return None
    wls = plots.ordered_unique(rows, "workload")
    fig, axes = plt.subplots(1, len(wls), figsize=(5.5 * len(wls), 4.6), squeeze=False)
    for ax, w in zip(axes.flat, wls):
        rs = [r for r in rows if r["workload"] == w]
        xs = range(len(rs))
        bars = ax.bar(xs, [r["iops_per_disk"] for r in rs],
                      color=[plots.COLORS[i % len(plots.COLORS)] for i in xs])
        for b, r in zip(bars, rs):
            ax.annotate(f"{r['iops_per_disk']:.1f}", (b.get_x() + b.get_width() / 2,
                        b.get_height()), ha="center", va="bottom", fontsize=7)
            if r["model_iops_per_disk"] != "":
                ax.hlines(r["model_iops_per_disk"], b.get_x(), b.get_x() + b.get_width(),
                          color="k", lw=2)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["config"].replace("[", "\n[") for r in rs], fontsize=6,
                           rotation=30, ha="right")
        ax.set_ylabel("small writes per second per disk")
        title = w
        pr = [r for r in rs if r["vs_mirror"] != "" or r["vs_md_raid5"] != ""]
        for r in pr:
            title += (f"\n{r['config']}: x{_f(r['vs_mirror'], '.2f')} mirror,"
                      f" x{_f(r['vs_md_raid5'], '.2f')} md-raid5")
        ax.set_title(title, fontsize=7)
    fig.suptitle("Parity logging (paper 000): throughput per disk, 100 % random writes,"
                 " closed loop\nblack bars: the analytic model at 100 % utilisation", fontsize=9)
    plots.save(fig, path)
    return path


def write_all(dst, results, desc):
    """plog.csv, plog.json, plog.png and a section appended to summary.md;
    returns (rows, [files])."""
    dst = pathlib.Path(dst)
    rows = compare(results, desc)
    with open(dst / "plog.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=FIELDS)
        wr.writeheader()
        for r in rows:
            wr.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    (dst / "plog.json").write_text(json.dumps({"rows": rows, "verdicts": verdicts(rows),
                                               "goal": GOAL}, indent=1))
    sm = dst / "summary.md"
    if sm.exists():
        sm.write_text(sm.read_text() + summary_md(rows))
    files = ["plog.csv", "plog.json"]
    if plot(rows, dst / "plog.png"):
        files.append("plog.png")
    return rows, files
