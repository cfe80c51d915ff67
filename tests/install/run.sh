#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install as a user would, and boot twice (issue 18's "done when"):
#   1. a clean tree (the repository's tracked files only) is added, built
#      and installed with DKMS for the kernel the lab boots, into a tree
#      of its own under build/install (--dkmstree, --sourcetree,
#      --installtree: the host's /lib/modules and /var/lib/dkms are not
#      touched); modinfo of the result;
#   2. `make install-tools DESTDIR=build/install/root`: the tool, the udev
#      rules, the systemd units;
#   3. boot 1 (boot1.sh) with the DKMS-built module and the installed tools
#      over persistent disks: raidlab create, data, raidlab mkconf;
#   4. boot 2 (boot2.sh) over the same disks: the assemble unit's commands
#      bring the array back from /etc/raidlab.conf, the data is there, and
#      the monitor unit's command reports a failure injected afterwards;
#      then a root filesystem is made on the array;
#   5. boot 3: an initramfs-tools image made with the installed hook boots
#      with root= on the array: the initramfs assembles it from its copy of
#      raidlab.conf, and the root's init reports what it booted from.
# Ends with "install: N passed, M failed" (checks of both boots and of the
# host steps).
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
W=$repo/build/install
KVER=$("$repo/scripts/kver.sh") || exit 1
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$repo/dkms.conf")
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { local m=$1; shift; if "$@"; then ok "$m"; else not_ok "$m"; fi; }
finish() { echo "install: $pass passed, $fail failed"; [ "$fail" = 0 ]; exit; }

rm -rf "$W"
mkdir -p "$W/src/dm-raidlab-$VER" "$W/dkms" "$W/root/lib/modules/$KVER" "$W/disks" "$W/extra"
# a clean tree: what git tracks, no build products
(cd "$repo" && git ls-files -z | cpio -0pdm --quiet "$W/src/dm-raidlab-$VER") ||
	{ not_ok "copy the tracked files"; finish; }
D=(dkms --dkmstree "$W/dkms" --sourcetree "$W/src" --installtree "$W/root/lib/modules")
echo "install: dkms $(dkms --version 2>&1 | head -n 1), kernel $KVER, dm-raidlab $VER"
check "dkms add" "${D[@]}" add -m dm-raidlab -v "$VER"
check "dkms build -k $KVER" "${D[@]}" build -m dm-raidlab -v "$VER" -k "$KVER"
check "dkms install -k $KVER" "${D[@]}" install -m dm-raidlab -v "$VER" -k "$KVER" --no-depmod
"${D[@]}" status -m dm-raidlab 2>&1 | sed 's/^/    /'
ko=$W/root/lib/modules/$KVER/updates/dkms/dm-raidlab.ko
[ -e "$ko" ] || ko=$(find "$W/root/lib/modules/$KVER" -name 'dm-raidlab.ko*' | head -n 1)
check "the module is installed under updates/dkms ($ko)" test -n "$ko" -a -e "$ko"
case $ko in *.xz) xz -dk "$ko" && ko=${ko%.xz} ;; *.zst) zstd -dq "$ko" && ko=${ko%.zst} ;; esac
modinfo "$ko" | grep -vE '^(alias|srcversion|retpoline|intree|sig)' | sed 's/^/    /'
check "modinfo: version $VER" test "$(modinfo -F version "$ko")" = "$VER"
check "modinfo: built for $KVER" sh -c "modinfo -F vermagic '$ko' | grep -q '^$KVER '"
check "modinfo: author and description" sh -c "modinfo -F author '$ko' | grep -q . && modinfo -F description '$ko' | grep -q 'redundancy schemes'"
check "make install-tools DESTDIR" make -s -C "$W/src/dm-raidlab-$VER" install-tools DESTDIR="$W/root"
[ "$fail" = 0 ] || finish

boot() { # N: boot N's script over the kept disks
	RAIDLAB_KO=$ko "$repo/scripts/lab/vm-run.sh" --quiet --disks 6 --disk-dir "$W/disks" \
		--extra "$W/extra" --out "$W/out$1" --timeout 600 "$repo/tests/install/boot$1.sh"
	local rc=$?
	grep -E '^(ok|not ok) ' "$W/out$1/console.log" | sed "s/^/boot $1: /"
	pass=$((pass + $(grep -c '^ok ' "$W/out$1/console.log")))
	fail=$((fail + $(grep -c '^not ok ' "$W/out$1/console.log")))
	[ "$rc" = 0 ] || not_ok "boot $1 exited $rc (log: $W/out$1/console.log)"
	return "$rc"
}
cp -a "$W/root/usr" "$W/extra/"
echo "$VER" >"$W/extra/version"
boot 1 || finish
# what boot 1 left for boot 2: the config file and the data's copy
check "boot 1 wrote raidlab.conf" cp "$W/out1/raidlab.conf" "$W/out1/pattern" "$W/extra/"
boot 2 || finish

# boot 3: an initramfs-tools image with the installed hook (the host's
# /etc/initramfs-tools, the hook and boot script as install-tools put
# them), root=/dev/mapper/r5: the initramfs assembles r5, the kernel
# mounts it as / and runs its /sbin/init (boot 2 wrote it)
IRT=$W/initramfs
mkdir -p "$IRT"
cp -a /etc/initramfs-tools "$IRT/conf"
# the lab's disk drivers and the root's filesystem only (MODULES=most would
# take three times the time to make and to boot); the hook adds its own
sed -i 's/^MODULES=.*/MODULES=list/' "$IRT/conf/initramfs.conf"
printf '%s\n' virtio_pci virtio_scsi sd_mod ahci ext4 >"$IRT/conf/modules"
install -D -m 755 "$W/root/usr/share/initramfs-tools/hooks/raidlab" "$IRT/conf/hooks/raidlab"
install -D -m 755 "$W/root/usr/share/initramfs-tools/scripts/local-top/raidlab" \
	"$IRT/conf/scripts/local-top/raidlab"
# the arrays are the lab guest's (its host name: raidlab), as the config says
{ cat "$W/extra/raidlab.conf"; echo "HOMEHOST raidlab"; } >"$IRT/raidlab.conf"
check "mkinitramfs with the raidlab hook" env RAIDLAB_CONF="$IRT/raidlab.conf" \
	RAIDLAB_ROOT="$W/root" RAIDLAB_KO="$ko" mkinitramfs -d "$IRT/conf" -o "$IRT/initrd.img" "$KVER"
lsinitramfs "$IRT/initrd.img" >"$IRT/list" 2>/dev/null
for f in usr/sbin/raidlab usr/lib/raidlab/raidlab_lib/ops.py usr/bin/python3 etc/raidlab.conf \
	scripts/local-top/raidlab 'lib/modules/[^/]*/updates/dm-raidlab.ko'; do
	check "the initramfs holds $f" grep -Eqx "(usr/)?$f" "$IRT/list"
done
unmkinitramfs "$IRT/initrd.img" "$IRT/un" 2>/dev/null
check "its raidlab.conf: the ARRAY line and one HOMEHOST, the arrays' host" sh -c \
	"grep -h '^ARRAY r5 ' $IRT/un/etc/raidlab.conf $IRT/un/main/etc/raidlab.conf 2>/dev/null | grep -q . &&
	 test \"\$(cat $IRT/un/etc/raidlab.conf $IRT/un/main/etc/raidlab.conf 2>/dev/null | grep -c '^HOMEHOST')\" = 1"
uuid=$(sed -n 's/^ARRAY r5 uuid=//p' "$W/extra/raidlab.conf")
"$repo/scripts/lab/vm-run.sh" --quiet --disks 6 --disk-dir "$W/disks" --initrd "$IRT/initrd.img" \
	--append "root=/dev/mapper/r5 ro rootdelay=60" --out "$W/out3" --timeout 600
rc=$?
log3=$W/out3/console.log
check "boot 3 (initramfs-tools) ran the root's init and powered off" test "$rc" = 0
check "boot 3: the initramfs assembled r5" grep -aq "r5: assembled" "$log3"
check "boot 3: / is r5, ext4" grep -aq "raidlab-init: root /dev/mapper/r5 ext4" "$log3"
check "boot 3: the root boot 2 wrote (array $uuid)" grep -aq "raidlab-root: r5 $uuid" "$log3"
check "boot 3: with its DM UUID" grep -aq "raidlab-root: dm .*RAIDLAB-$uuid" "$log3"
finish
