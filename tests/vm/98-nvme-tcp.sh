#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Members on other machines (issue 18): the kernel's NVMe over TCP target
# (nvmet, nvmet-tcp) exports disks from three "storage hosts", each a
# network namespace of its own joined to the head node (the initial
# namespace) by a veth pair; the head connects with nvme-tcp and builds a
# raid5 over the three remote namespaces and one local disk, its metadata
# on local pmem (Documentation/raidlab-ops.rst, "Remote members"):
#   - fio verify across the fabric;
#   - a host lost mid-write (its link brought down): its namespace's I/O
#     fails once nvme-tcp gives up (fast_io_fail_tmo), the member is
#     failed, the array goes on degraded, and everything written verifies;
#   - the host comes back (its link up, nvme-tcp reconnects before
#     ctrl_loss_tmo): `raidlab re-add` takes its namespace back and copies
#     only what was written while it was away (1.21); with the local disk
#     then failed, what was written meanwhile verifies through it; the
#     re-add's time goes to /out/readd.json, and in the long tier the
#     time of rebuilding the same member whole beside it;
#   - the cost of a remote member against a local one: 4 KiB random reads
#     of a raid0 over two disks, then of a raid0 over the same two disks
#     exported over NVMe/TCP, in one boot; the ratio goes to /out and the
#     log (a figure, not a check: raidlab-ops.rst reports it).
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

RL() { python3 "$RL_TOOLS/raidlab" "$@"; }
PM=$(pmem_dev)
CFG=/sys/kernel/config/nvmet
for m in nvmet nvmet-tcp nvme-tcp veth; do run modprobe "$m"; done
grep -q configfs /proc/mounts || run mount -t configfs none /sys/kernel/config

# /sbin/ip is iproute2 (network namespaces): busybox sh runs its own ip applet
# for a bare "ip"
# host N DISK: storage host hN (netns, 10.0.N.2) exporting DISK as rl-hN
host() {
	_h=h$1
	/sbin/ip netns add "$_h" || return 1
	/sbin/ip link add "v$1" type veth peer name "e$1" || return 1
	/sbin/ip link set "e$1" netns "$_h" || return 1
	/sbin/ip addr add "10.0.$1.1/24" dev "v$1" && /sbin/ip link set "v$1" up || return 1
	/sbin/ip netns exec "$_h" sh -c "/sbin/ip addr add 10.0.$1.2/24 dev e$1 && /sbin/ip link set e$1 up && /sbin/ip link set lo up" || return 1
	mkdir "$CFG/subsystems/rl-$_h" || return 1
	echo 1 >"$CFG/subsystems/rl-$_h/attr_allow_any_host"
	mkdir "$CFG/subsystems/rl-$_h/namespaces/1"
	echo -n "$2" >"$CFG/subsystems/rl-$_h/namespaces/1/device_path"
	echo 1 >"$CFG/subsystems/rl-$_h/namespaces/1/enable" || return 1
	mkdir "$CFG/ports/$1"
	echo tcp >"$CFG/ports/$1/addr_trtype"
	echo ipv4 >"$CFG/ports/$1/addr_adrfam"
	echo "10.0.$1.2" >"$CFG/ports/$1/addr_traddr"
	echo 4420 >"$CFG/ports/$1/addr_trsvcid"
	# the port listens in the namespace of the process that enables it;
	# ip netns exec mounts a /sys of its own, without configfs
	/sbin/ip netns exec "$_h" sh -c "mount -t configfs none /sys/kernel/config &&
		ln -s $CFG/subsystems/rl-$_h $CFG/ports/$1/subsystems/rl-$_h"
}

# connect N: the head connects to hN; prints the new namespace's device
connect() {
	_before=$(ls /dev/nvme*n1 2>/dev/null)
	echo "transport=tcp,traddr=10.0.$1.2,trsvcid=4420,nqn=rl-h$1,hostnqn=nqn.2014-08.org.raidlab:head,keep_alive_tmo=3,reconnect_delay=1,ctrl_loss_tmo=120,fast_io_fail_tmo=2" \
		>/dev/nvme-fabrics || return 1
	_i=0
	while [ $_i -lt 100 ]; do
		for _d in /dev/nvme*n1; do
			[ -b "$_d" ] || continue
			echo "$_before" | grep -qx "$_d" && continue
			echo "$_d"
			return 0
		done
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

for n in 1 2 3; do run wipe "$(disk $n)" 2; done
for n in 1 2 3; do check "storage host h$n exports $(disk $n) over NVMe/TCP" host $n "$(disk $n)"; done
R1=$(connect 1) && R2=$(connect 2) && R3=$(connect 3)
check "the head connects to the three hosts ($R1 $R2 $R3)" test -b "$R1" -a -b "$R2" -a -b "$R3"
log "controllers: $(cat /sys/class/nvme/nvme*/address 2>/dev/null | tr '\n' ' ')"

# ------------------------------------------------- raid5 over the fabric ---
run wipe "$(disk 0)" 2
run wipe "$PM" 4
check "raidlab create raid5 over three remote members and a local one" \
	RL create rr --scheme raid5 --chunk 64 --assume-clean --metadata "$PM" "$R1" "$R2" "$R3" "$(disk 0)"
SZ=$(tier 16M 48M)
check "fio verify across the fabric" fio_write_then_verify /dev/mapper/rr "$SZ"

# a host lost mid-write: h2's link goes down under a verifying write load
rl_load_start rr "$SZ" "$SZ" "$(tier 20 40)" 4
sleep 3
run /sbin/ip link set v2 down
log "h2's link is down"
i=0
while [ "$(rl_health rr)" != ADAA ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
log "status: $(dm_status rr)"
check "member 1 (h2's namespace) is failed: ADAA, degraded" \
	test "$(rl_health rr) $(rl_state rr)" = "ADAA degraded"
rl_load_done "the array goes on: the load across the host's loss"
check "everything written verifies, degraded" fio_verify /dev/mapper/rr "$SZ"
check "check finds nothing to say: refused while degraded, with the reason" \
	sh -c "! dmsetup message rr 0 check 2>/dev/null && dmsetup message rr 0 last_error | grep -q 'failed or rebuilding'"

# the host comes back: its disk is re-added, rebuilt only where written
BOFF=$((2 * ${SZ%M}))M
FIO_STATE_DIR=/tmp/fb check "pattern B written while h2 is away" \
	fio_write /dev/mapper/rr 8M --offset="$BOFF"
run /sbin/ip link set v2 up
log "h2's link is up"
i=0
until timeout 5 dd if="$R2" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 30 ] || break
	sleep 1
done
check "h2's namespace reads again (nvme-tcp reconnected)" \
	timeout 5 dd if="$R2" of=/dev/null bs=4k count=1 iflag=direct
mark=$(dmesg_mark)
t0=$(cut -d' ' -f1 /proc/uptime)
check "raidlab re-add of h2's namespace" RL re-add rr "$R2"
check "h2's member is rebuilt" rl_wait_sync rr 300
readd_s=$(awk -v t="$t0" '{ printf "%.1f", $1 - t }' /proc/uptime)
check "and in sync: AAAA" test "$(rl_health rr) $(rl_state rr)" = "AAAA optimal"
copied=$(dmesg_since "$mark" | sed -n 's/.*member 1 re-added: copied \([0-9]*\) of \([0-9]*\) sectors.*/\1 \2/p')
log "the re-add copied ${copied% *} of ${copied#* } member sectors"
check "the re-add copied less than half of the member" \
	sh -c "set -- $copied; test \$# = 2 && test \$1 -gt 0 && test \$((\$1 * 2)) -lt \$2"
# the local disk fails: B's chunks there are rebuilt from the others,
# h2's namespace among them, so B verifies only if the re-add copied it
check "raidlab fail of the local disk" RL fail rr 3
FIO_STATE_DIR=/tmp/fb check "pattern B verifies with the re-added member in every row" \
	fio_verify /dev/mapper/rr 8M --offset="$BOFF"
check "the first pattern verifies too" fio_verify /dev/mapper/rr "$SZ"
check "the local disk is re-added" RL re-add rr 3
check "and rebuilt where it missed writes" rl_wait_sync rr 300
check "AAAA again" test "$(rl_health rr)" = AAAA
full_s=
if [ "$RL_FULL" = 1 ]; then
	# the long tier: the same member rebuilt whole, for the comparison
	run RL fail rr 1
	t0=$(cut -d' ' -f1 /proc/uptime)
	check "h2's namespace re-added whole" RL re-add --full rr "$R2"
	check "and rebuilt whole" rl_wait_sync rr 900
	full_s=$(awk -v t="$t0" '{ printf "%.1f", $1 - t }' /proc/uptime)
fi
log "re-add of h2's member: ${readd_s} s (copied ${copied% *} of ${copied#* } sectors); whole: ${full_s:-not run (long tier)} s"
echo "{\"readd_s\": $readd_s, \"readd_copied\": ${copied% *}, \"member_sectors\": ${copied#* }, \"full_s\": ${full_s:-null}}" >/out/readd.json
run RL stop rr

# ------------------------------------------- remote against local reads ---
SECS=$(tier 5 10)
# fio_iops DEV: 4 KiB random reads, direct, depth 8, for SECS s
fio_iops() {
	fio --name=r --filename="$1" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=8 --time_based --runtime="$SECS" --size=32M --output-format=terse \
		--terse-version=3 2>/dev/null | awk -F';' '{ print $8 }'
}
run dm_create loc "$(RL_LEN=131072 rl_table raid0 64 "$(disk 1)" "$(disk 3)")"
local_iops=$(fio_iops /dev/mapper/loc)
run dm_remove loc
run dm_create rem "$(RL_LEN=131072 rl_table raid0 64 "$R1" "$R3")"
remote_iops=$(fio_iops /dev/mapper/rem)
run dm_remove rem
ratio=$(echo "$local_iops $remote_iops" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }')
echo "{\"local_iops\": $local_iops, \"remote_iops\": $remote_iops, \"cost_ratio\": $ratio, \"secs\": $SECS}" >/out/fabric.json
log "4 KiB random reads, raid0 over two disks: local $local_iops IOPS, over NVMe/TCP $remote_iops IOPS: a remote member costs $ratio x"
check "both read runs did I/O" test "${local_iops:-0}" -gt 0 -a "${remote_iops:-0}" -gt 0

for c in /sys/class/nvme/nvme*; do echo 1 >"$c/delete_controller" 2>/dev/null; done
finish
