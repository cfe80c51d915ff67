#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sr (SR-Array / SR-Mirror, paper 002) end to end (Documentation/dm-raidlab.rst,
# "SR-Array and SR-Mirror"), over 6 lab disks with the ST39133 geometry
# (dm-hddsim's st39133 preset) in the table and the metadata on the pmem:
#   - 2x3x1 and 1x3x2 (Ds x Dr x Dm; the long tier adds 3x2x1 and 3x1x2,
#     placed as raid10 near 2, and checks 4 times the sectors through
#     locate.py, at two offsets of each chunk): created under rlook,
#     resynced (check finds 0: every replica of every copy alike), the
#     status group "Ds Dr Dm" and the reads each replica served, the table
#     line; 16 MiB of fio verify data, and check finds 0 after it (every
#     write reached every replica); every location "locate" names
#     (each replica of each copy) holds the array's bytes and "owner"
#     names it back, at the start of the array and at its end (whose
#     replicas lie past the column sectors in use: 1.13.0's owner
#     answered "none" there), each for the whole run locate gives
#     (locate.py); with Dr > 1, reads were served by
#     replicas other than 0 (the policy chose them); the printed table
#     assembles it again and the data verifies;
#   - negative control (2x3x1): garbage written under the array over one
#     replica of a block makes check count it, repair rewrites it, check
#     then finds 0 and the data verifies;
#   - delayed propagation (propagate bg, the default with a metadata
#     device; 2x3x1): over members whose reads take 200 ms (dm-delay),
#     while a read load of 64 keeps them busy, a 1 MiB write's replicas
#     wait (pending > 0) and are written once the members are idle
#     (pending 0; then check 0, the data); removed with them waiting
#     (not drained at suspend), the next load takes them back from
#     their records (pending > 0, the kernel log counts them) and the
#     write reads back before and after they propagate; (the long
#     tier) garbage put under the array over replica 0 of a sector of a
#     chunk whose writes wait (outside them) is not served before the
#     resync, nor copied by it (the chunk's source is the waiting
#     writes' replica); a crash
#     image
#     taken with them waiting assembles (its records taken back), resyncs
#     its dirty regions, propagates, and then
#     every replica is alike and the acknowledged write is there; with
#     table_entries 1 writes go to every replica (full > 0) and
#     propagations start while busy (forced > 0); propagate fg keeps
#     nothing waiting; with the metadata on pmem a write's first replica
#     is the nearest (replicas other than 0 took first writes), recorded
#     there, and the crash image's records are replayed at its load;
#     with the metadata on a plain disk (dm-bufio) replica 0 takes
#     every first write (status "intent");
#   - the layout is recorded: the same metadata with another dr is
#     refused ("The metadata holds another copy layout");
#   - 1x3x2 with a spare of the members' size: a member fails under a
#     write load, the spare takes its role and is rebuilt (every replica),
#     the load verifies, check finds 0, the 16 MiB verify; then (the long
#     tier), over read-delayed members kept busy, a member fails while a write's
#     replicas wait: the write reads back, its propagation ends over the
#     copies left, and every replica there holds it (check is refused
#     with a member failed: read through locate); and a crash image
#     taken while they wait, assembled with a member missing, takes back
#     the records of the members left and propagates them: the write is
#     there;
#   - a replica's read error with dm 1 (1x3x1, a dm-hddsim member with
#     media errors): served from another replica of the member, which is
#     rewritten and kept; with every replica bad the read fails and the
#     member is kept;
#   - with pmem records (1x3x1 over the hddsim member): a waiting write
#     none of whose replicas can be read when it propagates is recorded
#     bad and its entry goes; reads fail until a write covers it;
#   - refused tables, with their messages.
# vm-opts: --disks 7 --disk-size 256M --timeout 1200
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
. "$RL_TESTS/hddsim.sh"
need_raidlab
need_hddsim

MD=$(pmem_dev)
CHUNK=128
LEN=65536		# 32 MiB: a resync or a check reads every replica of it
LOADT=$(tier 6 15)
# the shapes (Ds Dr Dm); 3x2x1 and 3x1x2 (placed as raid10 near 2) in
# the long tier
SHAPES=$(tier "2 3 1,1 3 2" "2 3 1,3 2 1,3 1 2,1 3 2")
# locate.py's area (sectors) and chunk offsets: each location costs two
# messages (locate, owner), 6 a sector with 6 replicas
LOC_AREA=$(tier 1024 4096)
LOC_OFFS=$(tier 77 "0 77")
# dm-hddsim's st39133 (Documentation/dm-hddsim.rst): 6 heads, 4 zones
GEOM=period_ns=6000000,cylinders=10000,heads=6,zones=0:334/2500:302/5000:270/7500:238
GEOM=$GEOM,track_skew=34,cyl_skew=35,head_switch_ns=600000,seek_a_ns=541000
GEOM=$GEOM,seek_b_ns=459,seek_c_ns=58740,ref=0

fresh() {
	for _d in $(disks 7); do wipe "$_d" 4 || die "wipe $_d"; done
	wipe "$MD" 16 || die "wipe pmem"
}

# line OPTS [DEVS]: an sr line at LEN over DEVS (the first 6 disks),
# pmem metadata, rlook
line() {
	_o="chunk_size $CHUNK sched rlook metadata $MD $1 geom $GEOM"
	# shellcheck disable=SC2046,SC2086
	set -- ${2:-$(disks 6)}
	# shellcheck disable=SC2046
	echo "0 $LEN raidlab sr $(echo "$_o" | wc -w) $_o 6 $*"
}

# the propagation's status words: 1 mode, 2 pending, 3 forced, 4 full,
# 5 discarded, 6 records (pmem, intent, -), 7 first writes per replica
prop() { rl_scheme_field arr $((4 + $1)); }

# drained [SECS]: wait until no write's replicas wait (default 60 s)
drained() {
	_dn=0
	while [ "$(prop 2)" != 0 ]; do
		_dn=$((_dn + 1))
		[ "$_dn" -gt $((${1:-60} * 5)) ] && return 1
		sleep 0.2
	done
}

# busy: a read load of 64 in flight over the array, so that its members
# are never idle (a propagation waits for its members to be)
busy_start() {
	fio --name=busy --filename=/dev/mapper/arr --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=64 --time_based --runtime=120 \
		>/tmp/busy.log 2>&1 &
	BUSY=$!
	sleep 1
}
busy_stop() { kill "$BUSY" 2>/dev/null; wait "$BUSY" 2>/dev/null; }

# pattern_at MIB: the 1 MiB pattern reads back at MIB MiB of the array
pattern_at() {
	dd if=/dev/mapper/arr of=/tmp/back bs=64k skip=$(($1 * 16)) count=16 \
		iflag=direct 2>/dev/null && cmp -s /tmp/pat /tmp/back
}

# delayed_busy WHAT DEV...: arr assembled (the table line's options)
# over dly0.. wrappers of DEV... whose reads take 200 ms (dm-delay), a
# read load started (busy_start), and a 1 MiB pattern written at 8 MiB;
# the wrappers' paths are left in _dl
delayed_busy() {
	_w=$1
	shift
	_i=0 _dl=
	for _d in "$@"; do
		dm_create "dly$_i" "0 $(sectors "$_d") delay $_d 0 200 $_d 0 0" ||
			die "$_w: delay member $_i"
		_dl="$_dl /dev/mapper/dly$_i"
		_i=$((_i + 1))
	done
	check "$_w: assembled over read-delayed members" \
		dm_create arr "$(line "dr $dr dm $dm" "$_dl")"
	head -c 1048576 /dev/urandom >/tmp/pat
	busy_start
	dd if=/tmp/pat of=/dev/mapper/arr bs=64k seek=128 oflag=direct \
		conv=notrunc 2>/dev/null || not_ok "$_w: 1 MiB written at 8 MiB"
}

# prop_bg WHAT: delayed propagation on the array loaded as arr (dr > 1),
# which it removes. Over members whose reads take 200 ms (dm-delay), a
# read load keeps them busy (the lab's disks answer at once: without the
# delay a member is idle between completions): a write's replicas wait;
# a crash image taken then assembles with every replica alike and the
# write there; a full table sends writes to every replica and starts
# propagations while busy; propagate fg keeps nothing waiting
prop_bg() {
	run dm_remove arr
	# shellcheck disable=SC2046
	delayed_busy "$1" $(disks 6)
	# past two passes of the bitmap's clear work (RL_MD_CLEAR_PERIOD,
	# 5 s): a region whose write let go of its intent is clean by now
	sleep 11
	_p=$(prop 2)
	check "$1: while the members are busy the writes' replicas wait ($_p pending)" \
		test "$_p" -gt 0
	PM=$MD
	# shellcheck disable=SC2046
	rl_image_save_idle 20 $(disks 6) || die "$1: crash image"
	busy_stop
	# removed with the replicas waiting: not drained at suspend (each
	# propagation reads for 200 ms), taken back from their records by
	# the next load, and propagated then
	_mk=$(dmesg_mark)
	run dm_remove arr
	check "$1: assembled again with writes' replicas waiting" \
		dm_create arr "$(line "dr $dr dm $dm" "$_dl")"
	_p=$(prop 2)
	check "$1: the load took the waiting entries back ($_p pending)" \
		test "$_p" -gt 0
	check "$1: the kernel log counts them taken back, none replayed" \
		dmesg_has "$_mk" "delayed propagations: 0 replayed, [1-9][0-9]* taken back"
	check "$1: the write reads back before its propagation" pattern_at 8
	check "$1: propagated once the members were idle" drained 120
	# the long tier: about 50 s (the resync over the delayed members)
	[ "$(tier 0 1)" = 1 ] && suspect_source "$1"
	run dm_remove arr
	# one entry: the table is full at once
	check "$1: assembled with table_entries 1" \
		dm_create arr "$(line "dr $dr dm $dm table_entries 1" "$_dl")"
	check "$1: the table line keeps table_entries 1" \
		sh -c "dmsetup table arr | grep -q 'propagate bg table_entries 1'"
	busy_start
	dd if=/tmp/pat of=/dev/mapper/arr bs=64k seek=0 oflag=direct \
		conv=notrunc 2>/dev/null || not_ok "$1: 1 MiB written at 0"
	check "$1: a full table: writes to every replica ($(prop 4)), propagations forced ($(prop 3))" \
		test "$(prop 4)" -gt 0 -a "$(prop 3)" -gt 0
	busy_stop
	check "$1: full table: drained" drained 120
	run dm_remove arr
	for _i in 0 1 2 3 4 5; do run dm_remove "dly$_i"; done
	check "$1: assembled over the disks" dm_create arr "$(line "dr $dr dm $dm")"
	check "$1: the write at 8 MiB reads back" pattern_at 8
	check "$1: the write at 0 reads back" pattern_at 0
	check "$1: check finds 0 after the propagations" \
		test "$(rl_scrub arr check 300)" = 0
	run dm_remove arr
	# shellcheck disable=SC2046
	rl_image_restore $(disks 6) || die "$1: restore the crash image"
	_mk=$(dmesg_mark)
	check "$1: the crash image (replicas waiting) assembles" \
		dm_create arr "$(line "dr $dr dm $dm")"
	check "$1: its propagation records were taken back" \
		dmesg_has "$_mk" "delayed propagations: 0 replayed, [1-9][0-9]* taken back"
	check "$1: its dirty regions resynced" rl_wait_sync arr 300
	check "$1: the entries taken back propagated" drained 120
	check "$1: after the crash every replica is alike (check finds 0)" \
		test "$(rl_scrub arr check 300)" = 0
	check "$1: after the crash the acknowledged 1 MiB is there" pattern_at 8
	run dm_remove arr
	check "$1: created with propagate fg" dm_create arr "$(line "dr $dr dm $dm propagate fg")"
	dd if=/tmp/pat of=/dev/mapper/arr bs=64k seek=256 oflag=direct \
		conv=notrunc 2>/dev/null || not_ok "$1: 1 MiB written at 16 MiB"
	check "$1: propagate fg: nothing waits ($(prop 1) $(prop 2))" \
		test "$(prop 1) $(prop 2)" = "fg 0"
	check "$1: propagate fg: the 1 MiB reads back" pattern_at 16
	run dm_remove arr
}

# the replica whose count grew from "n0:n1:..." $1 to $2 (the first one)
rep_grew() {
	echo "$1 $2" | awk '{ n = split($1, a, ":"); split($2, b, ":")
		for (i = 1; i <= n; i++) if (b[i] > a[i]) { print i - 1; exit } }'
}

# suspect_source WHAT: the array loaded as arr over the read-delayed _dl
# (pmem records), left loaded: a chunk's 64 KiB written and propagated;
# then, with the members busy, 4 KiB writes at its sectors 0, 16, 24, 32
# and 40, whose first replica is not 0 (tried at up to 6 chunks); removed
# with them waiting; garbage written under the array over replica 0 of
# the chunk's sector 8 (outside the writes: as if a write there had
# reached one replica only); the next load takes the writes back, their
# region dirty: sector 8 reads the chunk's data before the resync and
# after it (the chunk's source is the replica its waiting writes name,
# for reads and for the resync; replica 0 would serve the garbage)
suspect_source() {
	_c= _r=
	busy_stop
	for _t in 1 2 3 4 5 6; do
		_b=$(((300 + 2 * _t) * CHUNK))
		head -c 65536 /dev/urandom >/tmp/ch
		dio_write /dev/mapper/arr "$_b" /tmp/ch || not_ok "$1: a chunk written at $_b"
		drained 60 || not_ok "$1: the chunk at $_b propagated"
		busy_start
		_f0=$(prop 7)
		for _o in 0 16 24 32 40; do
			head -c 4096 /dev/urandom >/tmp/e4k
			dio_write /dev/mapper/arr $((_b + _o)) /tmp/e4k ||
				not_ok "$1: 4 KiB written at $((_b + _o))"
		done
		_r=$(rep_grew "$_f0" "$(prop 7)")
		if [ -n "$_r" ] && [ "$_r" != 0 ] && [ "$(prop 2)" -gt 0 ]; then
			_c=$_b
			break
		fi
		busy_stop
	done
	check "$1: writes waiting at sector ${_c:-none} of a chunk, on replica ${_r:-none}, not 0" \
		test -n "$_c"
	[ -z "$_c" ] && return
	dd if=/tmp/ch of=/tmp/ch8 bs=512 skip=8 count=8 2>/dev/null
	_w=$(dmsetup message arr 0 locate $((_c + 8)) | tr ' ' '\n' | grep '^data:' | head -1)
	busy_stop
	run dm_remove arr
	head -c 4096 /dev/urandom >/tmp/junk
	check "$1: garbage under the array over replica 0 of sector $((_c + 8)) ($_w)" \
		dio_write "/dev/mapper/dly$(echo "$_w" | cut -d: -f2)" "$(echo "$_w" | cut -d: -f3)" /tmp/junk
	check "$1: assembled with the writes waiting" dm_create arr "$(line "dr $dr dm $dm" "$_dl")"
	_p=$(prop 2)
	dio_read /dev/mapper/arr $((_c + 8)) 8 /tmp/r8 || not_ok "$1: sector $((_c + 8)) read"
	check "$1: before the resync ($_p taken back) sector $((_c + 8)) reads the chunk's data, not replica 0's garbage" \
		cmp -s /tmp/r8 /tmp/ch8
	check "$1: resynced" rl_wait_sync arr 300
	check "$1: propagated" drained 120
	dio_read /dev/mapper/arr $((_c + 8)) 8 /tmp/r8 || not_ok "$1: sector $((_c + 8)) read again"
	check "$1: after the resync it reads the same" cmp -s /tmp/r8 /tmp/ch8
}

# disk_of MAJ:MIN: the lab disk (/dev/rl/m*) with that device number
disk_of() {
	_want=$(printf '%x:%x' "${1%:*}" "${1#*:}")
	for _c in /dev/rl/m*; do
		[ "$(stat -L -c '%t:%T' "$_c")" = "$_want" ] && echo "$_c" && return
	done
	return 1
}

# left_hold WHAT DEV_OF: every replica of the 1 MiB pattern's first block
# (at 8 MiB) on the members other than member 1 holds it; DEV_OF names a
# member's device from its index
dly_of() { echo "/dev/mapper/dly$1"; }
left_hold() {
	_bad=0 _n=0
	head -c 4096 /tmp/pat >/tmp/pat4k
	for _w in $(dmsetup message arr 0 locate 16384 | tr ' ' '\n' |
		    grep -E '^(data|copy):'); do
		_m=$(echo "$_w" | cut -d: -f2) _s=$(echo "$_w" | cut -d: -f3)
		[ "$_m" = 1 ] && continue
		_n=$((_n + 1))
		dio_read "$("$2" "$_m")" "$_s" 8 /tmp/rep &&
			cmp -s /tmp/rep /tmp/pat4k || _bad=$((_bad + 1))
	done
	check "$1: every replica on the members left holds the write ($_n read, $_bad differ)" \
		test "$_n" -ge 3 -a "$_bad" = 0
}

# fail_pending WHAT: dm 2, a member fails while writes' replicas wait:
# the array loaded as arr is assembled again over read-delayed wrappers
# of its own disks, kept busy by a read load; a 1 MiB write's replicas
# wait; member 1 fails; the write reads back, its propagation ends over
# the copies left, and check finds 0 (every replica of each copy left)
fail_pending() {
	_tl=$(dmsetup table arr)
	# the rebuild's write load leaves waiting writes: a removal leaves
	# them to the next load, where the delayed members would take minutes
	check "$1: the write load's replicas propagated before the removal" drained 120
	run dm_remove arr
	# shellcheck disable=SC2046
	delayed_busy "$1" $(for _mm in $(echo "$_tl" |
		awk '{ for (i = NF - 5; i <= NF; i++) print $i }'); do disk_of "$_mm"; done)
	sleep 2
	_p=$(prop 2)
	check "$1: the writes' replicas wait ($_p pending)" test "$_p" -gt 0
	# every member busy: with reads dup (dm 2's default) each read waits
	# on both copies' members, the first to pick it serves it
	check "$1: the write reads back while every member is busy" pattern_at 8
	run dm_message arr fail 1
	check "$1: member 1 failed with them waiting ($(rl_health arr))" \
		test "$(rl_health arr)" = ADAAAA
	check "$1: the write reads back with member 1 failed" pattern_at 8
	busy_stop
	check "$1: the propagations ended over the copies left" drained 120
	check "$1: the write still reads back" pattern_at 8
	# check is refused with a member failed: read every replica of the
	# write's first block on the members left instead
	left_hold "$1" dly_of
	run dm_remove arr
	for _i in 0 1 2 3 4 5; do run dm_remove "dly$_i"; done
	dm_create arr "$_tl" >/dev/null 2>&1 || true
}

# crash_missing WHAT: dm 2, a new array over the blanked disks: a crash
# image taken while a write's replicas wait, written back and assembled
# with member 1 missing (a crash, then the loss of a member before the
# next load): the records of the members left are replayed, and the
# write reads back from them, every replica of it alike; arr is left
# loaded
crash_missing() {
	run dm_remove arr
	fresh
	# shellcheck disable=SC2046
	delayed_busy "$1" $(disks 6)
	sleep 2
	_p=$(prop 2)
	check "$1: before the crash the writes' replicas wait ($_p pending)" test "$_p" -gt 0
	PM=$MD
	# shellcheck disable=SC2046
	rl_image_save_idle 20 $(disks 6) || die "$1: crash image"
	busy_stop
	run dm_remove arr
	for _i in 0 1 2 3 4 5; do run dm_remove "dly$_i"; done
	# shellcheck disable=SC2046
	rl_image_restore $(disks 6) || die "$1: restore the crash image"
	_mk=$(dmesg_mark)
	check "$1: the crash image assembles with member 1 missing" \
		dm_create arr "$(line "dr $dr dm $dm" "$(disk 0) - $(disk 2) $(disk 3) $(disk 4) $(disk 5)")"
	check "$1: the records of the members left were taken back" \
		dmesg_has "$_mk" "delayed propagations: 0 replayed, [1-9][0-9]* taken back"
	check "$1: their propagations ran over the members left" drained 120
	check "$1: the acknowledged 1 MiB reads back" pattern_at 8
	left_hold "$1" disk
}

# bufio_round WHAT: the metadata through dm-bufio (a plain disk, the
# 7th): no records, replica 0 first and the write-intent bitmap behind it
bufio_round() {
	fresh
	check "$1: created with its metadata on a plain disk" \
		dm_create arr "$(line "dr $dr dm $dm" | sed "s| metadata $MD | metadata $(disk 6) |")"
	dd if=/tmp/pat of=/dev/mapper/arr bs=64k seek=256 oflag=direct \
		conv=notrunc 2>/dev/null || not_ok "$1: 1 MiB written at 16 MiB"
	_fw=$(prop 7)
	check "$1: bufio metadata: first writes to replica 0 only, behind the bitmap ($(prop 6) $_fw)" \
		test "$(prop 6) $(others "$_fw") ${_fw%%:*}" != "intent 0 0" -a \
		"$(prop 6) $(others "$_fw")" = "intent 0"
	check "$1: bufio metadata: drained" drained 120
	check "$1: bufio metadata: the 1 MiB reads back" pattern_at 16
	run dm_remove arr
}

# the counts of replicas other than 0 in a word "n0:n1:..."
others() { echo "$1" | awk -F: '{ s = 0; for (i = 2; i <= NF; i++) s += $i; print s }'; }

# reads served by replicas other than 0 (the status group's 4th word)
other_reads() { others "$(rl_scheme_field arr 4)"; }

# ---- every shape: create, resync, verify, locate, reload ----
IFS=,
for spec in $SHAPES; do
	unset IFS
	# shellcheck disable=SC2086
	set -- $spec
	ds=$1 dr=$2 dm=$3 what="sr $1x$2x$3"
	fresh
	check "$what: created" dm_create arr "$(line "dr $dr dm $dm")"
	check "$what: resynced" rl_wait_sync arr 300
	check "$what: check finds 0 after the resync (every replica alike)" \
		test "$(rl_scrub arr check 300)" = 0
	_g=$(rl_scheme_fields arr)
	_mode="fg -"
	[ "$dr" -gt 1 ] && _mode="bg pmem"
	check "$what: status group '$_g': Ds Dr Dm, the replicas' reads, propagation $_mode" \
		test "$(echo "$_g" | cut -d' ' -f1-3,5,10) $(echo "$_g" | awk '{ print NF }')" = "$ds $dr $dm $_mode 11"
	check "$what: the table line keeps the options" \
		sh -c "dmsetup table arr | grep -q ' sr .*dr $dr dm $dm geom $GEOM'"
	# reads dup is dm > 1's default, so the line names no reads
	check "$what: reads as the default ($(dmsetup table arr | grep -o ' reads [a-z]*'))" \
		sh -c "! dmsetup table arr | grep -q ' reads '"
	check "$what: fio writes 16 MiB" fio_write /dev/mapper/arr 16M
	check "$what: the 16 MiB verify" fio_verify /dev/mapper/arr 16M
	check "$what: every write's replicas propagated once idle" drained 120
	check "$what: check finds 0 after the writes" test "$(rl_scrub arr check 300)" = 0
	if [ "$dr" -gt 1 ]; then
		check "$what: replicas other than 0 served reads ($(rl_scheme_field arr 4))" \
			test "$(other_reads)" -gt 0
		# with pmem, a write's first replica is the nearest one
		check "$what: replicas other than 0 took first writes ($(prop 7))" \
			test "$(others "$(prop 7)")" -gt 0
	fi
	for _a in "$LOC_AREA" "$((LEN - LOC_AREA))+$LOC_AREA"; do
		# shellcheck disable=SC2086
		python3 "$RL_TESTS/locate.py" arr "$_a" $CHUNK $LOC_OFFS \
			>/out/locate-$ds$dr$dm.txt 2>&1
		_r=$?
		grep '^# ' /out/locate-$ds$dr$dm.txt | head -5
		check "$what: sectors $_a: every replica locate names holds the data, owner names it back" \
			test $_r = 0
	done
	_t=$(dmsetup table arr)
	run dm_remove arr
	check "$what: the printed table assembles it again" dm_create arr "$_t"
	check "$what: optimal again" test "$(rl_state arr)" = optimal
	check "$what: the 16 MiB verify after the reassembly" fio_verify /dev/mapper/arr 16M
	if [ "$spec" = "2 3 1" ]; then
		# negative control: one replica of one block overwritten under it
		_loc=$(dmsetup message arr 0 locate 1000 | tr ' ' '\n' | grep '^copy:' | head -1)
		_m=$(echo "$_loc" | cut -d: -f2) _s=$(echo "$_loc" | cut -d: -f3)
		head -c 4096 /dev/urandom >/tmp/junk
		check "$what: garbage over replica $_loc" dio_write "$(disk "$_m")" "$_s" /tmp/junk
		check "$what: check counts the replica that differs" \
			test "$(rl_scrub arr check 300)" -gt 0
		check "$what: repair rewrites it" test "$(rl_scrub arr repair 300)" -gt 0
		check "$what: then check finds 0" test "$(rl_scrub arr check 300)" = 0
		check "$what: the 16 MiB verify after the repair" fio_verify /dev/mapper/arr 16M
		prop_bg "$what"
		dm_refused raidlab "$(line "dr 2 dm 1")" "The metadata holds another copy layout"
		bufio_round "$what"
		continue
	fi
	if [ "$spec" = "1 3 2" ]; then
		run dm_remove arr
		# the same array with a spare of the members' size
		check "$what: assembled with a spare" \
			dm_create arr "$(line "dr $dr dm $dm spare $(disk 6)")"
		rl_load_start arr 16M 16M "$LOADT"
		sleep 1
		run dm_message arr fail 1
		sleep 2
		check "$what: the spare took role 1 and rebuilt it" rl_wait_sync arr 300
		rl_load_done "$what: member 1 failed under load, rebuilt onto the spare"
		check "$what: all in sync after the rebuild" test "$(rl_health arr)" = AAAAAA
		check "$what: check finds 0 after the rebuild (every replica)" \
			test "$(rl_scrub arr check 300)" = 0
		check "$what: the 16 MiB verify after the rebuild" fio_verify /dev/mapper/arr 16M
		# the long tier: a dm 2 member failed while replicas wait, and
		# lost after a crash
		[ "$(tier 0 1)" = 1 ] && fail_pending "$what"
		[ "$(tier 0 1)" = 1 ] && crash_missing "$what"
	fi
	run dm_remove arr
done

# ---- a replica's read error (dm 1: no other copy) ----
# sr 1x3x1 over three members, member 0 a dm-hddsim st39133 disk
# (time_scale 1000) with media errors under two of sector 16's three
# replicas: every read of it returns the data, a failed one served from
# another replica of the same member and rewritten over all three
# (healed, as hddsim's list says), the member kept; with all three bad
# the read fails and the member is still kept (md keeps its last copy)
read16_ok() { dio_read /dev/mapper/arr 16 8 /tmp/r && cmp -s /tmp/r /tmp/A16; }
replica_read_error() {
	fresh
	hdd_create hs0 "$(disk 0)" st39133 time_scale 1000 || die "hddsim over $(disk 0)"
	_l="0 $LEN raidlab sr 6 chunk_size $CHUNK dr 3 geom $GEOM 3 /dev/mapper/hs0 $(disk 1) $(disk 2)"
	check "sr 1x3x1 over an hddsim member: created" dm_create arr "$_l"
	head -c 65536 /dev/urandom >/tmp/A
	dd if=/tmp/A of=/tmp/A16 bs=512 skip=16 count=8 2>/dev/null
	run dd if=/tmp/A of=/dev/mapper/arr bs=64k count=1 oflag=direct conv=fsync
	# sector 16's replicas on member 0: "data:0:S" and "copy:0:S" words
	_reps=$(dmsetup message arr 0 locate 16 | tr ' ' '\n' | grep -E '^(data|copy):0:' | cut -d: -f3)
	log "sector 16's replicas on member 0: $_reps"
	check "sector 16 has 3 replicas on member 0" test "$(echo "$_reps" | wc -l)" = 3
	for _s in $(echo "$_reps" | head -2); do
		run dm_message hs0 addbadblock "$_s" 8
	done
	dmesg -c >/dev/null
	_i=0 _wrong=0
	while [ $_i -lt 40 ] && [ "$(dmsetup message hs0 0 countbadblocks | cut -d' ' -f2)" = 0 ]; do
		dio_read /dev/mapper/arr 16 8 /tmp/r || _wrong=$((_wrong + 1))
		cmp -s /tmp/r /tmp/A16 || _wrong=$((_wrong + 1))
		_i=$((_i + 1))
	done
	log "reads until one hit a bad replica: $_i; hddsim: $(dmsetup message hs0 0 countbadblocks)"
	check "a read hit a bad replica" \
		test "$(dmsetup message hs0 0 countbadblocks | cut -d' ' -f2)" -ge 1
	check "every read returned the data" test $_wrong = 0
	check "the kernel log says another replica served it" \
		sh -c "dmesg | grep -q 'member 0: read error at .*, served from its replica'"
	check "the member stays ($(rl_health arr))" test "$(rl_health arr)" = AAA
	check "the rewrite healed every replica (hddsim: $(dmsetup message hs0 0 countbadblocks))" \
		test "$(dmsetup message hs0 0 countbadblocks | cut -d' ' -f1)" = 0
	for _s in $_reps; do
		run dm_message hs0 addbadblock "$_s" 8
	done
	expect_fail dio_read /dev/mapper/arr 16 8 /tmp/r
	check "no replica readable: the member is still kept ($(rl_health arr))" \
		test "$(rl_health arr)" = AAA
	run dd if=/tmp/A of=/dev/mapper/arr bs=64k count=1 oflag=direct conv=fsync
	check "a write heals them: the data reads back" read16_ok
	run dm_remove arr
	run dm_remove hs0
}
replica_read_error

# ---- a waiting write that no replica can serve (dm 1, propagate bg) ----
# sr 1x3x1 as above with its metadata on the pmem (first writes recorded,
# the others propagated when idle), member 0's reads taking 200 ms
# (dm-delay over the hddsim disk): while a read load keeps it busy,
# sector 16's write waits; then every replica of it on member 0 goes
# bad, and once the load stops its propagation cannot read it: the
# range is recorded bad (the entry goes: nothing waits, and the kernel
# log says so), the member is kept, reads of it fail until a write
# covers it, and that write reads back
lost_pending() {
	fresh
	hdd_create hs0 "$(disk 0)" st39133 time_scale 1000 || die "hddsim over $(disk 0)"
	dm_create dly0 "0 $(sectors /dev/mapper/hs0) delay /dev/mapper/hs0 0 200 /dev/mapper/hs0 0 0" ||
		die "delay over hs0"
	# assume_clean: its resync would read the 200 ms member for a minute,
	# and no check below reads what the resync would make alike
	_l="0 $LEN raidlab sr 9 chunk_size $CHUNK dr 3 assume_clean metadata $MD geom $GEOM 3 /dev/mapper/dly0 $(disk 1) $(disk 2)"
	check "sr 1x3x1, pmem records, over an hddsim member: created" dm_create arr "$_l"
	check "sr 1x3x1 pmem: idle, nothing to resync" rl_wait_sync arr 10
	head -c 65536 /dev/urandom >/tmp/A
	dd if=/tmp/A of=/tmp/A16 bs=512 skip=16 count=8 2>/dev/null
	busy_start
	run dd if=/tmp/A of=/dev/mapper/arr bs=64k count=1 oflag=direct conv=fsync
	_p=$(prop 2)
	check "sr 1x3x1 pmem: the write waits while the members are busy ($_p pending)" \
		test "$_p" -gt 0
	for _s in $(dmsetup message arr 0 locate 16 | tr ' ' '\n' |
		    grep -E '^(data|copy):0:' | cut -d: -f3); do
		run dm_message hs0 addbadblock "$_s" 8
	done
	_mk=$(dmesg_mark)
	busy_stop
	check "sr 1x3x1 pmem: the unreadable write's entry goes (nothing waits)" drained 60
	check "sr 1x3x1 pmem: the kernel log says its range was recorded bad" \
		dmesg_has "$_mk" "no member could read its write's replica: recorded bad"
	check "sr 1x3x1 pmem: the member stays ($(rl_health arr))" test "$(rl_health arr)" = AAA
	expect_fail dio_read /dev/mapper/arr 16 8 /tmp/r
	run dd if=/tmp/A of=/dev/mapper/arr bs=64k count=1 oflag=direct conv=fsync
	check "sr 1x3x1 pmem: a write covers it: the data reads back" read16_ok
	run dm_remove arr
	run dm_remove dly0
	run dm_remove hs0
}
lost_pending

# ---- refused tables ----
fresh
# shellcheck disable=SC2046
dm_refused raidlab "0 $LEN raidlab sr 2 dr 3 6 $(disks 6)" \
	"sr needs geom (the members' geometry)"
# shellcheck disable=SC2046
dm_refused raidlab "0 $LEN raidlab sr 2 geom heads=6 6 $(disks 6)" \
	"Invalid geom: a geometry line (raidlab-sched.rst)"
# shellcheck disable=SC2046
dm_refused raidlab "0 $LEN raidlab sr 6 dr 4 dm 1 geom $GEOM 6 $(disks 6)" \
	"sr: the members must be a multiple of dr times dm"
# shellcheck disable=SC2046
dm_refused raidlab "0 $LEN raidlab sr 4 dr 7 geom $GEOM 6 $(disks 6)" "Invalid dr"
_g=$(echo "$GEOM" | sed 's/heads=6/heads=2/')
# shellcheck disable=SC2046
dm_refused raidlab "0 $LEN raidlab sr 4 dr 3 geom $_g 6 $(disks 6)" \
	"dr is above the geometry's heads (replicas share a cylinder)"
# shellcheck disable=SC2046
dm_refused raidlab "0 $LEN raidlab raid10 2 dr 2 4 $(disks 4)" "dr needs the sr scheme"
# shellcheck disable=SC2046
dm_refused raidlab "0 $((1 << 30)) raidlab sr 2 geom $GEOM 6 $(disks 6)" \
	"Target length exceeds the members' capacity"
# shellcheck disable=SC2046
dm_refused raidlab "0 $LEN raidlab sr 4 propagate later geom $GEOM 6 $(disks 6)" \
	"Invalid propagate: fg or bg"
# shellcheck disable=SC2046
dm_refused raidlab "0 $LEN raidlab sr 6 dr 2 propagate bg geom $GEOM 6 $(disks 6)" \
	"propagate bg needs a metadata device (its write-intent bitmap)"
# shellcheck disable=SC2046
dm_refused raidlab "0 $LEN raidlab sr 4 table_entries 0 geom $GEOM 6 $(disks 6)" \
	"Invalid table_entries"
finish
