#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dm-hddsim benchmark: boot the VM lab, put each preset over one member, and
# measure 4 KiB sequential against random read throughput (queue depth 64,
# time_scale 1). Results side by side in results/hddsim-bench/
# (results.csv, results.json, ratio.png).
#
#   tools/hddsim-bench/bench.sh [SECS per run, default 6] [PRESET...]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
make -s >/dev/null 2>&1 || make
rm -rf build/hddsim-bench
scripts/lab/vm-run.sh --disks 4 --timeout 1200 --out build/hddsim-bench \
	tools/hddsim-bench/guest.sh "$@" 2>&1 | grep --line-buffered -E '^(bench:|FAIL|vm-run:)' || true
[ -s build/hddsim-bench/bench/results.csv ] || { echo "bench: no results (see build/hddsim-bench/console.log)"; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" tools/hddsim-bench/report.py build/hddsim-bench/bench results/hddsim-bench
