# SPDX-License-Identifier: GPL-2.0
"""The benchmark's plots (matplotlib, Agg), after Chen et al.:

  fig4-tput-vs-p90.png   throughput per disk against p90 response time, one
                         panel per workload, one line per configuration
                         (001 Fig. 4), the p90 target dashed;
  fig5-relative.png      throughput per disk relative to raid0 at the p90
                         target, bars per workload and configuration, with
                         Chen's simple (black bar) and adjusted (red dot)
                         models (001 Fig. 5);
  fig9-read-fraction.png throughput per disk against the read percentage for
                         each workload family measured at several mixes
                         (001 Fig. 9).

Each function returns the path written, or None when there is nothing to
draw (or matplotlib is missing).
"""
import math
import re
import sys

COLORS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860",
          "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd"]


def _plt():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("raidlab bench: matplotlib missing (python3-matplotlib), no plots", file=sys.stderr)
        return None


def save(fig, path):
    """Lay out @fig, write it to @path as PNG and free it."""
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    _plt().close(fig)


def ordered_unique(rows, key):
    """The values of row[key], each once, in order of first appearance."""
    return list(dict.fromkeys(r[key] for r in rows))


def _configs(rows):
    return ordered_unique(rows, "config")


def _grid(n):
    cols = min(n, 4)
    return int(math.ceil(n / cols)), cols


def fig4(points, results, path, max_panels=12):
    plt = _plt()
    if plt is None or not points:
        return None
    wls = []
    for r in results:
        if r["workload"] not in wls:
            wls.append(r["workload"])
    wls = wls[:max_panels]
    cfgs = _configs(results)
    rows, cols = _grid(len(wls))
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.3 * rows), squeeze=False)
    for ax, w in zip(axes.flat, wls):
        for i, c in enumerate(cfgs):
            pts = sorted((p for p in points if p["workload"] == w and p["config"] == c),
                         key=lambda p: p["depth"])
            if pts:
                ax.plot([p["p90_ms"] for p in pts], [p["mb_s_per_disk"] for p in pts],
                        marker="o", ms=3, color=COLORS[i % len(COLORS)], label=c)
        tgt = [r["target_ms"] for r in results if r["workload"] == w]
        if tgt:
            ax.axvline(tgt[0], color="k", ls="--", lw=0.8)
        ax.set_title(w, fontsize=9)
        ax.set_xlabel("p90 response time (ms)", fontsize=8)
        ax.set_ylabel("MB/s per disk", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(wls):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("Throughput per disk vs p90 response time (closed loop, depth varied;"
                 " dashed: p90 target)", fontsize=9)
    save(fig, path)
    return path


def fig5(results, path, title=None):
    plt = _plt()
    rel = [r for r in results if isinstance(r.get("relative"), float)]
    if plt is None or not rel:
        return None
    wls = []
    for r in rel:
        if r["workload"] not in wls:
            wls.append(r["workload"])
    cfgs = _configs(rel)
    n = len(cfgs)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(wls) * max(1, n / 3)), 4.4))
    for i, c in enumerate(cfgs):
        xs, ys, ms, ma = [], [], [], []
        for j, w in enumerate(wls):
            r = next((r for r in rel if r["config"] == c and r["workload"] == w), None)
            if r is None:
                continue
            x = j - 0.4 + width * (i + 0.5)
            xs.append(x)
            ys.append(r["relative"])
            if isinstance(r["model_simple"], float):
                ms.append((x, r["model_simple"]))
            if isinstance(r["model_adjusted"], float):
                ma.append((x, r["model_adjusted"]))
        bars = ax.bar(xs, ys, width * 0.95, color=COLORS[i % len(COLORS)], label=c)
        for b, y in zip(bars, ys):
            ax.annotate(f"{y:.2f}", (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=6)
        for x, y in ms:
            ax.hlines(y, x - width / 2, x + width / 2, color="k", lw=2)
        for x, y in ma:
            ax.plot([x], [y], "o", color="#c00000", ms=3)
    ax.axhline(1.0, color="gray", lw=0.6)
    ax.set_xticks(range(len(wls)))
    ax.set_xticklabels(wls, fontsize=8)
    ax.set_ylabel("throughput per disk / raid0's\n(higher is better)")
    ax.legend(fontsize=7, ncol=min(4, n))
    ax.set_title(title or "Throughput per disk relative to raid0 (no redundancy),\n"
                 "every array loaded until its p90 response time meets the same target\n"
                 "black bar: Chen et al.'s simple model, red dot: adjusted model", fontsize=9)
    save(fig, path)
    return path


def families(results):
    """{family: {config: [(read %, MB/s per disk)]}} for workloads whose name
    differs only in the mix (e.g. exp6k-r0-ua .. exp6k-r100-ua)."""
    fam = {}
    for r in results:
        m = re.fullmatch(r"([^-]+)-(?:r\d*|w)(-.*)?", r["workload"])
        if not m:
            continue
        key = m.group(1) + (m.group(2) or "")
        fam.setdefault(key, {}).setdefault(r["config"], []).append(
            (r["read_pct"], r["mb_s_per_disk"]))
    return {k: v for k, v in fam.items()
            if len({p for pts in v.values() for p, _ in pts}) >= 3}


def fig9(results, path):
    plt = _plt()
    fam = families(results)
    if plt is None or not fam:
        return None
    rows, cols = _grid(len(fam))
    fig, axes = plt.subplots(rows, cols, figsize=(4.5 * cols, 3.4 * rows), squeeze=False)
    cfgs = _configs(results)
    for ax, (name, by_cfg) in zip(axes.flat, sorted(fam.items())):
        for i, c in enumerate(cfgs):
            pts = sorted(by_cfg.get(c, []))
            if pts:
                ax.plot([p for p, _ in pts], [v for _, v in pts], marker="o", ms=3,
                        color=COLORS[i % len(COLORS)], label=c)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("reads (%)", fontsize=8)
        ax.set_ylabel("MB/s per disk at p90 target", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(fam):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("Effect of mixing reads and writes (Chen Fig. 9)", fontsize=9)
    save(fig, path)
    return path


def write_all(dst, points, results):
    out = []
    for p in (fig4(points, results, f"{dst}/fig4-tput-vs-p90.png"),
              fig5(results, f"{dst}/fig5-relative.png"),
              fig9(results, f"{dst}/fig9-read-fraction.png")):
        if p:
            out.append(p)
    return out
