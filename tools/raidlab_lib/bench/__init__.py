# SPDX-License-Identifier: GPL-2.0
"""``raidlab bench``: Chen et al.'s evaluation of disk arrays (paper 001) in
the VM lab. See Documentation/raidlab-bench.rst.

    tools/raidlab bench --preset quick --out results/bench/quick

Plan (plan.py: configurations x workloads.py), guest run (runner.py,
tools/bench/guest.sh), load search at the p90 target (search.py), numbers
and files (results.py), plots (plots.py); the papers' own comparisons
beside their models: plogcmp.py (000), degraded.py (004), srarray.py
(002), altmirror.py (003).
"""
import json
import re
import pathlib
import shlex
import sys

from . import plan as planmod
from . import altmirror, cpupath, degraded, plogcmp, plots, results, runner, srarray

DISK_MODELS = ("none", "lightning", "eagle", "st39133", "modern7200")
# a preset of its own kind (cpupath.py): fixed-depth runs on brd members
CPU_PATH = "cpu-path"
CPU_PATH_DOC = ("the I/O path's cost on brd members: dm-raidlab against dm-stripe, dm-linear "
                "and md, and the look and satf policies against fifo, in interleaved rounds")


def _csv(s):
    return [x for x in s.split(",") if x]


def config_list(s):
    """A comma list of configurations; commas inside [options] stay:
    ``rl-raid0,rl-plog[L=1,A=1]`` -> ["rl-raid0", "rl-plog[L=1,A=1]"]."""
    out, cur, depth = [], "", 0
    for ch in s:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if depth < 0:
            raise ValueError(f"configurations {s!r}: unbalanced ]")
        cur += ch
    if depth:
        raise ValueError(f"configurations {s!r}: unbalanced [")
    out.append(cur)
    return [x for x in out if x]


def _time_scale(s):
    if not re.fullmatch(r"[1-9]\d{0,3}(/[1-9]\d{0,3})?", s):
        raise ValueError("time scale must be N or N/M")
    return s


def _target(s):
    if s == "auto":
        return s
    v = float(s)
    if v <= 0:
        raise ValueError("p90 target must be positive")
    return v


def add_common(p):
    p.add_argument("--disks", type=int, default=4, help="lab member disks, 4..8 (default 4)")
    p.add_argument("--chunk-kb", type=int, default=64, help="chunk size in KiB (default 64)")
    p.add_argument("--disk-model", default="none",
                   help="none, or a dm-hddsim preset stacked over each member: "
                        + ", ".join(DISK_MODELS[1:]))
    p.add_argument("--time-scale", type=_time_scale, default="1",
                   help="dm-hddsim time_scale N or N/M: emulated time runs N/M times as "
                        "fast as wall time (with --disk-model; default 1)")
    p.add_argument("--timeout", type=int, default=0,
                   help="VM timeout in seconds (default: from the plan)")


def register(verbs):
    p = verbs.add_parser(
        "bench", help="fio benchmark of the schemes against md at a p90 target (Chen et al.)",
        description="Run fio in the VM lab over dm-raidlab schemes and Linux md arrays, find "
                    "the load that meets a p90 response-time target for every workload, and "
                    "report throughput per disk, relative to raid0, with plots.")
    p.add_argument("--preset", default=None,
                   help="one of: " + ", ".join(list(planmod.PRESETS) + [CPU_PATH])
                   + " (--list-presets)")
    p.add_argument("--rounds", type=int, default=None,
                   help="preset cpu-path: interleaved rounds (default 3)")
    p.add_argument("--list-presets", action="store_true", help="print the presets and exit")
    p.add_argument("--configs", type=config_list,
                   help="comma list, e.g. rl-raid0,rl-raid5,md-raid5,rl-plog[L=1,cache=0]")
    p.add_argument("--workloads", type=_csv, help="comma list, e.g. ind-r,fs-w,exp6k-r50-ua")
    p.add_argument("--ladder", type=lambda s: [int(x) for x in _csv(s)],
                   help="outstanding-request depths tried, e.g. 1,2,4,8,16,32")
    p.add_argument("--refine", type=int, help="bisection steps after the ladder")
    p.add_argument("--runtime", type=int, help="seconds per fio run")
    p.add_argument("--p90-ms", type=_target, default="auto",
                   help="p90 target in ms, or auto: --auto-factor x raid0's idle p90 "
                        "(Chen: 4x) (default auto)")
    p.add_argument("--auto-factor", type=float, default=4.0,
                   help="--p90 auto: this many times raid0's idle p90 (default 4)")
    p.add_argument("--out", default=None, help="result folder (default results/bench/<preset>)")
    p.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    p.add_argument("--from-dir", default=None,
                   help="recompute the results of an earlier run's folder (no VM)")
    p.add_argument("--procs", type=int, default=None,
                   help="saturation runs instead of the p90 search: N closed-loop fio "
                        "processes, one request outstanding each (preset plog: 15)")
    p.add_argument("--ramp", type=int, default=None,
                   help="seconds of each run left out of the statistics (fio ramp_time; "
                        "preset plog: 20, p003: 8)")
    p.add_argument("--member-mb", type=int, default=None,
                   help="MiB of each member the arrays use (default: all; preset plog: 64)")
    p.add_argument("--profile", action="store_true",
                   help="preset cpu-path: profile each 4 KiB random-read run with the host's "
                        "perf in the guest, and report the array path's share of the CPU")
    add_common(p)
    # the preset's own disk count, model, time scale and chunk unless given
    p.set_defaults(func=run, disks=None, chunk_kb=None, disk_model=None, time_scale=None)


def preset_defaults(args):
    """Fill the options left unset from the preset (else the lab defaults)."""
    pre = planmod.PRESETS.get(args.preset, {}) if args.preset else {}
    for key, dflt in (("disks", 4), ("chunk_kb", 64), ("disk_model", "none"),
                      ("time_scale", "1"), ("procs", 0), ("ramp", 0), ("member_mb", 0)):
        if getattr(args, key, None) is None:
            setattr(args, key, pre.get(key if key != "chunk_kb" else "chunk_kb", dflt))


def make_plan(args):
    if args.preset and args.preset not in planmod.PRESETS:
        raise ValueError(f"unknown preset {args.preset}")
    pre = planmod.PRESETS[args.preset] if args.preset else {}
    preset_defaults(args)
    configs = args.configs or pre.get("configs")
    wls = args.workloads or pre.get("workloads")
    if not configs or not wls:
        raise ValueError("give --preset, or --configs and --workloads")
    # the preset's pairing of workloads with configurations, and their own
    # ladders, hold for its own lists only
    own = not args.configs and not args.workloads
    return planmod.build(
        configs, wls,
        ladder=args.ladder or pre.get("ladder", [1, 2, 4, 8, 16, 32]),
        refine=args.refine if args.refine is not None else pre.get("refine", 1),
        runtime=args.runtime or pre.get("runtime", 3),
        disks=args.disks, chunk_kib=args.chunk_kb,
        target_ms=args.p90_ms if args.p90_ms != "auto" else pre.get("p90_ms", "auto"),
        auto_factor=args.auto_factor, disk_model=args.disk_model,
        time_scale=args.time_scale, procs=args.procs, ramp=args.ramp,
        member_mb=args.member_mb, only=pre.get("only") if own else None,
        ladders=pre.get("ladders") if own else None)


def finish(out, desc, wall, command, log=sys.stdout):
    """Parse <out>/vm/bench, write the files, print the table."""
    points, res = results.collect(pathlib.Path(out) / "vm" / "bench", desc)
    if not res:
        print(f"raidlab bench: no results under {out}/vm/bench", file=sys.stderr)
        return 1
    results.write_all(out, points, res, desc, wall, command)
    pngs = plots.write_all(out, points, res)
    print(results.table(res), file=log)
    if desc.get("procs"):
        rows, files = plogcmp.write_all(out, res, desc)
        print("\n" + plogcmp.table(rows), file=log)
        for v in plogcmp.verdicts(rows):
            print(v, file=log)
        pngs += [str(pathlib.Path(out) / f) for f in files]
    rws, vs, files = degraded.write_all(pathlib.Path(out), res, desc)
    if rws or vs:
        print("\n" + degraded.markdown(rws, vs), file=log)
        pngs += [str(pathlib.Path(out) / f) for f in files]
    if altmirror.applies(desc):
        # paper 003's plan: its single disk is an rl-sr over one member,
        # which is no paper 002 shape to put beside eq. 16
        arows, arates, files = altmirror.write_all(pathlib.Path(out), points, desc)
        if arows:
            print("\n" + altmirror.markdown(arows, arates, desc), file=log)
            pngs += [str(pathlib.Path(out) / f) for f in files]
    else:
        srows, rates, trk, files = srarray.write_all(pathlib.Path(out), points, desc)
        if srows:
            print("\n" + srarray.markdown(srows, rates, srarray.disk_params(desc),
                                          srarray.target_ms(desc), trk), file=log)
            pngs += [str(pathlib.Path(out) / f) for f in files]
    print(f"\n{len(points)} fio runs, wall {wall:.0f} s; files in {out}: points.csv results.csv "
          f"results.json summary.md " + " ".join(pathlib.Path(p).name for p in pngs), file=log)
    return 0


def run(args):
    if args.list_presets:
        for k, v in planmod.PRESETS.items():
            print(f"{k:<10} {v['doc']}\n{'':<10} configs: {','.join(v['configs'])}\n"
                  f"{'':<10} workloads: {','.join(v['workloads'])}")
        print(f"{CPU_PATH:<10} {CPU_PATH_DOC}\n{'':<10} configs: "
              f"{','.join(c for c, _ in cpupath.jobs())}")
        return 0
    command = "tools/raidlab " + " ".join(shlex.quote(a) for a in sys.argv[1:]) \
        if len(sys.argv) > 2 else "tools/raidlab bench"
    if args.preset == CPU_PATH:
        return cpupath.run(args, command)
    if args.from_dir:
        d = pathlib.Path(args.from_dir)
        desc = json.loads((d / "plan.json").read_text())
        rj = d / "results.json"
        old = json.loads(rj.read_text()) if rj.exists() else {}
        return finish(d, desc, old.get("wall_s", 0.0), old.get("command", "tools/raidlab bench"))
    try:
        if args.preset and args.preset not in planmod.PRESETS:
            raise ValueError(f"unknown preset {args.preset}")
        preset_defaults(args)
    except ValueError as e:
        print(f"raidlab bench: {e}", file=sys.stderr)
        return 2
    if args.disk_model not in DISK_MODELS:
        print(f"raidlab bench: --disk-model must be one of {', '.join(DISK_MODELS)}",
              file=sys.stderr)
        return 2
    try:
        p = make_plan(args)
    except ValueError as e:
        print(f"raidlab bench: {e}", file=sys.stderr)
        return 2
    text = planmod.plan_text(p)
    if args.dry_run:
        print(text, end="")
        print(f"# {len(p.jobs)} searches, at most {p.max_points()} fio runs of "
              f"{p.seconds_per_point()} s", file=sys.stderr)
        return 0
    out = pathlib.Path(args.out or f"results/bench/{args.preset or 'custom'}")
    desc = planmod.describe(p)
    out.mkdir(parents=True, exist_ok=True)
    (out / "plan.json").write_text(json.dumps(desc, indent=1))
    per_job = 1 if p.procs else len(p.ladder) + p.refine
    # budget: every run plus fio start-up and array creation, doubled for TCG
    timeout = args.timeout or int(600 + 2 * p.max_points() * (p.seconds_per_point() + 4)
                                  + 60 * len(p.configs))
    print(f"raidlab bench: {len(p.configs)} configurations x {len(p.workloads)} workloads, "
          f"at most {p.max_points()} fio runs of {p.seconds_per_point()} s; results in {out}",
          file=sys.stderr)
    rc, wall = runner.run(text, out, p.disks, p.max_points(), per_job, timeout)
    if rc == 77:
        print(f"raidlab bench: skipped (see {out}/vm-run.log)", file=sys.stderr)
        return 77
    if rc != 0:
        print(f"raidlab bench: the VM run failed (rc {rc}); console in {out}/vm/console.log; "
              "the points measured so far follow", file=sys.stderr)
    frc = finish(out, desc, wall, command)
    return rc or frc
