#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Harness smoke test with stock targets only (no dm-raidlab): the lab's disks,
# pmem, dm-linear + ext4 + fio verify, md raid5 (mdadm) + fio verify.
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"

# ------------------------------------------------------------ the lab ---
check "$RL_NDISKS member disks present" test "$(ls /dev/rl | grep -c '^m')" -eq "$RL_NDISKS"
for d in $(disks); do
	b=$(basename "$(readlink -f "$d")")
	check "$d ($b) is rotational" test "$(cat "/sys/block/$b/queue/rotational")" = 1
done
if [ "$RL_PMEM" = 1 ]; then
	check "pmem is DAX capable" test "$(cat /sys/block/pmem0/queue/dax)" = 1
fi
check "kernel not tainted" taint_clean

# ------------------------------------------------- dm-linear + ext4 ---
m0=$(disk 0)
m1=$(disk 1)
s0=$(sectors "$m0")
s1=$(sectors "$m1")
check "dm-linear over m0+m1 created" dm_create smoke-lin "0 $s0 linear $m0 0
$s0 $s1 linear $m1 0"
check "dm-linear size is the sum" test "$(sectors /dev/mapper/smoke-lin)" -eq $((s0 + s1))
dm_table smoke-lin

# raw I/O across the boundary between the two disks
FIO_RUNTIME=8 check "fio verify across the linear boundary" \
	fio_write_then_verify /dev/mapper/smoke-lin 16M --offset=$(((s0 - 16384) * 512))

check "mkfs.ext4 + mount" mkfs_mount /dev/mapper/smoke-lin /mnt/lin ext4
FIO_RUNTIME=$(tier 6 15) check "fio randwrite+verify on ext4" fio_write_then_verify /mnt/lin/fio.dat 64M
check "umount" umount /mnt/lin
check "e2fsck clean" e2fsck -fn /dev/mapper/smoke-lin
check "dm-linear removed" dm_remove smoke-lin

# ------------------------------------------------------- md raid5 ---
# fresh (zeroed) disks have consistent parity: --assume-clean skips the resync
set -- $(disks 4)
check "mdadm --create raid5 over 4 disks" mdadm --create /dev/md0 --run --quiet --assume-clean \
	--level=5 --raid-devices=4 --chunk=64 --metadata=1.2 "$@"
cat /proc/mdstat
check "md0 is raid5" test "$(cat /sys/block/md0/md/level)" = raid5
check "md0 has 4 members, not degraded" test "$(cat /sys/block/md0/md/raid_disks) $(cat /sys/block/md0/md/degraded)" = "4 0"
FIO_RUNTIME=$(tier 5 10) check "fio randwrite+verify on md raid5" fio_write_then_verify /dev/md0 64M
check "mdadm --stop" mdadm --stop /dev/md0
for d in "$@"; do mdadm --zero-superblock "$d"; done

finish
