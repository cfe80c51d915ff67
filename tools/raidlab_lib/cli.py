# SPDX-License-Identifier: GPL-2.0
"""Argument parsing for tools/raidlab. Verbs register themselves here."""
import argparse
import sys

from . import admin, bench, fuzz, logwrites, models, trace
from . import dm, ondisk
from .bench import sched


def build_parser():
    parser = argparse.ArgumentParser(prog="raidlab", description="dm-raidlab tool")
    verbs = parser.add_subparsers(dest="verb", required=True)
    model = verbs.add_parser("model", help="the papers' analytic models")
    models.register(model.add_subparsers(dest="model", required=True))
    bench.register(verbs)
    trace.register(verbs)
    sched.register(verbs)
    admin.register(verbs)
    logwrites.register(verbs)
    fuzz.register(verbs)
    return parser


def main(argv):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except (admin.ToolError, dm.DmError, dm.ParseError, ondisk.FormatError,
            logwrites.LogError) as e:
        print(f"raidlab {args.verb}: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"raidlab {args.verb}: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 1
