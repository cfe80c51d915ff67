#!/bin/bash
# Install what the project needs on a fresh Debian 12 machine (run as root).
# Idempotent and quick when everything is present. Nothing is pinned to a
# kernel patch release: whatever linux-image-amd64 6.1 Debian serves is used.
#
#   scripts/deps.sh          everything (build, KUnit, VM lab, tools)
set -euo pipefail

PKGS=(
	# the kernel the lab boots and the headers the module builds against
	linux-image-amd64 linux-headers-amd64 build-essential
	# KUnit (UML) tree, checkpatch.pl, extract-vmlinux
	linux-source-6.1 bc flex bison libelf-dev libssl-dev python3 sparse
	# VM lab
	qemu-system-x86 busybox-static cpio kmod xz-utils binutils util-linux
	# the patched stock modules (scripts/lab/kpatch/)
	patch
	# guest userspace copied from the host
	fio dmsetup e2fsprogs blktrace ndctl iproute2
	# tools/ (plots) and their tests
	python3-matplotlib python3-pytest
	# raidlab bench --preset cpu-path --profile (perf runs in the guest)
	linux-perf
	# install: dkms (the DKMS test builds and installs the module with it),
	# initramfs-tools (its boot 3 makes an image with the raidlab hook)
	dkms initramfs-tools
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	echo "deps.sh: installing ${missing[*]}" >&2
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: must run as root to install packages" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's newest kernel headers of another series than the lab's 6.1 (6.12
# on Debian 12): static-check.sh builds the module against them too. The
# package pulls that kernel's image in; scripts/kver.sh keeps the lab on 6.1.
newest=$(apt-cache search --names-only '^linux-headers-[0-9.]+\+deb[0-9]+-amd64$' 2>/dev/null |
	awk '{ print $1 }' | grep -v '^linux-headers-6\.1\.' | sort -V | tail -n 1)
if [ -z "$newest" ]; then
	echo "deps.sh: no linux-headers-*+deb*-amd64 package of a newer series" >&2
	exit 1
fi
if ! dpkg-query -W -f='${Status}' "$newest" 2>/dev/null | grep -q "ok installed" &&
	! ls -d /usr/src/linux-headers-*+deb*-amd64 >/dev/null 2>&1; then
	echo "deps.sh: installing $newest (the newest headers' build check)" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends "$newest" >/dev/null
fi
