#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the demo's fio JSON and dm status files into a comparison table.

    tools/demo/report.py <dir with *.json and *.status> <results dir>

Prints the table and writes results.csv, results.json and iops.png (one
bar group per workload, one bar per scheme) to the results directory.
"""
import csv
import json
import pathlib
import sys

# dmsetup status words (0-based): 3 scheme ... 10 logical reads, 11 logical
# writes, 12..15 data reads, data writes, parity reads, parity writes
ST_LREADS, ST_LWRITES, ST_MEMBER = 10, 11, slice(12, 16)


def load(src):
    rows = []
    for js in sorted(src.glob("*.json")):
        scheme, rw, bs = js.stem.rsplit("-", 2)
        job = json.loads(js.read_text())["jobs"][0]
        side = job["read"] if "read" in rw else job["write"]
        pct = side.get("lat_ns", {}).get("percentile") or side["clat_ns"]["percentile"]
        words = js.with_suffix(".status").read_text().split()
        member = sum(int(w) for w in words[ST_MEMBER])
        logical = int(words[ST_LREADS]) + int(words[ST_LWRITES])
        rows.append({
            "scheme": scheme,
            "workload": f"{rw} {bs}",
            "iops": side["iops"],
            "mb_s": side["bw_bytes"] / 1e6,
            "p50_ms": pct["50.000000"] / 1e6,
            "p90_ms": pct["90.000000"] / 1e6,
            "p99_ms": pct["99.000000"] / 1e6,
            "member_ios_per_logical": member / logical if logical else 0.0,
        })
    order = {"raid0": 0, "mirror": 1, "raid4": 2, "raid5": 3}
    rows.sort(key=lambda r: (r["workload"], order.get(r["scheme"], 9)))
    return rows


def table(rows):
    head = f"{'workload':<14}{'scheme':<8}{'IOPS':>9}{'MB/s':>9}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'member I/Os':>13}"
    out = [head, "-" * len(head)]
    for r in rows:
        out.append(f"{r['workload']:<14}{r['scheme']:<8}{r['iops']:>9.0f}{r['mb_s']:>9.1f}"
                   f"{r['p50_ms']:>9.2f}{r['p90_ms']:>9.2f}{r['p99_ms']:>9.2f}"
                   f"{r['member_ios_per_logical']:>13.2f}")
    out.append("member I/Os: member I/Os of every kind per logical request of the run")
    return "\n".join(out)


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing, no plot", file=sys.stderr)
        return
    workloads = sorted({r["workload"] for r in rows})
    schemes = ["raid0", "mirror", "raid4", "raid5"]
    fig, axes = plt.subplots(1, len(workloads), figsize=(4 * len(workloads), 3.6))
    for ax, wl in zip(axes, workloads):
        vals = {r["scheme"]: r for r in rows if r["workload"] == wl}
        xs = [s for s in schemes if s in vals]
        bars = ax.bar(xs, [vals[s]["iops"] for s in xs], color="#4c72b0")
        for b, s in zip(bars, xs):
            ax.annotate(f"{vals[s]['member_ios_per_logical']:.1f} I/O",
                        (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=8)
        ax.set_title(wl)
        ax.set_ylabel("IOPS")
    fig.suptitle("dm-raidlab schemes over the same 4 emulated disks (label: member I/Os per request)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    rows = load(src)
    if not rows:
        sys.exit(f"report: no results in {src}")
    dst.mkdir(parents=True, exist_ok=True)
    with open(dst / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    (dst / "results.json").write_text(json.dumps(rows, indent=1))
    plot(rows, dst / "iops.png")
    print(table(rows))
    print(f"\nresults: {dst}/results.csv, results.json, iops.png")


if __name__ == "__main__":
    main()
