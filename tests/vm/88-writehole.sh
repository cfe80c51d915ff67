#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The raid5 write hole, made deterministic, closed by the journal.
#
# raid5 over 4 disks, metadata on /dev/rl/pmem (DAX). Row 0 is written
# whole and flushed (data chunks D0 D1 D2 on members 0 1 2, parity on
# member 3). Member 3 sits under a dm-delay that, from then on, holds
# writes for 30 s. A 4 KiB write to D0 then lands on member 0 while its
# parity write waits in dm-delay: data written, parity not. The "crash"
# is an image of the members and the pmem taken at that moment (read
# directly from the disks, O_DIRECT); it is written back after the array
# is gone, and the array is assembled again with member 1 missing. D1,
# acknowledged and flushed long before, is then rebuilt from D0, D2 and the
# parity: it must read back intact, because the journal record of the
# torn write was replayed at construction. The same sequence with
# `journal off` must lose it (D1 xor old D0 xor new D0): the negative
# control shows the test can fail. A third round keeps the metadata on a
# plain disk (dm-bufio) with `journal on`: the same replay through dm-bufio.
#
# The fourth round is the degraded full-row write (1.10.4): member 1 is
# missing from the start, and row 0 is written whole again while the
# parity write waits in dm-delay. D0 and D2 land, the parity does not;
# D1 (never on a disk) is rebuilt from them and the parity after the
# crash, and must read back as its old or its new value. Before 1.10.4 a
# full-row write was never journaled, and D1 read back as old D1 xor the
# changes of D0 and D2: neither.
# vm-opts: --disks 5 --timeout 900
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab
modprobe dm-delay || skip "no dm-delay"

pm=$(pmem_dev)
m0=$(disk 0)
m1=$(disk 1)
m2=$(disk 2)
m3=$(disk 3)
m4=$(disk 4)
MD=$pm
L=24576			# 64 rows of 3 x 64 KiB: 4 MiB of each member
IMG=/tmp/crash
MEMBER_MB=6		# 1 MiB of superblock area + 4 MiB of data, rounded up
PMEM_MB=40		# superblocks, bitmap and the journal area (~16 MiB)

# r5_line OPTS DEV0 DEV1 DEV2 DEV3
r5_line() {
	_o="chunk_size 128 assume_clean metadata $MD${1:+ $1}"
	shift
	echo "0 $L raidlab raid5 $(echo "$_o" | wc -w) $_o 4 $*"
}

# read4k DEV SECTOR: 4 KiB at SECTOR, uncached, as hex
read4k() { dd if="$1" bs=512 skip="$2" count=8 iflag=direct 2>/dev/null | od -An -tx1 | tr -d ' \n'; }

image() { # save|load
	for _i in 0 1 2 3; do
		if [ "$1" = save ]; then
			dd if="/dev/rl/m$_i" of="$IMG.m$_i" bs=1M count=$MEMBER_MB iflag=direct 2>/dev/null || return 1
		else
			dd if="$IMG.m$_i" of="/dev/rl/m$_i" bs=1M oflag=direct conv=fsync 2>/dev/null || return 1
		fi
	done
	if [ "$1" = save ]; then
		dd if="$MD" of="$IMG.md" bs=1M count=$PMEM_MB iflag=direct 2>/dev/null
	else
		dd if="$IMG.md" of="$MD" bs=1M oflag=direct conv=fsync 2>/dev/null
	fi
}

dd if=/dev/urandom of=/tmp/row bs=64K count=3 2>/dev/null || die "row pattern"
dd if=/dev/urandom of=/tmp/new bs=4K count=1 2>/dev/null || die "new pattern"
dd if=/tmp/row of=/tmp/d1 bs=64K skip=1 count=1 2>/dev/null || die "d1"
dd if=/dev/urandom of=/tmp/row2 bs=64K count=3 2>/dev/null || die "row2 pattern"
dd if=/tmp/row2 of=/tmp/d1new bs=64K skip=1 count=1 2>/dev/null || die "d1new"
new0_hex=$(dd if=/tmp/row2 bs=4K count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')
new2_hex=$(dd if=/tmp/row2 bs=64K skip=2 count=1 2>/dev/null | head -c 4096 | od -An -tx1 | tr -d ' \n')
new_hex=$(od -An -tx1 /tmp/new | tr -d ' \n')

# delay_writes MS: member 3's dm-delay holds its writes MS ms (0: none)
delay_writes() {
	_t="0 $(sectors "$m3") delay $m3 0 0"
	[ "$1" = 0 ] || _t="$_t $m3 0 $1"
	dmsetup suspend dly && echo "$_t" | dmsetup load dly && dmsetup resume dly
}

# round NAME OPTS JOURNAL: the torn write and the crash, then assembly with member 1
# missing; leaves the comparison of D1 in $D1_OK (1 intact, 0 lost)
round() {
	_n=$1
	_opts=$2
	log "---- $_n: ${_opts:-journal by default} ----"
	for _d in "$m0" "$m1" "$m2" "$m3"; do wipe "$_d" 8 || die "wipe $_d"; done
	wipe "$MD" $PMEM_MB || die "wipe the metadata device"
	dm_create dly "0 $(sectors "$m3") delay $m3 0 0" || die "dm-delay"
	check "$_n: created" dm_create r5 "$(r5_line "$_opts" "$m0" "$m1" "$m2" /dev/mapper/dly)"
	dmsetup status r5
	_j=$(rl_jnl r5)
	log "journal fields: $_j"
	check "$_n: journal is ${3}" test "${_j%% *}" = "$3"

	# row 0 whole (a full-row write: not journaled), flushed
	run dd if=/tmp/row of=/dev/mapper/r5 bs=192K count=1 oflag=direct conv=fsync
	check "$_n: the full-row write is not journaled" \
		test "$(rl_jnl r5 | cut -d' ' -f2)" = "$(echo "$_j" | cut -d' ' -f2)"
	_oldp=$(read4k "$m3" 2048)

	# member 3 holds its writes from now on
	delay_writes 30000 || die "delay writes on member 3"
	dd if=/tmp/new of=/dev/mapper/r5 bs=4K count=1 oflag=direct 2>/dev/null &
	_pid=$!
	_i=0
	while [ "$(read4k "$m0" 2048)" != "$new_hex" ]; do
		_i=$((_i + 1))
		[ $_i -gt 100 ] && break
		sleep 0.1
	done
	sleep 0.5
	check "$_n: the data write landed on member 0" test "$(read4k "$m0" 2048)" = "$new_hex"
	check "$_n: the parity write did not land on member 3" test "$(read4k "$m3" 2048)" = "$_oldp"
	check "$_n: the write is still in flight" kill -0 $_pid
	log "journal fields at the crash: $(rl_jnl r5)"

	# the crash: the disks and the pmem as they are now
	check "$_n: crash image taken" image save

	# let the held write go, and take the array down
	delay_writes 0 || die "release member 3"
	wait $_pid
	dm_remove r5 || die "remove r5"
	dm_remove dly || die "remove dly"

	check "$_n: crash image written back" image load
	_before=$(dmesg_mark)
	case $_opts in
	*"journal off"*)
		# dirty and degraded with no journal: refused unless forced (1.6.0)
		dm_refused raidlab "$(r5_line "$_opts" "$m0" - "$m2" "$m3")" \
			"Dirty and degraded with no journal: start_dirty_degraded forces it"
		_opts="$_opts start_dirty_degraded"
		;;
	esac
	check "$_n: assembled with member 1 missing" \
		dm_create r5 "$(r5_line "$_opts" "$m0" - "$m2" "$m3")"
	dmsetup status r5
	dmesg_since "$_before" | grep raidlab | sed 's/^/    /'
	REPLAYED=$(dmesg_since "$_before" | grep -c 'journal: 1 records replayed')
	drop_caches
	dd if=/dev/mapper/r5 of=/tmp/d1.read bs=64K skip=1 count=1 iflag=direct 2>/dev/null ||
		die "$_n: read D1"
	if cmp -s /tmp/d1 /tmp/d1.read; then D1_OK=1; else D1_OK=0; fi
	D0_HEX=$(read4k /dev/mapper/r5 0)
	dm_remove r5 || die "remove r5"
}

# full_round: the degraded full-row write, torn, and the crash (DAX journal)
full_round() {
	log "---- degraded full row ----"
	for _d in "$m0" "$m1" "$m2" "$m3"; do wipe "$_d" 8 || die "wipe $_d"; done
	wipe "$MD" $PMEM_MB || die "wipe the metadata device"
	dm_create dly "0 $(sectors "$m3") delay $m3 0 0" || die "dm-delay"
	dm_create r5 "$(r5_line "" "$m0" "$m1" "$m2" /dev/mapper/dly)" || die "create"
	run dd if=/tmp/row of=/dev/mapper/r5 bs=192K count=1 oflag=direct conv=fsync
	dm_remove r5 || die "remove r5"
	check "full row: assembled with member 1 missing" \
		dm_create r5 "$(r5_line "" "$m0" - "$m2" /dev/mapper/dly)"
	_j=$(rl_jnl r5 | cut -d' ' -f2)
	_oldp=$(read4k "$m3" 2048)

	delay_writes 30000 || die "delay writes on member 3"
	dd if=/tmp/row2 of=/dev/mapper/r5 bs=192K count=1 oflag=direct 2>/dev/null &
	_pid=$!
	_i=0
	until [ "$(read4k "$m0" 2048)" = "$new0_hex" ] &&
	      [ "$(read4k "$m2" 2048)" = "$new2_hex" ]; do
		_i=$((_i + 1))
		[ $_i -gt 100 ] && break
		sleep 0.1
	done
	sleep 0.5
	check "full row: D0 and D2 landed" test "$(read4k "$m0" 2048)" = "$new0_hex" -a \
		"$(read4k "$m2" 2048)" = "$new2_hex"
	check "full row: the parity write did not land" test "$(read4k "$m3" 2048)" = "$_oldp"
	check "full row: the write is still in flight" kill -0 $_pid
	check "full row: the degraded full-row write is journaled" \
		test "$(rl_jnl r5 | cut -d' ' -f2)" -gt "$_j"
	check "full row: crash image taken" image save

	delay_writes 0 || die "release member 3"
	wait $_pid
	dm_remove r5 || die "remove r5"
	dm_remove dly || die "remove dly"

	check "full row: crash image written back" image load
	_before=$(dmesg_mark)
	check "full row: assembled again with member 1 missing" \
		dm_create r5 "$(r5_line "" "$m0" - "$m2" "$m3")"
	dmesg_since "$_before" | grep raidlab | sed 's/^/    /'
	REPLAYED=$(dmesg_since "$_before" | grep -c 'journal: 1 records replayed')
	drop_caches
	dd if=/dev/mapper/r5 of=/tmp/d1.read bs=64K skip=1 count=1 iflag=direct 2>/dev/null ||
		die "full row: read D1"
	if cmp -s /tmp/d1 /tmp/d1.read; then D1_OK=old
	elif cmp -s /tmp/d1new /tmp/d1.read; then D1_OK=new
	else D1_OK=neither; fi
	dm_remove r5 || die "remove r5"
}

round journal "" dax
check "journal: the torn write's record was replayed" test "$REPLAYED" = 1
check "journal: member 1's flushed data rebuilt intact" test "$D1_OK" = 1
check "journal: the torn write reads back whole (replayed)" test "$D0_HEX" = "$new_hex"

round "journal off" "journal off" off
check "journal off: nothing replayed" test "$REPLAYED" = 0
check "journal off (negative control): member 1's data is lost" test "$D1_OK" = 0

full_round
check "full row: the torn full-row write's record was replayed" test "$REPLAYED" = 1
check "full row: D1 reads back as its new value (was: $D1_OK)" test "$D1_OK" = new

MD=$m4
round "bufio journal on" "journal on" bufio
check "bufio journal on: the torn write's record was replayed" test "$REPLAYED" = 1
check "bufio journal on: member 1's flushed data rebuilt intact" test "$D1_OK" = 1
check "bufio journal on: the torn write reads back whole" test "$D0_HEX" = "$new_hex"

finish
