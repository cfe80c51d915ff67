#!/bin/bash
# Run the project's KUnit suites (dm-raidlab, dm-hddsim) on UML (User Mode Linux).
#
#   scripts/kunit.sh [--filter GLOB] [--no-debug] [--clean] [--jobs N]
#                    [--timeout SECONDS]
#
#   --filter GLOB  kunit.py's filter_glob: suites (or suite.test) to run;
#                  default 'dm_*': every dm_raidlab* and dm_hddsim* suite
#                  (kunit.py takes one glob; no suite of the kernel's own
#                  starts with dm_). Do not widen it to KASAN's own
#                  suite: its deliberate reports fail the log scan.
#   --no-debug     leave out tests/kunit/debug.config (KASAN, lockdep,
#                  UBSAN, DEBUG_LIST/SG, DEBUG_OBJECTS); uses its own
#                  build dir
#   --clean        wipe the UML build dir first (the unpacked tree stays)
#   --jobs N       parallel make jobs (default: nproc)
#   --timeout S    limit for running the tests, not building (default 300)
#
# What it does:
#  1. scripts/ksrc.sh unpacks /usr/src/linux-source-6.1.tar.xz into
#     build/kunit/src (cached by the tarball's version, size and mtime).
#  2. Hooks the modules in as drivers/md/raidlab and drivers/md/hddsim:
#     symlinks to $RAIDLAB_SRC/dm-raidlab and $RAIDLAB_SRC/dm-hddsim plus
#     `source` lines in drivers/md/Kconfig and `obj-y` lines in
#     drivers/md/Makefile (idempotent; dm-hddsim only if its directory
#     exists).
#  3. Runs tools/testing/kunit/kunit.py run --arch=um with
#     tests/kunit/kunitconfig (+ tests/kunit/debug.config) and a persistent
#     --build_dir (build/kunit/uml or build/kunit/uml-nodebug), so later
#     runs rebuild only what changed.
#  4. Scans the whole kernel log (<build dir>/test.log) for KASAN, UBSAN,
#     lockdep, WARNING and BUG reports: lockdep and UBSAN reports do not fail
#     a KUnit test by themselves.
#  5. Ends with the line `kunit: N passed, M failed` (test cases as kunit.py
#     counts them, parameterised cases included; crashed counts as failed,
#     and a log with kernel reports counts one failure more)
#     and exits nonzero on a build/config error, a failed or crashed test,
#     a kernel report in the log, or when no test ran.
#
# Cost (2 cores, measured): from nothing (unpack ~10-60 s + debug build +
# run) 3.5-4.5 min, up to 8.5 min while a VM test loads both cores; after
# editing one test file 10-20 s, after editing a shared header ~20 s.
# --no-debug saves about a third of the build CPU (cold ~2 min). A
# top-level `make clean` (its find runs over M=<repo>, build/ included)
# deletes the objects here and so forces a full rebuild.
#
# Environment:
#   RAIDLAB_SRC     tree holding dm-raidlab/ and dm-hddsim/ (default: this repository);
#                   used to validate the tooling against a scratch module
#   KUNIT_BUILD_DIR UML build dir (default build/kunit/uml[-nodebug])
#   KSRC_DIR        unpacked kernel tree (default build/kunit/src)
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
raidlab_src=$(cd "${RAIDLAB_SRC:-$repo}" && pwd -P) || exit 1
moddir=$raidlab_src/dm-raidlab
hsdir=$raidlab_src/dm-hddsim

filter='dm_*'
debug=1
clean=0
jobs=$(nproc)
timeout=300

usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--filter) [ $# -ge 2 ] || usage; filter=$2; shift 2 ;;
	--filter=*) filter=${1#*=}; shift ;;
	--no-debug) debug=0; shift ;;
	--clean) clean=1; shift ;;
	--jobs) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	--jobs=*) jobs=${1#*=}; shift ;;
	--timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	-h|--help) usage ;;
	*) echo "kunit.sh: unknown argument: $1" >&2; usage ;;
	esac
done

t_start=$(date +%s)
finish() { # finish <passed> <failed> <status>
	echo "kunit.sh: total $(($(date +%s) - t_start)) s"
	echo "kunit: $1 passed, $2 failed"
	exit "$3"
}
fail() { echo "kunit.sh: $*" >&2; finish 0 0 1; }

[ -f "$moddir/Kconfig" ] && [ -f "$moddir/Makefile" ] ||
	fail "$moddir has no Kconfig/Makefile"
# the sources live in its folders (target/, svc/, ...), not at its top
# (no "| grep -q": with pipefail, find killed by grep's early exit fails it)
[ -n "$(find "$moddir" -name '*.c' ! -name '*.mod.c' -print -quit)" ] ||
	fail "$moddir has no C sources yet"

if [ "$debug" = 1 ]; then
	build=${KUNIT_BUILD_DIR:-$repo/build/kunit/uml}
else
	build=${KUNIT_BUILD_DIR:-$repo/build/kunit/uml-nodebug}
fi

# One run per build dir at a time: a second one waits.
mkdir -p "$(dirname "$build")" || fail "cannot create $(dirname "$build")"
exec 8>"$build.lock"
if ! flock -n 8; then
	echo "kunit.sh: waiting for another kunit.sh using $build"
	flock 8
fi

# 1. the kernel tree
ksrc=$("$repo/scripts/ksrc.sh") || fail "could not unpack the kernel source"

# 2. the hook (idempotent; the symlink follows RAIDLAB_SRC)
ln -sfn "$moddir" "$ksrc/drivers/md/raidlab" || fail "cannot create the symlink"
hook_kconfig='source "drivers/md/raidlab/Kconfig"'
grep -qxF "$hook_kconfig" "$ksrc/drivers/md/Kconfig" ||
	printf '\n# dm-raidlab (scripts/kunit.sh)\n%s\n' "$hook_kconfig" \
		>>"$ksrc/drivers/md/Kconfig"
if ! grep -qxF 'obj-y += raidlab/' "$ksrc/drivers/md/Makefile"; then
	# UML has no UBSAN_SANITIZE_ALL: instrument drivers/md (dm core and
	# dm-raidlab) explicitly. subdir-ccflags also reach raidlab/.
	cat >>"$ksrc/drivers/md/Makefile" <<-'EOF'

	# dm-raidlab (scripts/kunit.sh)
	subdir-ccflags-$(CONFIG_UBSAN) += $(CFLAGS_UBSAN)
	obj-y += raidlab/
	EOF
fi
# dm-hddsim, the same way (subdir-ccflags above reach it too)
if [ -f "$hsdir/Kconfig" ]; then
	ln -sfn "$hsdir" "$ksrc/drivers/md/hddsim" || fail "cannot create the hddsim symlink"
	hook_kconfig='source "drivers/md/hddsim/Kconfig"'
	grep -qxF "$hook_kconfig" "$ksrc/drivers/md/Kconfig" ||
		printf '\n# dm-hddsim (scripts/kunit.sh)\n%s\n' "$hook_kconfig" \
			>>"$ksrc/drivers/md/Kconfig"
	grep -qxF 'obj-y += hddsim/' "$ksrc/drivers/md/Makefile" ||
		printf '\n# dm-hddsim (scripts/kunit.sh)\nobj-y += hddsim/\n' \
			>>"$ksrc/drivers/md/Makefile"
fi

if [ "$clean" = 1 ]; then
	echo "kunit.sh: removing $build"
	rm -rf "$build"
fi
mkdir -p "$build" || fail "cannot create $build"
# kbuild decides by mtime: if the module's sources move to another tree,
# forget the old objects rather than trust timestamps across trees.
if [ "$(cat "$build/.raidlab-src" 2>/dev/null)" != "$moddir" ]; then
	rm -rf "$build/drivers/md/raidlab" "$build/drivers/md/hddsim"
	echo "$moddir" >"$build/.raidlab-src"
fi

# 3. build and run
kargs=(--arch=um --build_dir="$build" --jobs="$jobs" --timeout="$timeout"
	--kunitconfig="$repo/tests/kunit/kunitconfig")
# kasan_multi_shot: report every KASAN bug, not only the first of the boot,
# so each faulty test fails on its own.
[ "$debug" = 1 ] && kargs+=(--kunitconfig="$repo/tests/kunit/debug.config"
	--kernel_args=kasan_multi_shot)
out=$build/kunit.out
rm -f "$build/test.log"
echo "kunit.sh: kunit.py run ${kargs[*]} '$filter'"
(cd "$ksrc" && python3 tools/testing/kunit/kunit.py run "${kargs[@]}" "$filter") \
	</dev/null 2>&1 | grep --line-buffered -v "^stty: 'standard input'" | tee "$out"
rc=${PIPESTATUS[0]}

# 4. counts from kunit.py's summary:
# "Testing complete. Ran 7 tests: passed: 6, failed: 1, errors: 1"
summary=$(sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -a 'Testing complete\.' | tail -n 1)
count() { echo "$summary" | grep -oE "$1: [0-9]+" | grep -oE '[0-9]+' || echo 0; }
passed=$(count passed)
failed=$(($(count failed) + $(count crashed)))
errors=$(count errors)
status=0

if [ -z "$summary" ]; then
	if grep -qa 'Building\|make' "$out" && ! grep -qa 'Starting KUnit Kernel' "$out"; then
		echo "kunit.sh: FAIL: kunit.py did not get to run the kernel (config or build error above)"
	else
		echo "kunit.sh: FAIL: no test summary from kunit.py"
	fi
	status=1
fi
[ "$rc" = 0 ] || { echo "kunit.sh: FAIL: kunit.py exited with $rc"; status=1; }
[ "$errors" = 0 ] || { echo "kunit.sh: FAIL: kunit.py counted $errors KTAP error(s)"; status=1; }
[ "$failed" = 0 ] || { echo "kunit.sh: FAIL: $failed test case(s) failed or crashed"; status=1; }
if [ -n "$summary" ] && [ "$passed" = 0 ] && [ "$failed" = 0 ]; then
	echo "kunit.sh: FAIL: no test ran (do the suites match '$filter'?)"
	status=1
fi

# 5. kernel reports that do not fail a test by themselves
log=$build/test.log
if [ -s "$log" ]; then
	# Report headers as the kernel prints them, after an optional
	# timestamp: KASAN/UBSAN/KFENCE banners, lockdep's "WARNING: possible
	# ...", WARN()'s "WARNING: CPU:", "BUG: ...", "kernel BUG at", Oops,
	# panics, list/data corruption, hung tasks.
	pat='^(\[ *[0-9.]+\] *)?(BUG:|WARNING:|UBSAN:|KASAN:|KFENCE:|kernel BUG at|Oops|Kernel panic|general protection fault|Unable to handle|INFO: (possible|inconsistent|trying to register|task .* blocked|lockdep)|DEBUG_LOCKS_WARN_ON|list_(add|del) corruption|.*\bcut here\b)'
	reports=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -naE "$pat")
	if [ -n "$reports" ]; then
		echo "kunit.sh: FAIL: kernel reports in $log:"
		echo "$reports" | head -n 40 | sed 's/^/    /'
		first=$(echo "$reports" | head -n 1 | cut -d: -f1)
		echo "kunit.sh: the first report (full log: $log):"
		sed 's/\x1b\[[0-9;]*m//g' "$log" | sed -n "$((first > 2 ? first - 2 : 1)),$((first + 45))p" |
			sed 's/^/  | /'
		# counted, so that the summary line (and test.sh's total) fails too
		failed=$((failed + 1))
		status=1
	fi
elif [ -n "$summary" ]; then
	echo "kunit.sh: FAIL: no kernel log at $log"
	failed=$((failed + 1))
	status=1
fi

finish "$passed" "$failed" "$status"
