# SPDX-License-Identifier: GPL-2.0
"""Argument parsing for tools/raidlab. Verbs register themselves here."""
import argparse

from . import bench, models, trace
from .bench import lifecycle, sched


def build_parser():
    parser = argparse.ArgumentParser(prog="raidlab", description="dm-raidlab tool")
    verbs = parser.add_subparsers(dest="verb", required=True)
    model = verbs.add_parser("model", help="the papers' analytic models")
    models.register(model.add_subparsers(dest="model", required=True))
    bench.register(verbs)
    trace.register(verbs)
    sched.register(verbs)
    lifecycle.register(verbs)
    return parser


def main(argv):
    args = build_parser().parse_args(argv)
    return args.func(args) or 0
