#!/bin/sh
# Print the release of the newest Debian amd64 kernel that has both an image
# and headers installed: the kernel the VM lab boots and the module builds for.
# Nothing is pinned to a patch release.
set -e
for d in $(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -rV); do
	v=${d#/usr/src/linux-headers-}
	if [ -e "/boot/vmlinuz-$v" ]; then
		echo "$v"
		exit 0
	fi
done
echo "kver.sh: no Debian amd64 kernel with headers; run scripts/deps.sh" >&2
exit 1
