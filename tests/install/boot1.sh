#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Boot 1 of tests/install/run.sh: the DKMS-built module and the tools as
# `make install-tools` put them (/usr/sbin/raidlab); an array created over
# the kept disks, data written, its /etc/raidlab.conf lines made.
. "$RL_TESTS/lib.sh"
need_raidlab
mkdir -p /usr/sbin
ln -sf /rl/extra/usr/lib/raidlab/raidlab /usr/sbin/raidlab

check "the loaded module is dkms.conf's version ($(cat /rl/extra/version))" \
	test "$(cat /sys/module/dm_raidlab/version)" = "$(cat /rl/extra/version)"
for i in 0 1 2 3 4 5; do run wipe "$(disk $i)" 2; done
check "raidlab create (the installed tool)" \
	raidlab create r5 --scheme raid5 --chunk 64 --metadata "$(disk 4)" --spare "$(disk 5)" $(disks 4)
uuid=$(raidlab examine --export "$(disk 4)" | sed -n 's/^RAIDLAB_UUID=//p')
log "array uuid $uuid; $(dmsetup table r5)"
check "the array's DM UUID is RAIDLAB-<array uuid>" \
	test "$(dmsetup info -c --noheadings -o uuid r5)" = "RAIDLAB-$uuid"
check "examine --export: a member is raidlab_member of the array" \
	sh -c "raidlab examine --export $(disk 0) | grep -qx 'ID_FS_UUID=$uuid' && raidlab examine --export $(disk 0) | grep -qx 'ID_FS_TYPE=raidlab_member'"
check "examine --export: the metadata device is raidlab_metadata" \
	sh -c "raidlab examine --export $(disk 4) | grep -qx 'ID_FS_TYPE=raidlab_metadata'"
check "examine --export: nothing for a blank disk" \
	test -z "$(raidlab examine --export /dev/rl/pmem)"
run dd if=/dev/urandom of=/out/pattern bs=1M count=8
run dd if=/out/pattern of=/dev/mapper/r5 bs=1M oflag=direct conv=fsync
raidlab mkconf >/out/raidlab.conf
log "raidlab.conf: $(cat /out/raidlab.conf)"
check "mkconf lists the array by uuid" grep -qx "ARRAY r5 uuid=$uuid" /out/raidlab.conf
check "raidlab stop" raidlab stop r5
finish
