# SPDX-License-Identifier: GPL-2.0
"""``raidlab amrec-bench``: altmirror's recovery onto two replacements
(paper 003 section 4) timed in the VM lab, beside the plain rebuild onto
one spare, under the paper's read load, with the model beside it.

    tools/raidlab amrec-bench --out results/amrec

The lab: four dm-hddsim ``eagle`` disks (Table 1's), the array the first
``--span-mib`` MiB of each (32: the p003 bench's span), the pool 1 % of a
member on the pmem. The read load is random 4 KiB reads, Poisson, at
1 / t_ran of the span (the survivor's random-read capacity: the paper's
load). Member 1 is failed by message; the recovery's status (blocks
copied, g measured) is sampled each second.

The model (models/p003_alternating.py): ``recovery_time(g, f, r_r)`` with
r_r = 1 / (t_ran * blocks) for the lab's blocks and t_ran, at the g the
kernel measured (blocks the scan copies in the time of one random read of
the survivor) and at the paper's g = 8; and the paper's 18-minute figure
(g = 8, f = 1 %, the whole 134 400-block disk) scaled by blocks and t_ran
to the lab. Files: amrec.csv (one row a config), amrec-trace.csv (the
samples), amrec.json, summary.md, amrec.png.

Guest side: tools/bench/amrec-guest.sh.
"""
import csv
import json
import pathlib
import shlex
import sys

from . import plots, runner
from .lifecycle import _fmt  # the table cells of both benches
from .plan import P003_SPAN_MIB, p003_disk
from ..models import p003_alternating as p003model

CONFIGS = ("two", "one")
LABELS = {"two": "altmirror, two spares (section 4)",
          "one": "altmirror, one spare (plain rebuild)"}


def plan_text(span_mib, rate, warm, configs, max_s, disk="eagle", time_scale="1"):
    return (f"set span_mib {span_mib}\nset disk {disk}\nset time_scale {time_scale}\n"
            f"set rate {rate}\nset warm {warm}\nset configs {' '.join(configs)}\n"
            f"set max {max_s}\n")


def load_rate(span_mib):
    """Reads a second at 1 / t_ran of the span (emulated time scale 1)."""
    d = p003_disk(span_mib=span_mib)
    return max(1, round(1000.0 / (d["t_ran"] * d["slow"])))


def model(span_mib, g):
    """The model's recovery minutes for the lab at @g, and the paper's
    18.29 minutes (g = 8) scaled to the lab."""
    d = p003_disk(span_mib=span_mib)
    blocks = span_mib * 256
    r_r = 1.0 / (d["t_ran"] * blocks)
    full = p003model.recovery_time(8)
    scale = blocks / (p003model.CYLS * p003model.SURFS * p003model.BLKS_TRK) * \
        d["t_ran"] / p003model.t_ran()
    out = dict(blocks=blocks, t_ran_ms=d["t_ran"], paper_min=full / 60000.0,
               paper_scaled_s=full * scale / 1000.0,
               model_g8_s=p003model.recovery_time(8, r_r=r_r) / 1000.0)
    if g and g > 1:
        out["model_g_s"] = p003model.recovery_time(g, r_r=r_r) / 1000.0
    return out


def parse_trace(path):
    """(t, copied, total, fields) samples of a CONFIG-status.txt."""
    rows = []
    for ln in pathlib.Path(path).read_text().splitlines():
        w = ln.split()
        if len(w) < 3 or w[1] == "end":
            continue
        rows.append(dict(t=float(w[0]), sync=w[1], fields=w[2:]))
    return rows


def _field(fields, k):
    """The K-th (1-based) field of the scheme's status group, or None."""
    return fields[k - 1] if len(fields) >= k else None


def read_latency(path):
    """(iops, mean ms, p90 ms) of a fio JSON file's reads."""
    try:
        text = pathlib.Path(path).read_text()
        # fio says "terminating on signal 2" before the JSON
        job = json.loads(text[text.index("{"):])["jobs"][0]["read"]
    except (OSError, ValueError, KeyError, IndexError):
        return None, None, None
    pct = job.get("clat_ns", {}).get("percentile", {})
    p90 = pct.get("90.000000")
    return (job.get("iops"), job.get("clat_ns", {}).get("mean", 0) / 1e6 or None,
            p90 / 1e6 if p90 else None)


def collect(out_dir, span_mib):
    d = pathlib.Path(out_dir) / "vm" / "amrec"
    ev = (d / "events.txt").read_text().splitlines() if (d / "events.txt").exists() else []
    checks = {w[1]: int(w[2]) for w in (ln.split() for ln in ev)
              if len(w) == 3 and w[0] == "check" and w[2].isdigit()}
    rows, trace = [], []
    for w in (ln.split() for ln in ev):
        if len(w) != 3 or w[0] != "recovery":
            continue
        cfg, secs = w[1], float(w[2])
        samples = parse_trace(d / f"{cfg}-status.txt")
        g = modified = None
        for s in samples:
            f = s["fields"]
            if _field(f, 12) == "active":
                g = float(_field(f, 15))
                modified = int(_field(f, 14))
            # the rebuild's sectors synced (either config), as blocks
            if s["sync"].count("/") != 1:
                continue
            done, total = (int(x) for x in s["sync"].split("/"))
            trace.append(dict(config=cfg, t=s["t"], copied=done // 8, blocks=total // 8,
                              recovery=_field(f, 12), sync=s["sync"]))
        iops, mean_ms, p90_ms = read_latency(d / f"{cfg}-reads.json")
        row = dict(config=cfg, label=LABELS.get(cfg, cfg), seconds=secs,
                   g=g, modified=modified, mismatches=checks.get(cfg),
                   read_iops=iops, read_mean_ms=mean_ms, read_p90_ms=p90_ms)
        row.update(model(span_mib, g))
        rows.append(row)
    base = next((r for r in rows if r["config"] == "one"), None)
    for r in rows:
        if base and base["seconds"]:
            r["vs_one"] = r["seconds"] / base["seconds"]
        if r.get("model_g_s"):
            r["vs_model_g"] = r["seconds"] / r["model_g_s"]
    return rows, trace


def summary(rows, wall, command, span_mib, rate):
    m = model(span_mib, None)
    lines = ["# raidlab amrec-bench: altmirror's recovery (paper 003 section 4)", "",
             f"Command: `{command}`  ", f"Wall: {wall:.0f} s", "",
             f"Lab: dm-hddsim eagle, the first {span_mib} MiB ({m['blocks']} blocks, "
             f"t_ran {m['t_ran_ms']:.1f} ms), pool 1 %, reads at {rate}/s (1 / t_ran). "
             f"The paper's {m['paper_min']:.2f} minutes (g = 8, f = 1 %, the whole disk) "
             f"scaled to the lab: {m['paper_scaled_s']:.1f} s; the model at g = 8 for the "
             f"lab: {m['model_g8_s']:.1f} s.", "",
             "| config | seconds | vs one spare | g measured | model at g (s) | "
             "measured / model | modified blocks | read mean / p90 (ms) | check |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['label']} | {_fmt(r['seconds'], 1)} | {_fmt(r.get('vs_one'))} | "
                     f"{_fmt(r.get('g'), 1)} | {_fmt(r.get('model_g_s'), 1)} | "
                     f"{_fmt(r.get('vs_model_g'))} | {_fmt(r.get('modified'))} | "
                     f"{_fmt(r.get('read_mean_ms'), 1)} / {_fmt(r.get('read_p90_ms'), 1)} | "
                     f"{_fmt(r.get('mismatches'))} |")
    return "\n".join(lines) + "\n"


def plot(rows, trace, path, span_mib):
    plt = plots._plt()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, cfg in enumerate(plots.ordered_unique(trace, "config")):
        pts = [t for t in trace if t["config"] == cfg]
        ax.plot([p["t"] for p in pts], [p["copied"] / max(1, p["blocks"]) for p in pts],
                color=plots.COLORS[i], label=LABELS.get(cfg, cfg))
    d = p003_disk(span_mib=span_mib)
    blocks = span_mib * 256
    r_r = 1.0 / (d["t_ran"] * blocks)
    for j, g in enumerate(sorted({8.0} | {r["g"] for r in rows if r.get("g") and r["g"] > 1})):
        tmax = p003model.recovery_time(g, r_r=r_r)
        ts = [tmax * k / 50 for k in range(51)]
        ax.plot([t / 1000 for t in ts],
                [min(1.0, p003model.copied_fraction(t, g, r_r=r_r)) for t in ts],
                linestyle="--", color=plots.COLORS[2 + j], label=f"model, g = {g:.1f}")
    ax.set_xlabel("seconds since the failure")
    ax.set_ylabel("fraction copied")
    ax.set_title("altmirror recovery under the paper's read load (eagle)")
    ax.legend()
    plots.save(fig, path)
    return path


def write_csv(path, rows):
    keys = plots.ordered_unique([{"k": k} for r in rows for k in r], "k")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys)
        for r in rows:
            w.writerow([_fmt(r.get(k), 4) if r.get(k) is not None else "" for k in keys])


def finish(out, wall, command, span_mib, rate):
    rows, trace = collect(out, span_mib)
    if not rows:
        print("raidlab amrec-bench: no results", file=sys.stderr)
        return 1
    write_csv(out / "amrec.csv", rows)
    write_csv(out / "amrec-trace.csv", trace)
    (out / "amrec.json").write_text(json.dumps(
        {"command": command, "wall_s": wall, "span_mib": span_mib, "rate": rate,
         "rows": rows}, indent=1))
    text = summary(rows, wall, command, span_mib, rate)
    (out / "summary.md").write_text(text)
    plot(rows, trace, out / "amrec.png", span_mib)
    print(text)
    return 1 if any(r.get("mismatches") for r in rows) else 0


def run(args):
    out = pathlib.Path(args.out or "results/amrec")
    command = "tools/raidlab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    if args.from_dir:
        d = pathlib.Path(args.from_dir)
        old = json.loads((d / "amrec.json").read_text())
        return finish(d, old.get("wall_s", 0.0), old.get("command", command),
                      old.get("span_mib", args.span_mib), old.get("rate", 0))
    rate = args.rate or load_rate(args.span_mib)
    text = plan_text(args.span_mib, rate, args.warm, args.configs, args.max)
    if args.dry_run:
        print(text, end="")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    # a point each 30 s of a recovery and one at its end: about 5 a config
    rc, wall = runner.run(text, out, 4, len(args.configs) * 5, 1,
                          args.timeout or len(args.configs) * (args.max + 600),
                          guest="bench/amrec-guest.sh")
    if rc == 77:
        return 77
    return rc or finish(out, wall, command, args.span_mib, rate)


def register(verbs):
    p = verbs.add_parser(
        "amrec-bench", help="altmirror's recovery onto two spares, timed, with the model",
        description="Paper 003 section 4 in the VM lab: altmirror's recovery onto two "
                    "replacements under the paper's read load (1 / t_ran), beside the "
                    "plain rebuild onto one spare, against the model's recovery_time.")
    p.add_argument("--span-mib", type=int, default=P003_SPAN_MIB,
                   help=f"the array's MiB of each eagle disk (default {P003_SPAN_MIB})")
    p.add_argument("--rate", type=int, default=0,
                   help="reads a second (default: 1 / t_ran of the span)")
    p.add_argument("--warm", type=int, default=10, help="seconds of load before the failure")
    p.add_argument("--configs", type=lambda s: [x for x in s.split(",") if x],
                   default=list(CONFIGS), help="comma list of two,one (default both)")
    p.add_argument("--max", type=int, default=1800, help="a recovery's bound, seconds")
    p.add_argument("--timeout", type=int, default=0,
                   help="seconds before the VM is stopped (default: the plan's own bound)")
    p.add_argument("--out", default=None, help="result folder (default results/amrec)")
    p.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    p.add_argument("--from-dir", default=None, help="recompute an earlier run's files (no VM)")
    p.set_defaults(func=run)
