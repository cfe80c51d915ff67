#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Boot 2 of tests/install/run.sh, over the disks boot 1 left: the
# commands of raidlab-assemble.service (as installed) assemble the array
# from /etc/raidlab.conf; the data is there; the command of
# raidlab-monitor.service reports to syslog a failure injected afterwards;
# the spare rebuilds the member and the data still reads back. Then r5
# gets the root filesystem boot 3 starts from.
. "$RL_TESTS/lib.sh"
mkdir -p /usr/sbin
ln -sf /rl/extra/usr/lib/raidlab/raidlab /usr/sbin/raidlab
cp /rl/extra/raidlab.conf /etc/raidlab.conf
UNITS=/rl/extra/usr/lib/systemd/system

# unit_cmds UNIT KEY...: the unit's command lines of those keys, in order
unit_cmds() {
	_u=$1
	shift
	for _k in "$@"; do sed -n "s/^$_k=//p" "$UNITS/$_u"; done
}

unit_cmds raidlab-assemble.service ExecStartPre ExecStart >/tmp/assemble.cmds
log "raidlab-assemble.service runs: $(cat /tmp/assemble.cmds)"
rc=0
while read -r cmd; do $cmd || rc=$?; done </tmp/assemble.cmds
check "the assemble unit's commands succeed" test "$rc" = 0
check "the array is back" dmsetup info r5
uuid=$(sed -n 's/^ARRAY r5 uuid=//p' /etc/raidlab.conf)
check "with its DM UUID" test "$(dmsetup info -c --noheadings -o uuid r5)" = "RAIDLAB-$uuid"
check "the data written in boot 1 reads back" \
	sh -c "dd if=/dev/mapper/r5 bs=1M count=8 iflag=direct 2>/dev/null | cmp -s - /rl/extra/pattern"
check "assemble --scan again: r5 is running, nothing done" \
	sh -c "raidlab assemble --scan | grep -qx 'r5: running'"

syslogd -n -O /tmp/syslog &
sleep 0.5
mon=$(unit_cmds raidlab-monitor.service ExecStart)
log "raidlab-monitor.service runs: $mon"
$mon >/tmp/monitor.out 2>&1 &	# a simple command: $! is the monitor
MON=$!
check "monitor saw the array (NewArray)" \
	wait_grep /tmp/monitor.out "NewArray event detected on array r5"
check "raidlab fail by device" raidlab fail r5 "$(disk 2)"
check "the spare rebuilds the member" raidlab rebuild r5 --wait --timeout 300
sleep 3
kill $MON 2>/dev/null
log "monitor: $(cat /tmp/monitor.out)"
log "syslog: $(grep raidlab /tmp/syslog)"
check "monitor logged the failure to syslog" \
	grep -q "daemon.warn raidlab-monitor.*Fail event detected on array r5" /tmp/syslog
check "and the rebuild's end" grep -q "RebuildFinished event detected on array r5" /tmp/syslog
check "the data reads back after the rebuild" \
	sh -c "dd if=/dev/mapper/r5 bs=1M count=8 iflag=direct 2>/dev/null | cmp -s - /rl/extra/pattern"

# the root filesystem boot 3 starts from, on r5: the initramfs-tools hook
# must assemble r5 before the root is looked for. Its /sbin/init (busybox
# sh) says where / came from and what it holds, then powers off.
run mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 /dev/mapper/r5
mkdir -p /mnt/root
run modprobe ext4
run mount -t ext4 /dev/mapper/r5 /mnt/root
mkdir -p /mnt/root/bin /mnt/root/sbin /mnt/root/etc /mnt/root/proc /mnt/root/sys \
	/mnt/root/dev /mnt/root/run /mnt/root/tmp
run cp /bin/busybox /mnt/root/bin/busybox
echo "r5 $uuid" >/mnt/root/etc/raidlab-root
cat >/mnt/root/sbin/init <<'INIT'
#!/bin/busybox sh
b=/bin/busybox
$b mount -t proc proc /proc 2>/dev/null
echo "raidlab-init: root $($b awk '$2 == "/" { print $1, $3 }' /proc/mounts)"
echo "raidlab-root: $($b cat /etc/raidlab-root)"
echo "raidlab-root: dm $($b cat /sys/block/dm-*/dm/name /sys/block/dm-*/dm/uuid 2>/dev/null | $b tr '\n' ' ')"
echo "RAIDLAB-TAINT: $($b cat /proc/sys/kernel/tainted)"
echo "RAIDLAB-RESULT: 0"
$b sync
$b poweroff -f
INIT
chmod 755 /mnt/root/sbin/init
run umount /mnt/root
run raidlab stop r5
finish
