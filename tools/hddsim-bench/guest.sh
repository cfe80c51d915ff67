#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/hddsim-bench/bench.sh: for each dm-hddsim preset over
# /dev/rl/m0 (all of the emulated disk, or of m0 if smaller), 4 KiB
# sequential and random direct reads at queue depth 64 for SECS seconds
# each; one CSV line per run in $RL_OUT/bench/results.csv with fio's IOPS
# and the target's status counters.
#
#   guest.sh [SECS] [PRESET...]
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/hddsim.sh"
need_hddsim
secs=${1:-6}
[ $# -gt 0 ] && shift
presets=${*:-lightning eagle st39133 modern7200}
mkdir -p "$RL_OUT/bench"
csv=$RL_OUT/bench/results.csv
echo "preset,len_sectors,rw,iops,runtime_ms,requests,seek_cyls,seek_us,rot_us,xfer_us,busy_us,late" >"$csv"
for p in $presets; do
	run hdd_create hb /dev/rl/m0 "$p"
	len=$(dmsetup table hb | awk '{ print $2 }')
	for rw in read randread; do
		dm_message hb reset_counters
		fio --name=hb --filename=/dev/mapper/hb --size=$((len * 512)) --rw=$rw \
			--bs=4k --ioengine=libaio --iodepth=64 --direct=1 --time_based \
			--runtime="$secs" --randseed=42 --minimal >/tmp/fio.out 2>&1 ||
			{ cat /tmp/fio.out; die "fio failed"; }
		r=$(awk -F';' '{ printf "%.2f,%d", $6 / 4 * 1000 / $9, $9 }' /tmp/fio.out)
		s=$(dmsetup status hb | awk '{ printf "%s,%s,%s,%s,%s,%s,%s", $6, $10, $11, $12, $13, $14, $15 }')
		echo "$p,$len,$rw,$r,$s" | tee -a "$csv"
		echo "bench: $p $rw $r $s"
	done
	run dm_remove hb
done
finish
