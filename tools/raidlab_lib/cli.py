# SPDX-License-Identifier: GPL-2.0
"""Argument parsing for tools/raidlab. Verbs register themselves here.

The array verbs (admin.py, logwrites.py, fuzz.py) load only what they need:
the lab verbs (model, bench, trace, sched-bench) and their imports are
registered only when one of them, or the full --help, is asked for, so that
a verb run in the VM guest (python3 under TCG) starts quickly.
"""
import argparse
import sys

from . import admin, corrupt, crashbench, crashlab, dm, fuzz, logwrites, monitor, ondisk, ops

LAB_VERBS = ("model", "bench", "trace", "sched-bench", "lifecycle-bench", "amrec-bench")


def register_lab(verbs):
    from . import bench, models, trace
    from .bench import amrec, lifecycle, sched
    model = verbs.add_parser("model", help="the papers' analytic models")
    models.register(model.add_subparsers(dest="model", required=True))
    bench.register(verbs)
    trace.register(verbs)
    sched.register(verbs)
    lifecycle.register(verbs)
    amrec.register(verbs)


def build_parser(lab=True):
    parser = argparse.ArgumentParser(prog="raidlab", description="dm-raidlab tool")
    verbs = parser.add_subparsers(dest="verb", required=True)
    if lab:
        register_lab(verbs)
    admin.register(verbs)
    ops.register(verbs)
    monitor.register(verbs)
    logwrites.register(verbs)
    fuzz.register(verbs)
    corrupt.register(verbs)
    crashlab.register(verbs)
    crashbench.register(verbs)
    return parser


def main(argv):
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(lab=first is None or first in LAB_VERBS)
    # argparse leaves positionals given after options of a verb whose list
    # may be empty (assemble NAME --metadata M DEV...): such verbs name the
    # list in "more_positionals" and get them back here
    args, extra = parser.parse_known_args(argv)
    more = getattr(args, "more_positionals", None)
    if extra:
        if not more or any(x.startswith("-") and x != "-" for x in extra):
            parser.error("unrecognized arguments: " + " ".join(extra))
        getattr(args, more).extend(extra)
    try:
        return args.func(args) or 0
    except (admin.ToolError, dm.DmError, dm.ParseError, ondisk.FormatError,
            logwrites.LogError, crashlab.HarnessError) as e:
        print(f"raidlab {args.verb}: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"raidlab {args.verb}: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 1
