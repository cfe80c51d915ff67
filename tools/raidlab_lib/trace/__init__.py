# SPDX-License-Identifier: GPL-2.0
"""``raidlab trace``: blktrace of the members while a workload runs.

    tools/raidlab trace --configs rl-raid0,rl-raid5,md-raid5 --workload ind-w

One VM boot: the first configuration runs the fio workload with blktrace on
the array device and on every member; the array's trace (blkparse -d) is
then replayed through fio (read_iolog, replay_redirect) on every other
configuration, members traced again, so every scheme sees the same logical
I/O stream. The host parses blkparse's text (blkparse.py) and reports per
configuration: member I/Os per logical request by kind, seek-distance
histograms and per-disk utilisation (from the traces, and from the members'
/sys/block/*/stat io_ticks). ``--parse DIR`` re-analyses a folder.
"""
import csv
import json
import pathlib
import sys

from . import blkparse
from ..bench import plan as planmod
from ..bench import results as bres
from ..bench import plots, runner, workloads as wlmod


def register(verbs):
    p = verbs.add_parser(
        "trace", help="blktrace the members during a workload; replay it on every scheme",
        description="Record a workload on the first configuration with blktrace on the "
                    "array and its members, replay the array's trace through fio on the "
                    "others, and report member I/Os per request, seek distances and "
                    "utilisation.")
    p.add_argument("--configs", type=lambda s: [x for x in s.split(",") if x],
                   default=["rl-raid0", "rl-mirror", "rl-raid5", "md-raid5"],
                   help="the configurations to replay on, comma-separated")
    p.add_argument("--workload", default="ind-w", help="a bench workload name (default ind-w)")
    p.add_argument("--depth", type=int, default=4, help="outstanding requests (default 4)")
    p.add_argument("--runtime", type=int, default=5, help="seconds of the recorded run")
    p.add_argument("--size-mb", type=int, default=1024,
                   help="address range of the recorded run (fits every array; default 1024)")
    p.add_argument("--out", default="results/trace", help="result folder")
    p.add_argument("--parse", default=None, help="analyse an earlier run's folder (no VM)")
    p.add_argument("--disks", type=int, default=4, help="member disks (default 4)")
    p.add_argument("--chunk-kb", type=int, default=64, help="chunk in KiB (default 64)")
    p.add_argument("--disk-model", default="none",
                   help="dm-hddsim disk model under the members (default none)")
    p.add_argument("--time-scale", default="1", help="dm-hddsim time_scale N or N/M")
    p.set_defaults(func=run)


def plan_text(configs, workload, depth, runtime, size_mb, disk_model="none", time_scale=1):
    cfgs = configs
    w = wlmod.parse(workload)
    out = ["# raidlab trace plan", f"set runtime {runtime}", f"set disk_model {disk_model}",
           f"set time_scale {time_scale}"]
    for i, c in enumerate(cfgs):
        out.append(f"config {c.cid} {c.kind} {c.level} {c.disks} {c.chunk_kib}")
        if i == 0:
            args = wlmod.fio_args(w, c.geometry) + [f"--size={size_mb}m"]
            out.append(f"trace {c.cid} {w.name} {depth} " + " ".join(args))
        else:
            out.append(f"replay {c.cid} {w.name} {depth}")
    return "\n".join(out) + "\n"


def io_ticks(mstat_text):
    """{member path: io_ticks ms during the run} from a .mstat file."""
    b, a = {}, {}
    for line in mstat_text.splitlines():
        f = line.split()
        if len(f) >= 12 and f[0] in ("before", "after"):
            (b if f[0] == "before" else a)[f[1]] = int(f[11])
    return {k: a[k] - b.get(k, a[k]) for k in a}


def analyse_dir(d, configs_meta):
    """Rows per configuration x member, and per configuration summaries."""
    rows, summary = [], []
    for cm in configs_meta:
        for wdir in sorted((pathlib.Path(d) / cm["id"]).glob("*")):
            mt = wdir / "members.txt"
            if not mt.exists():
                continue
            traces = blkparse.parse(mt.read_text())
            span = blkparse.span_of(traces)
            job = bres.load_fio(wdir / "fio.json")
            r_ios = job["read"]["total_ios"]
            w_ios = job["write"]["total_ios"]
            runtime_s = max(job.get("job_runtime", 0) / 1000.0, 1e-9)
            ticks = io_ticks((wdir / "mstat").read_text()) if (wdir / "mstat").exists() else {}
            paths = {}
            for line in mt.read_text().splitlines():
                if line.startswith("# member "):
                    paths[line.split()[2]] = line.split()[3]
            tot = {"reads": 0, "writes": 0}
            hist = [0] * len(blkparse.SEEK_LABELS)
            for name, evs in sorted(traces.items()):
                a = blkparse.analyse(evs, span)
                tk = ticks.get(paths.get(name, ""), None)
                rows.append({"config": cm["name"], "workload": wdir.name, "member": name,
                             "reads": a["reads"], "writes": a["writes"],
                             "mean_seek_sectors": a["mean_seek_sectors"],
                             "util_trace": a["util"],
                             "util_sysfs": tk / 1000.0 / runtime_s if tk is not None else "",
                             "seek_hist": a["seek_hist"]})
                tot["reads"] += a["reads"]
                tot["writes"] += a["writes"]
                hist = [x + y for x, y in zip(hist, a["seek_hist"])]
            logical = r_ios + w_ios
            side = bres.fio_side(job)
            summary.append({
                "config": cm["name"], "workload": wdir.name, "logical_reads": r_ios,
                "logical_writes": w_ios, "iops": side["iops"],
                "p90_ms": bres.percentile(side, 90),
                "member_reads_per_req": tot["reads"] / logical if logical else 0.0,
                "member_writes_per_req": tot["writes"] / logical if logical else 0.0,
                "seek_hist": hist,
                "util_mean": (sum(r["util_trace"] for r in rows if r["config"] == cm["name"])
                              / max(1, sum(1 for r in rows if r["config"] == cm["name"]))),
            })
    return rows, summary


def table(summary, rows):
    head = (f"{'config':<12}{'workload':<12}{'logical':>9}{'IOPS':>8}{'p90 ms':>8}"
            f"{'mem R/req':>10}{'mem W/req':>10}{'util per member (trace)':>26}")
    out = [head, "-" * len(head)]
    for s in summary:
        utils = " ".join(f"{r['util_trace']:.0%}" for r in rows if r["config"] == s["config"])
        out.append(f"{s['config']:<12}{s['workload']:<12}"
                   f"{s['logical_reads'] + s['logical_writes']:>9}{s['iops']:>8.0f}"
                   f"{s['p90_ms']:>8.2f}{s['member_reads_per_req']:>10.2f}"
                   f"{s['member_writes_per_req']:>10.2f}   {utils}")
    out.append("seek distance histogram (member issues, all members): "
               + " ".join(blkparse.SEEK_LABELS))
    for s in summary:
        out.append(f"  {s['config']:<12}" + " ".join(str(x) for x in s["seek_hist"]))
    return "\n".join(out)


def plot(summary, rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.8))
    n = len(summary)
    width = 0.8 / max(n, 1)
    for i, s in enumerate(summary):
        tot = sum(s["seek_hist"]) or 1
        xs = [j - 0.4 + width * (i + 0.5) for j in range(len(blkparse.SEEK_LABELS))]
        a1.bar(xs, [x / tot for x in s["seek_hist"]], width * 0.95, label=s["config"])
    a1.set_xticks(range(len(blkparse.SEEK_LABELS)))
    a1.set_xticklabels(blkparse.SEEK_LABELS, fontsize=7)
    a1.set_xlabel("seek distance between consecutive member I/Os")
    a1.set_ylabel("fraction of member I/Os")
    a1.legend(fontsize=7)
    cfgs = [s["config"] for s in summary]
    for i, c in enumerate(cfgs):
        us = [r["util_trace"] for r in rows if r["config"] == c]
        xs = [i - 0.4 + 0.8 / max(len(us), 1) * (k + 0.5) for k in range(len(us))]
        a2.bar(xs, us, 0.8 / max(len(us), 1) * 0.9, color="#4c72b0")
    a2.set_xticks(range(len(cfgs)))
    a2.set_xticklabels(cfgs, fontsize=8)
    a2.set_ylabel("utilisation per member")
    a2.set_ylim(0, 1.05)
    fig.suptitle("Member traces (blktrace): seek distances and per-disk utilisation", fontsize=9)
    plots.save(fig, path)
    return path


def report(d, configs_meta, wall=0.0):
    d = pathlib.Path(d)
    rows, summary = analyse_dir(d / "vm" / "trace", configs_meta)
    if not summary:
        print(f"raidlab trace: no traces under {d}/vm/trace", file=sys.stderr)
        return 1
    with open(d / "trace.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            r2 = dict(r)
            r2["seek_hist"] = " ".join(map(str, r["seek_hist"]))
            w.writerow(r2)
    (d / "trace.json").write_text(json.dumps(
        {"configs": configs_meta, "seek_buckets": blkparse.SEEK_LABELS, "wall_s": wall,
         "members": rows, "summary": summary}, indent=1))
    png = plot(summary, rows, d / "trace.png")
    print(table(summary, rows))
    print(f"\nfiles in {d}: trace.csv trace.json" + (" trace.png" if png else ""))
    return 0


def run(args):
    if args.parse:
        meta = json.loads((pathlib.Path(args.parse) / "configs.json").read_text())
        return report(args.parse, meta)
    try:
        cfgs = [planmod.parse_config(c, args.disks, args.chunk_kb) for c in args.configs]
        text = plan_text(cfgs, args.workload, args.depth, args.runtime, args.size_mb,
                         args.disk_model, args.time_scale)
    except ValueError as e:
        print(f"raidlab trace: {e}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = [dict(name=c.name, id=c.cid, kind=c.kind, level=c.level, disks=c.disks)
            for c in cfgs]
    (out / "configs.json").write_text(json.dumps(meta, indent=1))
    rc, wall = runner.run(text, out, args.disks, len(cfgs), 1,
                          600 + 60 * len(cfgs) * (args.runtime + 10))
    if rc != 0:
        print(f"raidlab trace: the VM run failed (rc {rc}); see {out}/vm/console.log",
              file=sys.stderr)
        if rc == 77:
            return 77
    return report(out, meta, wall) or rc
