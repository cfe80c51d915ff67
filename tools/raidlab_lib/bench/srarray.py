# SPDX-License-Identifier: GPL-2.0
"""Paper 002 (SR-Array, issue 16) from one ``raidlab bench`` run: the
measured throughput of each Ds x Dr x Dm shape beside the RLOOK throughput
model (eq. 12, 15, 16, models/p002_sr_array.py), as ratios to striping
over the same disks (Dx1x1) measured in the same run, and against the
disks (Fig. 12); and under Poisson arrivals the mean response against the
rate, and the highest rate each configuration sustains within a target.

The shape of a configuration: rl-sr's dr and dm (Ds = disks / (dr dm)),
raid10 and md raid10 3x1x2 over six disks, raid0 6x1x1. The model's inputs
come from the plan, not from the measurement:

* S and R from the disk model's geometry at its time scale: R its period,
  S the seek (a + b d + c sqrt(d)) across the cylinders one disk needs to
  hold the data set (``plan.SR_DATA_MIB``, its outer zone);
* the seek locality L = data set / the workload's span (span<N>m);
* q = outstanding requests / disks; p = the read share (propagation in
  the foreground: every write is a foreground write, eq. 8);
* T_o = the request's transfer, size / spt x R (the paper's 2.7 ms also
  held its driver's and bus's times, which the lab's are not).

Head tracking (Table 2): each point's member statistics (the guest's
``.mstat`` files hold every tracker's status after the run): % misses and
the demerit over the access time, averaged over the members.

Files: p002.csv (every point with its model), p002-rates.csv (the
sustainable rates), p002-track.csv (the trackers), p002.md (also
appended to summary.md), and
p002-fig12.png (six disks), p002-fig12-disks.png, p002-fig13.png, p002-fig9.png, p002-fig5.png,
p002-fig10a.png.
"""
import math

from .. import srlayout
from ..models import p002_sr_array as p002
from . import geom as geommod
from . import plan as planmod
from . import plots
from . import results as resmod

FIELDS = ["figure", "config", "shape", "disks", "sched", "workload", "read_pct", "depth", "rate",
          "iops", "mean_ms", "p90_ms", "model_iops", "ratio", "model_ratio"]
RATE_FIELDS = ["config", "shape", "target_ms", "sustained_iops", "how", "ratio_to"]
TRACK_FIELDS = ["config", "workload", "depth", "members", "requests", "miss_pct",
                "demerit_pct", "err_mean_us", "err_std_us"]
# the paper's 15 ms target (section 4.1), scaled with the disks' time
TARGET_MS = 15.0


def shape(cfg):
    """(Ds, Dr, Dm, sched) of a configuration, or None (not paper 002's)."""
    opts = dict(zip(cfg["opts"][::2], cfg["opts"][1::2]))
    n = cfg["disks"]
    if cfg["level"] == "sr":
        dr, dm = int(opts.get("dr", 1)), int(opts.get("dm", 1))
    elif cfg["level"] in ("raid10", "chained"):
        dr, dm = 1, 2
    elif cfg["level"] == "raid0":
        dr, dm = 1, 1
    else:
        return None
    if n % (dr * dm):
        return None
    return n // (dr * dm), dr, dm, opts.get("sched", "md" if cfg["kind"] == "md" else "fifo")


def shape_name(s):
    return f"{s[0]}x{s[1]}x{s[2]}"


def disk_params(desc):
    """(S, R, spt): S and R in ms of the plan's disk model at its time
    scale, S over the cylinders holding plan.SR_DATA_MIB on one disk, and
    the outer zone's sectors per track; None without a model."""
    if desc.get("disk_model", "none") == "none":
        return None
    g = srlayout.parse_geom(geommod.geom_line(desc["disk_model"], desc["time_scale"]))
    per_cyl = g["heads"] * g["zones"][0][1]
    d = max(planmod.SR_DATA_MIB * 2048 / per_cyl - 1, 1.0)
    seek = g.get("seek_a_ns", 0) + g.get("seek_b_ns", 0) * d + \
        g.get("seek_c_ns", 0) * math.sqrt(d)
    return seek / 1e6, g["period_ns"] / 1e6, g["zones"][0][1]


def model_iops(s, depth, read_pct, req_kib, span_mib, dp):
    """Eq. 16's requests a second for shape @s at @depth outstanding."""
    if dp is None or not span_mib or depth < 1:
        return ""
    S, R, spt = dp
    ds, dr, dm, _ = s
    d = ds * dr * dm
    t_o = req_kib * 2 / spt * R
    return p002.array_throughput(ds, dr, depth / d, S=S, R=R, p=read_pct / 100,
                                 L=planmod.SR_DATA_MIB / span_mib, Dm=dm, T_o=t_o)


def _figure(w, s, rate):
    if rate:
        return "10a"
    if w["mean_kib"] < 1:
        return "5"
    if s[3] in ("rlook", "look"):
        return "9"
    return "12" if w["read_pct"] == 100 else "13"


def rows(points, desc):
    """One row per measured point of a paper 002 shape."""
    cfgs = {c["name"]: c for c in desc["configs"]}
    wls = {w["name"]: w for w in desc["workloads"]}
    dp = disk_params(desc)
    out = []
    for p in points:
        c, w = cfgs.get(p["config"]), wls.get(p["workload"])
        s = shape(c) if c else None
        if s is None or w is None or w["size"] != "fixed" or not w.get("span_mib"):
            continue
        rate = w.get("rate_iops", 0)
        out.append({
            "figure": _figure(w, s, rate), "config": c["name"], "shape": shape_name(s),
            "disks": s[0] * s[1] * s[2], "sched": s[3], "workload": w["name"], "read_pct": w["read_pct"],
            "depth": p["depth"], "rate": rate, "iops": p["iops"],
            "mean_ms": p.get("mean_ms", ""), "p90_ms": p["p90_ms"],
            "model_iops": "" if rate else model_iops(s, p["depth"], w["read_pct"],
                                                      w["mean_kib"], w["span_mib"], dp),
            "ratio": "", "model_ratio": ""})
    _ratios(out)
    return out


def _ratios(out):
    """Each closed-loop row over Dx1x1 under rsatf (striping with SATF over
    the same disks) at the same workload and depth: measured and model."""
    base = {(r["workload"], r["depth"], r["disks"]): r for r in out
            if r["shape"].endswith("x1x1") and r["sched"] == "rsatf" and not r["rate"]}
    for r in out:
        b = base.get((r["workload"], r["depth"], r["disks"]))
        if b is None or r["rate"]:
            continue
        if b["iops"]:
            r["ratio"] = r["iops"] / b["iops"]
        if r["model_iops"] != "" and b["model_iops"]:
            r["model_ratio"] = r["model_iops"] / b["model_iops"]


def target_ms(desc):
    """The paper's 15 ms at the plan's time scale (1/10: 150 ms)."""
    num, _, den = str(desc.get("time_scale", "1")).partition("/")
    return TARGET_MS * float(den or 1) / float(num)


# an open loop whose achieved rate falls below this share of the offered
# one, and by more than 3 standard deviations of a Poisson count over the
# run, was held by its bound on outstanding requests: the array did not
# sustain the rate, whatever its mean (Little: at most bound / rate)
SATURATED = 0.95


def short_of(r, runtime_s):
    """Whether Poisson row @r achieved less than its offered rate allows."""
    return r["iops"] < min(SATURATED * r["rate"],
                           r["rate"] - 3 * math.sqrt(r["rate"] / max(runtime_s, 1)))


def sustained(rws, target, runtime_s=10):
    """Per configuration of the Poisson rows: the achieved rate where the
    mean response crosses @target (linear between the rates), ``over`` if
    it stays within at every rate (the highest then), ``under`` if the
    lowest already misses it, ``saturated`` (the last rate sustained) if
    the array fell short of an offered rate first (short_of() over runs
    of @runtime_s)."""
    out = []
    for c in plots.ordered_unique([r for r in rws if r["rate"]], "config"):
        pts = sorted((r for r in rws if r["config"] == c and r["rate"]),
                     key=lambda r: r["rate"])
        prev, res = None, None
        for r in pts:
            if short_of(r, runtime_s) and (r["mean_ms"] == "" or r["mean_ms"] <= target):
                res = (prev["iops"], "saturated") if prev else (r["iops"], "under")
                break
            if r["mean_ms"] != "" and r["mean_ms"] > target:
                if prev is None:
                    res = (pts[0]["iops"], "under")
                else:
                    f = (target - prev["mean_ms"]) / (r["mean_ms"] - prev["mean_ms"])
                    res = (prev["iops"] + f * (r["iops"] - prev["iops"]), "crossed")
                break
            prev = r
        if res is None:
            res = (pts[-1]["iops"], "over")
        out.append({"config": c, "shape": pts[0]["shape"], "target_ms": target,
                    "sustained_iops": res[0], "how": res[1], "ratio_to": ""})
    # the SR-Array with background propagation over each of the others
    best = next((r for r in out if "prop=bg" in r["config"]), None)
    if best:
        best["ratio_to"] = "; ".join(
            f"{best['sustained_iops'] / r['sustained_iops']:.2f} x {r['config']}"
            for r in out if r is not best and r["sustained_iops"] > 0)
    return out


def _trk_words(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def tracking(src, desc, rws):
    """Per point of a tracked configuration: the trackers after the run
    (``after-trk`` lines of its .mstat), averaged over the members."""
    ids = {c["name"]: c["id"] for c in desc["configs"] if c.get("track")}
    out = []
    for r in rws:
        f = src / ids.get(r["config"], "-") / r["workload"] / f"d{r['depth']}.mstat"
        if r["config"] not in ids or not f.exists():
            continue
        trk = [_trk_words(ln) for ln in f.read_text().splitlines()
               if ln.startswith("after-trk ")]
        trk = [t for t in trk if t.get("cal") == "1" and "miss_pct" in t]
        if not trk:
            continue
        num = [{k: float(t[k]) for k in ("n", "miss_pct", "demerit_ns", "access_ns",
                                          "err_mean_ns", "err_std_ns") if k in t}
               for t in trk]
        mean = {k: sum(x.get(k, 0.0) for x in num) / len(num) for k in num[0]}
        out.append({
            "config": r["config"], "workload": r["workload"], "depth": r["depth"],
            "members": len(num), "requests": int(sum(x.get("n", 0) for x in num)),
            "miss_pct": mean.get("miss_pct", ""),
            "demerit_pct": 100 * mean["demerit_ns"] / mean["access_ns"]
            if mean.get("access_ns") else "",
            "err_mean_us": mean.get("err_mean_ns", 0) / 1e3,
            "err_std_us": mean.get("err_std_ns", 0) / 1e3})
    return out


def markdown(rws, rates, dp, target, trk=()):
    f = resmod.fmt
    out = ["## Paper 002 (SR-Array), one run", ""]
    if dp:
        out += [f"Model inputs: S = {dp[0]:.1f} ms (the seek across the cylinders one disk "
                f"needs for the {planmod.SR_DATA_MIB} MiB data set), R = {dp[1]:.1f} ms, "
                f"T_o = the request's transfer; q = outstanding / disks; L = data set / span; "
                f"p = read share (propagation in the foreground).", ""]
    out += resmod.md_table(
        ["fig", "config", "shape", "sched", "workload", "depth", "IOPS", "model", "/ Dx1x1",
         "model / Dx1x1"],
        [[r["figure"], r["config"], r["shape"], r["sched"], r["workload"], r["depth"],
          f(r["iops"], ".1f"), f(r["model_iops"], ".1f"), f(r["ratio"], ".2f"),
          f(r["model_ratio"], ".2f")] for r in rws if not r["rate"]])
    best = fig12_disks(rws)
    if len({k[2] for k in best}) > 1:
        out += ["", "### Fig. 12 against the disks: the best shape of each kind, IOPS "
                "(eq. 16's in brackets)", ""]

        def cell(kind, d, n):
            r = best.get((kind, d, n))
            return "" if r is None else \
                f"{f(r['iops'], '.0f')} {r['shape']} ({f(r['model_iops'], '.0f')})"
        out += resmod.md_table(
            ["disks", "outstanding", "striping", "SR-Array", "RAID-10"],
            [[n, d, cell("striping", d, n), cell("SR-Array", d, n), cell("RAID-10", d, n)]
             for d in sorted({k[1] for k in best}) for n in sorted({k[2] for k in best})])
    if rates:
        out += ["", f"### Poisson arrivals: the highest rate within a mean response of "
                f"{target:.0f} ms (the paper's 15 ms at the disks' time scale)", ""]
        out += resmod.md_table(
            ["config", "shape", "sustained IOPS", "how", "ratios"],
            [[r["config"], r["shape"], f(r["sustained_iops"], ".1f"), r["how"], r["ratio_to"]]
             for r in rates])
    if trk:
        out += ["", "### Head tracking (paper 002 Table 2: 0.22 % misses, demerit 1.9 % "
                "of the access time)", ""]
        out += resmod.md_table(
            ["config", "workload", "depth", "requests", "% misses", "demerit / access %",
             "error mean, std (us)"],
            [[t["config"], t["workload"], t["depth"], t["requests"], f(t["miss_pct"], ".2f"),
              f(t["demerit_pct"], ".1f"),
              f"{f(t['err_mean_us'], '.0f')}, {f(t['err_std_us'], '.0f')}"] for t in trk])
    return "\n".join(out) + "\n"


def _bars(ax, rws, shapes, depths, key="iops"):
    """Grouped bars: a group per depth, a bar per shape; model as dots."""
    w = 0.8 / max(len(shapes), 1)
    for i, sh in enumerate(shapes):
        for j, d in enumerate(depths):
            r = next((x for x in rws if x["_label"] == sh and x["depth"] == d), None)
            if r is None:
                continue
            x = j + i * w
            ax.bar(x, r[key], w, color=plots.COLORS[i % len(plots.COLORS)],
                   label=sh if j == 0 else None)
            if r["model_iops"] != "":
                ax.plot(x, r["model_iops"], "o", color="black", ms=4)
    ax.set_xticks([j + 0.4 - w / 2 for j in range(len(depths))])
    ax.set_xticklabels([f"{d} outstanding" for d in depths])
    ax.set_ylabel("IOPS (dot: eq. 16)")
    ax.legend(fontsize=7)


def _label(r):
    return r["shape"] + ("" if r["sched"] == "rsatf" else f" {r['sched']}")


def _cfg_label(r):
    """A short name for a plot: sr's shape and propagation, or the level."""
    name = r["config"]
    if name.startswith("rl-sr"):
        return f"sr {r['shape']} {r['sched']}" + (" bg" if "prop=bg" in name else "")
    level = name.split("[")[0].split("-", 1)[1].split("@")[0]
    if name.startswith("md-"):
        return f"md {level} {r['shape']}"
    return f"raidlab {level} {r['shape']} {r['sched']}"


def plot_bars(rws, fig_id, path, title):
    plt = plots._plt()
    sel = [dict(r, _label=_label(r)) for r in rws if r["figure"] in fig_id and not r["rate"]
           and r["read_pct"] == 100 and r["workload"].startswith("4k") and r["disks"] == 6]
    if plt is None or not sel:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    _bars(ax, sel, plots.ordered_unique(sel, "_label"), sorted({r["depth"] for r in sel}))
    ax.set_title(title)
    plots.save(fig, path)
    return str(path)


def _kind(r):
    """Fig. 12's series of a shape: striping, SR-Array or RAID-10."""
    _, dr, dm = (int(x) for x in r["shape"].split("x"))
    return "striping" if dr == dm == 1 else "RAID-10" if dr == 1 else "SR-Array" \
        if dm == 1 else None


def fig12_disks(rws):
    """Fig. 12 against the disks: per (series, depth, disks) the best
    shape's measured and model IOPS (the SR-Array: the best Ds x Dr)."""
    best = {}
    for r in rws:
        if r["figure"] != "12" or r["sched"] != "rsatf" or _kind(r) is None:
            continue
        k = (_kind(r), r["depth"], r["disks"])
        if k not in best or r["iops"] > best[k]["iops"]:
            best[k] = r
    return best


def _depth_panels(plt, depths, xlabel, ylabel, draw, path):
    """A panel per outstanding-requests depth, each drawn by draw(ax, d)."""
    fig, axes = plt.subplots(1, len(depths), figsize=(5 * len(depths), 4), squeeze=False)
    for ax, d in zip(axes[0], depths):
        draw(ax, d)
        ax.set_title(f"{d} outstanding")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7)
    plots.save(fig, path)
    return str(path)


def plot_fig12_disks(rws, path):
    plt = plots._plt()
    best = fig12_disks(rws)
    if plt is None or len({k[2] for k in best}) < 2:
        return None

    def draw(ax, d):
        for i, kind in enumerate(("SR-Array", "RAID-10", "striping")):
            pts = sorted((r for k, r in best.items() if k[0] == kind and k[1] == d),
                         key=lambda r: r["disks"])
            if not pts:
                continue
            col = plots.COLORS[i % len(plots.COLORS)]
            ax.plot([r["disks"] for r in pts], [r["iops"] for r in pts], "o-", color=col,
                    label=kind)
            for r in pts:
                ax.annotate(r["shape"], (r["disks"], r["iops"]), fontsize=6,
                            textcoords="offset points", xytext=(3, 3))
            m = [(r["disks"], r["model_iops"]) for r in pts if r["model_iops"] != ""]
            if m and kind == "SR-Array":
                ax.plot(*zip(*m), "--", color=col, label="SR-Array, eq. 16")
    return _depth_panels(plt, sorted({k[1] for k in best}), "disks",
                         "IOPS, random 4 KiB reads", draw, path)


def plot_fig13(rws, path):
    plt = plots._plt()
    sel = [r for r in rws if r["figure"] in ("12", "13") and r["disks"] == 6]
    if plt is None or not sel:
        return None

    def draw(ax, d):
        for i, sh in enumerate(plots.ordered_unique(sel, "shape")):
            pts = sorted((r for r in sel if r["shape"] == sh and r["depth"] == d),
                         key=lambda r: 100 - r["read_pct"])
            col = plots.COLORS[i % len(plots.COLORS)]
            ax.plot([100 - r["read_pct"] for r in pts], [r["iops"] for r in pts], "o-",
                    color=col, label=sh)
            m = [(100 - r["read_pct"], r["model_iops"]) for r in pts if r["model_iops"] != ""]
            if m:
                ax.plot(*zip(*m), "--", color=col)
    return _depth_panels(plt, sorted({r["depth"] for r in sel}), "foreground writes %",
                         "IOPS (dashed: eq. 16)", draw, path)


def plot_fig5(rws, path):
    plt = plots._plt()
    sel = [r for r in rws if r["figure"] == "5"]
    if plt is None or not sel:
        return None
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, w in enumerate(plots.ordered_unique(sel, "workload")):
        pts = sorted((r for r in sel if r["workload"] == w), key=lambda r: r["depth"])
        col = plots.COLORS[i % len(plots.COLORS)]
        ax.plot([r["depth"] for r in pts], [r["iops"] for r in pts], "o-", color=col, label=w)
        m = [(r["depth"], r["model_iops"]) for r in pts if r["model_iops"] != ""]
        if m:
            ax.plot(*zip(*m), "--", color=col)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("outstanding requests")
    ax.set_ylabel("IOPS (dashed: eq. 16)")
    ax.set_title(f"{sel[0]['shape']} {sel[0]['sched']}, 512 B")
    ax.legend(fontsize=7)
    plots.save(fig, path)
    return str(path)


def plot_fig10a(rws, target, path):
    plt = plots._plt()
    sel = [r for r in rws if r["rate"] and r["mean_ms"] != ""]
    if plt is None or not sel:
        return None
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, c in enumerate(plots.ordered_unique(sel, "config")):
        pts = sorted((r for r in sel if r["config"] == c), key=lambda r: r["rate"])
        ax.plot([r["iops"] for r in pts], [r["mean_ms"] for r in pts], "o-",
                color=plots.COLORS[i % len(plots.COLORS)], label=_cfg_label(pts[0]), ms=4)
    ax.axhline(target, color="grey", lw=0.8, ls=":", label=f"{target:.0f} ms")
    ax.set_yscale("log")
    ax.set_xlabel("request rate (achieved IOPS)")
    ax.set_ylabel("mean response (ms)")
    ax.legend(fontsize=6)
    plots.save(fig, path)
    return str(path)


def write_all(dst, points, desc):
    """The files; returns (rows, rate rows, tracker rows, names written):
    nothing for a plan without a paper 002 shape on a span<N>m workload."""
    rws = rows(points, desc)
    if not rws:
        return [], [], [], []
    target = target_ms(desc)
    rates = sustained(rws, target, desc.get("runtime_s", 10))
    trk = tracking(dst / "vm" / "bench", desc, rws)
    resmod.write_csv(dst / "p002.csv", rws, FIELDS)
    files = ["p002.csv"]
    if rates:
        resmod.write_csv(dst / "p002-rates.csv", rates, RATE_FIELDS)
        files.append("p002-rates.csv")
    if trk:
        resmod.write_csv(dst / "p002-track.csv", trk, TRACK_FIELDS)
        files.append("p002-track.csv")
    md = markdown(rws, rates, disk_params(desc), target, trk)
    (dst / "p002.md").write_text(md)
    with open(dst / "summary.md", "a") as f:
        f.write("\n" + md)
    files.append("p002.md")
    for name, made in (
            ("p002-fig12.png", lambda p: plot_bars(rws, ("12",), p,
                                                   "Fig. 12: random reads, six disks")),
            ("p002-fig12-disks.png", lambda p: plot_fig12_disks(rws, p)),
            ("p002-fig9.png", lambda p: plot_bars(rws, ("12", "9"), p,
                                                  "Fig. 9: rlook/look beside rsatf")),
            ("p002-fig13.png", lambda p: plot_fig13(rws, p)),
            ("p002-fig5.png", lambda p: plot_fig5(rws, p)),
            ("p002-fig10a.png", lambda p: plot_fig10a(rws, target, p))):
        if made(dst / name):
            files.append(name)
    return rws, rates, trk, files
