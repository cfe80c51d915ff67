#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cost of the write-hole journal on small writes: one VM boot running
# tools/bench/journal-guest.sh (raid5, random 4 KiB writes; no metadata,
# pmem/DAX with the journal off and on, dm-bufio with the journal off and
# on, taking turns), then journal.csv, journal.json, summary.md and
# journal.png (if matplotlib is there) in OUT.
#
#   tools/bench/journal-bench.sh [--out DIR] [RUNTIME ROUNDS DEPTH SPAN_MB]
#   (defaults: results/journal, 10 s slices, 3 rounds, iodepth 4, 64 MiB)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/results/journal
if [ "${1:-}" = --out ]; then
	OUT=$(realpath -m "$2")
	shift 2
fi
mkdir -p "$OUT"
"$ROOT/scripts/lab/vm-run.sh" --disks 5 --timeout 3600 --quiet --out "$OUT/vm" \
	"$ROOT/tools/bench/journal-guest.sh" "$@"

python3 - "$OUT" "$ROOT/tools" <<'EOF'
import json, pathlib, re, statistics, sys
sys.path.insert(0, sys.argv[2])
from raidlab_lib import dm

out = pathlib.Path(sys.argv[1])
d = out / "vm" / "journal"
configs = ["none", "dax-off", "dax-on", "bufio-off", "bufio-on"]
rows = []
for f in sorted(d.glob("*.json")):
    m = re.fullmatch(r"(.+)-(\d+)\.json", f.name)
    if not m:
        continue
    job = json.loads(f.read_text())["jobs"][0]["write"]
    lat = job.get("clat_ns") or job.get("lat_ns")
    # the journal's fields by name: the line's end is the scheme's group
    # and the bad-block field since 1.7 (they were its last four before)
    st = dm.parse_status((d / f"status-{m.group(1)}-{m.group(2)}.txt").read_text())
    rows.append({"config": m.group(1), "round": int(m.group(2)),
                 "iops": job["iops"], "p90_ms": lat["percentile"]["90.000000"] / 1e6,
                 "mean_ms": lat["mean"] / 1e6,
                 "journal": st.journal, "jnl_records": st.jnl_records,
                 "jnl_bytes": st.jnl_bytes, "jnl_waits": st.jnl_waits})
rows.sort(key=lambda r: (configs.index(r["config"]), r["round"]))
with open(out / "journal.csv", "w") as fh:
    keys = list(rows[0])
    fh.write(",".join(keys) + "\n")
    for r in rows:
        fh.write(",".join(str(r[k]) for k in keys) + "\n")
summ = {}
for c in configs:
    rs = [r for r in rows if r["config"] == c]
    if rs:
        summ[c] = {"iops": statistics.median(r["iops"] for r in rs),
                   "p90_ms": statistics.median(r["p90_ms"] for r in rs),
                   "rounds": len(rs),
                   "bytes_per_record": sum(r["jnl_bytes"] for r in rs) /
                   max(1, sum(r["jnl_records"] for r in rs)),
                   "waits": sum(r["jnl_waits"] for r in rs)}
base = summ.get("dax-off")
lines = ["# write-hole journal: raid5 random 4 KiB writes", "",
         "| config | IOPS (median) | p90 ms (median) | IOPS / dax-off | p90 / dax-off | journal bytes / record | ring-full waits | rounds |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
for c, s in summ.items():
    ri = s["iops"] / base["iops"] if base else float("nan")
    rp = s["p90_ms"] / base["p90_ms"] if base else float("nan")
    lines.append(f"| {c} | {s['iops']:.0f} | {s['p90_ms']:.2f} | {ri:.2f} | {rp:.2f} | "
                 f"{s['bytes_per_record']:.0f} | {s['waits']} | {s['rounds']} |")
(out / "summary.md").write_text("\n".join(lines) + "\n")
(out / "journal.json").write_text(json.dumps({"rows": rows, "summary": summ}, indent=1))
print("\n".join(lines))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.5))
    names = list(summ)
    ax[0].bar(names, [summ[c]["iops"] for c in names])
    ax[0].set_ylabel("IOPS (median)")
    ax[1].bar(names, [summ[c]["p90_ms"] for c in names])
    ax[1].set_ylabel("p90 ms (median)")
    for a in ax:
        a.tick_params(axis="x", rotation=30)
    fig.suptitle("raid5 random 4 KiB writes: journal cost")
    fig.tight_layout()
    fig.savefig(out / "journal.png", dpi=100)
except ImportError:
    pass
EOF
