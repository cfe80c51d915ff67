# SPDX-License-Identifier: GPL-2.0
"""Paper 003 (alternating deferred-update mirrors, issue 17) from one
``raidlab bench`` run: under Poisson arrivals of random 4 KiB requests,
the highest rate each array sustains, and its efficiency ratio, the
pair's sustained rate over twice a single disk's (the paper's section
3.2: "dividing the maximum throughput measured for a pair of disks ... by
twice the maximum throughput of a disk serving random requests"), beside
the model of section 3.1 (models/p003_alternating.py); and the reads'
mean response against the arrival rate (Fig. 8).

The arrays: a single disk (rl-sr over one member), altmirror (its
mem_fraction is the paper's f), the raidlab mirror and md raid1 over two
members. w, the write fraction, is the workload's (rNN: w = 1 - NN/100).

Sustained: a configuration keeps up with an offered rate when fio's
achieved rate is not short of it (srarray.short_of(): under 95 % of it
and beyond a Poisson count's 3 sigma over the run) and the mean response
(reads and writes) is within the target. Going up its rates, the first
one it misses ends the search: by its mean, the sustained rate is the
achieved rate where the mean crosses the target (linear between that
point and the one below, as srarray.py does; ``crossed``); by a
shortfall, the achieved rate of the point below (``saturated``); ``over``
if it kept up with every rate (a lower bound), ``under`` if it missed the
lowest. ``kept_rate`` is the highest offered rate kept.

The target, one for every configuration: TARGET_FACTOR x t_ran at the
time scale, t_ran the model's random access over the cylinders the span
covers (t_avseek over them, half a turn, a block's transfer). A disk
serving random requests one at a time reaches it at about 85 % of
1 / t_ran (M/G/1, the rotation's spread).

The model, per configuration and w, with the plan's disk (the geometry
preset's surfaces, blocks per track and turn, plan.p003_disk()): cyls are
the cylinders the workloads' span covers (all of them without a span),
t_avseek the paper's seek curve over them; ``model`` is
efficiency_ratio(f, w) (the paper's batch: f of the disk), and
``model_half_batch`` the same with the batch altmirror installs, half its
pool (f / 2 of the array); the plain mirrors' is plain_mirror_ratio(w).

The pool per point: the altmirror group of the array's status before and
after the run (the guest's .mstat, "before-st"/"after-st"): batches,
blocks per batch and install time of the run's batches (from the
cumulative means, one decimal each), writes that waited for a slot,
overlapping batches, pool hits, and the cycle T at the end.

Files: p003.csv (every point), p003-rates.csv (per configuration and w:
the sustained rate, the ratio and the model), p003.md (also appended to
summary.md), p003-efficiency.png (the ratio against f and against w,
measured and modelled) and p003-fig8.png (read response against the
arrival rate, w = 0.5).
"""
from ..models import p003_alternating as p003
from . import geom as geommod
from . import plan as planmod
from . import plots
from . import results as resmod
from . import srarray

FIELDS = ["config", "label", "kind", "mf", "sched", "w", "rate", "iops", "kept", "mean_ms",
          "read_mean_ms", "write_mean_ms", "read_sd_ms", "p90_ms", "hdd_late_pct", "batches", "mean_batch",
          "install_ms", "waits", "overlaps", "hits", "cycle_ms", "used", "slots", "min_free"]
RATE_FIELDS = ["config", "label", "kind", "mf", "sched", "w", "target_ms", "sustained_iops",
               "how", "kept_rate", "points", "single_iops", "ratio", "model",
               "model_half_batch"]
POOL_KEYS = ("batches", "mean_batch", "install_ms", "waits", "overlaps", "hits", "cycle_ms",
             "used", "slots", "min_free")
TARGET_FACTOR = 4.0
# the altmirror status group: altmirror 11 <modes> <used>/<slots> ...
AM_FIELDS = ("modes", "used_slots", "min_free", "waits", "batches", "mean_batch", "install_ms",
             "overlaps", "hits", "cycle_ms", "pool")


def kind(cfg):
    """single, altmirror, single-batch (altmirror with a member failed:
    section 5's single-disk batching), mirror or md-raid1; None for
    another array."""
    if cfg["level"] == "sr" and cfg["disks"] == 1:
        return "single"
    if cfg["level"] == "altmirror":
        return "altmirror" if cfg.get("fail") is None else "single-batch"
    if cfg["disks"] == 2 and (cfg["kind"], cfg["level"]) in (("rl", "mirror"), ("md", "raid1")):
        return "mirror" if cfg["kind"] == "rl" else "md-raid1"
    return None


def applies(desc):
    """Whether the plan is paper 003's: it holds an altmirror array."""
    return any(c["level"] == "altmirror" for c in desc["configs"])


def _opts(cfg):
    """The table words as a dict (altmirror's flags, which stand alone, left out)."""
    w = [x for x in cfg["opts"] if x not in planmod.FLAG_WORDS]
    return dict(zip(w[::2], w[1::2]))


def _label(cfg, k, mf, sched):
    if k == "altmirror":
        return f"altmirror f={mf}% {sched}"
    if k == "single":
        return f"single disk {sched}"
    if k == "single-batch":
        return f"single disk batching f={mf}%"
    return "md raid1" if k == "md-raid1" else f"raidlab mirror {sched}"


def disk(desc, span_mib):
    """plan.p003_disk() for the plan's disk model and a span (MiB, 0: the
    whole disk), or None without a disk model that has a geometry."""
    if desc.get("disk_model", "none") not in geommod.PRESETS:
        return None
    return planmod.p003_disk(desc["disk_model"], desc["time_scale"], span_mib)


def target_ms(d):
    """TARGET_FACTOR x t_ran (wall ms, at the time scale) of disk @d."""
    return TARGET_FACTOR * d["t_ran"] * d["slow"] if d else None


def am_group(line):
    """The altmirror group of a status line (its words after the label) as
    a dict of AM_FIELDS; {} when there is none. The group ends the line:
    "altmirror" followed by the count of the words after it (looked for
    from the end: the scheme's name also opens the status)."""
    w = line.split()
    for j in range(len(w) - 2, -1, -1):
        if w[j] == "altmirror" and w[j + 1].isdigit() and int(w[j + 1]) == len(w) - j - 2:
            return dict(zip(AM_FIELDS, w[j + 2:]))
    return {}


def _num(v):
    try:
        return float(v) if "." in v else int(v)
    except (TypeError, ValueError):
        return None


def pool_stats(text):
    """A point's pool figures from its .mstat text ("before-st"/"after-st"
    lines): the run's batches, their mean size and install time (from the
    cumulative means), waits, overlaps and hits; the cycle, slots in use
    and the fewest free at the end. {} without an altmirror status."""
    st = {}
    for line in text.splitlines():
        label, _, rest = line.partition(" ")
        if label in ("before-st", "after-st"):
            g = am_group(rest)
            if g:
                st[label] = g
    a = st.get("after-st")
    if not a:
        return {}
    used, _, slots = a["used_slots"].partition("/")
    out = {"cycle_ms": _num(a["cycle_ms"]), "used": _num(used), "slots": _num(slots),
           "min_free": _num(a["min_free"])}
    b = st.get("before-st")
    if b is None:
        return out
    n0, n1 = _num(b["batches"]), _num(a["batches"])
    for k in ("batches", "waits", "overlaps", "hits"):
        x0, x1 = _num(b[k]), _num(a[k])
        out[k] = x1 - x0 if x0 is not None and x1 is not None else ""
    for k in ("mean_batch", "install_ms"):
        m0, m1 = _num(b[k]), _num(a[k])
        ok = None not in (n0, n1, m0, m1) and n1 > n0
        out[k] = (m1 * n1 - m0 * n0) / (n1 - n0) if ok else ""
    return out


def rows(points, desc, src=None):
    """One row per Poisson point of a paper 003 array (fixed-size
    requests), with its pool figures from @src (the guest's bench folder)
    when it holds them."""
    cfgs = {c["name"]: c for c in desc["configs"]}
    wls = {w["name"]: w for w in desc["workloads"]}
    runtime = desc.get("runtime_s", 10)
    out = []
    for p in points:
        c, w = cfgs.get(p["config"]), wls.get(p["workload"])
        k = kind(c) if c else None
        if k is None or w is None or not w.get("rate_iops") or w["size"] != "fixed":
            continue
        o = _opts(c)
        mf = o.get("mem_fraction", "1") if k in ("altmirror", "single-batch") else ""
        sched = o.get("sched", "md" if c["kind"] == "md" else "fifo")
        d = disk(desc, w.get("span_mib", 0))
        r = {"config": c["name"], "label": _label(c, k, mf, sched), "kind": k, "mf": mf,
             "sched": sched, "w": round(1 - w["read_pct"] / 100, 4), "rate": w["rate_iops"],
             "iops": p["iops"], "mean_ms": p.get("mean_ms", ""),
             "read_mean_ms": p.get("read_mean_ms", ""), "write_mean_ms": p.get("write_mean_ms", ""),
             "read_sd_ms": p.get("read_sd_ms", ""),
             "p90_ms": p.get("p90_ms", ""), "hdd_late_pct": p.get("hdd_late_pct", ""),
             "_span": w.get("span_mib", 0), "_target": target_ms(d)}
        r["kept"] = kept(r, runtime)
        if src is not None and k in ("altmirror", "single-batch"):
            f = src / c["id"] / w["name"] / f"d{p['depth']}.mstat"
            if f.exists():
                r.update(pool_stats(f.read_text()))
        for key in POOL_KEYS:
            r.setdefault(key, "")
        out.append(r)
    return out


def kept(r, runtime_s):
    """Whether point @r kept up with its offered rate (see the module doc)."""
    if srarray.short_of(r, runtime_s):
        return False
    return r["_target"] is None or (r["mean_ms"] != "" and r["mean_ms"] <= r["_target"])


def sustained(rws, runtime_s=10):
    """Per configuration and w, in order: the sustained rate (module doc)."""
    out = []
    for c, w in dict.fromkeys((r["config"], r["w"]) for r in rws):
        pts = sorted((r for r in rws if r["config"] == c and r["w"] == w), key=lambda r: r["rate"])
        target = pts[0]["_target"]
        prev, res = None, None
        for r in pts:
            over = target is not None and (r["mean_ms"] == "" or r["mean_ms"] > target)
            if srarray.short_of(r, runtime_s) and not over:
                res = (prev["iops"], "saturated") if prev else (r["iops"], "under")
                break
            if over:
                if prev is None or r["mean_ms"] == "":
                    res = (prev["iops"], "saturated") if prev else (r["iops"], "under")
                else:
                    f = (target - prev["mean_ms"]) / (r["mean_ms"] - prev["mean_ms"])
                    res = (prev["iops"] + f * (r["iops"] - prev["iops"]), "crossed")
                break
            prev = r
        if res is None:
            res = (pts[-1]["iops"], "over")
        row = {k: pts[0][k] for k in ("config", "label", "kind", "mf", "sched", "w", "_span")}
        row.update(target_ms=target if target is not None else "", sustained_iops=res[0],
                   how=res[1], kept_rate=prev["rate"] if prev else "", points=len(pts),
                   single_iops="", ratio="", model="", model_half_batch="")
        out.append(row)
    return out


def model_ratio(k, mf, w, d):
    """(model, model_half_batch) of kind @k at f = @mf %, write fraction
    @w, on disk @d (p003_disk()); "" where none applies."""
    if k in ("mirror", "md-raid1"):
        return p003.plain_mirror_ratio(w), ""
    if k != "altmirror" or d is None:
        return "", ""
    f = float(mf) / 100
    geo = dict(cyls=d["cyls"], surfs=d["surfs"], blks_trk=d["blks_trk"], t_rot=d["t_rot"])
    half = p003.t_amw(f / 2, **geo)["t_amw"]
    return (p003.efficiency_ratio(f, w, t_avseek=d["t_avseek"], **geo),
            p003.efficiency_ratio_from(half, d["t_ran"], w, f))


def ratios(rates, desc):
    """Fill single_iops, ratio (sustained / 2 x the single disk's at the
    same w and span) and the model columns."""
    single = {}
    for r in rates:
        if r["kind"] == "single":
            single.setdefault((r["w"], r["_span"]), r["sustained_iops"])
    for r in rates:
        if r["kind"] in ("single", "single-batch"):
            continue
        s = single.get((r["w"], r["_span"]))
        if s:
            r["single_iops"] = s
            r["ratio"] = r["sustained_iops"] / (2 * s)
        r["model"], r["model_half_batch"] = model_ratio(r["kind"], r["mf"], r["w"],
                                                        disk(desc, r["_span"]))


def markdown(rws, rates, desc):
    f = resmod.fmt
    out = ["## Paper 003 (alternating deferred-update mirrors), one run", ""]
    spans = sorted({r["_span"] for r in rws})
    for span in spans:
        d = disk(desc, span)
        if d is None:
            continue
        out += [f"Model inputs ({desc['disk_model']}, span {span or 'all'} MiB): "
                f"{d['cyls']:.1f} cylinders of {d['surfs']} tracks of {d['blks_trk']} blocks, "
                f"a turn of {d['t_rot']:.2f} ms, t_avseek {d['t_avseek']:.2f} ms over them "
                f"(the paper's seek curve), t_ran {d['t_ran']:.2f} ms; at time scale "
                f"{desc['time_scale']} (x{d['slow']:g}) the target is {TARGET_FACTOR:g} x t_ran "
                f"= {target_ms(d):.0f} ms of mean response, and one disk's 1 / t_ran is "
                f"{1000 / (d['t_ran'] * d['slow']):.1f} a second.", ""]
    out += ["### Sustained rates and the efficiency ratio (Fig. 3, 4)", "",
            "*ratio*: the sustained rate over twice the single disk's at the same w; "
            "*model*: section 3.1's efficiency ratio (the plain mirrors: 1 / (1 + w)); "
            "*half batch*: the same with the batch altmirror installs (half its pool).", ""]
    out += resmod.md_table(
        ["config", "w", "sustained /s", "how", "kept rate", "ratio", "model", "half batch"],
        [[r["label"], f(r["w"], ".2f"), f(r["sustained_iops"], ".1f"), r["how"],
          r["kept_rate"], f(r["ratio"], ".2f"), f(r["model"], ".2f"),
          f(r["model_half_batch"], ".2f")] for r in rates])
    fig8 = [r for r in rws if r["w"] == 0.5 and r["kind"] not in ("single", "single-batch")]
    labels = plots.ordered_unique(fig8, "label")
    if fig8:
        out += ["", "### Read response against the arrival rate (Fig. 8), w = 0.5: mean ms",
                ""]
        cell = {(r["label"], r["rate"]): r["read_mean_ms"] for r in fig8}
        out += resmod.md_table(
            ["rate /s"] + labels,
            [[rate] + [f(cell.get((lab, rate), ""), ".1f") for lab in labels]
             for rate in sorted({r["rate"] for r in fig8})])
    base = [r for r in rws if r["kind"] in ("single", "single-batch") and r["w"] == 0.5]
    if any(r["kind"] == "single-batch" for r in base):
        out += ["", "### Single-disk batching (section 5, Fig. 14), w = 0.5: reads", "",
                "One disk installing its writes in batches every T, reads held behind "
                "them (altmirror with a member failed, ``single batch``, ``overlap_reads "
                "defer``), beside the same disk serving every request as it comes.", ""]
        out += resmod.md_table(
            ["config", "rate /s", "IOPS", "read mean ms", "read s.d. ms", "batches"],
            [[r["label"], r["rate"], f(r["iops"], ".1f"), f(r["read_mean_ms"], ".1f"),
              f(r["read_sd_ms"], ".1f"), r["batches"]]
             for r in sorted(base, key=lambda r: (r["kind"], r["rate"]))])
    pool = [r for r in rws if r["kind"] in ("altmirror", "single-batch") and r["batches"] != ""]
    if pool:
        out += ["", "### The pool during each run (altmirror)", ""]
        out += resmod.md_table(
            ["config", "w", "rate", "IOPS", "batches", "blocks/batch", "install ms", "waits",
             "overlaps", "hits", "T ms", "used/slots"],
            [[r["label"], f(r["w"], ".2f"), r["rate"], f(r["iops"], ".1f"), r["batches"],
              f(r["mean_batch"], ".1f"), f(r["install_ms"], ".0f"), r["waits"], r["overlaps"],
              r["hits"], r["cycle_ms"], f"{r['used']}/{r['slots']}"] for r in pool])
    late = [r["hdd_late_pct"] for r in rws if r["hdd_late_pct"] != ""]
    if late:
        out += ["", f"dm-hddsim completed {max(late):.2f} % of a run's requests late at most "
                "(keep near 0: the emulator kept up)."]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- plots
def _model_curve(xs, fn):
    pts = [(x, fn(x)) for x in xs]
    return [p[0] for p in pts], [p[1] for p in pts]


def plot_efficiency(rates, desc, path):
    """Two panels: the ratio against f (w = 0.5), and against w;
    measured as points, the model as lines."""
    plt = plots._plt()
    sel = [r for r in rates if r["ratio"] != ""]
    if plt is None or not sel:
        return None
    fig, (ax_f, ax_w) = plt.subplots(1, 2, figsize=(11, 4))
    span = sel[0]["_span"]
    d = disk(desc, span)
    # against f, w = 0.5
    am = [r for r in sel if r["kind"] == "altmirror" and r["w"] == 0.5]
    for i, sched in enumerate(plots.ordered_unique(am, "sched")):
        pts = sorted((r for r in am if r["sched"] == sched), key=lambda r: float(r["mf"]))
        ax_f.plot([float(r["mf"]) for r in pts], [r["ratio"] for r in pts], "o-" if
                  len(pts) > 1 else "s", color=plots.COLORS[i % len(plots.COLORS)],
                  label=f"altmirror {sched}, measured")
    if am and d is not None:
        top = max(float(r["mf"]) for r in am)
        fs = [x / 4 for x in range(2, int(top * 4) + 2)]
        for half, style, name in ((False, "-", "model"), (True, "--", "model, half-pool batch")):
            xs, ys = _model_curve(fs, lambda x: model_ratio("altmirror", x, 0.5, d)[int(half)])
            ax_f.plot(xs, ys, style, color="black", lw=1, label=name)
    for j, r in enumerate(r for r in sel if r["kind"] in ("mirror", "md-raid1")
                          and r["w"] == 0.5):
        ax_f.axhline(r["ratio"], color=plots.COLORS[(4 + j) % len(plots.COLORS)], ls="-.",
                     lw=1, label=f"{r['label']}, measured")
    ax_f.axhline(p003.plain_mirror_ratio(0.5), color="grey", ls=":", lw=1,
                 label="plain mirror, model")
    ax_f.axhline(1.0, color="grey", lw=0.5)
    ax_f.set_xlabel("memory fraction f (% of the array)")
    ax_f.set_ylabel("efficiency ratio (pair / 2 single disks)")
    ax_f.set_title("against f, w = 0.5 (Fig. 3)")
    ax_f.legend(fontsize=6)
    # against w: every configuration measured at two or more w
    byc = {}
    for r in sel:
        byc.setdefault(r["config"], []).append(r)
    for i, (c, pts) in enumerate(byc.items()):
        if len(pts) < 2:
            continue
        pts.sort(key=lambda r: r["w"])
        col = plots.COLORS[i % len(plots.COLORS)]
        ax_w.plot([r["w"] for r in pts], [r["ratio"] for r in pts], "o-", color=col,
                  label=f"{pts[0]['label']}, measured")
        ws = [x / 20 for x in range(1, 20)]
        if pts[0]["kind"] == "altmirror" and d is not None:
            xs, ys = _model_curve(ws, lambda x: model_ratio("altmirror", pts[0]["mf"], x, d)[0])
            ax_w.plot(xs, ys, "-", color=col, lw=1, label=f"f={pts[0]['mf']}%, model")
    ax_w.plot(*_model_curve([x / 20 for x in range(1, 20)], p003.plain_mirror_ratio), ":",
              color="grey", lw=1, label="plain mirror, model")
    ax_w.axhline(1.0, color="grey", lw=0.5)
    ax_w.set_xlabel("write fraction w")
    ax_w.set_ylabel("efficiency ratio")
    ax_w.set_title("against w (Fig. 4)")
    ax_w.legend(fontsize=6)
    plots.save(fig, path)
    return str(path)


def plot_fig8(rws, path):
    """Mean read response against the offered rate, w = 0.5, per pair."""
    plt = plots._plt()
    sel = [r for r in rws if r["w"] == 0.5 and r["kind"] not in ("single", "single-batch")
           and r["read_mean_ms"] != ""]
    if plt is None or not sel:
        return None
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, lab in enumerate(plots.ordered_unique(sel, "label")):
        pts = sorted((r for r in sel if r["label"] == lab), key=lambda r: r["rate"])
        ax.plot([r["rate"] for r in pts], [r["read_mean_ms"] for r in pts], "o-", ms=4,
                color=plots.COLORS[i % len(plots.COLORS)], label=lab)
    t = sel[0]["_target"]
    if t:
        ax.axhline(t, color="grey", lw=0.8, ls=":", label=f"target {t:.0f} ms (all requests)")
    ax.set_yscale("log")
    ax.set_xlabel("arrival rate (requests a second, half of them writes)")
    ax.set_ylabel("mean read response (ms)")
    ax.set_title("Fig. 8: read response, w = 0.5")
    ax.legend(fontsize=6)
    plots.save(fig, path)
    return str(path)


def write_all(dst, points, desc):
    """The files; returns (rows, rate rows, names written): nothing for a
    plan without altmirror or without its Poisson points."""
    if not applies(desc):
        return [], [], []
    rws = rows(points, desc, dst / "vm" / "bench")
    if not rws:
        return [], [], []
    rates = sustained(rws, desc.get("runtime_s", 10))
    ratios(rates, desc)
    resmod.write_csv(dst / "p003.csv", rws, FIELDS)
    resmod.write_csv(dst / "p003-rates.csv", rates, RATE_FIELDS)
    md = markdown(rws, rates, desc)
    (dst / "p003.md").write_text(md)
    with open(dst / "summary.md", "a") as fh:
        fh.write("\n" + md)
    files = ["p003.csv", "p003-rates.csv", "p003.md"]
    for name, made in (("p003-efficiency.png", lambda p: plot_efficiency(rates, desc, p)),
                       ("p003-fig8.png", lambda p: plot_fig8(rws, p))):
        if made(dst / name):
            files.append(name)
    return rws, rates, files
