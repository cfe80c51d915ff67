# SPDX-License-Identifier: GPL-2.0
"""``raidlab sched-bench``: issue 3's benchmarks on emulated rotating disks.
See Documentation/raidlab-sched-bench.rst.

    tools/raidlab sched-bench policy  [options]   fifo/look/satf vs outstanding requests
    tools/raidlab sched-bench mirror  [options]   rl-mirror vs rl-raid0 random reads
    tools/raidlab sched-bench tracker [options]   tracker error vs dm-hddsim time_scale

policy and mirror are ``raidlab bench`` plans (plan.py, tools/bench/guest.sh,
runner.py, results.py): dm-raidlab configurations with table options and
trackers (``rl-raid0@2[sched=satf,depth=1,track]``) over dm-hddsim members,
every depth of the ladder run (the p90 target is out of reach). tracker is
its own guest script (tools/bench/tracker-guest.sh) through the same runner.
The functions below that take rows or text are pure and tested
(tests/tools/test_sched_bench.py).
"""
import json
import math
import pathlib
import shlex
import sys

from . import geom as geommod
from . import plan as planmod
from . import plots, results, runner

# paper 002 (Yu et al., SR-Array) Table 2, the tracker on a Seagate
# ST39133LWV (10 000 rpm: 6 ms rotation)
PAPER_002 = dict(rotation_us=6000.0, miss_pct=0.22, err_mean_us=3.0, err_std_us=31.0,
                 demerit_us=52.0, access_us=2746.0)
Z98 = 2.3263478740408408   # standard normal quantile 0.99: |e| <= Z98 sigma for 98 %
GOAL_ERR_PCT = 1.0         # error at most 1 % of a rotation at 98 % confidence
GOAL_MISS_PCT = 0.5        # misses under 0.5 %
NO_TARGET_MS = 1e6         # 1000 s: a p90 target no run reaches, every ladder depth runs

POINT_FIELDS = ["config", "label", "sched", "tracked", "workload", "depth", "per_disk_depth",
                "iops", "iops_per_disk", "mean_ms", "p50_ms", "p90_ms", "p99_ms",
                "hdd_late_pct", "trk_n", "trk_miss_pct", "trk_err_std_us", "trk_slack"]
TRACKER_FIELDS = ["time_scale", "slow", "period_us", "period_est_us", "period_err_pct",
                  "restarts", "cal_s", "requests",
                  "iops_per_disk", "err_mean_us", "err_std_us", "err_mean_pct", "err_std_pct",
                  "err98_pct", "miss_pct", "demerit_us", "access_us", "demerit_pct",
                  "slack", "hdd_late_pct", "meets_goal"]


# ------------------------------------------------------------ parsing
def parse_kv(text):
    """``a=1 b=x ...`` words -> {a: 1.0 or 'x'}; other words ignored."""
    out = {}
    for w in text.split():
        k, eq, v = w.partition("=")
        if not eq:
            continue
        try:
            out[k] = float(v)
        except ValueError:
            out[k] = v
    return out


def tracker_lines(text, label):
    """The tracker message outputs of one label (``after-trk ...`` lines in
    a bench .mstat, ``after ...`` in a tracker-guest trk file), as dicts."""
    out = []
    for line in text.splitlines():
        head, _, rest = line.partition(" ")
        if head == label:
            out.append(parse_kv(rest))
    return out


def hdd_late_pct(text, before="before", after="after"):
    """% of dm-hddsim requests completed late during a run, from status lines
    ``<label> <start> <len> hddsim <preset> <cap> <requests> ... <late>``
    (tracker-guest hdd file: no path word)."""
    st = {before: [], after: []}
    for line in text.splitlines():
        f = line.split()
        if f and f[0] in st and len(f) >= 16 and f[3] == "hddsim":
            st[f[0]].append((int(f[6]), int(f[15])))
    if not st[after] or len(st[after]) != len(st[before]):
        return None
    req = sum(a[0] - b[0] for a, b in zip(st[after], st[before]))
    late = sum(a[1] - b[1] for a, b in zip(st[after], st[before]))
    return 100.0 * late / req if req else None


def label_of(cfg):
    """Short label: ``raid0 satf+trk`` from the plan's configuration entry."""
    opts = cfg.get("opts", [])
    sched = opts[opts.index("sched") + 1] if "sched" in opts else "fifo"
    return f"{cfg['level']} {sched}" + ("+trk" if cfg.get("track") else "")


def sched_of(cfg):
    opts = cfg.get("opts", [])
    return opts[opts.index("sched") + 1] if "sched" in opts else "fifo"


def point_rows(bench_dir, desc):
    """One row per fio run of a policy/mirror plan (POINT_FIELDS)."""
    bench_dir = pathlib.Path(bench_dir)
    rows = []
    for cfg in desc["configs"]:
        for w in desc["workloads"]:
            d = bench_dir / cfg["id"] / w["name"]
            for js in sorted(d.glob("d*.json"), key=lambda p: int(p.stem[1:])):
                depth = int(js.stem[1:])
                side = results.fio_side(results.load_fio(js))
                ms = js.with_suffix(".mstat")
                mtext = ms.read_text() if ms.exists() else ""
                base = results.point_row(cfg, w["name"], depth, results.load_fio(js),
                                         mtext or None)
                trk = tracker_lines(mtext, "after-trk")
                n = sum(t.get("n", 0) for t in trk)

                def avg(key, trk=trk):
                    v = [t[key] for t in trk if isinstance(t.get(key), float)]
                    return sum(v) / len(v) if v else ""
                std = avg("err_std_ns")
                rows.append({
                    "config": cfg["name"], "label": label_of(cfg), "sched": sched_of(cfg),
                    "tracked": bool(cfg.get("track")), "workload": w["name"], "depth": depth,
                    "per_disk_depth": depth / cfg["disks"],
                    "iops": base["iops"], "iops_per_disk": base["iops_per_disk"],
                    "mean_ms": side.get("clat_ns", {}).get("mean", 0) / 1e6,
                    "p50_ms": base["p50_ms"], "p90_ms": base["p90_ms"], "p99_ms": base["p99_ms"],
                    "hdd_late_pct": base["hdd_late_pct"], "trk_n": int(n) if trk else "",
                    "trk_miss_pct": avg("miss_pct"),
                    "trk_err_std_us": std / 1e3 if std != "" else "",
                    "trk_slack": avg("slack"),
                })
    return rows


# ------------------------------------------------------------ tables
def by_label(rows, workload):
    """{label: {depth: row}} for one workload, labels in first-seen order."""
    out = {}
    for r in rows:
        if r["workload"] == workload:
            out.setdefault(r["label"], {})[r["depth"]] = r
    return out


def workloads_of(rows):
    return plots.ordered_unique(rows, "workload")


def gain_table(rows, workload, base_label=None):
    """Rows [depth, (label, iops/disk, mean ms, p90 ms, gain over base)...]:
    the policy comparison; base is the first label (fifo) unless given."""
    lab = by_label(rows, workload)
    if not lab:
        return [], []
    labels = list(lab)
    base = base_label or labels[0]
    depths = sorted({d for v in lab.values() for d in v})
    table = []
    for d in depths:
        b = lab.get(base, {}).get(d)
        cells = []
        for la in labels:
            r = lab[la].get(d)
            if r is None:
                cells.append(None)
                continue
            gain = r["iops"] / b["iops"] if b and b["iops"] else None
            cells.append((r["iops_per_disk"], r["mean_ms"], r["p90_ms"], gain))
        table.append((d, cells))
    return labels, table


def mirror_pairs(rows, workload):
    """[(variant, depth, raid0 iops/disk, mirror iops/disk, ratio)]: rl-mirror
    against rl-raid0 with the same options (variant: ``look``, ``satf+trk``)."""
    lab = by_label(rows, workload)
    out = []
    for la, pts in lab.items():
        level, _, variant = la.partition(" ")
        if level != "mirror":
            continue
        r0 = lab.get(f"raid0 {variant}")
        if not r0:
            continue
        for d in sorted(pts):
            if d in r0:
                a, m = r0[d]["iops_per_disk"], pts[d]["iops_per_disk"]
                out.append((variant, d, a, m, m / a if a else None))
    return out


def variant_ratios(rows, workload, level="mirror"):
    """[(variant, depth, iops/disk, ratio to the first variant)] of one level:
    trackers (predicted-time mirror reads) against none."""
    lab = {la.partition(" ")[2]: pts for la, pts in by_label(rows, workload).items()
           if la.partition(" ")[0] == level}
    if not lab:
        return []
    base = lab[next(iter(lab))]
    out = []
    for v, pts in lab.items():
        for d in sorted(pts):
            b = base.get(d)
            out.append((v, d, pts[d]["iops_per_disk"],
                        pts[d]["iops"] / b["iops"] if b and b["iops"] else None))
    return out


def _f(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"


def policy_markdown(rows):
    out = []
    for w in workloads_of(rows):
        labels, table = gain_table(rows, w)
        out += [f"### {w}", "",
                "| depth | " + " | ".join(f"{la} IOPS/disk | mean ms | p90 ms | x{labels[0]}"
                                           for la in labels) + " |",
                "|" + "---|" * (1 + 4 * len(labels))]
        for d, cells in table:
            out.append(f"| {d} | " + " | ".join(
                "- | - | - | -" if c is None else
                f"{c[0]:.1f} | {c[1]:.0f} | {c[2]:.0f} | {_f(c[3], '.2f')}" for c in cells) + " |")
        out.append("")
    return "\n".join(out)


def tracker_markdown_points(rows, period_ns=None):
    """Per configuration with trackers: the trackers' state after its last
    run (statistics accumulate over the configuration's runs)."""
    last = {}
    for r in rows:
        if r["tracked"] and r["trk_n"] != "":
            last[r["label"]] = r
    if not last:
        return ""
    rot = f" | err std % rot" if period_ns else ""
    out = ["| config | requests predicted | misses % | err std us" + rot + " | slack |",
           "|---|---|---|---|" + ("---|" if period_ns else "") + "---|"]
    for la, r in last.items():
        pct = (f" | {_f(100e3 * r['trk_err_std_us'] / period_ns, '.2f')}"
               if period_ns and r["trk_err_std_us"] != "" else (" | -" if period_ns else ""))
        out.append(f"| {la} | {r['trk_n']} | {_f(r['trk_miss_pct'], '.2f')} | "
                   f"{_f(r['trk_err_std_us'], '.0f')}{pct} | {_f(r['trk_slack'], '.1f')} |")
    return "\n".join(out) + "\n"


def mirror_markdown(rows):
    out = []
    for w in workloads_of(rows):
        pairs = mirror_pairs(rows, w)
        if not pairs:
            continue
        out += [f"### {w}", "", "| variant | depth | raid0 IOPS/disk | mirror IOPS/disk |"
                " mirror/raid0 |", "|---|---|---|---|---|"]
        for v, d, a, m, ratio in pairs:
            out.append(f"| {v} | {d} | {a:.1f} | {m:.1f} | {_f(ratio, '.2f')} |")
        out.append("")
        vr = variant_ratios(rows, w)
        if len({v for v, *_ in vr}) > 1:
            out += [f"rl-mirror with trackers against without ({vr[0][0]}):", "",
                    "| variant | depth | mirror IOPS/disk | x" + vr[0][0] + " |",
                    "|---|---|---|---|"]
            out += [f"| {v} | {d} | {i:.1f} | {_f(r, '.2f')} |" for v, d, i, r in vr]
            out.append("")
    return "\n".join(out)


# ------------------------------------------------------------ tracker maths
def tracker_row(ts, period_ns, trk_after, cal_s=None, iops=None, late_pct=None, ndisks=2):
    """One TRACKER_FIELDS row from the members' tracker outputs after the run.

    Per member the tracker gives the mean and standard deviation of the error
    (measured - predicted) of on-target requests and the % misses over all.
    Members are pooled weighted by their request counts n (the pooled std
    includes the spread of the members' means). 98 % confidence: the tracker
    keeps moments, not quantiles, so err98 = |mean| + Z98 * std (Z98 = 2.326,
    the two-sided 98 % bound of a normal error; conservative when the mean is
    not 0), as a % of the rotation (the geometry's wall-clock period).
    Demerit / access: request-weighted means of the members' values."""
    slow = float(1 / geommod.time_scale(ts))
    ns = [t.get("n", 0.0) for t in trk_after]
    tot = sum(ns)
    if not tot:
        return None

    def wmean(key):
        return sum(t.get(key, 0.0) * n for t, n in zip(trk_after, ns)) / tot
    mean = wmean("err_mean_ns")
    var = sum(n * (t.get("err_std_ns", 0.0) ** 2 + (t.get("err_mean_ns", 0.0) - mean) ** 2)
              for t, n in zip(trk_after, ns)) / tot
    std = math.sqrt(var)
    miss = wmean("miss_pct")
    dem, acc = wmean("demerit_ns"), wmean("access_ns")
    err98 = 100.0 * (abs(mean) + Z98 * std) / period_ns
    perr = [abs(t["period_ns"] - period_ns) / period_ns * 100 for t in trk_after
            if isinstance(t.get("period_ns"), float)]
    return {
        "time_scale": ts, "slow": slow, "period_us": period_ns / 1e3,
        "period_est_us": wmean("period_ns") / 1e3,
        "period_err_pct": max(perr) if perr else "",
        "restarts": int(sum(t.get("restarts", 0.0) for t in trk_after)),
        "cal_s": cal_s if cal_s is not None else "",
        "requests": int(tot), "iops_per_disk": iops / ndisks if iops else "",
        "err_mean_us": mean / 1e3, "err_std_us": std / 1e3,
        "err_mean_pct": 100.0 * mean / period_ns, "err_std_pct": 100.0 * std / period_ns,
        "err98_pct": err98, "miss_pct": miss, "demerit_us": dem / 1e3, "access_us": acc / 1e3,
        "demerit_pct": 100.0 * dem / acc if acc else "", "slack": wmean("slack"),
        "hdd_late_pct": late_pct if late_pct is not None else "",
        "meets_goal": err98 <= GOAL_ERR_PCT and miss < GOAL_MISS_PCT,
    }


def nocal_row(ts, period_ns, trk_after):
    """A scale whose trackers did not calibrate: no predictions to judge."""
    row = {k: "" for k in TRACKER_FIELDS}
    row.update(time_scale=ts, slow=float(1 / geommod.time_scale(ts)),
               period_us=period_ns / 1e3, cal_s="nocal", requests=0, meets_goal=False)
    est = [t["period_ns"] for t in trk_after if isinstance(t.get("period_ns"), float)]
    if est:
        row["period_est_us"] = sum(est) / len(est) / 1e3
        row["period_err_pct"] = max(abs(e - period_ns) / period_ns * 100 for e in est)
    return row


def paper_row():
    p = PAPER_002
    err98 = 100.0 * (p["err_mean_us"] + Z98 * p["err_std_us"]) / p["rotation_us"]
    return {"time_scale": "paper 002", "slow": "", "period_us": p["rotation_us"],
            "err_mean_us": p["err_mean_us"], "err_std_us": p["err_std_us"],
            "err_mean_pct": 100.0 * p["err_mean_us"] / p["rotation_us"],
            "err_std_pct": 100.0 * p["err_std_us"] / p["rotation_us"], "err98_pct": err98,
            "miss_pct": p["miss_pct"], "demerit_us": p["demerit_us"],
            "access_us": p["access_us"], "demerit_pct": 100.0 * p["demerit_us"] / p["access_us"],
            "meets_goal": err98 <= GOAL_ERR_PCT and p["miss_pct"] < GOAL_MISS_PCT}


def scale_id(ts):
    return str(ts).replace("/", "_")


def tracker_plan_text(scales, preset, runtime, depth, ndisks, sched="satf"):
    out = ["# raidlab sched-bench tracker plan (tools/raidlab_lib/bench/sched.py)",
           f"set runtime {runtime}", f"set depth {depth}", f"set disks {ndisks}",
           f"set preset {preset}", f"set sched {sched}"]
    for ts in scales:
        out.append(f"scale {scale_id(ts)} {ts} {geommod.geom_line(preset, ts)}")
    return "\n".join(out) + "\n"


def tracker_rows(tdir, scales, preset, ndisks):
    tdir = pathlib.Path(tdir)
    rows = []
    for ts in scales:
        d = tdir / scale_id(ts)
        if not (d / "trk").exists():
            continue
        trk = tracker_lines((d / "trk").read_text(), "after")
        period = geommod.geometry(preset, ts)["period_ns"]
        cal_txt = (d / "cal_s").read_text().strip() if (d / "cal_s").exists() else ""
        if cal_txt == "nocal":
            rows.append(nocal_row(ts, period, trk))
            continue
        iops = None
        if (d / "fio.json").exists():
            iops = results.fio_side(results.load_fio(d / "fio.json"))["iops"]
        late = hdd_late_pct((d / "hdd").read_text()) if (d / "hdd").exists() else None
        cal = int(cal_txt) if cal_txt.isdigit() else None
        r = tracker_row(ts, period, trk, cal, iops, late, ndisks)
        if r:
            rows.append(r)
    return rows


def member_markdown(tdir, scales, preset):
    """Per member and scale: period estimate, restarts, n, error, misses."""
    out = ["| time_scale | member | period error % | restarts | requests | err mean us"
           " | err std us | std % rot | misses % | slack |", "|" + "---|" * 10]
    for ts in scales:
        f = pathlib.Path(tdir) / scale_id(ts) / "trk"
        if not f.exists():
            continue
        period = geommod.geometry(preset, ts)["period_ns"]
        for i, t in enumerate(tracker_lines(f.read_text(), "after")):
            pe = (100 * (t["period_ns"] - period) / period
                  if isinstance(t.get("period_ns"), float) else "")
            std = t.get("err_std_ns", "")
            mean = t.get("err_mean_ns", "")
            out.append(f"| {ts} | {i} | {_f(pe, '+.2f')} | {_f(t.get('restarts'), '.0f')} | "
                       f"{_f(t.get('n'), '.0f')} | {_f(mean and mean / 1e3, '.0f')} | "
                       f"{_f(std and std / 1e3, '.0f')} | "
                       f"{_f(std and 100 * std / period, '.2f')} | "
                       f"{_f(t.get('miss_pct'), '.2f')} | {_f(t.get('slack'), '.0f')} |")
    return "\n".join(out)


def tracker_markdown(rows):
    head = ("| time_scale | rotation us | period err % | requests | err mean us | err std us"
            " | mean % rot"
            " | std % rot | err98 % rot | misses % | demerit us | access us | demerit/access %"
            " | hddsim late % | goal |")
    out = [head, "|" + "---|" * 15]
    for r in rows + [paper_row()]:
        g = r.get
        goal = "yes" if r["meets_goal"] else ("not calibrated" if g("cal_s") == "nocal" else "no")
        out.append(f"| {r['time_scale']} | {r['period_us']:.0f} | {_f(g('period_err_pct'), '.2f')}"
                   f" | {_f(g('requests'), 'd')} | "
                   f"{_f(g('err_mean_us'), '.1f')} | {_f(g('err_std_us'), '.1f')} | "
                   f"{_f(g('err_mean_pct'), '.2f')} | {_f(g('err_std_pct'), '.2f')} | "
                   f"{_f(g('err98_pct'), '.2f')} | {_f(g('miss_pct'), '.2f')} | "
                   f"{_f(g('demerit_us'), '.0f')} | {_f(g('access_us'), '.0f')} | "
                   f"{_f(g('demerit_pct'), '.1f')} | {_f(g('hdd_late_pct'), '.2f')} | {goal} |")
    return "\n".join(out)


# ------------------------------------------------------------ plots
def plot_policy(rows, path, title):
    plt = plots._plt()
    if plt is None or not rows:
        return None
    wls = workloads_of(rows)
    fig, axes = plt.subplots(2, len(wls), figsize=(5 * len(wls), 7), squeeze=False)
    for j, w in enumerate(wls):
        lab = by_label(rows, w)
        for i, (la, pts) in enumerate(lab.items()):
            ds = sorted(pts)
            col = plots.COLORS[i % len(plots.COLORS)]
            axes[0][j].plot(ds, [pts[d]["iops_per_disk"] for d in ds], marker="o", ms=3,
                            color=col, label=la)
            axes[1][j].plot(ds, [pts[d]["mean_ms"] for d in ds], marker="o", ms=3,
                            color=col, label=la)
        for k, yl in enumerate(("IOPS per disk", "mean response time (ms)")):
            ax = axes[k][j]
            ax.set_xscale("log", base=2)
            ax.set_xlabel("outstanding requests (array)", fontsize=8)
            ax.set_ylabel(yl, fontsize=8)
            ax.set_title(w, fontsize=9)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
        axes[0][j].legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    plots.save(fig, path)
    return path


def plot_mirror(rows, path, title):
    plt = plots._plt()
    wls = [w for w in workloads_of(rows) if mirror_pairs(rows, w)]
    if plt is None or not wls:
        return None
    fig, axes = plt.subplots(1, len(wls), figsize=(5.5 * len(wls), 4), squeeze=False)
    for ax, w in zip(axes[0], wls):
        pairs = mirror_pairs(rows, w)
        for i, v in enumerate(dict.fromkeys(p[0] for p in pairs)):
            pts = [p for p in pairs if p[0] == v]
            ax.plot([p[1] for p in pts], [p[4] for p in pts], marker="o", ms=3,
                    color=plots.COLORS[i % len(plots.COLORS)], label=f"mirror/raid0, {v}")
        ax.axhspan(1.10, 1.15, color="#cccccc", alpha=0.5, label="paper 001: 1.10-1.15")
        ax.axhline(1.0, color="gray", lw=0.6)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("outstanding requests (array)", fontsize=8)
        ax.set_ylabel("IOPS per disk, mirror / raid0", fontsize=8)
        ax.set_title(w, fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize=9)
    plots.save(fig, path)
    return path


def plot_tracker(rows, path):
    plt = plots._plt()
    rows = [r for r in rows if r["requests"]]
    if plt is None or not rows:
        return None
    xs = [r["slow"] for r in rows]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    ax = axes[0]
    ax.plot(xs, [r["err98_pct"] for r in rows], marker="o", label="|mean| + 2.33 std")
    ax.plot(xs, [r["err_std_pct"] for r in rows], marker="s", label="std")
    ax.plot(xs, [abs(r["err_mean_pct"]) for r in rows], marker="^", label="|mean|")
    ax.axhline(GOAL_ERR_PCT, color="k", ls="--", lw=0.8, label="goal: 1 % at 98 %")
    ax.set_ylabel("prediction error, % of a rotation")
    ax2 = axes[1]
    ax2.plot(xs, [r["miss_pct"] for r in rows], marker="o", label="misses %")
    ax2.plot(xs, [r["demerit_pct"] if r["demerit_pct"] != "" else math.nan for r in rows],
             marker="s", label="demerit / access %")
    ax2.axhline(GOAL_MISS_PCT, color="k", ls="--", lw=0.8, label="goal: misses < 0.5 %")
    ax2.axhline(PAPER_002["miss_pct"], color="#c44e52", ls=":", lw=0.8, label="paper 002 misses")
    ax2.axhline(100 * PAPER_002["demerit_us"] / PAPER_002["access_us"], color="#55a868", ls=":",
                lw=0.8, label="paper 002 demerit/access")
    for a in axes:
        a.set_xscale("log", base=2)
        a.set_yscale("log")
        a.set_ylim(bottom=0.05)
        a.set_xlabel("slow-down (1 / dm-hddsim time_scale)")
        a.legend(fontsize=7)
        a.grid(alpha=0.3)
    fig.suptitle("Head-position tracker accuracy on emulated Lightning disks vs time scale "
                 "(QEMU TCG)", fontsize=9)
    plots.save(fig, path)
    return path


# ------------------------------------------------------------ commands
def _csv(s):
    return [x for x in s.split(",") if x]


def register(verbs):
    p = verbs.add_parser(
        "sched-bench", help="queue policies, mirror reads and the head tracker on emulated disks",
        description="Issue 3's benchmarks in the VM lab over dm-hddsim members: policy "
                    "(fifo/look/satf throughput vs outstanding requests), mirror (rl-mirror vs "
                    "rl-raid0 random reads) and tracker (prediction error vs time_scale).")
    p.add_argument("which", choices=("policy", "mirror", "tracker"),
                   help="the study: queue policies, mirror reads, or the head tracker")
    p.add_argument("--preset", default="lightning", help="dm-hddsim preset with a geometry: "
                   + ", ".join(geommod.PRESETS) + " (default lightning)")
    p.add_argument("--time-scale", default="1/5",
                   help="policy/mirror: dm-hddsim time_scale (default 1/5)")
    p.add_argument("--policies", type=_csv, default=["fifo", "look", "satf"],
                   help="policy: comma list (default fifo,look,satf)")
    p.add_argument("--workloads", type=_csv, default=None,
                   help="policy/mirror: raidlab bench workloads (default ind-r; "
                        "ind-r,ind-w for the write variant); requests are one chunk")
    p.add_argument("--chunk-kb", type=int, default=4, help="chunk = request size (default 4)")
    p.add_argument("--depths", type=lambda s: [int(x) for x in _csv(s)],
                   default=[1, 2, 4, 8, 16, 32], help="outstanding requests (array)")
    p.add_argument("--members", type=int, default=2, help="policy: raid0 members (default 2)")
    p.add_argument("--runtime", type=int, default=0,
                   help="seconds per fio run (default 8; tracker: 40 per scale)")
    p.add_argument("--scales", type=_csv, default=["1", "1/2", "1/5", "1/10", "1/20"],
                   help="tracker: time scales (default 1,1/2,1/5,1/10,1/20)")
    p.add_argument("--depth", type=int, default=8, help="tracker: fio iodepth (default 8)")
    p.add_argument("--disks", type=int, default=4, help="lab member disks (default 4)")
    p.add_argument("--timeout", type=int, default=0,
                   help="seconds before the VM is stopped (default: the plan's own bound)")
    p.add_argument("--out", default=None, help="result folder (default results/sched/WHICH)")
    p.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    p.add_argument("--from-dir", default=None, help="recompute an earlier run's files (no VM)")
    p.set_defaults(func=run)


def configs_for(args):
    if args.which == "policy":
        return [f"rl-raid0@{args.members}[sched={s},depth=1,track]" for s in args.policies]
    # mirror: the same disks, raid0 vs mirror, without trackers (look; mirror
    # reads to the nearest head), with them under look (mirror reads by
    # predicted access time, queue order unchanged) and under satf
    return ["rl-raid0@2[sched=look,depth=1]", "rl-mirror[sched=look,depth=1]",
            "rl-raid0@2[sched=look,depth=1,track]", "rl-mirror[sched=look,depth=1,track]",
            "rl-raid0@2[sched=satf,depth=1,track]", "rl-mirror[sched=satf,depth=1,track]"]


def _command():
    return "tools/raidlab " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def finish_bench(out, desc, which, wall, command, log=sys.stdout):
    out = pathlib.Path(out)
    rows = point_rows(out / "vm" / "bench", desc)
    if not rows:
        print(f"raidlab sched-bench: no points under {out}/vm/bench", file=log)
        return 1
    results.write_csv(out / "sched-points.csv", rows, POINT_FIELDS)
    (out / "sched.json").write_text(json.dumps(
        {"which": which, "plan": desc, "wall_s": wall, "command": command, "points": rows},
        indent=1))
    ts = desc["time_scale"]
    head = [f"# raidlab sched-bench {which}", "", f"Command: `{command}`", "",
            f"Wall time: {wall:.0f} s. Disks: dm-hddsim {desc['disk_model']} at time_scale {ts}"
            f" (every time x{float(1 / geommod.time_scale(ts)):g} in wall clock). "
            f"{desc['runtime_s']} s closed-loop fio run per point, random requests of "
            f"{desc['configs'][0]['chunk_kib']} KiB, direct I/O, libaio; depth = outstanding "
            "requests on the array. Member queue_depth 1 (the policy orders the whole queue); "
            "+trk: every member's tracker loaded with the preset's geometry and calibrated "
            "before the runs.", ""]
    late = [r["hdd_late_pct"] for r in rows if r["hdd_late_pct"] != ""]
    if late:
        head += [f"dm-hddsim late requests: at most {max(late):.2f} % per point.", ""]
    if which == "policy":
        body = policy_markdown(rows)
        png = plot_policy(rows, out / "policy.png",
                          f"Queue policies on emulated {desc['disk_model']} disks "
                          f"(time_scale {ts}), raid0, member queue_depth 1")
    else:
        body = ("IOPS per disk (rl-mirror has 2 disks, rl-raid0 2 disks): ratio mirror/raid0."
                " Paper 001: 1.10-1.15 from seek optimisation alone.\n\n"
                + mirror_markdown(rows) + "\nAll points:\n\n" + policy_markdown(rows))
        png = plot_mirror(rows, out / "mirror.png",
                          f"Mirror reads vs raid0 on the same emulated {desc['disk_model']} "
                          f"disks (time_scale {ts})")
        plot_policy(rows, out / "mirror-iops.png", "IOPS per disk and mean response time")
    try:
        period = geommod.geometry(desc["disk_model"], ts)["period_ns"]
    except ValueError:
        period = None
    trk = tracker_markdown_points(rows, period)
    if trk:
        body += ("\nTrackers after each configuration's last run (cumulative over its runs, "
                 "pooled means over the members):\n\n" + trk)
    (out / "summary.md").write_text("\n".join(head) + body + "\n")
    print(body, file=log)
    print(f"{len(rows)} fio runs, wall {wall:.0f} s; files in {out}: sched-points.csv "
          f"sched.json summary.md {pathlib.Path(png).name if png else ''}", file=log)
    return 0


def finish_tracker(out, meta, wall, command, log=sys.stdout):
    out = pathlib.Path(out)
    rows = tracker_rows(out / "vm" / "tracker", meta["scales"], meta["preset"], meta["ndisks"])
    if not rows:
        print(f"raidlab sched-bench: no tracker results under {out}/vm/tracker", file=log)
        return 1
    results.write_csv(out / "tracker.csv", rows + [paper_row()], TRACKER_FIELDS)
    (out / "tracker.json").write_text(json.dumps(
        {"meta": meta, "wall_s": wall, "command": command, "rows": rows,
         "paper_002": paper_row()}, indent=1))
    png = plot_tracker(rows, out / "tracker.png")
    ok = [r["time_scale"] for r in rows if r["meets_goal"]]
    body = tracker_markdown(rows)
    text = (f"# raidlab sched-bench tracker\n\nCommand: `{command}`\n\nWall time: {wall:.0f} s. "
            f"dm-hddsim {meta['preset']} x{meta['ndisks']}, raid0, sched {meta['sched']}, "
            f"queue_depth 1; fio random 4 KiB reads at depth {meta['depth']} for "
            f"{meta['runtime']} s per scale, after calibration. Errors are wall-clock "
            "(measured - predicted access time) of on-target requests, pooled over the members; "
            "% rot is of the wall-clock rotation. err98 = |mean| + 2.326 std (the tracker keeps "
            "moments, not quantiles: a normal error's two-sided 98 % bound). Goal (issue 3, "
            "paper 002 Table 2): err98 <= 1 % of a rotation and misses < 0.5 %.\n\n"
            + body + "\n\nScales meeting the goal: " + (", ".join(ok) if ok else "none") + "\n"
            "\n*period err %*: the worst member's period estimate against the true (geometry)"
            " period after the run.\n\nPer member:\n\n"
            + member_markdown(out / "vm" / "tracker", meta["scales"], meta["preset"]) + "\n")
    (out / "summary.md").write_text(text)
    print(body + "\n\nScales meeting the goal: " + (", ".join(ok) if ok else "none"), file=log)
    print(f"wall {wall:.0f} s; files in {out}: tracker.csv tracker.json summary.md "
          f"{pathlib.Path(png).name if png else ''}", file=log)
    return 0


def run(args):
    out = pathlib.Path(args.out or f"results/sched/{args.which}")
    command = _command()
    if args.which == "tracker":
        meta = dict(scales=args.scales, preset=args.preset, runtime=args.runtime or 40,
                    depth=args.depth, ndisks=2, sched="satf")
        if args.from_dir:
            d = pathlib.Path(args.from_dir)
            old = json.loads((d / "tracker-meta.json").read_text())
            return finish_tracker(d, old["meta"], old.get("wall_s", 0.0), old["command"])
        try:
            text = tracker_plan_text(args.scales, args.preset, meta["runtime"], args.depth, 2)
        except ValueError as e:
            print(f"raidlab sched-bench: {e}", file=sys.stderr)
            return 2
        if args.dry_run:
            print(text, end="")
            return 0
        out.mkdir(parents=True, exist_ok=True)
        slow = sum(float(1 / geommod.time_scale(t)) for t in args.scales)
        timeout = args.timeout or int(600 + len(args.scales) * (meta["runtime"] + 60)
                                      + 20 * slow)
        rc, wall = runner.run(text, out, args.disks, len(args.scales), 1, timeout,
                              guest="bench/tracker-guest.sh")
        (out / "tracker-meta.json").write_text(json.dumps(
            {"meta": meta, "wall_s": wall, "command": command}, indent=1))
        if rc == 77:
            return 77
        frc = finish_tracker(out, meta, wall, command)
        return rc or frc
    if args.from_dir:
        d = pathlib.Path(args.from_dir)
        desc = json.loads((d / "plan.json").read_text())
        old = json.loads((d / "sched.json").read_text()) if (d / "sched.json").exists() else {}
        return finish_bench(d, desc, args.which, old.get("wall_s", 0.0),
                            old.get("command", command))
    try:
        p = planmod.build(configs_for(args), args.workloads or ["ind-r"], ladder=args.depths,
                          refine=0, runtime=args.runtime or 8, disks=args.disks,
                          chunk_kib=args.chunk_kb, target_ms=NO_TARGET_MS,
                          disk_model=args.preset, time_scale=args.time_scale)
    except ValueError as e:
        print(f"raidlab sched-bench: {e}", file=sys.stderr)
        return 2
    text = planmod.plan_text(p)
    if args.dry_run:
        print(text, end="")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    desc = planmod.describe(p)
    (out / "plan.json").write_text(json.dumps(desc, indent=1))
    timeout = args.timeout or int(600 + 2 * p.max_points() * (p.runtime + 4)
                                  + 120 * len(p.configs))
    rc, wall = runner.run(text, out, p.disks, p.max_points(), len(p.ladder), timeout)
    (out / "sched.json").write_text(json.dumps({"wall_s": wall, "command": command}))
    if rc == 77:
        return 77
    frc = finish_bench(out, desc, args.which, wall, command)
    return rc or frc
