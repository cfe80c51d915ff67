# SPDX-License-Identifier: GPL-2.0
"""``raidlab lifecycle-bench``: issue 4's measurements in the VM lab.

    tools/raidlab lifecycle-bench --out results/lifecycle

* rebuild: the rebuild rate onto a spare, idle and under a random 4 KiB
  70/30 load, and the load's p90 latency during the rebuild against normal
  operation, for raid5 and mirror with the metadata on pmem (DAX);
* intent: random 4 KiB write IOPS and p90 with no metadata device, with the
  metadata on pmem (DAX) and on a plain disk (dm-bufio): the cost of the
  write-intent bitmap that closes the write hole;
* replace (1.22): the same member copied onto the spare while it serves
  (the message replace), idle and under the same load, against the
  rebuild of the same run: the time of each and their ratio, the load's
  p90 during the copy against normal.

Guest side: tools/bench/lifecycle-guest.sh. Files: lifecycle.csv,
lifecycle.json, summary.md, lifecycle.png.
"""
import json
import pathlib
import shlex
import sys

from . import plots, runner


def plan_text(runtime, member_mb, schemes, depth):
    return (f"set runtime {runtime}\nset member_mb {member_mb}\n"
            f"set schemes {' '.join(schemes)}\nset depth {depth}\n")


def fio_point(path):
    """(iops, p90 ms) of the reads and writes of one fio JSON file."""
    job = json.loads(pathlib.Path(path).read_text())["jobs"][0]
    out = {}
    for d in ("read", "write"):
        st = job[d]
        pct = st.get("clat_ns", {}).get("percentile", {})
        p90 = pct.get("90.000000")
        out[d] = (st.get("iops", 0.0), p90 / 1e6 if p90 else None)
    return out


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


# a job's events ("rebuild" or "replace"), its check's ("check", "rcheck"),
# and its fio slices: before it, and during it
JOBS = {"rebuild": ("check", "normal", "rebuild"), "replace": ("rcheck", "rnormal", "replace")}


def _job_rows(d, events, job):
    check_word, before, during = JOBS[job]
    checks = {}
    for ln in events:
        w = ln.split()
        if len(w) >= 4 and w[0] == check_word:
            checks[(w[1], w[2])] = int(w[3])
    rows = []
    for ln in events:
        w = ln.split()
        if len(w) < 5 or w[0] != job:
            continue
        scheme, load, secs, sectors = w[1], w[2], float(w[3]), int(w[4])
        row = dict(experiment=job, scheme=scheme, config=load, seconds=secs,
                   rate_mib_s=sectors / 2048 / secs if secs > 0 else None,
                   mismatches=checks.get((scheme, load)))
        if load == "busy":
            for phase, name in ((before, "normal"), (during, job)):
                pts = [fio_point(f) for f in sorted(d.glob(f"{scheme}-{phase}-*.json"))]
                for rw in ("read", "write"):
                    row[f"{name}_{rw}_iops"] = _mean([p[rw][0] for p in pts])
                    row[f"{name}_{rw}_p90_ms"] = _mean([p[rw][1] for p in pts])
            for rw in ("read", "write"):
                if row.get(f"normal_{rw}_p90_ms") and row.get(f"{job}_{rw}_p90_ms"):
                    row[f"p90_ratio_{rw}"] = row[f"{job}_{rw}_p90_ms"] / row[f"normal_{rw}_p90_ms"]
        rows.append(row)
    return rows


def _rebuild_of(rows, r):
    """The rebuild row of @r's scheme and load (the same run), or {}."""
    return next((x for x in rows if x["experiment"] == "rebuild" and
                 x["scheme"] == r["scheme"] and x["config"] == r["config"]), {})


def collect(out_dir):
    """Rows for lifecycle.csv from the guest's files."""
    d = pathlib.Path(out_dir) / "vm" / "lifecycle"
    events = (d / "events.txt").read_text().split("\n") if (d / "events.txt").exists() else []
    rows = _job_rows(d, events, "rebuild")
    # a replace against the rebuild of the same scheme and load, same run
    for r in _job_rows(d, events, "replace"):
        reb = _rebuild_of(rows, r)
        if reb.get("seconds"):
            r["vs_rebuild"] = r["seconds"] / reb["seconds"]
        rows.append(r)
    for f in sorted(d.glob("*-intent-*.json")):
        scheme, _, md = f.stem.split("-", 2)
        p = fio_point(f)
        rows.append(dict(experiment="intent", scheme=scheme, config=md,
                         write_iops=p["write"][0], write_p90_ms=p["write"][1]))
    for scheme in {r["scheme"] for r in rows if r["experiment"] == "intent"}:
        base = next((r for r in rows if r["experiment"] == "intent" and r["scheme"] == scheme
                     and r["config"] == "none"), None)
        for r in rows:
            if r["experiment"] == "intent" and r["scheme"] == scheme and base and \
                    base["write_iops"]:
                r["iops_vs_none"] = r["write_iops"] / base["write_iops"]
    return rows


def _fmt(v, nd=2):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def summary(rows, wall, command):
    lines = ["# raidlab lifecycle-bench", "", f"Command: `{command}`  ", f"Wall: {wall:.0f} s", "",
             "## Rebuild onto a spare (metadata on pmem)", "",
             "| scheme | load | seconds | MiB/s per member | p90 read normal / rebuild (ms) "
             "| p90 write normal / rebuild (ms) | check after |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["experiment"] != "rebuild":
            continue
        lines.append(f"| {r['scheme']} | {r['config']} | {_fmt(r['seconds'], 1)} | "
                     f"{_fmt(r['rate_mib_s'], 1)} | {_fmt(r.get('normal_read_p90_ms'))} / "
                     f"{_fmt(r.get('rebuild_read_p90_ms'))} | "
                     f"{_fmt(r.get('normal_write_p90_ms'))} / "
                     f"{_fmt(r.get('rebuild_write_p90_ms'))} | {_fmt(r.get('mismatches'))} |")
    lines += ["", "## Replace against rebuild (the same member, the same run)", "",
              "| scheme | load | replace s | rebuild s | replace / rebuild | "
              "p90 read normal / replace (ms) | p90 write normal / replace (ms) | check after |",
              "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["experiment"] != "replace":
            continue
        reb = _rebuild_of(rows, r)
        lines.append(f"| {r['scheme']} | {r['config']} | {_fmt(r['seconds'], 1)} | "
                     f"{_fmt(reb.get('seconds'), 1)} | {_fmt(r.get('vs_rebuild'))} | "
                     f"{_fmt(r.get('normal_read_p90_ms'))} / {_fmt(r.get('replace_read_p90_ms'))} | "
                     f"{_fmt(r.get('normal_write_p90_ms'))} / "
                     f"{_fmt(r.get('replace_write_p90_ms'))} | {_fmt(r.get('mismatches'))} |")
    lines += ["", "The busy mirror's rebuild and replace are both bounded by the same "
              "sync_rate (so that load slices run during them): their ratio is about 1 "
              "by construction."]
    lines += ["", "## Write intent (random 4 KiB writes)", "",
              "| scheme | metadata | write IOPS | p90 ms | IOPS vs none |", "|---|---|---|---|---|"]
    for r in rows:
        if r["experiment"] == "intent":
            lines.append(f"| {r['scheme']} | {r['config']} | {_fmt(r['write_iops'], 0)} | "
                         f"{_fmt(r['write_p90_ms'])} | {_fmt(r.get('iops_vs_none'))} |")
    return "\n".join(lines) + "\n"


def plot(rows, path):
    plt = plots._plt()
    if plt is None:
        return None
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(16, 4))
    reb = [r for r in rows if r["experiment"] == "rebuild" and r["config"] == "busy"]
    for i, r in enumerate(reb):
        for j, (key, label) in enumerate((("normal_read_p90_ms", "normal"),
                                          ("rebuild_read_p90_ms", "during rebuild"))):
            v = r.get(key)
            if v is not None:
                ax1.bar(i * 3 + j, v, color=plots.COLORS[j], label=label if i == 0 else None)
    ax1.set_xticks([i * 3 + 0.5 for i in range(len(reb))], [r["scheme"] for r in reb])
    ax1.set_ylabel("p90 read latency (ms)")
    ax1.set_title("random 4 KiB 70/30: p90 before and during rebuild")
    ax1.legend()
    intent = [r for r in rows if r["experiment"] == "intent"]
    schemes = plots.ordered_unique(intent, "scheme")
    cfgs = plots.ordered_unique(intent, "config")
    for i, s in enumerate(schemes):
        for j, c in enumerate(cfgs):
            r = next((x for x in intent if x["scheme"] == s and x["config"] == c), None)
            if r:
                ax2.bar(i * (len(cfgs) + 1) + j, r["write_iops"], color=plots.COLORS[j],
                        label=c if i == 0 else None)
    ax2.set_xticks([i * (len(cfgs) + 1) + (len(cfgs) - 1) / 2 for i in range(len(schemes))],
                   schemes)
    ax2.set_ylabel("random 4 KiB write IOPS")
    ax2.set_title("write-intent bitmap: metadata none / pmem (dax) / disk (bufio)")
    ax2.legend()
    jobs = [r for r in rows if r["experiment"] in ("rebuild", "replace")]
    cases = plots.ordered_unique([dict(c=f"{r['scheme']} {r['config']}") for r in jobs], "c")
    for i, c in enumerate(cases):
        for j, job in enumerate(("rebuild", "replace")):
            r = next((x for x in jobs if f"{x['scheme']} {x['config']}" == c and
                      x["experiment"] == job), None)
            if r:
                ax3.bar(i * 3 + j, r["seconds"], color=plots.COLORS[j],
                        label=job if i == 0 else None)
    ax3.set_xticks([i * 3 + 0.5 for i in range(len(cases))], cases)
    ax3.set_ylabel("seconds")
    ax3.set_title("a member rebuilt from redundancy / replaced by a copy")
    ax3.legend()
    plots.save(fig, path)
    return path


def finish(out, wall, command):
    rows = collect(out)
    if not rows:
        print("raidlab lifecycle-bench: no results", file=sys.stderr)
        return 1
    keys = plots.ordered_unique([{"k": k} for r in rows for k in r], "k")
    with open(out / "lifecycle.csv", "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(_fmt(r.get(k), 4) if r.get(k) is not None else "" for k in keys)
                    + "\n")
    (out / "lifecycle.json").write_text(json.dumps(
        {"command": command, "wall_s": wall, "rows": rows}, indent=1))
    text = summary(rows, wall, command)
    (out / "summary.md").write_text(text)
    plot(rows, out / "lifecycle.png")
    print(text)
    bad = [r for r in rows if r.get("mismatches")]
    return 1 if bad else 0


def run(args):
    out = pathlib.Path(args.out or "results/lifecycle")
    command = "tools/raidlab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    if args.from_dir:
        d = pathlib.Path(args.from_dir)
        old = json.loads((d / "lifecycle.json").read_text())
        return finish(d, old.get("wall_s", 0.0), old.get("command", command))
    text = plan_text(args.runtime, args.member_mb, args.schemes, args.depth)
    if args.dry_run:
        print(text, end="")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    timeout = args.timeout or 3600
    points = len(args.schemes) * 20
    rc, wall = runner.run(text, out, 6, points, 1, timeout, guest="bench/lifecycle-guest.sh")
    if rc == 77:
        return 77
    return rc or finish(out, wall, command)


def register(verbs):
    p = verbs.add_parser(
        "lifecycle-bench", help="rebuild rate, p90 during rebuild, replace, write-intent cost",
        description="Issue 4's measurements in the VM lab: rebuild onto a spare (idle and "
                    "under load, p90 during rebuild against normal), replace of the same "
                    "member against it (1.22), and the cost of the write-intent bitmap (no "
                    "metadata, pmem, disk).")
    p.add_argument("--runtime", type=int, default=5, help="seconds per fio slice (default 5)")
    p.add_argument("--member-mb", type=int, default=256,
                   help="MiB of each member the arrays use (default 256)")
    p.add_argument("--schemes", type=lambda s: [x for x in s.split(",") if x],
                   default=["raid5", "mirror"], help="comma list (default raid5,mirror)")
    p.add_argument("--depth", type=int, default=4, help="fio iodepth (default 4)")
    p.add_argument("--timeout", type=int, default=0,
                   help="seconds before the VM is stopped (default: the plan's own bound)")
    p.add_argument("--out", default=None, help="result folder (default results/lifecycle)")
    p.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    p.add_argument("--from-dir", default=None, help="recompute an earlier run's files (no VM)")
    p.set_defaults(func=run)
