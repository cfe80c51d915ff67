#!/bin/bash
# Build the kernel module against the Debian headers and fail on any warning.
#
#   scripts/static-check.sh
#
# Six checks. The first reads the sources where they are, with no build:
#   layers   scripts/layers.py, the dependency and size ratchet of issue 14:
#            no new call cycle between dm-raidlab's .c files, no new
#            function over 80 lines or file over 900, none of those in
#            scripts/layers-baseline.txt grown (the tree's own baseline,
#            else this repository's)
# The others each build in a fresh copy of the sources under
# build/static-check/ (sparse only looks at files that get compiled, and
# the work tree stays free of objects):
#   plain    `make -C $KDIR M=<copy> modules`: must build a .ko, no warning
#   W=1 C=1  the same with extra compiler warnings and sparse: no warning
#   tests    the KUnit test objects (*_test.c) compiled, not linked, with
#            W=1 C=1 and the Kconfig files' *_KUNIT_TEST options set to y
#            (CONFIG_DM_RAIDLAB_KUNIT_TEST=y): the Debian kernel
#            has no KUnit to link them against, but their code is checked
#   newest   dm-raidlab against the newest Debian headers of another series
#            than the lab's (6.12 on Debian 12; scripts/deps.sh installs
#            them): compat.h's other branches, no warning
#   source   dm-raidlab against Debian's linux-source-6.1 configured plainly
#            (x86_64_defconfig with device-mapper as modules, modules_prepare,
#            in build/kbuild/src): no warning but modpost's undefined
#            symbols (a tree without a kernel build has no Module.symvers)
# A warning is any compiler or sparse diagnostic (`warning:`, `error:`) or a
# modpost WARNING. Ends with `static-check: N passed, M failed`.
#
# The sources are the top-level Kbuild and every directory below the root
# (build/ and .git/ excluded) whose Kbuild or Makefile has an `obj-` line.
#
# Environment:
#   RAIDLAB_SRC  tree to check (default: this repository)
#   KVER, KDIR   kernel release / headers dir (default scripts/kver.sh,
#                /usr/src/linux-headers-$KVER), as in the top-level Makefile
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$(cd "${RAIDLAB_SRC:-$repo}" && pwd -P) || exit 1
work=$repo/build/static-check
mkdir -p "$work"

passed=0
failed=0
finish() {
	echo "static-check: $passed passed, $failed failed"
	[ "$failed" = 0 ] && exit 0
	exit 1
}
die() { echo "static-check.sh: $*" >&2; failed=$((failed + 1)); finish; }

# the layers ratchet: no build, no kernel headers, so it runs first
layers_base=$src/scripts/layers-baseline.txt
[ -f "$layers_base" ] || layers_base=$repo/scripts/layers-baseline.txt
echo "static-check.sh: [layers] scripts/layers.py --src $src/dm-raidlab"
if python3 "$repo/scripts/layers.py" --src "$src/dm-raidlab" --baseline "$layers_base" 2>&1 |
	sed 's/^/    /'; then
	echo "static-check.sh: [layers] ok"
	passed=$((passed + 1))
else
	echo "static-check.sh: [layers] FAIL: a new or worse cycle, long function or long file (see above)"
	failed=$((failed + 1))
fi

if [ -z "${KDIR:-}" ]; then
	KVER=${KVER:-$("$repo/scripts/kver.sh")} || die "no kernel headers (run scripts/deps.sh)"
	KDIR=/usr/src/linux-headers-$KVER
fi
[ -f "$KDIR/Makefile" ] || die "$KDIR is not a kernel headers tree"
command -v sparse >/dev/null || die "sparse is not installed (run scripts/deps.sh)"
jobs=$(nproc)

# kernel source directories, relative to $src
dirs=()
while IFS= read -r kb; do
	d=$(dirname "$kb")
	[ "$d" = "$src" ] && continue
	grep -qE '^[[:space:]]*obj-' "$kb" || continue
	dirs+=("${d#"$src"/}")
done < <(find "$src" \( -path "$src/build" -o -name .git \) -prune -o \
	-type f \( -name Kbuild -o -name Makefile \) -print | sort -u)
mapfile -t dirs < <(printf '%s\n' "${dirs[@]}" | awk 'NF && !seen[$0]++')
[ ${#dirs[@]} -gt 0 ] || die "no kernel source directories under $src"
[ -f "$src/Kbuild" ] || die "$src/Kbuild missing"
for d in "${dirs[@]}"; do
	grep -qE "^[^#]*obj-.*[[:space:]]$d/?([[:space:]]|\$)" "$src/Kbuild" ||
		echo "static-check.sh: note: $d/ is not listed in the top-level Kbuild, so make does not build it"
done

# fresh_copy NAME: copy the sources (no build products) to $work/NAME
fresh_copy() {
	local dst=$work/$1 d
	rm -rf "$dst"
	mkdir -p "$dst"
	cp "$src/Kbuild" "$dst/"
	for d in "${dirs[@]}"; do
		# the module's subfolders (target/, svc/, ...) keep their places
		(cd "$src" && find "$d" -type f \( -name '*.[ch]' -o -name 'Kconfig*' \
			-o -name Kbuild -o -name Makefile \) ! -name '*.mod.c' -print0 |
			cpio -0pdm --quiet "$dst")
	done
	echo "$dst"
}

# diagnostics from gcc, sparse (file:line:col: warning|error:) and modpost
diag='(^|: )(warning|error|fatal error):|^WARNING:|^ERROR:'

# run_check NAME MAKE-ARGS...: build in a fresh copy, fail on diagnostics
# ($CHECK_KDIR instead of $KDIR, $CHECK_DIR to build one directory only,
# $CHECK_IGNORE an extended regex of diagnostics that do not count)
run_check() {
	local name=$1 dst log rc n kd=${CHECK_KDIR:-$KDIR}
	shift
	dst=$(fresh_copy "$name")
	log=$work/$name.log
	echo "static-check.sh: [$name] make -C $kd M=<copy>${CHECK_DIR:+/$CHECK_DIR} $*"
	make -C "$kd" M="$dst${CHECK_DIR:+/$CHECK_DIR}" -j"$jobs" "$@" >"$log" 2>&1
	rc=$?
	# show paths relative to the copy
	sed -i "s|$dst/||g" "$log"
	n=$(grep -E "$diag" "$log" | grep -cvE "${CHECK_IGNORE:-^\$}")
	if [ "$rc" != 0 ] || [ "$n" != 0 ]; then
		grep -vE '^make(\[[0-9]+\])?: (Entering|Leaving) directory' "$log" |
			grep -vE '^  (CC|CHECK|LD|MODPOST|AR|BTF) |^Skipping BTF' | sed 's/^/    /'
		echo "static-check.sh: [$name] FAIL: make exited with $rc, $n diagnostic line(s) (log: $log)"
		failed=$((failed + 1))
		return 1
	fi
	echo "static-check.sh: [$name] ok: $(grep -cE '^  CC ' "$log") compiled, $(grep -cE '^  CHECK ' "$log") sparse-checked"
	passed=$((passed + 1))
}

echo "static-check.sh: headers $KDIR; sources: ${dirs[*]}"

if run_check plain modules; then
	kos=$(cd "$work/plain" && find . -name '*.ko' | sort)
	if [ -z "$kos" ]; then
		echo "static-check.sh: [plain] FAIL: no .ko built"
		passed=$((passed - 1))
		failed=$((failed + 1))
	else
		echo "static-check.sh: [plain] built:" $kos
	fi
fi

run_check w1-sparse W=1 C=1 modules

tests=()
for d in "${dirs[@]}"; do
	while IFS= read -r t; do
		tests+=("${t%.c}.o")
	done < <(cd "$src" && find "$d" -name '*_test.c' | sort)
done
# every KUnit test option the Kconfig files define (DM_RAIDLAB_KUNIT_TEST...)
mapfile -t topts < <(for d in "${dirs[@]}"; do cat "$src/$d"/Kconfig* 2>/dev/null; done |
	sed -nE 's/^config ([A-Z0-9_]*KUNIT_TEST)[[:space:]]*$/CONFIG_\1=y/p' | sort -u)
if [ ${#tests[@]} -gt 0 ]; then
	run_check tests W=1 C=1 "${topts[@]}" "${tests[@]}"
else
	echo "static-check.sh: [tests] no *_test.c, skipped"
fi

# the newest Debian headers of another series than the lab's
lab_series=$(echo "$KVER" | cut -d. -f1,2)
newest=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | grep -v "headers-$lab_series\." |
	sort -V | tail -n 1)
if [ -n "$newest" ]; then
	CHECK_KDIR=$newest CHECK_DIR=dm-raidlab run_check newest modules
else
	echo "static-check.sh: [newest] FAIL: no Debian headers but the lab's (run scripts/deps.sh)"
	failed=$((failed + 1))
fi

# linux-source-6.1 configured plainly: its own tree, prepared once
ktree=$repo/build/kbuild/src
if ktree=$(KSRC_DIR=$ktree "$repo/scripts/ksrc.sh") &&
	{ [ -f "$ktree/.raidlab-prepared" ] || {
		echo "static-check.sh: [source] preparing $ktree (defconfig, modules_prepare)"
		make -C "$ktree" x86_64_defconfig >"$work/source-prepare.log" 2>&1 &&
		"$ktree/scripts/config" --file "$ktree/.config" -e MD -m BLK_DEV_DM -m DM_BUFIO \
			-m DM_CRYPT -e DAX -m LIBNVDIMM -m RAID6_PQ -m ASYNC_XOR >>"$work/source-prepare.log" 2>&1 &&
		make -C "$ktree" olddefconfig >>"$work/source-prepare.log" 2>&1 &&
		make -C "$ktree" -j"$jobs" modules_prepare >>"$work/source-prepare.log" 2>&1 &&
		touch "$ktree/.raidlab-prepared"; }; }; then
	CHECK_KDIR=$ktree CHECK_DIR=dm-raidlab \
		CHECK_IGNORE='undefined!$|Module.symvers is missing|Symbol info of vmlinux is missing|unresolved symbol warnings' \
		run_check source KBUILD_MODPOST_WARN=1 modules
else
	echo "static-check.sh: [source] FAIL: linux-source-6.1 could not be prepared (log: $work/source-prepare.log)"
	failed=$((failed + 1))
fi

finish
