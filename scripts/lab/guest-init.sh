#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the dm-raidlab VM lab guest (busybox ash; installed as /init in
# build/vm/base.cpio by scripts/lab/mkinitramfs.sh). Host side: vm-run.sh.
#
# Kernel command line (set by vm-run.sh):
#   rl.disks=N     number of member disks (serials rl00..) to wait for
#   rl.mode=run    run /rl/env's RL_SCRIPT with /rl/args; rl.mode=shell: a shell
#   rl.pmem=0|1    an NVDIMM is attached: make /dev/pmem0 fsdax, link /dev/rl/pmem
#   rl.rows= rl.cols=  terminal size for the interactive shell
#
# The payload cpio (appended by vm-run.sh) provides /rl (tests/vm, tools,
# run/<script>, env, args) and /lib/modules/$KVER/extra/dm-raidlab.ko.
# Output: the script's console output, then the files the script left in
# /out (plus dmesg.txt) as a tar on the virtio disk with serial "rlout", then
# the line "RAIDLAB-RESULT: <rc>", then poweroff.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C LC_ALL=C TERM=${TERM:-linux}
export DM_DISABLE_UDEV=1 MDADM_NO_UDEV=1
umask 022

msg() { echo "raidlab-init: $*"; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm /dev/rl /run /out /tmp/work
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=755 tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
hostname raidlab
ln -sf /proc/self/fd /dev/fd 2>/dev/null
ln -sf /proc/self/fd/0 /dev/stdin 2>/dev/null
ln -sf /proc/self/fd/1 /dev/stdout 2>/dev/null
ln -sf /proc/self/fd/2 /dev/stderr 2>/dev/null

RL_NDISKS=0 RL_MODE=run RL_PMEM=0 RL_ROWS= RL_COLS= RL_FULL=0
for w in $(cat /proc/cmdline); do
	case "$w" in
	rl.disks=*) RL_NDISKS=${w#*=} ;;
	rl.mode=*) RL_MODE=${w#*=} ;;
	rl.pmem=*) RL_PMEM=${w#*=} ;;
	rl.rows=*) RL_ROWS=${w#*=} ;;
	rl.cols=*) RL_COLS=${w#*=} ;;
	rl.full=*) RL_FULL=${w#*=} ;;
	esac
done
KVER=$(uname -r)
export KVER RL_NDISKS RL_PMEM RL_MODE RL_FULL

# Emulated I/O is slow (a few MiB/s): keep the dirty page cache small so a
# sync or umount never has minutes of writeback to do, and give the hung-task
# detector room for TCG (a real deadlock is still reported before a 900 s timeout).
echo $((16 << 20)) >/proc/sys/vm/dirty_background_bytes
echo $((64 << 20)) >/proc/sys/vm/dirty_bytes
echo 300 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null

modprobe -a virtio_pci virtio_scsi virtio_blk sd_mod ahci dm-mod ||
	msg "warning: modprobe of the disk drivers failed"
[ "$RL_PMEM" = 1 ] && { modprobe -a nfit nd_pmem || msg "warning: modprobe nfit nd_pmem failed"; }

# --------------------------------------------------------- disk naming ---
# serial of a SCSI/ATA disk: VPD page 0x80 (4-byte header), else the wwid's tail
serial_of() {
	s=
	if [ -r "/sys/block/$1/device/vpd_pg80" ]; then
		s=$(tail -c +5 "/sys/block/$1/device/vpd_pg80" 2>/dev/null | tr -d ' \000\n')
	fi
	if [ -z "$s" ] && [ -r "/sys/block/$1/device/wwid" ]; then
		s=$(cat "/sys/block/$1/device/wwid")
		s=${s##* }
	fi
	echo "$s"
}

found=0
i=0
while :; do
	for b in /sys/block/sd*; do
		[ -e "$b" ] || continue
		d=${b##*/}
		s=$(serial_of "$d")
		case "$s" in
		rl[0-9][0-9]) ;;
		*) continue ;;
		esac
		n=${s#rl}
		n=${n#0}
		[ -L "/dev/rl/m$n" ] || ln -s "/dev/$d" "/dev/rl/m$n"
	done
	found=$(ls /dev/rl | grep -c '^m[0-9]')
	[ "$found" -ge "$RL_NDISKS" ] && break
	i=$((i + 1))
	if [ $i -ge 600 ]; then
		msg "only $found of $RL_NDISKS disks appeared within 120 s:"
		ls -l /dev/rl /sys/block
		break
	fi
	sleep 0.2
done

for b in /sys/block/vd*; do
	[ -r "$b/serial" ] && [ "$(cat "$b/serial")" = rlout ] && RL_OUTDEV=/dev/${b##*/}
done

if [ "$RL_PMEM" = 1 ]; then
	i=0
	while [ ! -b /dev/pmem0 ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
	if [ -b /dev/pmem0 ] && [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
		# the mode is stored in the backing file: this happens once per disk dir
		ndctl create-namespace -f -e namespace0.0 -m fsdax >/tmp/ndctl.log 2>&1 ||
			{ msg "ndctl create-namespace failed:"; cat /tmp/ndctl.log; }
		i=0
		while [ ! -b /dev/pmem0 ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
	fi
	if [ -b /dev/pmem0 ]; then
		ln -sf /dev/pmem0 /dev/rl/pmem
	else
		msg "warning: no /dev/pmem0"
	fi
fi

# ------------------------------------------------------------- payload ---
[ -r /rl/env ] && . /rl/env
export RL_ROOT=/rl RL_TESTS=/rl/tests/vm RL_TOOLS=/rl/tools RL_OUT=/out RL_OUTDEV
RL_HAVE_RAIDLAB=0
if [ -e "/lib/modules/$KVER/extra/dm-raidlab.ko" ]; then
	# vm-run.sh ran depmod on the host; if that failed, run it here
	if grep -q '^extra/dm-raidlab.ko:' "/lib/modules/$KVER/modules.dep" 2>/dev/null; then
		RL_HAVE_RAIDLAB=1
	else
		depmod -a "$KVER" && RL_HAVE_RAIDLAB=1
	fi
fi
export RL_HAVE_RAIDLAB

msg "ready after $(cut -d' ' -f1 /proc/uptime) s: $found disks, pmem=$([ -b /dev/rl/pmem ] && echo yes || echo no)," \
	"dm-raidlab=$([ $RL_HAVE_RAIDLAB = 1 ] && echo yes || echo no)"

cd /tmp/work
if [ "$RL_MODE" = shell ]; then
	if [ $RL_HAVE_RAIDLAB = 1 ]; then
		modprobe dm-raidlab || msg "warning: modprobe dm-raidlab failed"
	fi
	export PS1='raidlab:\w\$ '
	cat <<-EOF

		dm-raidlab lab shell ($KVER). Disks: $(cd /dev/rl && echo *)
		  . \$RL_TESTS/lib.sh   for the test helpers; files left in /out are copied
		  back to the host; 'exit' (or Ctrl-D) powers off; Ctrl-A x kills QEMU.

	EOF
	setsid cttyhack sh -c "stty rows ${RL_ROWS:-24} cols ${RL_COLS:-80} 2>/dev/null; exec sh -l"
	rc=$?
else
	if [ -n "${RL_SCRIPT:-}" ] && [ -r "$RL_SCRIPT" ]; then
		msg "running $RL_SCRIPT"
		(
			set --
			[ -r /rl/args ] && . /rl/args
			exec sh "$RL_SCRIPT" "$@"
		) </dev/null
		rc=$?
	else
		msg "no guest script in the payload"
		rc=125
	fi
fi

# ---------------------------------------------------------- artifacts ---
cd /
dmesg >/out/dmesg.txt 2>&1
cat /proc/sys/kernel/tainted >/out/tainted 2>/dev/null
echo "$rc" >/out/rc
if [ -n "${RL_OUTDEV:-}" ]; then
	(cd /out && tar -cf "$RL_OUTDEV" .) || msg "warning: writing /out to $RL_OUTDEV failed"
	blockdev --flushbufs "$RL_OUTDEV" 2>/dev/null
fi
sync
echo "RAIDLAB-TAINT: $(cat /proc/sys/kernel/tainted)"
echo "RAIDLAB-RESULT: $rc"
poweroff -f
