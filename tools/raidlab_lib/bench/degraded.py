# SPDX-License-Identifier: GPL-2.0
"""Healthy against degraded, measured in one run (issue 15's claim).

A plan that holds a configuration twice, once as is and once with
``[fail=I]`` (member I failed before its jobs), gives for each workload the
ratio of the degraded configuration's throughput to the healthy one's,
beside paper 004's bottleneck model (models/p004_mirrored.py, ``raidlab
model p004-degraded``): RAID-10 near 2 falls to about (r/2 + w)/(r + w) of
healthy, 0.5 for reads, its failed member's partner saturating; chained
declustering keeps about (n - 1)/n of its reads. Configurations that differ
only in kind (rl- and md- of the same level, disks, failure and options)
are also put side by side: raidlab over md.

Files: degraded.csv, degraded.md (also appended to summary.md) and
degraded.png (measured bars, model dots).
"""
import re

from ..models import p004_mirrored as p004
from . import plots
from . import results as resmod

FIELDS = ["workload", "config", "healthy", "read_pct", "iops_healthy", "iops_degraded",
          "measured", "model"]
VS_FIELDS = ["workload", "config", "md_config", "iops", "md_iops", "ratio"]
LAYOUT = {"raid10": "raid10", "chained": "chained"}


def healthy_name(name):
    """The configuration's name without its fail= option."""
    bare, _, inner = name.partition("[")
    opts = [o for o in inner.rstrip("]").split(",") if o and not o.startswith("fail=")]
    return bare + (f"[{','.join(opts)}]" if opts else "")


def _model(cfg, read_pct):
    layout = LAYOUT.get(cfg["level"])
    if layout is None or cfg.get("fail") is None:
        return ""
    try:
        ratio = p004.degraded_ratio(layout, cfg["disks"], (cfg["fail"],), read_pct / 100)
    except ValueError:
        return ""
    return "" if ratio is None else float(ratio)


def rows(results, desc):
    """One row per degraded configuration and workload with a healthy twin."""
    cfgs = {c["name"]: c for c in desc["configs"]}
    by = {(r["config"], r["workload"]): r for r in results}
    out = []
    for c in desc["configs"]:
        if c.get("fail") is None:
            continue
        h = healthy_name(c["name"])
        for r in results:
            if r["config"] != c["name"] or (h, r["workload"]) not in by or h not in cfgs:
                continue
            hr = by[(h, r["workload"])]
            out.append({"workload": r["workload"], "config": c["name"], "healthy": h,
                        "read_pct": r["read_pct"], "iops_healthy": hr["iops"],
                        "iops_degraded": r["iops"],
                        "measured": r["iops"] / hr["iops"] if hr["iops"] else "",
                        "model": _model(c, r["read_pct"])})
    return out


def _md_twin(name):
    """rl-LEVEL... -> md-LEVEL... (the same disks and failure), or None."""
    m = re.match(r"rl-(raid10)(@\d+)?(\[.*\])?$", name)
    if not m:
        return None
    fail = [o for o in (m.group(3) or "[]")[1:-1].split(",") if o.startswith("fail=")]
    return f"md-{m.group(1)}{m.group(2) or ''}" + (f"[{fail[0]}]" if fail else "")


def versus_md(results):
    """raidlab against md, same level, disks and failure, per workload;
    rl configurations with other options (track, sched) are compared too."""
    by = {(r["config"], r["workload"]): r for r in results}
    out = []
    for r in results:
        md = _md_twin(r["config"])
        if md is None or (md, r["workload"]) not in by:
            continue
        m = by[(md, r["workload"])]
        out.append({"workload": r["workload"], "config": r["config"], "md_config": md,
                    "iops": r["iops"], "md_iops": m["iops"],
                    "ratio": r["iops"] / m["iops"] if m["iops"] else ""})
    return out


def markdown(rws, vs):
    f = resmod.fmt
    out = ["## Degraded over healthy (one run)", "",
           "*measured*: IOPS of the configuration with a member failed over the same"
           " configuration healthy, at each one's p90 target; *model*: paper 004's"
           " bottleneck model (`raidlab model p004-degraded`).", ""]
    out += resmod.md_table(
        ["workload", "config", "reads %", "IOPS healthy", "IOPS degraded", "measured", "model"],
        [[r["workload"], r["config"], r["read_pct"], f(r["iops_healthy"], ".0f"),
          f(r["iops_degraded"], ".0f"), f(r["measured"], ".2f"), f(r["model"], ".2f")]
         for r in rws])
    if vs:
        out += ["", "## raidlab over md (one run)", ""]
        out += resmod.md_table(
            ["workload", "config", "md config", "IOPS", "md IOPS", "ratio"],
            [[r["workload"], r["config"], r["md_config"], f(r["iops"], ".0f"),
              f(r["md_iops"], ".0f"), f(r["ratio"], ".2f")] for r in vs])
    return "\n".join(out) + "\n"


def plot(rws, path):
    """Bars: measured degraded/healthy per configuration, a panel per
    workload; the model as a dot on each bar."""
    plt = plots._plt()
    if plt is None or not rws:
        return None
    wls = plots.ordered_unique(rws, "workload")
    cfgs = plots.ordered_unique(rws, "config")
    fig, axes = plt.subplots(1, len(wls), figsize=(4 * len(wls) + 1, 4), squeeze=False)
    for ax, w in zip(axes[0], wls):
        for i, c in enumerate(cfgs):
            r = next((x for x in rws if x["workload"] == w and x["config"] == c), None)
            if r is None or r["measured"] == "":
                continue
            ax.bar(i, r["measured"], color=plots.COLORS[i % len(plots.COLORS)], label=c)
            if r["model"] != "":
                ax.plot(i, r["model"], "o", color="black")
        ax.set_title(w)
        ax.set_ylim(0, 1.3)
        ax.axhline(1.0, color="grey", lw=0.5)
        ax.set_xticks(range(len(cfgs)))
        ax.set_xticklabels([healthy_name(c) for c in cfgs], rotation=30, ha="right",
                           fontsize=7)
    axes[0][0].set_ylabel("throughput degraded / healthy (dot: model)")
    plots.save(fig, path)
    return str(path)


def write_all(dst, results, desc):
    """The files; returns (rows, versus-md rows, names written)."""
    rws, vs = rows(results, desc), versus_md(results)
    if not rws and not vs:
        return rws, vs, []
    resmod.write_csv(dst / "degraded.csv", rws, FIELDS)
    resmod.write_csv(dst / "versus-md.csv", vs, VS_FIELDS)
    md = markdown(rws, vs)
    (dst / "degraded.md").write_text(md)
    with open(dst / "summary.md", "a") as f:
        f.write("\n" + md)
    files = ["degraded.csv", "versus-md.csv", "degraded.md"]
    if plot(rws, dst / "degraded.png"):
        files.append("degraded.png")
    return rws, vs, files
