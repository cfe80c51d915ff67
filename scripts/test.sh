#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's test command (README, .ci/run): everything a change must
# pass, from a fresh clone on a fresh machine.
#
#   scripts/test.sh [--no-kunit] [--no-vm] [--vm PATTERN] [--full]
#
#   --full  the long tier of the VM tests (vm-tests.sh --full): more
#           trials and crash points; run it before closing an issue
#
#   1. scripts/deps.sh      host packages (apt-get, as root)
#   2. static checks        layers ratchet, make W=1 C=1 with no warning, the builds
#                           for Debian's newest headers and linux-source-6.1, checkpatch --strict
#   3. pytest tests/tools    the host-side tools (the papers' models)
#   4. scripts/kunit.sh     the KUnit suites on UML (with KASAN, lockdep, UBSAN)
#   5. scripts/lab/vm-tests.sh   the VM integration tests under QEMU (TCG)
#   6. tests/install/run.sh the module installed with DKMS, two boots over
#                           kept disks (with the VM tests: not with --no-vm)
#
# Steps 2 and 4 run one after the other in the background, at nice 19,
# beside steps 3 and 5; their logs are printed after them. A TCG guest
# leaves about a third of CI's two CPUs idle, which the builds of the
# static checks and of UML take (scripts/lab/README.md). The static
# checks build in copies of the sources (build/static-check/), never the
# module the VM tests load. With --no-vm they still run beside the tools.
#
# Every step runs even if an earlier one failed. The last line is
# "N passed, M failed" over the steps' own counts (static checks, files
# checkpatch read, pytest tests, KUnit test cases, VM test files, install checks).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
mkdir -p build

KUNIT=1 VM=1 VM_PATTERN= FULL=
while [ $# -gt 0 ]; do
	case $1 in
	--no-kunit) KUNIT=0 ;;
	--no-vm) VM=0 ;;
	--vm) VM_PATTERN=$2; shift ;;
	--full) FULL=--full ;;
	-h | --help) sed -n '4,26p' "$0"; exit 0 ;;
	*) echo "test.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

pass=0 fail=0
declare -a summary
t0=$(date +%s)

step() { # NAME START_SECONDS RESULT_LINE
	local p f
	p=$(echo "$3" | sed -n 's/.*\b\([0-9]\+\) passed, \([0-9]\+\) failed.*/\1/p')
	f=$(echo "$3" | sed -n 's/.*\b\([0-9]\+\) passed, \([0-9]\+\) failed.*/\2/p')
	if [ -z "$p" ]; then p=0; f=1; fi
	pass=$((pass + p))
	fail=$((fail + f))
	summary+=("$(printf '%-14s %4d passed %4d failed  %5ds' "$1" "$p" "$f" $(($(date +%s) - $2)))")
}

echo "== deps"
scripts/deps.sh || { echo "test.sh: scripts/deps.sh failed"; echo "0 passed, 1 failed"; exit 1; }

# the module the VM tests load
make -s >/dev/null 2>&1 || make

# bg NAME CMD...: the step's command at nice 19, its output in
# build/NAME.log and its wall time in build/NAME.secs
bg() {
	local name=$1 bs
	shift
	rm -f "build/$name.log" "build/$name.secs"
	bs=$(date +%s)
	nice -n 19 "$@" >"build/$name.log" 2>&1
	echo $(($(date +%s) - bs)) >"build/$name.secs"
}
# bg_report NAME TITLE PATTERN: print the log, count the step by its last
# line matching PATTERN
bg_report() {
	echo "== $2 (ran in the background)"
	cat "build/$1.log"
	# its own wall time: step() counts from a start
	step "$1" $(($(date +%s) - $(cat "build/$1.secs" 2>/dev/null || echo 0))) \
		"$(grep -E "$3" "build/$1.log" | tail -n 1)"
}

bgsteps="static checks, checkpatch"
[ "$KUNIT" = 1 ] && bgsteps="$bgsteps, kunit"
echo "== $bgsteps: started in the background (nice 19), one after another; their logs follow"
(
	bg static-check scripts/static-check.sh
	bg checkpatch scripts/checkpatch.sh
	[ "$KUNIT" = 1 ] && bg kunit scripts/kunit.sh --timeout 900
) &
bgpid=$!

echo "== tools"
s=$(date +%s)
# Debian's python3 has matplotlib and pytest (scripts/deps.sh), so the plot
# tests run too; another python3 first in PATH may lack them
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -m pytest --version >/dev/null 2>&1 && py=/usr/bin/python3
$py -m pytest --version >/dev/null 2>&1 || $py -m pip install -q pytest
$py -m pytest -q tests/tools 2>&1 | tee build/pytest.log
# pytest's last line: "N passed[, M failed] in T s", or "no tests ran"
p=$(grep -oE '[0-9]+ passed' build/pytest.log | tail -n 1 | cut -d' ' -f1)
f=$(grep -oE '[0-9]+ (failed|error)' build/pytest.log | awk '{ n += $1 } END { print n + 0 }')
if grep -qE 'no tests ran' build/pytest.log; then p=0; fi
step tools "$s" "${p:-0} passed, ${f:-1} failed"

if [ "$VM" = 1 ]; then
	echo "== vm"
	s=$(date +%s)
	scripts/lab/vm-tests.sh $FULL ${VM_PATTERN:+"$VM_PATTERN"} 2>&1 | tee build/vm-tests.log
	step vm "$s" "$(grep -E '^vm: [0-9]+ passed' build/vm-tests.log | tail -n 1)"
	echo "== install"
	s=$(date +%s)
	tests/install/run.sh 2>&1 | tee build/install.log
	step install "$s" "$(grep -E '^install: [0-9]+ passed' build/install.log | tail -n 1)"
fi

wait "$bgpid"
bg_report static-check "static checks" '^static-check: [0-9]+ passed'
bg_report checkpatch checkpatch '^checkpatch: [0-9]+ passed'
[ "$KUNIT" = 1 ] && bg_report kunit kunit '^kunit: [0-9]+ passed'

echo
echo "== summary ($(($(date +%s) - t0)) s)"
printf '%s\n' "${summary[@]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
