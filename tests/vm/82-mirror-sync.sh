#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The mirror's background jobs under foreground load (fio with verify):
#   1. check, run again and again while fio writes, finds 0 mismatches: the
#      window lock keeps the copies' comparison and the writes apart;
#   2. repair under the same load changes nothing and loses nothing;
#   3. 1 MiB of member 1 spoilt under the array: check counts exactly its
#      2048 sectors, repair fixes them from member 0, check finds 0 again,
#      the members' data areas are identical and the data verifies;
#   4. a member failed under load: writes go on, data verifies, check is
#      refused while degraded; with a metadata device (target >= 1.2: table
#      options metadata and spare) the array created again with a spare
#      rebuilds the role under load (the spare held garbage), then check
#      finds 0 and the members' data areas (spare included) are identical.
# With dm-raidlab < 1.2 the array has no metadata device and part 4 ends
# before the spare (said in the log).
# vm-opts: --disks 4 --timeout 1500
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

LEN=131072		# 64 MiB of array
FIO_SIZE=48M
MD=0
DOFF=0
ver=$(dmsetup targets | awk '$1 == "raidlab" { print $2 }' | tr -d v)
major=${ver%%.*}
minor=${ver#*.}
minor=${minor%%.*}
if [ "${major:-0}" -gt 1 ] || { [ "${major:-0}" = 1 ] && [ "${minor:-0}" -ge 2 ]; } &&
	[ "${RL_PMEM:-0}" = 1 ]; then
	MD=1
	DOFF=2048	# RL_MD_DATA_OFFSET
fi
log "raidlab target $ver, metadata device: $MD"

M0=$(disk 0)
M1=$(disk 1)
M2=$(disk 2)
SPARE=$(disk 3)
if [ $MD = 1 ]; then
	for d in "$M0" "$M1" "$M2" "$SPARE" "$(pmem_dev)"; do
		wipe "$d" || die "wipe $d"
	done
	# garbage in the spare's data area: a rebuild that skips a sector
	# leaves it there
	dd if=/dev/urandom of="$SPARE" bs=1M seek=$((DOFF / 2048)) \
		count=$((LEN / 2048)) oflag=direct 2>/dev/null || die "fill the spare"
	OPTS="metadata $(pmem_dev)"
else
	OPTS=
fi

table() { # extra options
	RL_LEN=$LEN RL_OPTS="$OPTS${1:+ $1}" rl_table mirror 128 "$M0" "$M1" "$M2"
}

# md5 of a member's data area
area_sum() { dd if="$1" bs=1M skip=$((DOFF / 2048)) count=$((LEN / 2048)) iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }

# fio writes in the background; BG_PID
fio_bg() {
	FIO_RUNTIME=$1 fio_write /dev/mapper/arr $FIO_SIZE >/tmp/fio_bg.log 2>&1 &
	BG_PID=$!
}

# load_done WHAT: the background fio ended well, and its data verifies
load_done() {
	wait $BG_PID
	_rc=$?
	cat /tmp/fio_bg.log
	check "fio write pass $1 ok" test $_rc = 0
	drop_caches
	check "data written $1 verifies" fio_verify /dev/mapper/arr $FIO_SIZE
}

# scrub_under_load JOB: run JOB again and again while fio writes; every run
# must count 0 mismatches
scrub_under_load() {
	_runs=0
	_bad=0
	fio_bg 40
	sleep 2
	while kill -0 $BG_PID 2>/dev/null; do
		_n=$(rl_scrub arr "$1" 300)
		_runs=$((_runs + 1))
		log "$1 $_runs under load: ${_n:-?} mismatched sectors"
		[ "$_n" = 0 ] || _bad=$((_bad + 1))
	done
	wait $BG_PID
	_rc=$?
	cat /tmp/fio_bg.log
	check "$1 under fio: fio write pass ok" test $_rc = 0
	check "$1 under fio: ran $_runs times" test $_runs -ge 1
	check "$1 under fio: every run found 0 mismatches ($_bad did not)" test $_bad = 0
	check "$1 under fio: written data verifies" fio_verify /dev/mapper/arr $FIO_SIZE
}

check "create a 3-way mirror (metadata: $MD)" dm_create arr "$(table)"
log "status: $(dm_status arr)"
# a new array with a metadata device resyncs first (a scrub would wait)
check "initial resync finishes" rl_wait_sync arr 300
n=$(rl_scrub arr repair 300)
log "initial repair: ${n:-?} mismatched sectors"
check "check after the first repair: 0" test "$(rl_scrub arr check 300)" = 0

# 1, 2: scrubs and writes together
scrub_under_load check
scrub_under_load repair

# 3: spoil 1 MiB of member 1's data, 512 KiB into the data area
dd if=/dev/urandom of="$M1" bs=64K count=16 seek=$((DOFF / 128 + 8)) \
	oflag=direct conv=notrunc,fsync 2>/dev/null || die "cannot spoil member 1"
n=$(rl_scrub arr check 300)
log "check after spoiling member 1: ${n:-?}"
check "check counts the 2048 spoilt sectors" test "$n" = 2048
check "status shows the count" test "$(rl_mismatches arr)" = 2048
n=$(rl_scrub arr repair 300)
check "repair counts them too" test "$n" = 2048
check "check after repair: 0" test "$(rl_scrub arr check 300)" = 0
s0=$(area_sum "$M0")
check "member 1's data area equals member 0's" test "$(area_sum "$M1")" = "$s0"
check "member 2's data area equals member 0's" test "$(area_sum "$M2")" = "$s0"
drop_caches
check "data verifies after the repair" fio_verify /dev/mapper/arr $FIO_SIZE

# 4: fail member 2 under load; then, with a metadata device, the array is
# created again with a spare (a second table over a live metadata device is
# refused, so no reload), which takes role 2 and is rebuilt under load
fio_bg 20
sleep 3
check "fail member 2 under load" dm_message arr fail 2
log "status: $(dm_status arr)"
check "member 2 shows dead" test "$(rl_health arr)" = AAD
expect_fail dm_message arr check
load_done "through the failure"
if [ $MD = 1 ]; then
	check "stop the degraded array" dm_remove arr
	before=$(dmesg_mark)
	check "create it again with a spare" dm_create arr "$(table "spare $SPARE")"
	fio_bg 20
	check "the spare takes role 2 and rebuilds" \
		dmesg_has "$before" "member 2 (.*) rebuilding"
	log "status after the spare came in: $(dm_status arr)"
	check "the rebuild finishes" rl_wait_sync arr 600
	check "member 2 in sync" test "$(rl_health arr)" = AAA
	log "status after the rebuild: $(dm_status arr)"
	load_done "during the rebuild"
	check "check after the rebuild: 0" test "$(rl_scrub arr check 300)" = 0
	s0=$(area_sum "$M0")
	check "member 1's data area equals member 0's" test "$(area_sum "$M1")" = "$s0"
	check "the spare's data area equals member 0's" test "$(area_sum "$SPARE")" = "$s0"
else
	log "no metadata device (target $ver): rebuild onto a spare not tested"
fi
check "remove" dm_remove arr
finish
