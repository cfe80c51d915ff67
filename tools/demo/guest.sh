#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The demo's guest side (run by scripts/demo.sh through the VM lab): every
# scheme over the same four emulated disks, a short fio run of each
# workload, fio's JSON and the array's status after each run into /out/demo.
# Its argument is the seconds per run (default 8).
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

RT=${1:-8}
OUT=$RL_OUT/demo
mkdir -p "$OUT"
SCHEMES="raid0 mirror raid4 raid5"
WORKLOADS="randread:4k randwrite:4k write:1m"
total=$(($(echo $SCHEMES | wc -w) * $(echo $WORKLOADS | wc -w)))
i=0
for scheme in $SCHEMES; do
	opts=
	case $scheme in raid4 | raid5) opts=assume_clean ;; esac
	# shellcheck disable=SC2046
	RL_OPTS=$opts rl_create demo "$scheme" 128 $(disks 4) || die "create $scheme"
	for wl in $WORKLOADS; do
		rw=${wl%:*}
		bs=${wl#*:}
		i=$((i + 1))
		echo "demo: [$i/$total] $scheme $rw $bs (${RT}s)"
		dm_message demo reset_counters
		fio --name="$scheme-$rw" --filename=/dev/mapper/demo --rw="$rw" --bs="$bs" \
			--direct=1 --ioengine=libaio --iodepth=8 --size=1G --runtime="$RT" \
			--time_based --lat_percentiles=1 --randrepeat=0 --eta=never \
			--output-format=json --output="$OUT/$scheme-$rw-$bs.json" ||
			die "fio $scheme $rw"
		dmsetup status demo >"$OUT/$scheme-$rw-$bs.status"
	done
	dm_remove demo
done
echo "demo: done"
