# SPDX-License-Identifier: GPL-2.0
#
# The crash-test cases' common part (90-crash.sh, 91-plog-crash.sh,
# 94-copyset-crash.sh):
# the guest's checks that crash-test can run (module version, dm-log-writes,
# dm-snapshot, ext4, a brd COW device), and
#   crash NAME MINPOINTS crash-test-options...
# which runs one case with the negative controls and checks that it passes:
# at least MINPOINTS points, a flush point among them, no failure, both
# controls detected; its JSON is kept as $RL_OUT/$CRASH_TAG-NAME.json
# (CRASH_TAG: the test's number, 90 unless set before this file is read).
# A test with checks of its own for every case defines crash_more NAME
# JSON (called after the common ones) and sets CRASH_MORE=crash_more;
# CRASH_GREP widens the crash-test lines shown (default: results,
# controls, failures).
# shellcheck shell=sh
need_raidlab
command -v python3 >/dev/null || skip "no python3 in the guest (scripts/lab/mkinitramfs.sh)"
ver=$(dmsetup targets | awk '$1 == "raidlab" { sub(/^v/, "", $2); print $2 }')
major=${ver%%.*}
minor=${ver#*.}
minor=${minor%%.*}
[ $((major * 1000 + minor)) -ge 1002 ] || skip "dm-raidlab $ver: no metadata device (issue 4)"
need_log_writes
for m in dm-snapshot ext4; do modprobe $m || die "modprobe $m"; done
modprobe brd rd_nr=1 rd_size=65536 || die "modprobe brd"
[ -b /dev/ram0 ] || die "no /dev/ram0"

RL="python3 $RL_TOOLS/raidlab"
CRASH_TAG=${CRASH_TAG:-90}
DEVS="--base $(disk 0) --log $(disk 1) --replay $(disk 2) --cow /dev/ram0 --out $RL_OUT"

# jcheck FILE EXPR: the JSON in FILE makes the python expression EXPR (over d) true
jcheck() {
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
ok = bool($2)
if not ok:
    print(json.dumps({k: d.get(k) for k in ('checked', 'failures', 'controls', 'log', 'record')})[:3000])
sys.exit(0 if ok else 1)" "$1"
}

# crash NAME MINPOINTS crash-test options...: must pass, every point and control
crash() {
	_n=$1 _min=$2
	shift 2
	_t0=$(cut -d' ' -f1 /proc/uptime)
	$RL crash-test $DEVS --controls "$@" >/tmp/crash.log 2>&1
	_rc=$?
	grep -E "${CRASH_GREP:-^crash: (RESULT|control|.*FAIL)}" /tmp/crash.log
	_f=$(ls -t "$RL_OUT"/crash-*.json 2>/dev/null | head -1)
	log "$_n: $(awk -v a="$_t0" '{ printf "%.0f", $1 - a }' /proc/uptime) s"
	check "$_n: crash-test passes (exit $_rc)" test "$_rc" -eq 0
	[ -n "$_f" ] || { not_ok "$_n: no result file"; tail -20 /tmp/crash.log; return; }
	mv "$_f" "$RL_OUT/$CRASH_TAG-$_n.json"
	check "$_n: at least $_min points checked, none failed" \
		jcheck "$RL_OUT/$CRASH_TAG-$_n.json" "sum(d['checked'].values()) >= $_min and not d['failures'] and d['checked']['flush'] > 0"
	check "$_n: late-generation control detected (lost writes)" \
		jcheck "$RL_OUT/$CRASH_TAG-$_n.json" "d['controls']['late']['detected'] and d['controls']['late']['lost'] > 0"
	check "$_n: corrupt-block control detected" \
		jcheck "$RL_OUT/$CRASH_TAG-$_n.json" "d['controls']['corrupt']['detected']"
	[ -z "$CRASH_MORE" ] || "$CRASH_MORE" "$_n" "$RL_OUT/$CRASH_TAG-$_n.json"
	# a scheme whose check this module refuses is verified without scrub
	jcheck "$RL_OUT/$CRASH_TAG-$_n.json" "d.get('check_supported') is not False" >/dev/null ||
		log "NOTE: $_n: check refused by dm-raidlab $ver: points verified without scrub"
	[ "$_rc" -eq 0 ] || tail -30 /tmp/crash.log
}

