#!/bin/sh
# Print the release of the newest Debian amd64 kernel of the lab's series
# (RL_KSERIES, default 6.1: Debian 12's kernel) that has both an image and
# headers installed: the kernel the VM lab boots and the module builds for.
# Nothing is pinned to a patch release. Other series' headers (deps.sh
# installs Debian's newest for the build check, scripts/kbuilds.sh) are
# not the lab's.
set -e
series=${RL_KSERIES:-6.1}
for d in $(ls -d /usr/src/linux-headers-"$series".*-amd64 2>/dev/null | sort -rV); do
	v=${d#/usr/src/linux-headers-}
	if [ -e "/boot/vmlinuz-$v" ]; then
		echo "$v"
		exit 0
	fi
done
echo "kver.sh: no Debian amd64 $series kernel with headers; run scripts/deps.sh" >&2
exit 1
