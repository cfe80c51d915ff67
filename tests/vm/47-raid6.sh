#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# raid6 (P+Q):
#   0. Six members, no metadata: small writes are read-modify-writes (old
#      data, P and Q read; lib/raid6's xor_syndrome), fio verifies them and
#      a check finds 0 mismatches.
# Then five members (dm-linear wrapped, so that an error target can be
# swapped in under one) with a metadata device (pmem: the write-intent
# bitmap and the write-hole journal, which logs the Q writes too):
#   1. fio writes and verifies; a check finds 0 mismatches.
#   2. Under a verifying fio load one member fails (error target), then a
#      second: the load's verify passes, the array is degraded (two D), the
#      pattern verifies through double-degraded reads and new writes verify.
#   3. The array is created again with two spares (garbage in them): both
#      take the failed roles and are rebuilt, under a verifying load; then
#      the pattern verifies and a check finds 0 mismatches.
#   4. The negative control: 8 sectors of a Q chunk corrupted directly on a
#      member make check count 8, repair fixes them (and counts them), and
#      a check then finds 0; a corrupted data chunk is seen as well.
#   5. A third failure fails the array: reads and writes get I/O errors and
#      the status says failed (no oops: the harness checks the log).
# vm-opts: --disks 7 --timeout 1200
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

PM=$(pmem_dev) || skip "no pmem"
N=5
MB=32				# MiB of each member the array uses
LEN=$((MB * 2048 * (N - 2)))	# array sectors
CHUNK=64
DOFF=2048			# RL_MD_DATA_OFFSET: members' data start at 1 MiB
SIZE=$(tier 16M 32M)		# the pattern, written first
S1=$(disk 5)
S2=$(disk 6)

# table [spares]: the line over the wrapped members
table() {
	_w="chunk_size $CHUNK assume_clean metadata $PM"
	for _s in "$@"; do _w="$_w spare $_s"; done
	set -- $_w
	echo "0 $LEN raidlab raid6 $# $_w $N $MEMS"
}

wait_rebuilt() {
	_i=0
	while [ "$(rl_state arr)" != optimal ] || rl_health arr | grep -q a; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($1 * 5)) ] && return 1
		sleep 0.2
	done
}

relinear() { # I: the wrapped member I over its disk again
	_d=$(disk "$1")
	dmsetup suspend --noflush "rlm$1" &&
		echo "0 $(sectors "$_d") linear $_d 0" | dmsetup load "rlm$1" &&
		dmsetup resume "rlm$1"
}

# -- 0: six members, read-modify-write --------------------------------
for d in $(disks 6); do
	dd if=/dev/zero of="$d" bs=1M count=$MB oflag=direct 2>/dev/null || die "zero $d"
done
# shellcheck disable=SC2046
check "create raid6 n=6" dm_create arr6 \
	"0 $((MB * 2048 * 4)) raidlab raid6 3 chunk_size $CHUNK assume_clean 6 $(disks 6)"
check "n=6: random 4k writes" fio_write /dev/mapper/arr6 16M
set -- $(rl_counters arr6)
log "n=6 counters: $* (lr lw dr dw pr pw)"
# each write inside one chunk: old data, P and Q read; data, P and Q written
check "n=6: read-modify-write (parity reads = 2 x data reads > 0)" \
	test "$3" -gt 0 -a "$5" = $(($3 * 2)) -a "$6" = $(($4 * 2))
drop_caches
check "n=6: the writes verify" fio_verify /dev/mapper/arr6 16M
check "n=6: check finds 0 mismatches" test "$(rl_scrub arr6 check 300)" = 0
check "n=6: remove" dm_remove arr6

# zeroes in the members' areas (assume_clean holds), garbage in the spares'
wipe "$PM" 4
MEMS=$(rl_wrap_members rlm $N)
for d in $MEMS; do
	dd if=/dev/zero of="$d" bs=1M count=$((MB + 2)) oflag=direct 2>/dev/null ||
		die "zero $d"
done
for d in "$S1" "$S2"; do
	wipe "$d" 2
	dd if=/dev/urandom of="$d" bs=1M seek=$((DOFF / 2048)) count=$MB \
		oflag=direct 2>/dev/null || die "fill $d"
done

# -- 1: healthy ----------------------------------------------------------
check "create raid6 n=$N with metadata" dm_create arr "$(table)"
log "status: $(dm_status arr)"
check "scheme raid6, 5 members, optimal" test "$(rl_st arr 1) $(rl_st arr 2) $(rl_state arr)" = "raid6 5 optimal"
check "pattern written and verified" fio_write_then_verify /dev/mapper/arr $SIZE
set -- $(rl_counters arr)
log "counters: $* (lr lw dr dw pr pw); journal: $(rl_jnl arr)"
# small random writes: read-modify-write of P and Q, both written
check "P and Q written: parity writes >= 2 x data writes" test "$6" -ge $(($4 * 2))
if [ "$(rl_jnl arr | cut -d' ' -f1)" != off ]; then
	check "journal logged partial-row writes" test "$(rl_jnl arr | cut -d' ' -f2)" -gt 0
else
	log "no journal (metadata not DAX): journal not tested"
fi
check "check on the healthy array: 0 mismatches" test "$(rl_scrub arr check 300)" = 0

# -- 2: two failures under a verifying load ------------------------------
rl_load_start arr $SIZE 16M 16
sleep 3
check "member 1 fails (error target) under load" rl_swap_error rlm1
sleep 4
check "member 3 fails (error target) under load" rl_swap_error rlm3
rl_load_done "two failures"
# a member fails on its first I/O error: make sure both have seen one
dd if=/dev/mapper/arr of=/dev/null bs=1M count=8 iflag=direct 2>/dev/null
log "status: $(dm_status arr)"
check "members 1 and 3 dead" test "$(rl_health arr)" = ADADA
check "array degraded (two lost, redundancy 2)" test "$(rl_state arr)" = degraded
drop_caches
check "pattern verifies with two members lost" fio_verify /dev/mapper/arr $SIZE
FIO_STATE_DIR=/tmp/fio.deg FIO_RUNTIME=8 FIO_BS=16k \
	check "double-degraded writes verify" \
	fio_write_then_verify /dev/mapper/arr 16M --offset=64M
expect_fail dm_message arr check

# -- 3: both rebuilt onto spares -----------------------------------------
check "stop the degraded array" dm_remove arr
relinear 1 || die "relinear 1"
relinear 3 || die "relinear 3"
before=$(dmesg_mark)
check "create it again with two spares" dm_create arr "$(table "$S1" "$S2")"
rl_load_start arr $SIZE 16M 12
sleep 1
log "status: $(dm_status arr)"
for m in 1 3; do
	check "a spare rebuilds member $m" \
		dmesg_has "$before" "member $m (.*) rebuilding"
done
t0=$(cut -d' ' -f1 /proc/uptime)
check "both rebuilds end" wait_rebuilt 600
t1=$(cut -d' ' -f1 /proc/uptime)
log "rebuilt in $(echo "$t0 $t1" | awk '{ print $2 - $1 }') s; status: $(dm_status arr)"
rl_load_done "rebuild"
check "optimal, every member in sync" test "$(rl_health arr) $(rl_state arr)" = "AAAAA optimal"
for m in 1 3; do
	check "member $m rebuilt (kernel log)" \
		dmesg_has "$before" "member $m rebuilt"
done
drop_caches
check "pattern verifies after the rebuild" fio_verify /dev/mapper/arr $SIZE
FIO_STATE_DIR=/tmp/fio.deg FIO_BS=16k \
	check "double-degraded writes verify after the rebuild" \
	fio_verify /dev/mapper/arr 16M --offset=64M
check "check after the rebuild: 0 mismatches" test "$(rl_scrub arr check 300)" = 0

# -- 4: the negative control: corrupt Q, and a data chunk ----------------
# Straight onto a member, made durable before the check reads it (without
# conv=fsync busybox dd's write can sit in the page cache, and the check,
# which reads the member with bios, would not see it yet).
corrupt() { # DEV SECTOR COUNT
	dd if=/dev/urandom of="$1" bs=512 seek="$2" count="$3" oflag=direct \
		conv=notrunc,fsync 2>/dev/null && sync && blockdev --flushbufs "$1"
}
# row 0: P on member N - 1, Q on member 0, data on 1 .. N - 2
# (member 0 is still rlm0; its chunk of row 0 is at DOFF)
corrupt /dev/mapper/rlm0 $DOFF 8 || die "corrupt Q"
n=$(rl_scrub arr check 300)
log "check after corrupting 8 sectors of Q: $n"
check "check sees the corrupt Q: 8 mismatched sectors" test "$n" = 8
n=$(rl_scrub arr repair 300)
check "repair counts them too" test "$n" = 8
check "check after repair: 0" test "$(rl_scrub arr check 300)" = 0
# row 1: P on member N - 2, Q on N - 1, data column 0 on member 0
corrupt /dev/mapper/rlm0 $((DOFF + CHUNK + 16)) 2 || die "corrupt data"
n=$(rl_scrub arr check 300)
check "a corrupt data chunk is seen by P and Q: 4" test "$n" = 4
check "repair after the data corruption" test "$(rl_scrub arr repair 300)" = 4
check "check after that repair: 0" test "$(rl_scrub arr check 300)" = 0

# -- 5: a third failure fails the array ----------------------------------
check "fail member 0" dm_message arr fail 0
check "fail member 2" dm_message arr fail 2
check "two lost: degraded" test "$(rl_state arr)" = degraded
check "reads still served" dd if=/dev/mapper/arr of=/dev/null bs=1M count=4 iflag=direct
check "fail member 4" dm_message arr fail 4
log "status: $(dm_status arr)"
check "three lost: failed" test "$(rl_state arr)" = failed
check "health DADAD" test "$(rl_health arr)" = DADAD
drop_caches
expect_fail dd if=/dev/mapper/arr of=/dev/null bs=64k count=16 iflag=direct
expect_fail dd if=/dev/zero of=/dev/mapper/arr bs=64k count=16 oflag=direct
check "remove the failed array" dm_remove arr
for m in 0 1 2 3 4; do dm_remove "rlm$m"; done
finish
