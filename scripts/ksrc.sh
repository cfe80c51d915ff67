#!/bin/bash
# Unpack Debian's linux-source-6.1 tarball into a cached kernel tree and print
# the tree's path. Used by kunit.sh (UML KUnit tree) and checkpatch.sh
# (scripts/checkpatch.pl).
#
#   scripts/ksrc.sh          unpack if needed, print the tree's path
#
# The tree lives in $KSRC_DIR (default build/kunit/src). It is reused while
# the stamp file beside it matches the tarball (package version, size,
# mtime); otherwise it is unpacked anew into a temporary directory and moved
# into place, so an interrupted unpack never leaves a half tree behind;
# concurrent callers wait on a lock (flock) for one unpack.
# The tree is pristine except for the raidlab hook that kunit.sh adds
# (a symlink and two appended lines under drivers/md).
#
# Environment:
#   KSRC_TARBALL   tarball (default /usr/src/linux-source-6.1.tar.xz)
#   KSRC_DIR       where to unpack (default <repo>/build/kunit/src)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tarball=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
dir=${KSRC_DIR:-$repo/build/kunit/src}
stampf=$dir.stamp

die() { echo "ksrc.sh: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball missing: run scripts/deps.sh (package linux-source-6.1)"

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
stamp="$tarball $pkgver $(stat -c '%s %Y' "$tarball")"

fresh() {
	[ -d "$dir" ] && [ -f "$stampf" ] && [ "$(cat "$stampf")" = "$stamp" ] &&
		[ -f "$dir/Makefile" ] && [ -f "$dir/scripts/checkpatch.pl" ]
}

if fresh; then
	echo "$dir"
	exit 0
fi

# One unpack at a time (kunit.sh and checkpatch.sh may start together);
# whoever waited finds the tree fresh.
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
if fresh; then
	echo "$dir"
	exit 0
fi

echo "ksrc.sh: unpacking $tarball ($pkgver) into $dir" >&2
t0=$(date +%s)
tmp=$(mktemp -d "$dir.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The tarball holds one top-level directory (linux-source-6.1/).
tar -xf "$tarball" -C "$tmp" --strip-components=1 --no-same-owner
[ -f "$tmp/Makefile" ] && [ -f "$tmp/tools/testing/kunit/kunit.py" ] ||
	die "$tarball does not look like a kernel source tree"
rm -f "$stampf"
rm -rf "$dir"
chmod 755 "$tmp"
mv -T "$tmp" "$dir"
trap - EXIT
echo "$stamp" >"$stampf"
echo "ksrc.sh: unpacked in $(($(date +%s) - t0)) s" >&2
echo "$dir"
