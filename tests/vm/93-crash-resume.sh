#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A crash during a rebuild and during a resync (issue 13, "Tests that must
# exist"): the job resumes from its checkpoint, check finds 0 afterwards,
# and the data written with fio verify before the crash still verifies.
#
# raid5 over 4 members (32 MiB of data each), dm-bufio metadata on a plain
# disk. The job is slowed with sync_rate, and the "crash" image is taken
# once its synced count is past a few checkpoints (every 2 s): the
# metadata first, then the members (O_DIRECT), while the array runs. The
# image is written back and the array assembled again: the job must be
# under way at load from a checkpoint above 0 (not restarted) and at
# most the count seen when the image was taken (the kernel log says
# where it resumes: "... resumes at member sector N"); it then runs to its end, check finds 0 and the data verifies.
#
#   rebuild  member 1 failed with a spare: the spare rebuilds role 1; the
#            image is dirty (intent bits clear lazily) and degraded (a
#            rebuilding member), so without a journal the table is refused
#            ("... start_dirty_degraded forces it") and then given with
#            start_dirty_degraded
#   resync   a new array (no assume_clean) over members holding old data,
#            written with fio while it resyncs
# vm-opts: --disks 6 --timeout 900
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

MDDISK=$(disk 5)
DATA_MB=32
LEN=$((3 * DATA_MB * 2048))	# 3 data columns of 32 MiB
MEMBER_MB=$((DATA_MB + 1))	# with the 1 MiB superblock area
MD_MB=8
RATE=${RL_RESUME_RATE:-1024}	# KiB/s: about 30 s for a member
IMG=/tmp/cr

# synced NAME: the job's synced sectors; action NAME: the sync action
synced() { rl_sync "$1" | awk '{ split($2, a, "/"); print a[1] }'; }
action() { rl_sync "$1" | cut -d' ' -f1; }

# image save|load DEV...: the metadata disk first (its checkpoint is then
# no later than what the members hold), then each DEV
image() {
	_op=$1
	shift
	if [ "$_op" = save ]; then
		dd if="$MDDISK" of="$IMG.md" bs=1M count=$MD_MB iflag=direct 2>/dev/null || return 1
	else
		dd if="$IMG.md" of="$MDDISK" bs=1M oflag=direct conv=fsync 2>/dev/null || return 1
	fi
	_i=0
	for _d in "$@"; do
		if [ "$_op" = save ]; then
			dd if="$_d" of="$IMG.$_i" bs=1M count=$MEMBER_MB iflag=direct 2>/dev/null ||
				return 1
		else
			dd if="$IMG.$_i" of="$_d" bs=1M oflag=direct conv=fsync 2>/dev/null || return 1
		fi
		_i=$((_i + 1))
	done
}

# wait_past NAME ACTION SECTORS SECS: until ACTION has synced past SECTORS
wait_past() {
	_t=0
	while [ "$(action "$1")" != "$2" ] || [ "$(synced "$1")" -le "$3" ]; do
		_t=$((_t + 1))
		[ $_t -gt $(($4 * 10)) ] && return 1
		sleep 0.1
	done
}

# crash_resume WHAT ACTION TABLE FORCED DEV...: image taken mid-job,
# written back, the array assembled again with TABLE; if FORCED is not
# empty, TABLE must be refused as dirty and degraded and FORCED (with
# start_dirty_degraded) taken
crash_resume() {
	_w=$1 _a=$2 _tab=$3 _forced=$4
	[ "$_a" = recover ] && _lw=rebuild || _lw=resync
	shift 4
	# past three checkpoints' worth: 6 s of work at RATE (KiB/s of a
	# member: 2 * RATE member sectors, 3 data columns of array sectors)
	_past=$((RATE * 2 * 3 * 6))
	check "$_w: $_a under way past $_past sectors" wait_past arr "$_a" "$_past" 120
	# Foreground writes move the cursor too (full rows at the cursor), so
	# the count can get there before any checkpoint: a checkpoint comes at
	# the end of the worker's first range 2 s after the last one, that is
	# within 2 s plus one throttled range (1 s at RATE). Give it those.
	sleep 3
	# Intent bits clear lazily: a region idle for a whole clear period
	# (5 s) is cleared, so the bits of the writes above may be gone by
	# now. A 4 KiB write outside fio's 64 MiB sets one just before the
	# image (the pass after it keeps a region used since the last), so
	# the image is dirty for sure.
	head -c 4096 /dev/urandom >/tmp/cr.blk
	check "$_w: a write just before the image" dio_write /dev/mapper/arr $((LEN - 8)) /tmp/cr.blk
	_s1=$(synced arr)
	image save "$@" || die "cannot save the image"
	_s2=$(synced arr)
	log "$_w: image taken at $_a $_s1..$_s2 of $(rl_sync arr | cut -d/ -f2) ($(rl_health arr))"
	check "$_w: the job still ran when the image was taken" test "$(action arr)" = "$_a"
	run dm_remove arr
	image load "$@" || die "cannot write the image back"
	if [ -n "$_forced" ]; then
		dm_refused raidlab "$_tab" \
			"Dirty and degraded with no journal: start_dirty_degraded forces it"
		_tab=$_forced
	fi
	_before=$(dmesg_mark)
	run dm_create arr "$_tab"
	log "$_w: assembled again: $(rl_health arr) $(rl_sync arr)"
	# where the checkpoint has the job resume, from the kernel log (the
	# status may already be past it: a new table runs at full speed), in
	# array sectors (3 data columns of each member sector)
	_m=$(dmesg_since "$_before" |
		sed -n "s/.*$_lw resumes at member sector \([0-9]*\).*/\1/p" | head -n1)
	_s0=$((${_m:-0} * 3))
	check "$_w: the $_a resumes at load (the kernel log says where: ${_m:-nothing})" \
		test -n "$_m"
	check "$_w: from its checkpoint, not from 0 ($_s0 > 0)" test "$_s0" -gt 0
	check "$_w: a checkpoint no later than the image ($_s0 <= $_s2)" test "$_s0" -le "$_s2"
	check "$_w: the $_a finishes" rl_wait_sync arr 300
	check "$_w: health AAAA" test "$(rl_health arr)" = AAAA
	check "$_w: data written before the crash verifies" fio_verify /dev/mapper/arr 64M
	check "$_w: check after the $_a: 0" test "$(rl_scrub arr check 300)" = 0
	run dm_remove arr
}

M="$(disks 4)"
SP=$(disk 4)

# ---------------------------------------------------------- rebuild ---
for d in $(disks 6); do wipe "$d" 4 || die "wipe $d"; done
_o="chunk_size 128 assume_clean metadata $MDDISK spare $SP"
run dm_create arr "0 $LEN raidlab raid5 $(echo "$_o" | wc -w) $_o 4 $M"
FIO_RW=write FIO_BS=64k check "rebuild: data written" fio_write /dev/mapper/arr 64M
run dm_message arr sync_rate "$RATE"
run dm_message arr fail 1
i=0
while [ "$(rl_health arr)" != AaAA ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check "rebuild: the spare took role 1 (AaAA)" test "$(rl_health arr)" = AaAA
# the spare in role 1 (as `dmsetup table` has it now), no spare left
log "rebuild: table $(dm_table arr)"
R="$(disk 0) $SP $(disk 2) $(disk 3)"
_o="chunk_size 128 assume_clean metadata $MDDISK"
TABLE="0 $LEN raidlab raid5 $(echo "$_o" | wc -w) $_o 4 $R"
# a rebuilding member is not in sync: with the intent bits of the writes
# still set (they clear lazily) the image is dirty and degraded, and
# without a journal (dm-bufio) that needs start_dirty_degraded
_o="$_o start_dirty_degraded"
FORCED="0 $LEN raidlab raid5 $(echo "$_o" | wc -w) $_o 4 $R"
# shellcheck disable=SC2086
FIO_RW=write FIO_BS=64k crash_resume rebuild recover "$TABLE" "$FORCED" $R

# ----------------------------------------------------------- resync ---
# old data on the members (the array above), a new array over them: the
# resync has real work; fio writes while it runs
wipe "$MDDISK" 16 || die "wipe metadata"
for d in $M; do dd if=/dev/zero of="$d" bs=1M count=1 conv=fsync 2>/dev/null; done
_o="chunk_size 128 metadata $MDDISK"
TABLE="0 $LEN raidlab raid5 $(echo "$_o" | wc -w) $_o 4 $M"
run dm_create arr "$TABLE"
run dm_message arr sync_rate "$RATE"
check "resync: a new array resyncs" test "$(action arr)" = resync
FIO_RW=write FIO_BS=64k FIO_RUNTIME=10 check "resync: data written while it resyncs" \
	fio_write /dev/mapper/arr 64M
# shellcheck disable=SC2086
FIO_RW=write FIO_BS=64k crash_resume resync resync "$TABLE" "" $M

rm -f "$IMG".*
finish
