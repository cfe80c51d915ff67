#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo: boot the VM lab, create every scheme over the same four emulated
# disks, run a short fio workload on each, and print a comparison table
# (IOPS, MB/s, p50/p90/p99 latency, member I/Os per request). Results and a
# plot go to results/demo/.
#
#   scripts/demo.sh [seconds per run, default 8]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
scripts/deps.sh
make -s >/dev/null 2>&1 || make
rm -rf build/demo
# progress: the guest's "demo:" lines; the full console is in build/demo/console.log
scripts/lab/vm-run.sh --disks 4 --timeout 1800 --out build/demo \
	tools/demo/guest.sh "${1:-8}" 2>&1 |
	grep --line-buffered -E '^(demo:|FAIL|vm-run:)' || true
[ -d build/demo/demo ] || { echo "demo: no results (see build/demo/console.log)"; exit 1; }
# Debian's python3 has python3-matplotlib (scripts/deps.sh) for the plot
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" tools/demo/report.py build/demo/demo results/demo
