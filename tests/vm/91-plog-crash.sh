#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Crash consistency of parity logging (plog, paper 000) with its metadata
# on a block device (dm-bufio: the logs live in RAM, a region is dirty in
# the write-intent bitmap while it holds records, and assembly recomputes
# the parity of dirty regions), with tools/raidlab crash-test as in
# 90-crash.sh: one dm-log-writes device under the member slices and the
# metadata slice records a block workload; the log is replayed to every
# chosen FLUSH/FUA point, the first write, random points and the end, and
# at every point the array must reassemble, resync to idle, hold its
# flushed data and pass `check` with 0 mismatches. The recorded run must
# have reintegrated regions (the crash points fall around reintegrations)
# and waited for log buffers; the same with faults 2 (P+Q, the log on two
# copies) over 6 members. Negative controls: a point checked one
# generation too late, and garbage in the first data block of every member.
# (The DAX backend keeps its logs on pmem with memcpy_flushcache, which no
# block-layer log sees: not covered here.)
# vm-opts: --disks 4 --disk-size 256M --timeout 1200
. "$RL_TESTS/lib.sh"

need_raidlab
command -v python3 >/dev/null || skip "no python3 in the guest (scripts/lab/mkinitramfs.sh)"
need_log_writes
modprobe dm-snapshot || die "modprobe dm-snapshot"
modprobe brd rd_nr=1 rd_size=65536 || die "modprobe brd"
[ -b /dev/ram0 ] || die "no /dev/ram0"
# a module without plog refuses the one-chunk table: skip, do not fail
echo "0 32 raidlab plog 2 chunk_size 32 3 $(disk 0) $(disk 1) $(disk 2)" |
	dmsetup create plogprobe 2>/dev/null || {
	dmesg | tail -n 3 | grep -q -i "unknown scheme\|Unknown scheme" &&
		skip "dm-raidlab without plog"
}
dmsetup remove plogprobe 2>/dev/null
wipe "$(disk 0)" 4

RL="python3 $RL_TOOLS/raidlab"
DEVS="--base $(disk 0) --log $(disk 1) --replay $(disk 2) --cow /dev/ram0 --out $RL_OUT"

jcheck() {
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
ok = bool($2)
if not ok:
    print(json.dumps({k: d.get(k) for k in ('checked', 'failures', 'controls', 'log', 'record')})[:3000])
sys.exit(0 if ok else 1)" "$1"
}

# crash NAME MINPOINTS crash-test options...
crash() {
	_n=$1 _min=$2
	shift 2
	_t0=$(cut -d' ' -f1 /proc/uptime)
	$RL crash-test $DEVS --scheme plog --controls "$@" >/tmp/crash.log 2>&1
	_rc=$?
	grep -E "^crash: (RESULT|control|plog|recorded|.*FAIL)" /tmp/crash.log
	_f=$(ls -t "$RL_OUT"/crash-*.json 2>/dev/null | head -1)
	log "$_n: $(awk -v a="$_t0" '{ printf "%.0f", $1 - a }' /proc/uptime) s"
	check "$_n: crash-test passes (exit $_rc)" test "$_rc" -eq 0
	[ -n "$_f" ] || { not_ok "$_n: no result file"; tail -20 /tmp/crash.log; return; }
	mv "$_f" "$RL_OUT/91-$_n.json"
	check "$_n: at least $_min points checked, none failed, check run at each" \
		jcheck "$RL_OUT/91-$_n.json" "sum(d['checked'].values()) >= $_min and not d['failures'] and d['checked']['flush'] > 0 and all(p.get('mismatches') == 0 for p in d['points'])"
	check "$_n: every point reassembled and resynced" \
		jcheck "$RL_OUT/91-$_n.json" "all('resync_s' in p for p in d['points'])"
	check "$_n: the recorded run reintegrated regions" \
		jcheck "$RL_OUT/91-$_n.json" "d['record']['plog']['reintegrations'] > 0"
	check "$_n: the recorded run waited for log buffers" \
		jcheck "$RL_OUT/91-$_n.json" "d['record']['plog']['pool_waits'] > 0"
	check "$_n: late-generation control detected (lost writes)" \
		jcheck "$RL_OUT/91-$_n.json" "d['controls']['late']['detected'] and d['controls']['late']['lost'] > 0"
	check "$_n: corrupt-block control detected" \
		jcheck "$RL_OUT/91-$_n.json" "d['controls']['corrupt']['detected']"
	[ "$_rc" -eq 0 ] || tail -30 /tmp/crash.log
}

# 4 members (L = 1: rows of 2 data chunks), 8 regions with logs a quarter
# of their parity in 8 KiB segments, 4 log buffers: regions fill and are
# reintegrated between the flushes of 3 generations of 48 writes
crash plog 12 --generations 3 --ops 48 --max-flush 10 --points 4 --seed 21
# faults 2 (P+Q, two log copies): 6 members, L = 1, rows of 2 data chunks,
# a cycle of 3 regions
crash plog-f2 12 --members 6 --plog-opts \
	"log_disks 1 log_ratio 0.25 track_sectors 32 log_buffers 4 regions 6 faults 2" \
	--generations 3 --ops 48 --max-flush 10 --points 4 --seed 22
finish
