#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of tools/hddsim-bench: results.csv from the guest -> a table,
results.csv, results.json and ratio.png (sequential and random IOPS per
preset, side by side, with the per-request service breakdown)."""
import csv
import json
import shutil
import sys
from pathlib import Path


def main():
    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    dst.mkdir(parents=True, exist_ok=True)
    rows = list(csv.DictReader(open(src / "results.csv")))
    shutil.copy(src / "results.csv", dst / "results.csv")
    by = {}
    for r in rows:
        n = int(r["requests"]) or 1
        r["ms_per_req"] = {k: float(r[k + "_us"]) / n / 1000 for k in ("seek", "rot", "xfer", "busy")}
        r["cyls_per_req"] = int(r["seek_cyls"]) / n
        by.setdefault(r["preset"], {})[r["rw"]] = r
    out = []
    print(f"{'preset':12} {'seq IOPS':>9} {'rand IOPS':>9} {'ratio':>7}   random: seek  rot  xfer ms/req, cyl/req   late(seq/rand)")
    for p, d in by.items():
        s, r = d["read"], d["randread"]
        ratio = float(s["iops"]) / float(r["iops"])
        m = r["ms_per_req"]
        print(f"{p:12} {float(s['iops']):9.1f} {float(r['iops']):9.1f} {ratio:7.2f}   "
              f"{m['seek']:.2f} {m['rot']:.2f} {m['xfer']:.3f}, {r['cyls_per_req']:.0f}   {s['late']}/{r['late']}")
        out.append({"preset": p, "seq_iops": float(s["iops"]), "rand_iops": float(r["iops"]),
                    "ratio": ratio, "rand_ms_per_req": m, "seq_ms_per_req": s["ms_per_req"],
                    "rand_cyls_per_req": r["cyls_per_req"], "len_sectors": int(s["len_sectors"]),
                    "late_seq": int(s["late"]), "late_rand": int(r["late"])})
    json.dump(out, open(dst / "results.json", "w"), indent=2)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing, no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    x = range(len(out))
    ax.bar([i - 0.2 for i in x], [o["seq_iops"] for o in out], 0.4, label="sequential 4 KiB")
    ax.bar([i + 0.2 for i in x], [o["rand_iops"] for o in out], 0.4, label="random 4 KiB")
    ax.set_xticks(list(x), [o["preset"] for o in out])
    ax.set_yscale("log")
    ax.set_ylabel("IOPS (queue depth 64)")
    ax.set_title("dm-hddsim presets: sequential vs random reads")
    for i, o in enumerate(out):
        ax.text(i, o["seq_iops"], f"x{o['ratio']:.1f}", ha="center", va="bottom")
    ax.legend()
    fig.tight_layout()
    fig.savefig(dst / "ratio.png", dpi=120)
    print(f"\nresults: {dst}/results.csv, results.json, ratio.png")


if __name__ == "__main__":
    main()
