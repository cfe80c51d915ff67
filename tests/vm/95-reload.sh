#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dmsetup reload of an array with a metadata device (1.21, issue 18): the
# new table takes the live array over at its resume, under a verifying
# random-write load. For raid5 over four disks under dm-linear, DAX
# metadata:
#   - dmsetup reload adds a spare; member 1 then fails and the spare
#     takes its role and is rebuilt;
#   - a reload switches sched, and lets go of the failed disk, which
#     the array kept open; `raidlab add-spare` gives it back as a spare,
#     and `raidlab remove` takes it out again, both live reloads;
#   - member 2 fails with no spare: `raidlab remove` leaves its slot "-",
#     and a reload naming a new disk there rebuilds it into the role;
#   - refused reloads leave the array as it was: a new chunk_size, a
#     member's disk swapped for another; a table loaded and cleared is
#     never resumed and takes nothing over;
#   - the load verifies; check finds 0 mismatches.
# Then raid10: a spare added by reload takes a failed member's role.
# The long tier (RL_FULL=1) runs the load longer. The wall time of each
# reload's resume (the I/O it holds) goes to /out/reload.json and the log.
# vm-opts: --disks 7
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

RL() { python3 "$RL_TOOLS/raidlab" "$@"; }
PM=$(pmem_dev)
MB=32
MSEC=$((MB * 2048))
LOADT=$(tier 35 120)	# the raid5 steps take about 20 s of it

# tbl OP ARG...: the live table line of arr, changed by OP (python over
# raidlab_lib.dm.Table): add KEY VAL, set KEY VAL, dev IDX PATH; or
# get IDX: the device the line names in slot IDX
tbl() {
	python3 - "$(dmsetup table arr)" "$@" <<'EOF'
import sys
sys.path.insert(0, __import__("os").environ["RL_TOOLS"])
from raidlab_lib import dm
t = dm.parse_table(sys.argv[1])
op, args = sys.argv[2], sys.argv[3:]
if op == "add":
    t.add(args[0], args[1])
elif op == "set":
    t.set(args[0], args[1])
elif op == "dev":
    t.devs[int(args[0])] = args[1]
elif op == "get":
    print(t.devs[int(args[0])])
    sys.exit(0)
print(t.line())
EOF
}

# reload LINE: dmsetup reload, then resume (a suspend, the swap, a
# resume); the resume's wall time (the I/O held) is logged and kept for
# /out/reload.json, a figure, not a check
RESUMES=
reload() {
	dm_reload arr "$1" || return 1
	_t0=$(cut -d' ' -f1 /proc/uptime)
	dmsetup resume arr || return 1
	_dt=$(awk -v t="$_t0" '{ printf "%.3f", $1 - t }' /proc/uptime)
	log "reload: resume took ${_dt} s"
	RESUMES="$RESUMES${RESUMES:+, }$_dt"
}
# refused_reload LINE: the load itself fails (the constructor refuses it)
refused_reload() { ! dm_reload arr "$1" 2>/dev/null; }
# load_clear LINE: loaded, never resumed
load_clear() { dm_reload arr "$1" && dmsetup clear arr; }
# majmin PATH: the major:minor dm names a device by
majmin() { cat "/sys/class/block/$(basename "$(readlink -f "$1")")/dev"; }

# health character of member $1
hc() { dmsetup status arr | awk '{ print $6 }' | cut -c$(($1 + 1)); }

optimal() { [ "$(rl_state arr)" = optimal ] && ! rl_health arr | grep -q a; }
spares() { rl_md arr | awk '{ print $4 }'; }

setup() {
	run rl_lab_array "$1" "$MB" "$PM" 7
}

teardown() { run rl_lab_array_done; }

# ------------------------------------------------------------------ raid5 ---
setup raid5
rl_load_start arr 0 $((LEN * 512)) "$LOADT" 8
sleep 2

_m=$(dmesg_mark)
check "dmsetup reload adds a spare under the load" reload "$(tbl add spare "$(disk 4)")"
check "the kernel says the new table took the array over" dmesg_has "$_m" "reloaded: 1 spare"
check "the table names the spare" sh -c "dmsetup table arr | grep -q ' spare '"
check "status: 1 spare" test "$(spares)" = 1
run dm_message arr fail 1
check "the spare takes role 1 and is rebuilt" until_ok 120 optimal
check "the line names the spare in slot 1 now" test "$(tbl get 1)" = "$(majmin "$(disk 4)")"

# the failed disk stays open (retired) until the table no longer names
# it: a reload (here a switch of sched) lets it go
check "a reload switches sched" reload "$(tbl set sched look)"
check "status: look" test "$(rl_queues arr | awk '{ print $1 }')" = look
check "the reload let the failed disk go" \
	sh -c "[ -z \"\$(ls /sys/class/block/\$(basename \$(readlink -f /dev/mapper/rw1))/holders)\" ]"
check "raidlab add-spare gives the failed disk back as a spare, live" \
	RL add-spare arr /dev/mapper/rw1
check "status: 1 spare again" test "$(spares)" = 1
check "raidlab remove takes it out, live" RL remove arr /dev/mapper/rw1
check "status: no spare" test "$(spares)" = 0

run dm_message arr fail 2
check "member 2 fails, no spare: degraded" until_ok 10 test "$(hc 2)" = D
check "raidlab remove of the failed disk: its slot is '-'" RL remove arr /dev/mapper/rw2
check "the table has '-' in slot 2" sh -c "dmsetup table arr | grep -q ' - '"
_m=$(dmesg_mark)
check "a reload names a new disk for the missing role" reload "$(tbl dev 2 "$(disk 5)")"
check "it is rebuilt into role 2" until_ok 120 optimal
check "the line names it in slot 2" test "$(tbl get 2)" = "$(majmin "$(disk 5)")"

_m=$(dmesg_mark)
check "a reload with another chunk_size is refused" refused_reload "$(tbl set chunk_size 128)"
check "with the reason" dmesg_has "$_m" "keeps its scheme, members, chunk_size and length"
_m=$(dmesg_mark)
check "a reload with a member's disk swapped is refused" \
	refused_reload "$(tbl dev 0 "$(disk 6)")"
check "with the reason" dmesg_has "$_m" "Name each role's disk as the live array has it"
check "a table loaded and cleared" load_clear "$(tbl add spare "$(disk 6)")"
check "took nothing over: no spare" test "$(spares)" = 0
check "the array goes on" optimal

rl_load_done "raid5 reloads"
check "check finds 0 mismatches" test "$(rl_scrub arr check 300)" = 0
teardown

# ----------------------------------------------------------------- raid10 ---
setup raid10
rl_load_start arr 0 $((LEN * 512)) "$(tier 20 40)" 8
sleep 1
check "raid10: dmsetup reload adds a spare" reload "$(tbl add spare "$(disk 4)")"
run dm_message arr fail 3
check "raid10: the spare takes role 3 and is rebuilt" until_ok 120 optimal
rl_load_done "raid10 reloads"
check "raid10: check finds 0 mismatches" test "$(rl_scrub arr check 300)" = 0
teardown
echo "{\"resume_s\": [$RESUMES], \"load\": \"randwrite 4k, iodepth 8, verify\"}" >/out/reload.json
log "reload resumes under the load (s): $RESUMES"
finish
