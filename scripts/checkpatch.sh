#!/bin/bash
# Run the kernel's checkpatch.pl --strict over the project's kernel sources.
#
#   scripts/checkpatch.sh [FILE...]
#
# Without arguments it checks every *.c and *.h, plus the Kconfig and kbuild
# files (not build products such as *.mod.c, nor files git ignores), of each
# kernel source directory: a directory below the repository
# root (build/ and .git/ excluded) whose Kbuild or Makefile has an `obj-`
# line (today dm-raidlab/; a future dm-hddsim/ is picked up the same way).
# checkpatch.pl comes from the linux-source-6.1 tree that scripts/ksrc.sh
# unpacks and caches under build/kunit/src.
#
# Fails if checkpatch reports any ERROR, WARNING or CHECK. Ends with the
# line `checkpatch: N passed, M failed` (files).
#
# Environment:
#   RAIDLAB_SRC  tree to check (default: this repository)
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$(cd "${RAIDLAB_SRC:-$repo}" && pwd -P) || exit 1

# Ignored checkpatch types: only ones that cannot apply to this tree, each
# with its reason. None so far: with --file and --no-tree the patch-only
# checks (FILE_PATH_CHANGES, MISSING_SIGN_OFF, ...) and the tree lookups do
# not run, and every other message (SPDX tags in kbuild files and Kconfig
# help length included) applies to an out-of-tree module as much as to an
# in-tree one.
ignore=()

ksrc=$("$repo/scripts/ksrc.sh") || { echo "checkpatch: 0 passed, 1 failed"; exit 1; }
checkpatch=$ksrc/scripts/checkpatch.pl

files=()
if [ $# -gt 0 ]; then
	files=("$@")
else
	while IFS= read -r kb; do
		d=$(dirname "$kb")
		[ "$d" = "$src" ] && continue
		grep -qE '^[[:space:]]*obj-' "$kb" || continue
		# the module's subfolders too (target/, svc/, ...)
		for f in $(find "$d" -name '*.[ch]' | sort) "$d"/Kconfig* "$d"/Kbuild "$d"/Makefile; do
			[ -f "$f" ] || continue
			# build products (dm-raidlab.mod.c) and anything git ignores
			case $f in *.mod.c) continue ;; esac
			git -C "$src" check-ignore -q "$f" 2>/dev/null && continue
			files+=("$f")
		done
	done < <(find "$src" \( -path "$src/build" -o -name .git \) -prune -o \
		-type f \( -name Kbuild -o -name Makefile \) -print | sort)
	# a directory with both Kbuild and Makefile was listed twice
	mapfile -t files < <(printf '%s\n' "${files[@]}" | awk 'NF && !seen[$0]++')
fi

if [ ${#files[@]} -eq 0 ]; then
	echo "checkpatch.sh: no kernel sources found under $src" >&2
	echo "checkpatch: 0 passed, 1 failed"
	exit 1
fi

ignore_list=$(IFS=,; echo "${ignore[*]}")
passed=0
failed=0
for f in "${files[@]}"; do
	rel=${f#"$src"/}
	# run from the tree so that reported paths are short
	if out=$(cd "$src" && perl "$checkpatch" --strict --no-tree --file \
		--show-types --color=never ${ignore_list:+--ignore "$ignore_list"} "$rel" 2>&1) &&
		! grep -qE '^(ERROR|WARNING|CHECK):' <<<"$out"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "$out"
		echo
	fi
done

echo "checkpatch.sh: ${#files[@]} file(s) checked with --strict, ignoring ${ignore_list:-nothing}"
echo "checkpatch: $passed passed, $failed failed"
[ "$failed" = 0 ]
