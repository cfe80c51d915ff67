# SPDX-License-Identifier: GPL-2.0
"""``raidlab bench --preset cpu-path``: what the I/O path costs.

    tools/raidlab bench --preset cpu-path --out results/bench/cpu-path

On RAM-backed members (brd) the CPU is the bottleneck, so IOPS measure the
cost of each path: dm-raidlab against the kernel's own targets (dm-stripe,
dm-linear) and md, over the same members, chunk and fio job, in one guest
boot. Each round runs every configuration once, in an order rotated from
round to round; a ratio is taken within each round and the median over the
rounds reported (under TCG only ratios measured side by side mean
anything). Each dm-raidlab configuration also runs under the look and satf
queue policies, to show what a policy costs against fifo, and the reads go
straight through dm-linear to one member, to show what the member queue
costs. Issue 14 gives the 1.5.1 figures and the goals (GOALS below).

With --profile the guest also samples every 4 KiB random-read run with
perf (profile.py): the array path's share of the busy CPU per I/O, which
the host's speed drops out of, and the IOPS ratios those shares predict,
beside the measured ones.

Guest side: tools/bench/cpupath-guest.sh. Files: cpupath.csv (one row per
fio run), cpupath.json (runs, medians and ratios; with --profile the
shares and predicted ratios), summary.md, cpupath.png; with --profile
cpupath-profile.csv (one row per profiled run).
"""
import json
import pathlib
import statistics
import subprocess
import sys

from . import plots, profile, runner

POLICIES = ("look", "satf")
# (group, workload, the dm-raidlab configuration, what it is compared with)
GROUPS = (
    ("raid0 4 KiB random reads", "4k-randread", "rl-raid0", ("dm-stripe", "md-raid0", "linear")),
    ("mirror 4 KiB random reads", "4k-randread", "rl-mirror", ("md-raid1", "linear")),
    ("raid5 4 KiB random reads", "4k-randread", "rl-raid5", ("md-raid5", "linear")),
    ("raid5 1 MiB sequential writes", "1m-write", "rl-raid5", ("md-raid5",)),
    ("raid5 4 KiB random writes", "4k-randwrite", "rl-raid5", ("md-raid5",)),
)
# issue 14: the ratios at 1.5.1 and the goals, (rl, other, workload) -> value
BEFORE = {
    ("rl-raid0", "dm-stripe", "4k-randread"): 0.95,
    ("rl-raid0", "md-raid0", "4k-randread"): 0.90,
    ("rl-mirror", "md-raid1", "4k-randread"): 0.82,
    ("rl-raid5", "md-raid5", "4k-randread"): 0.81,
    ("rl-raid5", "md-raid5", "1m-write"): 5.1,
    ("rl-raid5", "md-raid5", "4k-randwrite"): 2.1,
}
GOALS = {
    ("rl-mirror", "md-raid1", "4k-randread"): 1.0,
    ("rl-raid5", "md-raid5", "4k-randread"): 0.95,
}
# raw brd: the floor every path is measured from, in the table only
FLOOR = "brd"


def jobs():
    """(configuration, [workloads]) in the order of the first round: each
    configuration once, with every workload a group asks of it."""
    order = {}

    def want(cfg, wl):
        order.setdefault(cfg, [])
        if wl not in order[cfg]:
            order[cfg].append(wl)
    for _, wl, rl, others in GROUPS:
        for cfg in (rl,) + tuple(f"{rl}:{p}" for p in POLICIES) + others:
            want(cfg, wl)
    want(FLOOR, "4k-randread")
    return list(order.items())


def plan_text(rounds, runtime, members, member_mb, chunk_kb, iodepth, prof=False):
    """The guest's plan: settings, then the rounds, each a rotation of the
    configurations (so that no configuration always runs first or last)."""
    lines = [f"set runtime {runtime}", f"set members {members}", f"set member_mb {member_mb}",
             f"set chunk_kb {chunk_kb}", f"set iodepth {iodepth}"]
    if prof:
        lines.append("set profile 1")
    js = jobs()
    for r in range(rounds):
        lines.append(f"round {r}")
        k = (r * 3) % len(js)
        for cfg, wls in js[k:] + js[:k]:
            lines.append(f"config {cfg}")
            lines += [f"job {wl}" for wl in wls]
    return "\n".join(lines) + "\n"


def nr_runs(rounds):
    return rounds * sum(len(w) for _, w in jobs())


def fio_iops(path):
    job = json.loads(pathlib.Path(path).read_text())["jobs"][0]
    return job["read"]["iops"] + job["write"]["iops"]


def collect(out_dir):
    """{(round, cfg, wl): iops} from the guest's fio files."""
    d = pathlib.Path(out_dir) / "vm" / "cpupath"
    runs = {}
    for f in sorted(d.glob("*.json")):
        r, rest = f.stem.split("-", 1)
        for _, wl, _, _ in GROUPS:
            if rest.endswith("-" + wl):
                runs[(int(r), rest[:-len(wl) - 1], wl)] = fio_iops(f)
                break
    return runs


def collect_profiles(out_dir, report=profile.report):
    """{(round, cfg): array-path share} from the guest's perf files."""
    d = pathlib.Path(out_dir) / "vm" / "cpupath"
    shares = {}
    for f in sorted(d.glob(f"*-{profile.WORKLOAD}.perf")):
        r, rest = f.stem.split("-", 1)
        cfg = rest[:-len(profile.WORKLOAD) - 1]
        try:
            text = report(f, d / "kallsyms")
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"raidlab bench: no profile of {f.name}: {e}", file=sys.stderr)
            continue
        share = profile.array_share(profile.parse(text), cfg)
        if share is not None:
            shares[(int(r), cfg)] = share
    return shares


def profile_rows(shares, iops_rows):
    """The read groups' comparisons by profile: per round the IOPS ratio the
    two shares predict, its median, min and max, and the measured median
    (from ratios()' rows)."""
    rounds = sorted({r for r, _ in shares})
    measured = {(r["config"], r["against"], r["workload"]): r["ratio"] for r in iops_rows}
    rows = []
    for group, wl, rl, others in GROUPS:
        if wl != profile.WORKLOAD:
            continue
        for o in others:
            per = [profile.predicted(shares[(r, rl)], shares[(r, o)]) for r in rounds
                   if (r, rl) in shares and (r, o) in shares]
            if per:
                rows.append(dict(group=group, config=rl, against=o,
                                 predicted=statistics.median(per), min=min(per),
                                 max=max(per), rounds=len(per),
                                 measured=measured.get((rl, o, wl)),
                                 goal=GOALS.get((rl, o, wl))))
    return rows


def profile_summary(shares, rows):
    by = {}
    for (_, cfg), v in shares.items():
        by.setdefault(cfg, []).append(v)
    lines = ["", "## Profile: the array path's share of the busy CPU per 4 KiB read", "",
             "| configuration | share, median | min..max | runs |", "|---|---|---|---|"]
    for cfg, v in sorted(by.items()):
        lines.append(f"| {cfg} | {statistics.median(v):.3f} | {min(v):.3f}..{max(v):.3f}"
                     f" | {len(v)} |")
    lines += ["", "IOPS ratios the shares predict, (1 - ours) / (1 - theirs) in each round, "
              "beside the measured median:", "",
              "| workload | dm-raidlab | against | predicted | min..max | measured | goal |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['group']} | {r['config']} | {r['against']} | {_f(r['predicted'])}"
                     f" | {_f(r['min'])}..{_f(r['max'])} | {_f(r['measured'])} | "
                     f"{'≥ ' + _f(r['goal']) if r['goal'] is not None else ''} |")
    return "\n".join(lines) + "\n"


def ratios(runs):
    """One row per comparison: the ratio in each round where both ran, its
    median, min and max, and the 1.5.1 figure and the goal where issue 14
    gives them. Comparisons: the dm-raidlab configuration against each
    other path of its group, and each policy against fifo."""
    rounds = sorted({r for r, _, _ in runs})
    rows = []

    def add(group, wl, num, den, kind):
        per = [runs[(r, num, wl)] / runs[(r, den, wl)] for r in rounds
               if runs.get((r, num, wl)) and runs.get((r, den, wl))]
        if not per:
            return
        rows.append(dict(group=group, workload=wl, config=num, against=den, kind=kind,
                         ratio=statistics.median(per), min=min(per), max=max(per),
                         rounds=len(per), before=BEFORE.get((num, den, wl)),
                         goal=GOALS.get((num, den, wl))))
    for group, wl, rl, others in GROUPS:
        for o in others:
            add(group, wl, rl, o, "queue" if o == "linear" else "path")
        for p in POLICIES:
            add(group, wl, f"{rl}:{p}", rl, "policy")
    return rows


def medians(runs):
    """{(cfg, wl): median IOPS over the rounds}."""
    by = {}
    for (_, cfg, wl), v in runs.items():
        by.setdefault((cfg, wl), []).append(v)
    return {k: statistics.median(v) for k, v in by.items()}


def _f(v, nd=2):
    return "-" if v is None else f"{v:.{nd}f}"


def summary(runs, rows, wall, command):
    med = medians(runs)
    rounds = len({r for r, _, _ in runs})
    lines = ["# raidlab bench --preset cpu-path", "", f"Command: `{command}`  ",
             f"Wall: {wall:.0f} s, {len(runs)} fio runs in {rounds} interleaved rounds", "",
             "## Ratios (median over the rounds, min..max)", "",
             "| workload | dm-raidlab | against | ratio | min..max | 1.5.1 | goal |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        met = ""
        if r["goal"] is not None:
            met = " (met)" if r["ratio"] >= r["goal"] else " (not met)"
        lines.append(f"| {r['group']} | {r['config']} | {r['against']} | {_f(r['ratio'])}"
                     f" | {_f(r['min'])}..{_f(r['max'])} | {_f(r['before'])} | "
                     f"{'≥ ' + _f(r['goal']) + met if r['goal'] is not None else ''} |")
    lines += ["", "## IOPS (median over the rounds)", "", "| configuration | workload | IOPS |",
              "|---|---|---|"]
    for (cfg, wl), v in sorted(med.items()):
        lines.append(f"| {cfg} | {wl} | {v:.0f} |")
    return "\n".join(lines) + "\n"


def plot(rows, path):
    plt = plots._plt()
    if plt is None or not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 0.35 * len(rows) + 1.5))
    labels = []
    for i, r in enumerate(rows):
        color = {"path": plots.COLORS[0], "queue": plots.COLORS[1],
                 "policy": plots.COLORS[2]}[r["kind"]]
        ax.barh(i, r["ratio"], color=color,
                xerr=[[r["ratio"] - r["min"]], [r["max"] - r["ratio"]]])
        if r["before"] is not None:
            ax.plot(r["before"], i, "kx")
        if r["goal"] is not None:
            ax.plot([r["goal"]] * 2, [i - 0.4, i + 0.4], "r-")
        labels.append(f"{r['workload']}: {r['config']} / {r['against']}")
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    ax.axvline(1.0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.set_xlabel("IOPS ratio, median of the rounds (x: 1.5.1, red: goal)")
    ax.set_title("I/O path cost on brd members: dm-raidlab against dm and md")
    plots.save(fig, path)
    return path


def finish(out, wall, command, report=profile.report):
    out = pathlib.Path(out)
    runs = collect(out)
    if not runs:
        print("raidlab bench: no cpu-path results", file=sys.stderr)
        return 1
    rows = ratios(runs)
    shares = collect_profiles(out, report)
    prows = profile_rows(shares, rows)
    with open(out / "cpupath.csv", "w") as f:
        f.write("round,config,workload,iops\n")
        for (r, cfg, wl), v in sorted(runs.items()):
            f.write(f"{r},{cfg},{wl},{v:.1f}\n")
    doc = {"command": command, "wall_s": wall,
           "runs": [dict(round=r, config=c, workload=w, iops=v)
                    for (r, c, w), v in sorted(runs.items())],
           "medians": [dict(config=c, workload=w, iops=v)
                       for (c, w), v in sorted(medians(runs).items())],
           "ratios": rows}
    text = summary(runs, rows, wall, command)
    if shares:
        with open(out / "cpupath-profile.csv", "w") as f:
            f.write("round,config,share\n")
            for (r, cfg), v in sorted(shares.items()):
                f.write(f"{r},{cfg},{v:.4f}\n")
        doc["profile"] = {"shares": [dict(round=r, config=c, share=v)
                                     for (r, c), v in sorted(shares.items())],
                          "predicted": prows}
        text += profile_summary(shares, prows)
    (out / "cpupath.json").write_text(json.dumps(doc, indent=1))
    (out / "summary.md").write_text(text)
    plot(rows, out / "cpupath.png")
    print(text)
    return 0


def run(args, command):
    """The preset: --rounds, --runtime, --disks (brd members), --member-mb,
    --chunk-kb, --profile, --dry-run, --from-dir, --out, --timeout."""
    out = pathlib.Path(args.out or "results/bench/cpu-path")
    if args.from_dir:
        d = pathlib.Path(args.from_dir)
        old = json.loads((d / "cpupath.json").read_text())
        return finish(d, old.get("wall_s", 0.0), old.get("command", command))
    rounds = args.rounds or 3
    runtime = args.runtime or 5
    members = args.disks or 4
    prof = getattr(args, "profile", False)
    text = plan_text(rounds, runtime, members, args.member_mb or 128, args.chunk_kb or 64, 32,
                     prof)
    if args.dry_run:
        print(text, end="")
        print(f"# {nr_runs(rounds)} fio runs of {runtime} s", file=sys.stderr)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    n = nr_runs(rounds)
    timeout = args.timeout or int(900 + 3 * n * (runtime + 6))
    print(f"raidlab bench: cpu-path, {len(jobs())} configurations, {rounds} rounds, "
          f"{n} fio runs of {runtime} s; results in {out}", file=sys.stderr)
    extra = None
    if prof:
        try:
            extra = profile.stage(out / "extra")
        except (profile.ProfileError, OSError, subprocess.CalledProcessError) as e:
            print(f"raidlab bench: {e}", file=sys.stderr)
            return 2
    rc, wall = runner.run(text, out, 4, n, 1, timeout, guest="bench/cpupath-guest.sh",
                          extra=extra)
    if rc == 77:
        return 77
    if rc != 0:
        print(f"raidlab bench: the VM run failed (rc {rc}); console in {out}/vm/console.log",
              file=sys.stderr)
    frc = finish(out, wall, command)
    return rc or frc
