#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the VM integration tests: every tests/vm/[0-9]*.sh, each in its own
# fresh boot with fresh disks (scripts/lab/vm-run.sh).
#
#   scripts/lab/vm-tests.sh [--full] [--jobs N] [pattern]
#
# --full: the long tier: the guest sees RL_FULL=1 (kernel command line
# rl.full=1) and tests run their long forms (more trials, more crash
# points); tests whose vm-opts line says "--tier full" run only then.
#
# --jobs N: up to N guests at once (default: RAIDLAB_VM_JOBS, else one per
# two host CPUs, at least one). A guest has two vCPUs and, under TCG, keeps
# up to two host CPUs busy: on CI's two CPUs two guests at once gained 5 %
# (scripts/lab/README.md has the measurement), so CI runs one. A test
# whose vm-opts line says "--alone" (a timing measurement) runs with no
# other guest beside it, after the others (scripts/test.sh builds KUnit
# beside the first VM tests). Results are printed as tests finish.
#
# pattern: an extended regex matched against the test file names (e.g.
# "smoke" or "^(00|1[0-9])-"). A test may ask for vm-run.sh options with a
# comment line of its own, e.g.
#     # vm-opts: --disks 8 --disk-size 4G --timeout 1200
# Per-test logs and artifacts: build/vm/out/<test>/ (console.log, dmesg.txt,
# whatever the test left in /out). A test that exits 77 (skip) fails unless
# tests/vm/skip-allow lists it with its reason ("NAME reason..."): a missing
# pmem device, python3 or module must not turn a test green.
# The last line is "vm: N passed, M failed"; the exit status is nonzero if any
# test failed.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FULL=0 JOBS=${RAIDLAB_VM_JOBS:-}
while [ $# -gt 0 ]; do
	case $1 in
	--full) FULL=1 ;;
	--jobs) JOBS=${2:-}; shift ;;
	--jobs=*) JOBS=${1#*=} ;;
	*) break ;;
	esac
	shift
done
PATTERN=${1:-}
OUTBASE=$ROOT/build/vm/out
if [ -z "$JOBS" ]; then
	JOBS=$(($(nproc) / 2))
	[ "$JOBS" -ge 1 ] || JOBS=1
fi
case $JOBS in [1-9] | [1-9][0-9]) ;; *) echo "vm-tests: bad --jobs '$JOBS'" >&2; exit 2 ;; esac

# the tests: those whose vm-opts say --alone last, each on its own
alone=() shared=()
for t in "$ROOT"/tests/vm/[0-9]*.sh; do
	[ -e "$t" ] || continue
	if [ -n "$PATTERN" ] && ! basename "$t" | grep -q -E -- "$PATTERN"; then continue; fi
	if [ $FULL = 0 ] && grep -q -E '^#[[:space:]]*vm-opts:.*--tier full' "$t"; then continue; fi
	if grep -q -E '^#[[:space:]]*vm-opts:.*--alone' "$t"; then alone+=("$t"); else shared+=("$t"); fi
done
tests=("${shared[@]}" "${alone[@]}")
if [ ${#tests[@]} -eq 0 ]; then
	echo "vm-tests: no test matches '${PATTERN}'" >&2
	echo "vm: 0 passed, 0 failed"
	[ -n "$PATTERN" ] && exit 1
	exit 0
fi

# build the images once, up front, so per-test times are boot + test
"$ROOT/scripts/lab/mkinitramfs.sh" || { echo "vm: 0 passed, ${#tests[@]} failed"; exit 1; }
mkdir -p "$OUTBASE"

# run_one TEST: one boot, in the background; its verdict goes to
# $OUTBASE/.<name>.rc as "RC SECONDS" when it is done
run_one() {
	local t=$1 name opts t1 rc
	name=$(basename "$t" .sh)
	read -r -a opts < <(sed -n 's/^#[[:space:]]*vm-opts:[[:space:]]*//p' "$t" | head -n1 |
		sed 's/--tier full//; s/--alone//')
	[ $FULL = 1 ] && opts+=(--append rl.full=1)
	t1=$(date +%s)
	"$ROOT/scripts/lab/vm-run.sh" --quiet "${opts[@]}" --out "$OUTBASE/$name" "$t" \
		>"$OUTBASE/.$name.vm-run.log" 2>&1
	rc=$?
	echo "$rc $(($(date +%s) - t1))" >"$OUTBASE/.$name.rc.tmp"
	mv -f "$OUTBASE/.$name.rc.tmp" "$OUTBASE/.$name.rc"
}

pass=0 fail=0 skip=0
failed=()
# report NAME: print a finished test's verdict and count it
report() {
	local name=$1 rc dt again= why allow
	read -r rc dt <"$OUTBASE/.$name.rc"
	rm -f "$OUTBASE/.$name.rc"
	# vm-run.sh booted it a second time after a stalled boot: say so
	[ -e "$OUTBASE/$name/console.stalled.log" ] && again="  (booted again after a stalled boot)"
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-32s %4ds%s\n' "$name" "$dt" "$again" ;;
	77) why=$(grep -a -m1 -o 'SKIP: .*' "$OUTBASE/$name/console.log" | tr -d '\r')
		allow=$(sed -n "s/^$name[[:space:]]\{1,\}//p" "$ROOT/tests/vm/skip-allow" 2>/dev/null | head -n1)
		if [ -n "$allow" ]; then
			skip=$((skip + 1))
			printf 'SKIP  %-32s %4ds  %s (allowed: %s)\n' "$name" "$dt" "$why" "$allow"
		else
			fail=$((fail + 1))
			failed+=("$name")
			printf 'FAIL  %-32s %4ds  skipped, not in tests/vm/skip-allow: %s\n' "$name" "$dt" "$why"
		fi
		;;
	*)
		fail=$((fail + 1))
		failed+=("$name")
		printf 'FAIL  %-32s %4ds  (exit %d)%s\n' "$name" "$dt" "$rc" "$again"
		grep -a -E '^(not ok|FAIL:)' "$OUTBASE/$name/console.log" 2>/dev/null | tr -d '\r' | head -n 20 | sed 's/^/      /'
		sed 's/^/      /' "$OUTBASE/.$name.vm-run.log" | tail -n 45
		;;
	esac
	mv -f "$OUTBASE/.$name.vm-run.log" "$OUTBASE/$name/vm-run.log" 2>/dev/null || true
}

# reap [LIMIT]: wait until fewer than LIMIT tests run (default 1: none)
running=()
reap() {
	local limit=${1:-1} n still
	while [ ${#running[@]} -ge "$limit" ]; do
		wait -n 2>/dev/null
		still=()
		for n in "${running[@]}"; do
			if [ -e "$OUTBASE/.$n.rc" ]; then report "$n"; else still+=("$n"); fi
		done
		# a job gone without its verdict (killed): the harness failed
		if [ ${#still[@]} -eq ${#running[@]} ] && [ -z "$(jobs -p)" ]; then
			for n in "${still[@]}"; do echo "125 0" >"$OUTBASE/.$n.rc"; done
		fi
		running=("${still[@]}")
	done
}
trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM

T0=$(date +%s)
for t in "${shared[@]}"; do
	name=$(basename "$t" .sh)
	rm -f "$OUTBASE/.$name.rc"
	reap "$JOBS"
	run_one "$t" &
	running+=("$name")
done
reap 1
for t in "${alone[@]}"; do
	run_one "$t"
	report "$(basename "$t" .sh)"
done

[ $skip -gt 0 ] && echo "vm-tests: $skip skipped"
[ $fail -gt 0 ] && echo "vm-tests: failed: ${failed[*]} (logs in build/vm/out/<test>/)"
echo "vm-tests: total wall $(($(date +%s) - T0))s, up to $JOBS guests at once"
echo "vm: $pass passed, $fail failed"
[ $fail -eq 0 ]
