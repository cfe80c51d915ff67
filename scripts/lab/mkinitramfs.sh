#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the VM lab's base initramfs and the uncompressed kernel it boots.
#
#   scripts/lab/mkinitramfs.sh [--force]
#   RL_GUEST_PYTHON=0 scripts/lab/mkinitramfs.sh    (no python3 in the guest)
#
# Outputs (cached; rebuilt only when an input changes):
#   build/vm/base.cpio        uncompressed newc cpio, padded to 512 bytes
#   build/vm/vmlinux-$KVER    uncompressed kernel extracted from /boot/vmlinuz-$KVER
#   build/vm/base.stamp       what base.cpio was built from
#
# The image holds busybox-static (+ applet links), kmod, dmsetup, fio,
# e2fsprogs, xfsprogs and mdadm (unpacked from `apt-get download`ed .debs into
# build/debs, never installed on the host), blktrace/blkparse, ndctl/daxctl,
# python3 with the standard-library modules tools/raidlab uses (guest-python.py),
# every shared library they need (ldd), the guest init (scripts/lab/guest-init.sh)
# and the kernel modules the lab uses with their dependencies (modprobe -D),
# depmod'ed in a staging tree so that modprobe works in the guest.
#
# KVER defaults to scripts/kver.sh. Must run as root (device nodes, apt-get).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB=$ROOT/scripts/lab
VMDIR=$ROOT/build/vm
DEBDIR=$ROOT/build/debs
KVER=${KVER:-$("$ROOT/scripts/kver.sh")}
FORCE=0
GUEST_PYTHON=${RL_GUEST_PYTHON:-1}
[ "${1:-}" = "--force" ] && FORCE=1

say() { echo "mkinitramfs: $*" >&2; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
die() { say "error: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root"
mkdir -p "$VMDIR" "$DEBDIR"

# Serialise concurrent builds (parallel vm-run.sh invocations).
exec 9>"$VMDIR/.mkinitramfs.lock"
flock 9

# ---------------------------------------------------------------- vmlinux ---
# Kernel modules the guest gets (plus their dependencies). Built-in or
# missing ones are skipped with a note.
MODULES=(
	dm-mod dm-bufio dm-flakey dm-delay dm-log-writes dm-raid dm-zero
	dm-writecache dm-mirror dm-snapshot dm-integrity
	md-mod raid0 raid1 raid10 raid456
	xor raid6_pq async_xor async_pq async_memcpy async_raid6_recov
	virtio_pci virtio_scsi virtio_blk sd_mod ahci libahci libata
	nfit nd_pmem nd_btt libnvdimm dax dax_pmem device_dax
	ext4 xfs libcrc32c crc32c_generic crc32c-intel crc32-pclmul crc32_generic
	crct10dif_generic crct10dif-pclmul crc64_rocksoft_generic
	scsi_debug brd null_blk loop configfs
	nvme-core nvme-fabrics nvme-tcp nvmet nvmet-tcp veth
)

VMLINUZ=/boot/vmlinuz-$KVER
VMLINUX=$VMDIR/vmlinux-$KVER
[ -r "$VMLINUZ" ] || die "$VMLINUZ missing; run scripts/deps.sh"

# extract-vmlinux from the kernel sources: an unpacked tree if there is one,
# else the single file out of the linux-source tarball (cached).
find_extract_vmlinux() {
	local f
	for f in /usr/src/linux-headers-"$KVER"/scripts/extract-vmlinux \
		/usr/src/linux-source-*/scripts/extract-vmlinux \
		"$ROOT"/build/*/linux-source-*/scripts/extract-vmlinux \
		"$VMDIR/tools/extract-vmlinux"; do
		[ -r "$f" ] && { echo "$f"; return 0; }
	done
	local tarball
	tarball=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | sort -V | tail -n1)
	[ -n "$tarball" ] || return 1
	say "unpacking scripts/extract-vmlinux from $tarball"
	mkdir -p "$VMDIR/tools"
	local tmp
	tmp=$(mktemp -d "$VMDIR/tools/.x.XXXXXX")
	local name
	name=$(basename "$tarball"); name=${name%.tar.*}
	if tar -xf "$tarball" -C "$tmp" --occurrence=1 "$name/scripts/extract-vmlinux" 2>/dev/null &&
		[ -s "$tmp/$name/scripts/extract-vmlinux" ]; then
		mv "$tmp/$name/scripts/extract-vmlinux" "$VMDIR/tools/extract-vmlinux"
		rm -rf "$tmp"
		echo "$VMDIR/tools/extract-vmlinux"
		return 0
	fi
	rm -rf "$tmp"
	return 1
}

# Fallback with the same method as extract-vmlinux (the Debian kernel is
# xz-compressed): decompress from the first xz stream magic that yields an ELF.
extract_builtin() {
	local in=$1 out=$2 pos
	for pos in $(LC_ALL=C grep -abo $'\xfd7zXZ\x00' "$in" | cut -d: -f1); do
		tail -c+$((pos + 1)) "$in" | xz -dc >"$out" 2>/dev/null || true
		readelf -h "$out" >/dev/null 2>&1 && return 0
	done
	return 1
}

if [ ! -s "$VMLINUX" ] || [ "$VMLINUZ" -nt "$VMLINUX" ]; then
	t0=$(date +%s.%N)
	if ev=$(find_extract_vmlinux); then
		say "extracting $VMLINUX with $ev"
		bash "$ev" "$VMLINUZ" >"$VMLINUX.tmp" || true
	fi
	if ! readelf -h "$VMLINUX.tmp" >/dev/null 2>&1; then
		say "extract-vmlinux unavailable or failed; using built-in xz extraction"
		extract_builtin "$VMLINUZ" "$VMLINUX.tmp" || die "cannot extract vmlinux from $VMLINUZ"
	fi
	mv "$VMLINUX.tmp" "$VMLINUX"
	say "vmlinux ready ($(du -m "$VMLINUX" | cut -f1) MB, $(since "$t0") s)"
fi

# ----------------------------------------------------- guest .deb packages ---
# Not installed on the host: downloaded and unpacked under build/debs.
DEBS=(mdadm xfsprogs liburcu8 libinih1)
DEBROOT=$DEBDIR/root
fetch_debs() {
	local want=() p
	for p in "${DEBS[@]}"; do
		ls "$DEBDIR/${p}"_*.deb >/dev/null 2>&1 || want+=("$p")
	done
	if [ ${#want[@]} -gt 0 ]; then
		say "apt-get download ${want[*]}"
		# (apt warns that _apt cannot write to build/ and downloads as root)
		(cd "$DEBDIR" && apt-get download -q "${want[@]}" >"$DEBDIR/download.log" 2>&1) ||
			{ apt-get update -qq && (cd "$DEBDIR" && apt-get download -q "${want[@]}" >"$DEBDIR/download.log" 2>&1); } ||
			{ cat "$DEBDIR/download.log" >&2; die "apt-get download ${want[*]} failed"; }
	fi
	local sum
	sum=$(ls "$DEBDIR"/*.deb | sort | xargs sha256sum | sha256sum | cut -c1-16)
	if [ "$(cat "$DEBROOT/.sum" 2>/dev/null)" != "$sum" ]; then
		rm -rf "$DEBROOT"
		mkdir -p "$DEBROOT"
		for p in "$DEBDIR"/*.deb; do dpkg-deb -x "$p" "$DEBROOT"; done
		echo "$sum" >"$DEBROOT/.sum"
	fi
	echo "$sum"
}
DEBSUM=$(fetch_debs)

# -------------------------------------------------------- patched modules ---
# Stock modules the guest gets in a patched build: scripts/lab/kpatch/
# <module>.patch, a diff against linux-source-6.1's tree (the same Debian
# version as the lab's kernel), built against its headers into
# build/vm/kpatch/<module>/ and put over the stock .ko in the image. These
# mend races in the guest kernel that the tests run into, not dm-raidlab
# code (scripts/lab/README.md, "Patched kernel modules").
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
KPATCHES=()
for p in "$LAB"/kpatch/*.patch; do [ -e "$p" ] && KPATCHES+=("$p"); done
build_kpatch() { # PATCH: prints the built .ko's path
	local patch=$1 mod dir top files f
	mod=$(basename "$patch" .patch)
	dir=$VMDIR/kpatch/$mod
	[ -r "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing; run scripts/deps.sh"
	rm -rf "$dir"
	mkdir -p "$dir"
	top=$(basename "$KSRC_TARBALL"); top=${top%.tar.*}
	mapfile -t files < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patch")
	[ ${#files[@]} -gt 0 ] || die "$patch names no file"
	# each file flat in $dir, where the module builds
	for f in "${files[@]}"; do
		tar -xf "$KSRC_TARBALL" -C "$dir" --occurrence=1 --transform='s|.*/||' \
			"$top/$f" || die "$f not in $KSRC_TARBALL"
	done
	(cd "$dir" && sed 's|^\([-+]\{3\} [ab]/\).*/|\1|' "$patch" | patch -s -p1) ||
		die "$patch does not apply"
	echo "obj-m := $mod.o" >"$dir/Kbuild"
	make -s -C "/usr/src/linux-headers-$KVER" M="$dir" modules >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log" >&2; die "building the patched $mod failed"; }
	[ -s "$dir/$mod.ko" ] || die "no $mod.ko built"
	echo "$dir/$mod.ko"
}

# ---------------------------------------------------------------- stamp ---
HOSTPKGS=(busybox-static kmod dmsetup libdevmapper1.02.1 fio e2fsprogs blktrace ndctl libc6 iproute2 "linux-image-$KVER")
stamp() {
	echo "kver $KVER"
	dpkg-query -W "${HOSTPKGS[@]}" 2>/dev/null || true
	echo "debs $DEBSUM"
	echo "modules ${MODULES[*]}"
	sha256sum "$LAB/mkinitramfs.sh" "$LAB/guest-init.sh" "$LAB/guest-python.py" \
		"${KPATCHES[@]}" | sed "s|$ROOT/||"
	dpkg-query -W linux-source-6.1 2>/dev/null || true
	# the guest's python modules follow what tools/raidlab imports
	echo "guest-python $GUEST_PYTHON"
	dpkg-query -W "$(basename "$(readlink -f /usr/bin/python3)")-minimal" 2>/dev/null || true
	/usr/bin/python3 "$LAB/guest-python.py" --list 2>/dev/null | sha256sum | sed 's/ .*/ python-modules/'
}
STAMP=$VMDIR/base.stamp
OUT=$VMDIR/base.cpio
NEW_STAMP=$(stamp)
if [ $FORCE = 0 ] && [ -s "$OUT" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$NEW_STAMP" ]; then
	exit 0
fi

# ---------------------------------------------------------------- staging ---
T0=$(date +%s.%N)
STAGE=$VMDIR/initramfs
rm -rf "$STAGE"
mkdir -p "$STAGE"
cd "$STAGE"
mkdir -p bin sbin lib lib64 usr/bin usr/sbin usr/lib etc root tmp proc sys dev run mnt out var/tmp \
	"lib/modules/$KVER/extra" etc/mdadm
chmod 1777 tmp var/tmp
mknod -m 600 dev/console c 5 1
mknod -m 666 dev/null c 1 3
mknod -m 666 dev/ttyS0 c 4 64

# busybox and its applet links (real tools copied below replace some of them)
cp /bin/busybox bin/busybox
for a in $(/bin/busybox --list-full); do
	[ -e "$a" ] || [ -L "$a" ] || ln -s /bin/busybox "$a"
done

declare -A LIBS=()
add_libs() { # binary...: record ldd's libraries (from the host or build/debs)
	local f l
	for f in "$@"; do
		while read -r l; do
			[ -n "$l" ] && LIBS[$l]=1
		done < <(LD_LIBRARY_PATH="$DEBROOT/usr/lib/x86_64-linux-gnu:$DEBROOT/lib/x86_64-linux-gnu" \
			ldd "$f" 2>/dev/null | awk '
				/not found/ { print "NOTFOUND:" $1; next }
				$2 == "=>" && $3 ~ /^\// { print $3; next }
				$1 ~ /^\// { print $1 }')
	done
}

# install SRC DEST-DIR [NAME]: copy a binary, drop any busybox applet of the same name
put() {
	local src=$1 dir=$2 name=${3:-$(basename "$1")} d
	[ -e "$src" ] || die "missing $src (run scripts/deps.sh)"
	for d in bin sbin usr/bin usr/sbin; do
		if [ -L "$d/$name" ] && [ "$(readlink "$d/$name")" = /bin/busybox ]; then rm -f "$d/$name"; fi
	done
	cp -L "$src" "$dir/$name"
	add_libs "$src"
}
link() { # link TARGET NAME-PATH: symlink replacing a busybox applet
	local target=$1 path=$2 d name
	name=$(basename "$path")
	for d in bin sbin usr/bin usr/sbin; do
		if [ -L "$d/$name" ] && [ "$(readlink "$d/$name")" = /bin/busybox ]; then rm -f "$d/$name"; fi
	done
	ln -sf "$target" "$path"
}
hostbin() { # first existing path of a host command
	command -v "$1" 2>/dev/null || for d in /usr/sbin /sbin /usr/bin /bin; do
		[ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
}

# kmod
put "$(hostbin kmod)" bin kmod
for t in insmod modprobe depmod lsmod rmmod modinfo; do link /bin/kmod "sbin/$t"; done
# device-mapper, fio, blktrace, ndctl
put "$(hostbin dmsetup)" sbin
put "$(hostbin fio)" usr/bin
for t in blktrace blkparse btrace blkiomon; do
	p=$(hostbin $t) || true
	[ -n "$p" ] && { if [ "$t" = btrace ]; then cp "$p" usr/bin/; else put "$p" usr/bin; fi; }
done
put "$(hostbin ndctl)" usr/bin
# iproute2's ip (network namespaces and veth pairs: the NVMe/TCP storage
# hosts of tests/vm/98-nvme-tcp.sh); busybox's has no netns
put "$(hostbin ip)" sbin
p=$(hostbin daxctl) || true; [ -n "$p" ] && put "$p" usr/bin
# e2fsprogs
for t in mke2fs e2fsck tune2fs debugfs dumpe2fs resize2fs; do put "$(hostbin $t)" sbin; done
for t in mkfs.ext2 mkfs.ext3 mkfs.ext4; do link mke2fs "sbin/$t"; done
for t in fsck.ext2 fsck.ext3 fsck.ext4; do link e2fsck "sbin/$t"; done
[ -r /etc/mke2fs.conf ] && cp /etc/mke2fs.conf etc/
# xfsprogs and mdadm from the .debs
for t in sbin/mkfs.xfs sbin/xfs_repair usr/sbin/xfs_db usr/sbin/xfs_io usr/sbin/xfs_growfs \
	usr/sbin/xfs_logprint usr/sbin/xfs_spaceman; do
	put "$DEBROOT/$t" sbin
done
for t in xfs_admin xfs_info; do
	[ -r "$DEBROOT/usr/sbin/$t" ] && cp "$DEBROOT/usr/sbin/$t" sbin/
done
put "$DEBROOT/sbin/mdadm" sbin
put "$DEBROOT/sbin/mdmon" sbin
# python3 for tools/raidlab (array verbs, replay-log, fuzz-lines): the host's
# binary and only the standard-library modules the tool loads, byte-compiled
# in usr/lib/python3XX.zip (scripts/lab/guest-python.py); ~9 MB. Without it
# (no python3 on the host, or the tool fails to import) the guest has none
# and the tests that need it skip. RL_GUEST_PYTHON=0 leaves it out.
if [ "$GUEST_PYTHON" = 1 ] && PYBIN=$(readlink -f /usr/bin/python3 2>/dev/null) && [ -x "$PYBIN" ]; then
	if sos=$("$PYBIN" "$LAB/guest-python.py" --stage "$STAGE" 2>"$VMDIR/guest-python.log"); then
		put "$PYBIN" usr/bin
		link "$(basename "$PYBIN")" usr/bin/python3
		for so in $sos; do add_libs "$so"; done
	else
		say "warning: guest python3 not staged (see $VMDIR/guest-python.log)"
		rm -rf usr/lib/python3*
	fi
fi

# shared libraries at the paths ldd reported (plus the loader)
for l in "${!LIBS[@]}"; do
	case $l in NOTFOUND:*) die "library ${l#NOTFOUND:} not found for a guest tool";; esac
	mkdir -p ".$(dirname "$l")"
	cp -L "$l" ".$l"
done
[ -e lib64/ld-linux-x86-64.so.2 ] || cp -L /lib64/ld-linux-x86-64.so.2 lib64/
cat >etc/ld.so.conf <<-'EOF'
	/lib/x86_64-linux-gnu
	/usr/lib/x86_64-linux-gnu
	/usr/lib/x86_64-linux-gnu/ceph
	/lib
	/usr/lib
EOF
ldconfig -r "$STAGE" 2>/dev/null || say "warning: ldconfig -r failed (the loader's default paths remain)"

# small /etc
cat >etc/passwd <<-'EOF'
	root:x:0:0:root:/root:/bin/sh
EOF
cat >etc/group <<-'EOF'
	root:x:0:
	disk:x:6:
EOF
cat >etc/mdadm/mdadm.conf <<-'EOF'
	DEVICE partitions
	HOMEHOST <none>
EOF
echo raidlab >etc/hostname
: >etc/fstab

# ------------------------------------------------------------ modules ---
MODSRC=/lib/modules/$KVER
[ -r "$MODSRC/modules.dep" ] || die "$MODSRC/modules.dep missing (linux-image-$KVER installed?)"
declare -A KOS=()
skipped=()
for m in "${MODULES[@]}"; do
	if ! out=$(modprobe -C /dev/null -S "$KVER" -D "$m" 2>/dev/null); then
		skipped+=("$m(missing)")
		continue
	fi
	while read -r verb path _; do
		case $verb in
		insmod) KOS[$path]=1 ;;
		builtin) skipped+=("$m(builtin)") ;;
		esac
	done <<<"$out"
done
for k in "${!KOS[@]}"; do
	case $k in "$MODSRC"/*) ;; *) die "unexpected module path $k";; esac
	mkdir -p ".$(dirname "$k")"
	cp "$k" ".$k"
done
for p in "${KPATCHES[@]}"; do
	ko=$(build_kpatch "$p")
	stock=
	for k in "${!KOS[@]}"; do
		[ "$(basename "$k")" = "$(basename "$ko")" ] && stock=$k
	done
	[ -n "$stock" ] || die "$(basename "$ko") is not among the guest's modules"
	cp "$ko" ".$stock"
	say "patched $(basename "$ko") ($(basename "$p"))"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -r "$MODSRC/$f" ] && cp "$MODSRC/$f" "lib/modules/$KVER/"
done
depmod -b "$STAGE" "$KVER"
[ -s "lib/modules/$KVER/modules.dep" ] || die "depmod produced no modules.dep"
[ ${#skipped[@]} -gt 0 ] && say "modules skipped: ${skipped[*]}"

# the guest's PID 1
cp "$LAB/guest-init.sh" init
chmod 755 init

# ---------------------------------------------------------------- cpio ---
find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet >"$OUT.tmp"
size=$(stat -c %s "$OUT.tmp")
truncate -s $(((size + 511) / 512 * 512)) "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$NEW_STAMP" >"$STAMP"
say "built $OUT ($(du -m --apparent-size "$OUT" | cut -f1) MB, ${#KOS[@]} modules," \
	"$(since "$T0") s)"
