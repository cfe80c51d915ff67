#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Member I/Os per logical write, read from the status counters: a small
# write costs raid0 1, an N-way mirror N, raid5 4 (read-modify-write: old
# data, old parity, new data, new parity); a full-stripe write reads
# nothing. Mirror reads spread over the members. Parity arrays are made
# with assume_clean: no resync I/O, and no full-row writes to unsynced rows.
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

NR=200

# small_writes NAME: NR random 4k direct writes, chunk-aligned so none splits
small_writes() {
	fio --name=small --filename="/dev/mapper/$1" --rw=randwrite --bs=4k \
		--direct=1 --ioengine=psync --size=256M --number_ios=$NR \
		--randrepeat=0 >/dev/null
}

# member_ios NAME: total member I/Os of every kind
member_ios() { rl_counters "$1" | awk '{ print $3 + $4 + $5 + $6 }'; }

for spec in "raid0 4 1" "mirror 3 3" "raid5 5 4" "raid5 6 4" "raid4 5 4"; do
	set -- $spec
	opts=
	[ "$1" = raid0 ] || opts=assume_clean	# no background resync in the counts
	# shellcheck disable=SC2046
	RL_OPTS=$opts check "$1 n=$2: create" rl_create arr "$1" 128 $(disks "$2")
	dm_message arr reset_counters
	small_writes arr
	c=$(rl_counters arr)
	log "$1 n=$2 counters (lr lw dr dw pr pw): $c"
	check "$1 n=$2: $NR logical writes counted" test "$(echo "$c" | awk '{print $2}')" -eq $NR
	check "$1 n=$2: $3 member I/Os per small write" test "$(member_ios arr)" -eq $(($3 * NR))
	if [ "$1" = raid5 ] || [ "$1" = raid4 ]; then
		check "$1 n=$2: RMW = 1 data read + 1 parity read + 1 data write + 1 parity write" \
			test "$(echo "$c" | awk '{print $3, $4, $5, $6}')" = "$NR $NR $NR $NR"
		# full-stripe writes: aligned, one row each
		row=$((64 * 1024 * ($2 - 1)))
		dm_message arr reset_counters
		dd if=/dev/urandom of=/tmp/row bs=$row count=1 2>/dev/null
		i=0
		while [ $i -lt 20 ]; do
			dd if=/tmp/row of=/dev/mapper/arr bs=$row seek=$((i * 7)) count=1 \
				oflag=direct conv=notrunc 2>/dev/null || break
			i=$((i + 1))
		done
		c=$(rl_counters arr)
		log "$1 n=$2 full-stripe counters: $c"
		check "$1 n=$2: full-stripe writes read nothing" \
			test "$(echo "$c" | awk '{print $3 + $5}')" -eq 0
		check "$1 n=$2: full-stripe writes: $2 member writes each" \
			test "$(echo "$c" | awk '{print $4 + $6}')" -eq $((20 * $2))
	fi
	if [ "$1" = mirror ]; then
		dm_message arr reset_counters
		fio --name=rd --filename=/dev/mapper/arr --rw=randread --bs=4k --direct=1 \
			--ioengine=libaio --iodepth=8 --size=512M --number_ios=600 >/dev/null
		dmsetup status arr
		for m in 0 1 2; do
			check "mirror: member $m serves reads" test "$(rl_member_counters arr $m | awk '{print $1}')" -gt 30
		done
	fi
	check "$1 n=$2: remove" dm_remove arr
done
finish
