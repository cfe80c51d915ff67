#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The dm-raid-compatible status and messages (1.20, issue 18), and
# raidlab monitor:
#   - a raid5 with a metadata device and a spare resyncs at creation: every
#     member is 'a' (dm-raid's "alive, not in sync"), sync_action resync,
#     the progress ratio in dm-raid's place; libdevmapper's own dm-raid
#     parser (dm_get_status_raid(), LVM's) reads the line as we do;
#   - the messages frozen (the progress stops), resync (it goes on), check
#     (mismatches in dm-raid's sixth field), idle;
#   - a refused message (check during a rebuild) fails, and "last_error"
#     and `raidlab check` say why;
#   - `raidlab fail` by device name; monitor, watching the array's dm
#     events, reports Fail, RebuildStarted, SpareActive and RebuildFinished
#     to stdout, to syslog, and to its PROGRAM; the failed member is 'D',
#     the rebuilt one 'a' until it is in sync; monitor --oneshot exits 1
#     on the degraded array.
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

RL() { python3 "$RL_TOOLS/raidlab" "$@"; }
MB=$(tier 24 64)
for i in 0 1 2 3 4 5; do run wipe "$(disk $i)" 2; done
T="0 $((MB * 2048 * 3)) raidlab raid5 6 chunk_size 64 metadata $(disk 4) spare $(disk 5) 4 $(disks 4)"
run dm_create arr "$T"
run dm_message arr sync_rate 256

# --------------------------------------------------- resync: all 'a' ---
log "status: $(dm_status arr)"
check "resync: every member 'a', sync_action resync" \
	test "$(rl_health arr) $(rl_st arr 5)" = "aaaa resync"
check "dm-raid's fields: ratio, action, mismatches, data_offset 2048, journal '-'" \
	sh -c "dmsetup status arr | awk '{ exit !(\$7 ~ /^[0-9]+\\/$((MB * 2048 * 3))\$/ && \$9 == 0 && \$10 == 2048 && \$11 == \"-\") }'"
RL status --libdm arr --json >/tmp/libdm.json
log "libdm: $(cat /tmp/libdm.json)"
check "libdevmapper's dm_get_status_raid reads it: raid5, 4, aaaa, resync, data_offset 2048" \
	rl_jcheck "d['raid_type'] == 'raid5' and d['dev_count'] == 4 and d['dev_health'] == 'aaaa' and d['sync_action'] == 'resync' and d['data_offset'] == 2048 and d['total_regions'] == $((MB * 2048 * 3))" </tmp/libdm.json

# ------------------------------------------------ frozen, resync, idle ---
run dm_message arr frozen
sleep 1
p1=$(rl_st arr 4)
sleep 2
p2=$(rl_st arr 4)
check "frozen: sync_action frozen, the progress stays ($p1, $p2)" \
	test "$(rl_st arr 5) $p1" = "frozen $p2"
run dm_suspend arr
run dm_resume arr
check "a resume ends frozen, as dm-raid's: resync" test "$(rl_st arr 5)" = resync
run dm_message arr frozen
check "frozen again" test "$(rl_st arr 5)" = frozen
run dm_message arr resync
check "the message resync: the resync goes on" test "$(rl_st arr 5)" = resync
run dm_message arr sync_rate 0
check "resync: the resync goes on and ends" rl_wait_sync arr 300
check "in sync: AAAA, idle" test "$(rl_health arr) $(rl_st arr 5)" = "AAAA idle"
# a difference for check to count: a data chunk of member 0 changed
dd if=/dev/urandom of="$(disk 0)" bs=4k seek=$((2048 / 8 + 16)) count=1 oflag=direct conv=notrunc 2>/dev/null
check "check counts the changed sectors in dm-raid's mismatch field" \
	test "$(rl_scrub arr check 300)" -gt 0
run dm_message arr repair
check "repair ends" rl_wait_sync arr 300
check "a second check finds 0" test "$(rl_scrub arr check 300)" = 0
# idle ends a running check, even one asleep in its rate limit
run dm_message arr sync_rate 64
run dm_message arr check
check "a throttled check runs" test "$(rl_st arr 5)" = check
run dm_message arr idle
i=0
while [ "$(rl_st arr 5)" != idle ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check "idle ends it within 5 s" test "$(rl_st arr 5)" = idle
run dm_message arr sync_rate 0

# ------------------------------------------------------------ monitor ---
cat >/tmp/prog <<'EOF'
#!/bin/sh
echo "$*" >>/tmp/prog.log
EOF
chmod +x /tmp/prog
syslogd -n -O /tmp/syslog &
SYSLOGD=$!
sleep 0.5
# python3 itself in the background (not the RL function's subshell): kill
# then stops the monitor, which stops its dmsetup wait children
python3 "$RL_TOOLS/raidlab" monitor --delay 2 --program /tmp/prog arr >/tmp/monitor.out 2>&1 &
MON=$!
check "monitor saw the array (NewArray)" \
	wait_grep /tmp/monitor.out "NewArray event detected on array arr"
run dm_message arr sync_rate 2048
D1=$(readlink -f "$(disk 1)")
D5=$(readlink -f "$(disk 5)")
check "raidlab fail by device name" RL fail arr "$(disk 1)"
i=0
while [ "$(rl_health arr)" != AaAA ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
log "status: $(dm_status arr)"
check "the spare takes role 1: 'a' while it is rebuilt (AaAA), recover" \
	test "$(rl_health arr) $(rl_st arr 5)" = "AaAA recover"

# a refused message says why
if dmsetup message arr 0 check 2>/dev/null; then not_ok "check during a rebuild accepted"; else ok "check during a rebuild refused"; fi
check "last_error answers the reason" \
	sh -c "dmsetup message arr 0 last_error | grep -q 'check refused: a member is failed or rebuilding'"
RL check arr >/tmp/check.out 2>&1
log "raidlab check: $(cat /tmp/check.out)"
check "raidlab check prints the kernel's reason" grep -q "a member is failed or rebuilding" /tmp/check.out

run dm_message arr sync_rate 0
check "the rebuild ends" rl_wait_sync arr 300
check "health AAAA after the rebuild" test "$(rl_health arr)" = AAAA
sleep 4
kill $MON 2>/dev/null
wait $MON 2>/dev/null
log "monitor: $(cat /tmp/monitor.out)"
ps >/tmp/ps.out
log "ps: $(grep -E 'dmsetup|raidlab' /tmp/ps.out)"
check "ps works, and no dmsetup wait outlives the monitor" \
	sh -c "grep -q kraidlabd /tmp/ps.out && ! grep -q 'dmsetup wait' /tmp/ps.out"
for ev in "Fail event detected on array arr, $D1" "RebuildStarted event" \
	"SpareActive event detected on array arr, $D5" "RebuildFinished event"; do
	check "monitor reports '$ev'" grep -q "$ev" /tmp/monitor.out
done
check "monitor's PROGRAM ran: Fail arr $D1" grep -q "^Fail arr $D1\$" /tmp/prog.log
check "monitor logged the failure to syslog (daemon.warn)" \
	sh -c "grep -q 'daemon.warn raidlab-monitor.*Fail event detected on array arr' /tmp/syslog"
kill $SYSLOGD 2>/dev/null

# ------------------------------------------------- oneshot, degraded ---
check "monitor --oneshot: 0 on the optimal array" RL monitor --oneshot --no-syslog arr
run dm_message arr fail 2
RL monitor --oneshot --no-syslog arr >/tmp/one.out 2>&1
rc=$?
check "monitor --oneshot: 1 and DegradedArray on the degraded array" \
	sh -c "[ $rc = 1 ] && grep -q 'DegradedArray event detected on array arr' /tmp/one.out"
check "the failed member is 'D'" test "$(rl_health arr)" = AADA
expect_fail dmsetup message arr 0 bogus_word
check "last_error names the unknown message" \
	sh -c "dmsetup message arr 0 last_error | grep -q \"unrecognised message 'bogus_word'\""
run dm_remove arr
finish
