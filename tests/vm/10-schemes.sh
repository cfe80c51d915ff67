#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every scheme end to end: create over 4-6 members, mkfs.ext4, mount, fio
# with verify=crc32c (4k random writes, 1M sequential writes, a mixed job),
# unmount, re-create the table, mount and verify everything again. The
# long tier (--full) adds raid4 (n=5, chunk 64; 20-degraded and 25-resync
# run it in the default tier) and a second raid5 shape (n=6, chunk 128),
# and writes twice the data for twice as long.
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

T=$(tier 4 8)		# seconds of each write pass
RAND=$(tier 24M 48M)
SEQ=$(tier 32M 96M)
MIX=$(tier 8M 24M)

jobs_write() {
	FIO_RUNTIME=$T check "$1: fio 4k randwrite + verify" \
		fio_write_then_verify /mnt/arr/rand.dat $RAND
	FIO_RUNTIME=$T FIO_RW=write FIO_BS=1M check "$1: fio 1M seq write + verify" \
		fio_write_then_verify /mnt/arr/seq.dat $SEQ
	# a mixed job runs to its end (no runtime: see fio_write_then_verify)
	FIO_RW=randrw check "$1: fio mixed 4k-64k randrw + verify" \
		fio_write_then_verify /mnt/arr/mix.dat $MIX --bsrange=4k-64k --rwmixread=40
}

jobs_verify() {
	check "$1: 4k randwrite data verifies" fio_verify /mnt/arr/rand.dat $RAND
	FIO_RW=write FIO_BS=1M check "$1: 1M seq data verifies" fio_verify /mnt/arr/seq.dat $SEQ
	FIO_RW=randrw check "$1: mixed data verifies" \
		fio_verify /mnt/arr/mix.dat $MIX --bsrange=4k-64k --rwmixread=40
}

SPECS=$(tier "raid0:4:128 mirror:3:128 raid5:4:8" \
	"raid0:4:128 mirror:3:128 raid4:5:64 raid5:6:128 raid5:4:8")
for spec in $SPECS; do
	spec=$(echo "$spec" | tr : ' ')
	set -- $spec
	scheme=$1
	n=$2
	chunk=$3
	what="$scheme n=$n chunk=$chunk"
	# shellcheck disable=SC2046
	check "$what: create" rl_create arr "$scheme" "$chunk" $(disks "$n")
	dmsetup table arr
	check "$what: status optimal" test "$(rl_state arr)" = optimal
	# every member alive: A, or a while a new array resyncs (dm-raid's)
	check "$what: health all A (a while resyncing)" \
		test "$(rl_health arr | tr a A)" = "$(printf '%*s' "$n" '' | tr ' ' A)"
	# 1.8: the line ends with the scheme's counted group (no fields here)
	check "$what: status ends with the group '$scheme 0'" \
		test "$(dmsetup status arr | awk '{ print $(NF - 1), $NF }')" = "$scheme 0"
	check "$what: table round-trips" test "$(dmsetup table arr | awk '{print $4, $6, $7}')" = "$scheme chunk_size $chunk"
	echo "0 $(dmsetup table arr | cut -d' ' -f2-)" | dmsetup load arr && dmsetup resume arr
	check "$what: the printed table loads again" test "$(rl_state arr)" = optimal
	check "$what: mkfs.ext4 + mount" mkfs_mount /dev/mapper/arr /mnt/arr ext4
	jobs_write "$what"
	check "$what: umount" umount /mnt/arr
	check "$what: remove" dm_remove arr
	# shellcheck disable=SC2046
	check "$what: re-create" rl_create arr "$scheme" "$chunk" $(disks "$n")
	drop_caches
	check "$what: mount again" mount -t ext4 /dev/mapper/arr /mnt/arr
	jobs_verify "$what"
	check "$what: umount" umount /mnt/arr
	check "$what: e2fsck clean" e2fsck -fn /dev/mapper/arr
	dmsetup status arr
	check "$what: still optimal" test "$(rl_state arr)" = optimal
	check "$what: remove" dm_remove arr
done
finish
