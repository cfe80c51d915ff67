#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Boot 2 of tests/install/run.sh, over the disks boot 1 left: the
# commands of raidlab-assemble.service (as installed) assemble the array
# from /etc/raidlab.conf; the data is there; the command of
# raidlab-monitor.service reports to syslog a failure injected afterwards;
# the spare rebuilds the member and the data still reads back.
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
run raidlab stop r5
finish
