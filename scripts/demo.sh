#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo: boot the VM lab once, create dm-raidlab raid0, mirror and raid5
# and Linux md raid5 over the same four emulated disks, and measure each the
# way Chen et al. (paper 001) did: for individual reads, individual writes
# and full-stripe writes, find the load whose 90th percentile response time
# meets a common target, and compare the throughput per disk (relative to
# raid0, beside the paper's model). It is `tools/raidlab bench --preset quick`
# (Documentation/raidlab-bench.rst); it prints the comparison table and writes
# CSV, JSON, summary.md and the plots to results/demo/ (relative.png is the
# one to look at first).
#
# When dm-hddsim is built (dm-hddsim/dm-hddsim.ko), each member is an
# emulated IBM Lightning disk (paper 000's, 13.9 ms rotation, run at twice
# its speed: time_scale 2), so seeks and rotations limit the arrays as in the
# paper; otherwise the members are the lab's plain QEMU disks.
#
#   scripts/demo.sh [seconds per fio run, default 2]
#   RAIDLAB_DEMO_DISK=none|lightning|eagle|st39133|modern7200 scripts/demo.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
scripts/deps.sh
make -s >/dev/null 2>&1 || make
rm -rf results/demo
# Debian's python3 has python3-matplotlib (scripts/deps.sh) for the plots
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
MODEL=${RAIDLAB_DEMO_DISK:-}
if [ -z "$MODEL" ]; then
	MODEL=none
	[ -e dm-hddsim/dm-hddsim.ko ] && MODEL=lightning
fi
SCALE=1
[ "$MODEL" = none ] || SCALE=2
"$PY" tools/raidlab bench --preset quick --runtime "${1:-2}" --disk-model "$MODEL" \
	--time-scale "$SCALE" --out results/demo
cp results/demo/fig5-relative.png results/demo/relative.png 2>/dev/null || true
cat <<'NOTE'

How to read it: every array was loaded (more outstanding requests) until 90% of
its requests finished within the same time target (4x raid0's unloaded p90).
"rel" is the work each member disk then did, relative to raid0; "simple" and
"adj" are what Chen et al.'s models predict (1.0 = as good as raid0; mirror
writes cost two disk writes, raid5 small writes four disk I/Os: "mem I/O").
Plot: results/demo/relative.png (and fig4-tput-vs-p90.png: throughput against p90).
NOTE
if [ "$MODEL" = none ]; then
	echo "Disk model: none (dm-hddsim not built): QEMU's CPU time, not seeks, limits the"
	echo "arrays here, so compare the I/O counts, not the per-disk ratios."
else
	echo "Disk model: $MODEL (dm-hddsim, time_scale $SCALE) under every member."
fi
