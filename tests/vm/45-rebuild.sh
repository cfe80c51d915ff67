#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The failure lifecycle with a metadata device (pmem): each member in turn
# fails while fio writes and verifies, a spare takes its role and is rebuilt
# under that load, and the next failure comes after the rebuild (so rebuilt
# members fail too). After every rebuild: the data written before verifies,
# the load's own verify passed, check finds 0 mismatches, and the array
# reassembles from the metadata with the spare in its new role, the failed
# disk wiped and given back as a spare. A stale disk (one that failed) in
# its old role is refused. The long tier (--full) does it with three times
# the data on each member, and fails raid4's members 1 and 2 too.
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

PM=$(pmem_dev) || skip "no pmem"
MB=$(tier 16 48)		# MiB of each member the arrays use
SIZE=$(tier 8M 32M)		# written before, verified after each rebuild
LOAD=$(tier 4M 16M)		# written and verified during each rebuild, after SIZE

# line SCHEME: the table line over the current roles and spares
line() {
	_w="chunk_size 64 assume_clean metadata $PM"
	for _s in $SPARES; do _w="$_w spare $_s"; done
	set -- $_w
	_nd=$((NR - 1))
	[ "$SCHEME" = mirror ] && _nd=1
	echo "0 $((MB * 2048 * _nd)) raidlab $SCHEME $# $_w $NR $ROLES"
}

# the roles that fail, one after the other: every role, but raid4's
# data members 1 and 2 only in the long tier (raid4's parity member 3
# and a data member still fail in the default tier; raid5, whose parity
# rotates, fails every role in both)
turns() {
	if [ "$SCHEME" = raid4 ] && [ "$(tier 0 1)" = 0 ]; then echo 0 3; else seq 0 $((NR - 1)); fi
}

role() { echo "$ROLES" | cut -d' ' -f$(($1 + 1)); }

# wait until no member is rebuilding and the array is optimal
wait_rebuilt() {
	_i=0
	while [ "$(rl_state arr)" != optimal ] || rl_health arr | grep -q a; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($1 * 5)) ] && return 1
		sleep 0.2
	done
}

for SCHEME in ${RL_REBUILD_SCHEMES:-raid5 raid4 mirror}; do
	if [ "$SCHEME" = mirror ]; then
		NR=3 ROLES="$(disk 0) $(disk 1) $(disk 2)" SPARES="$(disk 3)"
	else
		NR=4 ROLES="$(disks 4)" SPARES="$(disk 4) $(disk 5)"
	fi
	wipe "$PM" 4
	# zeroes: assume_clean must be true (a previous scheme's rows left
	# parity that does not match this layout)
	for d in $ROLES $SPARES; do
		dd if=/dev/zero of="$d" bs=1M count=$((MB + 2)) conv=fsync 2>/dev/null
	done
	check "$SCHEME: created with metadata and spares" dm_create arr "$(line)"
	check "$SCHEME: pattern written" fio_write /dev/mapper/arr $SIZE

	for i in $(turns); do
		old=$(role $i)
		# the load: random writes with verify, past the pattern
		fio --name=load --filename=/dev/mapper/arr --direct=1 --ioengine=libaio \
			--rw=randwrite --bs=4k --iodepth=4 --offset=$SIZE --size=$LOAD \
			--verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=0 \
			>/tmp/load.log 2>&1 &
		load=$!
		sleep 1
		t0=$(cut -d' ' -f1 /proc/uptime)
		before=$(dmesg_mark)
		check "$SCHEME: fail member $i under load" dm_message arr fail $i
		sleep 0.5
		log "$SCHEME: after the failure: $(rl_health arr) $(rl_sync arr)"
		# (a mirror's rebuild may be over already: the kernel log says it began)
		check "$SCHEME: a spare rebuilds member $i" \
			dmesg_has "$before" "member $i (.*) rebuilding"
		check "$SCHEME: rebuild of member $i ends" wait_rebuilt 300
		t1=$(cut -d' ' -f1 /proc/uptime)
		log "$SCHEME: member $i rebuilt in $(echo "$t0 $t1" | awk '{ print $2 - $1 }') s under load"
		wait $load
		rc=$?
		check "$SCHEME: the load's verify passed during rebuild $i" test $rc = 0
		# the whole log of a failed load (fio's verify report) comes back
		[ $rc = 0 ] || cp /tmp/load.log "$RL_OUT/load-$SCHEME-$i.log"
		tail -n 3 /tmp/load.log
		drop_caches
		check "$SCHEME: pattern verifies after rebuild $i" fio_verify /dev/mapper/arr $SIZE
		check "$SCHEME: check after rebuild $i: 0 mismatches" \
			test "$(rl_scrub arr check 300)" = 0

		# the spare took role i; the failed disk comes back as a spare
		new=$(echo "$SPARES" | cut -d' ' -f1)
		ROLES=$(echo "$ROLES" | awk -v i=$((i + 1)) -v n="$new" '{ $i = n; print }')
		SPARES=$(echo "$SPARES" | cut -s -d' ' -f2-)
		dm_remove arr
		stale=$(echo "$ROLES" | awk -v i=$((i + 1)) -v o="$old" '{ $i = o; print }')
		R=$ROLES
		ROLES=$stale
		dm_refused raidlab "$(line)" "Member is not the disk the metadata knows in its role"
		ROLES=$R
		wipe "$old" 2
		SPARES="${SPARES:+$SPARES }$old"
		check "$SCHEME: reassembled after rebuild $i" dm_create arr "$(line)"
		check "$SCHEME: optimal after reassembly" test "$(rl_state arr)" = optimal
	done
	dm_remove arr
done
finish
