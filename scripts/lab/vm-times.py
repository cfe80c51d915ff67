#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the VM tests spend their time: the default tier's budget.

    scripts/lab/vm-times.py [--top N] [OUTDIR...]

Reads checks.txt in each test's output directory (default: every
build/vm/out/*/), which tests/vm/lib.sh appends "UPTIME N ok|not_ok MSG" to
for each check, and prints per test the guest time to its last check and
its N slowest checks (the time since the check before, i.e. the work that
check closed). Guest uptime under TCG follows the host clock.
"""
import argparse
import glob
import os
import sys


def read_checks(path):
    rows = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 3)
            if len(parts) < 3:
                continue
            try:
                t = float(parts[0])
            except ValueError:
                continue
            rows.append((t, parts[1], parts[2], parts[3] if len(parts) > 3 else ""))
    return rows


def costs(rows):
    """(seconds, number, result, message) per check, from the check before."""
    out = []
    prev = 0.0
    for t, n, res, msg in rows:
        out.append((t - prev, n, res, msg))
        prev = t
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("dirs", nargs="*")
    args = ap.parse_args(argv)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    dirs = args.dirs or sorted(glob.glob(os.path.join(root, "build/vm/out/*/")))
    total = 0.0
    found = 0
    for d in dirs:
        path = os.path.join(d, "checks.txt")
        if not os.path.exists(path):
            continue
        rows = read_checks(path)
        if not rows:
            continue
        found += 1
        name = os.path.basename(os.path.normpath(d))
        last = rows[-1][0]
        total += last
        print(f"{name}: {len(rows)} checks, last at {last:.0f} s")
        for sec, n, res, msg in sorted(costs(rows), reverse=True)[: args.top]:
            print(f"  {sec:7.1f} s  #{n} {res} {msg[:90]}")
    if not found:
        print("vm-times: no checks.txt found", file=sys.stderr)
        return 1
    print(f"vm-times: {found} test(s), {total:.0f} s of guest time to their last checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
