#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A member fails, writes are acknowledged, the machine crashes: no
# acknowledged write may be lost or read stale after reassembly (issue 13,
# windows 1 and 2).
#
# Window 1, for mirror, raid5 and plog (and raid6 in the long tier,
# --full: its failure takes raid5's path to the record): the members
# sit under dm-linear, the metadata (dm-bufio, on a plain disk) under a
# dm-delay that holds its I/O for 2 s from the moment member 1 is
# swapped to an error target (a module acknowledging writes ahead of the
# failure's record acknowledges them in a fraction of that). A writer
# then writes chunk 1 (data on member 1) a 4 KiB block at a time,
# O_DIRECT and fsync, and notes every block acknowledged. Once three are,
# the "crash" image of every disk is taken (O_DIRECT, from the disks
# under the wrappers: what the metadata's delayed commit has not written
# is not in it). The image is written back and the array assembled with
# the stale member 1 present: it must be refused, or, if it comes up,
# member 1 must not count as in sync, and every acknowledged block must
# read its new data. The image is written back again, and the array is
# assembled with member 1 missing: every acknowledged block must read its
# new data. (raid5 over 4 members keeps chunk 1 of row 0 on member 1,
# md's raid6 over 5 keeps chunk 0 there.)
#
# Window 2, raid5: a member given as "-" at load must be recorded failed,
# events raised, before the table goes live: an image taken while the
# array runs degraded, written back with the old disk present, must not
# assemble as in sync.
#
# Window 3, raid5 without a journal (dm-bufio metadata): an image taken
# while the array runs (write-intent bits set: dirty), written back and
# assembled with a member missing, is refused, and the refusal names the
# option start_dirty_degraded; with the option it starts.
# vm-opts: --disks 6 --timeout 1200
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab
modprobe dm-delay || die "no dm-delay module"

MDDISK=$(disk 5)
IMG=/tmp/fc
MEMBER_MB=4		# 1 MiB of superblock area + 2 MiB of data, rounded up
MD_MB=8
ROWS=32
CHUNK=128		# sectors: chunk C is bytes C * 64 KiB .. (C + 1) * 64 KiB
C=1			# the chunk of row 0 on member 1 (window1 sets it)

dd if=/dev/urandom of=/tmp/A bs=64k count=1 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=64k count=4 2>/dev/null
i=0
while [ $i -lt 64 ]; do
	dd if=/tmp/B of=/tmp/B.$i bs=4k skip=$i count=1 2>/dev/null
	i=$((i + 1))
done

ncols() { case $1 in mirror) echo 1 ;; raid5) echo $(($2 - 1)) ;; raid6 | plog) echo $(($2 - 2)) ;; esac; }

# line SCHEME N MDDEV DEV...: the array's table line
line() {
	_s=$1 _n=$2 _md=$3
	shift 3
	_len=$((ROWS * CHUNK * $(ncols "$_s" "$_n")))
	_o="chunk_size $CHUNK assume_clean metadata $_md${XOPT:+ $XOPT}"
	echo "0 $_len raidlab $_s $(echo "$_o" | wc -w) $_o $_n $*"
}

# A crash while degraded leaves a parity array dirty and degraded: 1.6.0
# refuses that without start_dirty_degraded (window 3), so reassembly
# gives it (older modules do not know it: the test also runs on them)
XDD=
dmsetup targets | grep -q "^raidlab *v1\.[0-5]\." || XDD=start_dirty_degraded

# image save|load N: the first MiBs of members 0..N-1 and of the metadata disk
image() {
	_i=0
	while [ $_i -lt "$2" ]; do
		if [ "$1" = save ]; then
			dd if="/dev/rl/m$_i" of="$IMG.m$_i" bs=1M count=$MEMBER_MB iflag=direct 2>/dev/null || return 1
		else
			dd if="$IMG.m$_i" of="/dev/rl/m$_i" bs=1M oflag=direct conv=fsync 2>/dev/null || return 1
		fi
		_i=$((_i + 1))
	done
	if [ "$1" = save ]; then
		dd if="$MDDISK" of="$IMG.md" bs=1M count=$MD_MB iflag=direct 2>/dev/null
	else
		dd if="$IMG.md" of="$MDDISK" bs=1M oflag=direct conv=fsync 2>/dev/null
	fi
}

fresh() { # N: blank members and metadata
	_i=0
	while [ $_i -lt "$1" ]; do
		wipe "/dev/rl/m$_i" 4 || return 1
		_i=$((_i + 1))
	done
	wipe "$MDDISK" 16
}

# acked_read WHAT: every block in /tmp/acked reads its new data
acked_read() {
	_bad=0
	for _b in $(cat /tmp/acked); do
		dd if=/dev/mapper/fc bs=4k skip=$((16 * C + _b)) count=1 iflag=direct 2>/dev/null |
			cmp -s - /tmp/B.$_b || _bad=$((_bad + 1))
	done
	check "$1: $(wc -w </tmp/acked) acknowledged blocks read their new data ($_bad stale)" \
		test "$_bad" = 0
}

# members N [MISSING]: the member disks, member MISSING as "-"
members() {
	_i=0 _l=
	while [ $_i -lt "$1" ]; do
		if [ "$_i" = "${2:-x}" ]; then _l="$_l -"; else _l="$_l /dev/rl/m$_i"; fi
		_i=$((_i + 1))
	done
	echo "$_l"
}

# reassemble WHAT SCHEME N: with the stale member 1 present, then missing
reassemble() {
	dmesg -c >/dev/null
	[ "$2" = mirror ] && XOPT= || XOPT=$XDD
	if dm_create fc "$(line "$2" "$3" "$MDDISK" $(members "$3"))" 2>/dev/null; then
		_h=$(rl_health fc)
		log "$1: assembled with the old member 1: $_h $(rl_state fc)"
		check "$1: the stale member 1 is not taken as in sync ($_h)" \
			test "$(echo "$_h" | cut -c2)" != A
		acked_read "$1, old member 1 present"
		dm_remove fc
		image load "$3" || die "cannot write the image back"
	else
		check "$1: the old member 1 is refused as stale" sh -c 'dmesg | grep -q "stale"'
	fi
	run dm_create fc "$(line "$2" "$3" "$MDDISK" $(members "$3" 1))"
	acked_read "$1, member 1 missing"
	run dm_remove fc
	XOPT=
}

# window1 SCHEME N CHUNK [BLOCKS]: BLOCKS 4 KiB blocks from chunk CHUNK on
window1() {
	_s=$1 _n=$2 C=$3 NB=${4:-16}
	log "== window 1: $_s over $_n members"
	fresh "$_n" || die "cannot blank the disks"
	_z=$(sectors "$MDDISK")
	run dm_create fcmd "0 $_z delay $MDDISK 0 0"
	_w=$(rl_wrap_members fcw "$_n")
	run dm_create fc "$(line "$_s" "$_n" /dev/mapper/fcmd $_w)"
	run dd if=/tmp/A of=/dev/mapper/fc bs=64k seek="$C" count=$((NB / 16)) oflag=direct conv=fsync
	# from now on the metadata's I/O waits 2 s
	run dm_reload fcmd "0 $_z delay $MDDISK 0 2000"
	run dmsetup suspend fcmd
	run dmsetup resume fcmd
	run rl_swap_error fcw1
	: >/tmp/acked
	dmesg -c >/dev/null
	(
		i=0
		while [ $i -lt "$NB" ]; do
			dd if=/tmp/B.$i of=/dev/mapper/fc bs=4k seek=$((16 * C + i)) count=1 \
				oflag=direct conv=fsync 2>/dev/null && echo $i >>/tmp/acked
			i=$((i + 1))
		done
	) &
	_wr=$!
	# the image is taken once two blocks were acknowledged after the
	# failure (plog's first writes may go to its log, not to member 1)
	_t=0
	while ! dmesg | grep -q "member 1 (.*) failed" && [ $_t -lt 600 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	_f=$(wc -w </tmp/acked)
	while [ "$(wc -w </tmp/acked)" -lt $((_f + 2)) ] && [ $_t -lt 600 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	cp /tmp/acked /tmp/acked.img
	image save "$_n" || die "cannot save the image"
	log "$_s: image taken with $(wc -w </tmp/acked.img) blocks acknowledged ($_f before the failure) after $((_t / 10)) s"
	check "$_s: writes were acknowledged after member 1 failed" \
		test "$(wc -w </tmp/acked.img)" -ge $((_f + 2))
	wait $_wr
	cp /tmp/acked.img /tmp/acked
	run dm_reload fcmd "0 $_z delay $MDDISK 0 0"	# a quick teardown
	run dmsetup suspend fcmd
	run dmsetup resume fcmd
	run dm_remove fc
	for _i in $(seq 0 $((_n - 1))); do run dm_remove fcw$_i; done
	run dm_remove fcmd
	image load "$_n" || die "cannot write the image back"
	reassemble "$_s" "$_s" "$_n"
}

window1 mirror 2 1
window1 raid5 4 1
[ "$(tier 0 1)" = 1 ] && window1 raid6 5 0
# plog's layout is its own: write 256 KiB, some of it lands on member 1
MEMBER_MB=16
window1 plog 5 0 64
MEMBER_MB=4
NB=16

C=1
log "== window 2: raid5 loaded with member 1 missing"
fresh 4 || die "cannot blank the disks"
run dm_create fc "$(line raid5 4 "$MDDISK" $(members 4))"
run dd if=/tmp/A of=/dev/mapper/fc bs=64k seek=1 count=1 oflag=direct conv=fsync
run dm_remove fc
run dm_create fc "$(line raid5 4 "$MDDISK" $(members 4 1))"
: >/tmp/acked
i=0
while [ $i -lt 16 ]; do
	dd if=/tmp/B.$i of=/dev/mapper/fc bs=4k seek=$((16 + i)) count=1 oflag=direct conv=fsync 2>/dev/null &&
		echo $i >>/tmp/acked
	i=$((i + 1))
done
image save 4 || die "cannot save the image"
run dm_remove fc
image load 4 || die "cannot write the image back"
reassemble "missing at load" raid5 4

log "== window 3: dirty and degraded without a journal"
fresh 4 || die "cannot blank the disks"
run dm_create fc "$(line raid5 4 "$MDDISK" $(members 4))"
run dd if=/tmp/A of=/dev/mapper/fc bs=64k seek=1 count=1 oflag=direct conv=fsync
image save 4 || die "cannot save the image"
run dm_remove fc
image load 4 || die "cannot write the image back"
dm_refused raidlab "$(line raid5 4 "$MDDISK" $(members 4 2))" "Dirty and degraded with no journal: start_dirty_degraded forces it"
_o="chunk_size $CHUNK assume_clean start_dirty_degraded metadata $MDDISK"
run dm_create fc "0 $((ROWS * CHUNK * 3)) raidlab raid5 $(echo "$_o" | wc -w) $_o 4 $(members 4 2)"
check "window 3: forced, it runs degraded" test "$(rl_state fc)" = degraded
check "window 3: the kernel log warns of the forced start" sh -c 'dmesg | grep -q "dirty and degraded, started anyway"'
dd if=/dev/mapper/fc bs=64k skip=1 count=1 iflag=direct 2>/dev/null | cmp -s - /tmp/A
check "window 3: the data written before the crash reads back" test $? = 0
run dm_remove fc

finish
