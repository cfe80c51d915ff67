#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A write-intent bitmap block torn by a crash does not make the array
# unassemblable (issue 13 item 5): its regions are all taken as dirty and
# resynced.
#
# raid5 over 3 members (16 MiB of each, chunks and regions of 4 KiB: 4096
# regions, one bitmap block), its metadata on a plain disk (dm-bufio). fio
# writes 8 MiB with verification headers; once the intent bits are clear,
# an image of the live metadata is taken (the clean flag off: what a crash
# leaves), the array is removed and the image written back. Random bytes on
# member 2, past fio's data, plant an inconsistency only a resync of their
# regions removes:
#   control  the image as taken: assembles with no dirty region and no
#            resync, and check counts the planted mismatches;
#   torn     the image with the last four sectors of its bitmap block
#            overwritten (a write torn halfway). The block is the one the
#            newest superblock slot places (tools/raidlab_lib/ondisk.py),
#            checked to validate before and not after. It assembles, the
#            kernel log names the block, its 4096 regions are dirty in the
#            status and resynced, check finds 0 mismatches, fio's data
#            verifies, and the clean shutdown rewrites the block valid.
# vm-opts: --disks 4 --timeout 900
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab
command -v python3 >/dev/null || skip "no python3 in the guest (scripts/lab/mkinitramfs.sh)"

m0=$(disk 0)
m1=$(disk 1)
m2=$(disk 2)
MD=$(disk 3)
L=$((16 * 2048 * 2))	# 16 MiB of each member, 2 data columns
NREG=4096		# regions of 8 sectors over 32768 member sectors
LINE="0 $L raidlab raid5 6 chunk_size 8 region_size 8 metadata $MD 3 $m0 $m1 $m2"
IMG=/tmp/md.img

# bm_info FILE: "<bitmap block> <regions> <clean flag> <bits set|invalid>"
# from a metadata image, as the kernel finds them: the newest valid slot
# places the bitmap (one block here)
bm_info() {
	PYTHONPATH=$RL_TOOLS python3 - "$1" <<'EOF'
import sys
from raidlab_lib import ondisk
b = open(sys.argv[1], "rb").read()
slot, st, errs = ondisk.newest_sb([b[:4096], b[4096:8192]])
if st is None:
    sys.exit(f"no valid superblock slot: {errs}")
if st.bitmap_blocks != 1:
    sys.exit(f"{st.bitmap_blocks} bitmap blocks: the test expects one")
blk = st.bitmap_start
try:
    _, _, regions = ondisk.decode_bitmap(b[blk * 4096:(blk + 1) * 4096], blocknr=blk,
                                         nbits=st.nr_regions)
    bits = len(regions)
except ondisk.FormatError as e:
    print(f"bitmap block {blk}: {e}", file=sys.stderr)
    bits = "invalid"
print(blk, st.nr_regions, st.flags & ondisk.MD_CLEAN, bits)
EOF
}

md_image() { drop_caches && dd if="$MD" of="$1" bs=1M count=1 iflag=direct 2>/dev/null; }
restore() { dd if="$IMG" of="$MD" bs=1M oflag=direct conv=fsync 2>/dev/null; }
dirty() { rl_md t | cut -d' ' -f3; }
wait_clear() {
	_i=0
	while [ "$(dirty)" != 0 ]; do
		_i=$((_i + 1))
		[ $_i -gt 120 ] && return 1
		sleep 0.5
	done
}

for d in "$m0" "$m1" "$m2" "$MD"; do wipe "$d" 4 || die "wipe $d"; done
check "created" dm_create t "$LINE"
check "initial resync finishes" rl_wait_sync t 300
FIO_RUNTIME=20 check "fio write 8 MiB" fio_write /dev/mapper/t 8M
check "intent bits cleared after the writes" wait_clear
sleep 2			# the clear pass's bitmap write
check "crash image of the live metadata" md_image "$IMG"
# shellcheck disable=SC2046
set -- $(bm_info "$IMG")
BLK=$1
log "crash image: bitmap block $1, $2 regions, clean flag $3, bits set $4"
check "crash image: bitmap block $BLK valid, $NREG regions, no bit set, clean flag off" \
	test "$2 $3 $4" = "$NREG 0 0"
check "removed" dm_remove t

# 1 MiB of random bytes at 12 MiB of member 2: rows 2816 .. 3071, past
# fio's 8 MiB of array (rows 0 .. 1023)
run dd if=/dev/urandom of="$m2" bs=64K seek=192 count=16 oflag=direct conv=fsync

# ---- control: the image as taken ---------------------------------------
check "control: crash image written back" restore
check "control: assembles" dm_create t "$LINE"
dmsetup status t
check "control: no dirty region" test "$(dirty)" = 0
check "control: no resync" test "$(rl_st t 5)" = idle
n=$(rl_scrub t check 300)
check "control: check counts the planted mismatches ($n)" test "${n:-0}" -gt 0
check "control: removed" dm_remove t

# ---- a torn bitmap block -------------------------------------------------
check "torn: crash image written back" restore
drop_caches		# the wipe's zeroes: the block's page must be read anew
run dd if=/dev/urandom of="$MD" bs=512 seek=$((BLK * 8 + 4)) count=4 conv=notrunc,fsync
md_image /tmp/torn.img
# shellcheck disable=SC2046
set -- $(bm_info /tmp/torn.img)
check "torn: bitmap block $BLK no longer validates" test "$1 $4" = "$BLK invalid"
_before=$(dmesg_mark)
check "torn: assembles" dm_create t "$LINE"
dmsetup status t
dmesg_since "$_before" | grep raidlab | sed 's/^/    /'
check "torn: the kernel log names bitmap block $BLK, its $NREG regions dirty" \
	dmesg_has "$_before" "bitmap block $BLK: Metadata bitmap block: bad checksum (torn write): its $NREG regions dirty"
check "torn: the kernel log reports $NREG dirty regions" \
	dmesg_has "$_before" "unclean shutdown: $NREG regions dirty"
act=$(rl_st t 5)
log "torn: sync $(rl_sync t), dirty regions $(dirty)"
check "torn: status shows $NREG dirty regions, resync under way or done ($act)" \
	test "$(dirty)" = "$NREG" -a \( "$act" = resync -o "$act" = idle \)
check "torn: resync finishes" rl_wait_sync t 300
n=$(rl_scrub t check 300)
check "torn: check after the resync finds 0 mismatches ($n)" test "$n" = 0
drop_caches
check "torn: fio's data verifies" fio_verify /dev/mapper/t 8M
check "torn: removed" dm_remove t
md_image /tmp/after.img
# shellcheck disable=SC2046
set -- $(bm_info /tmp/after.img)
check "clean shutdown: bitmap block $BLK rewritten valid, no bit set, clean flag on" \
	test "$1 $3 $4" = "$BLK 1 0"
check "reassembles clean" dm_create t "$LINE"
check "reassembled: no dirty region" test "$(dirty)" = 0
drop_caches
check "reassembled: fio's data verifies" fio_verify /dev/mapper/t 8M
dm_remove t
finish
