#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# altmirror (alternating deferred-update mirrors, paper 003) end to end
# (Documentation/dm-raidlab.rst, "Alternating deferred-update mirrors"),
# over two lab disks with the pool on the pmem:
#   - refused lines: one member, no metadata device, a metadata device
#     that is not DAX without volatile, a bad mem_fraction, overlap
#     or cycle bounds;
#   - created (the resync runs), the status group and the table line
#     (which loads again as printed); 16 MiB of fio verify data; the
#     batches ran (batches > 0) and installed every write on both disks
#     (pool empty, then check 0); a read of a block whose newest version
#     waits in the pool is served from it (hits grow);
#   - the pool full of pending blocks (a cycle of 10 minutes: no batch
#     runs): a 1 MiB pattern is acknowledged while neither disk has it
#     (read raw under the array); removed (a suspend keeps the pool),
#     the disks still lack it; the crash image taken then (pmem and
#     disks, the array idle) and a torn copy of it (one slot's header
#     damaged) are assembled: the kernel log counts the blocks taken
#     back and the torn slot; the pattern reads back (but the torn
#     block, which reads its older data), batches install it, and check
#     finds 0;
#   - a crash in the middle of a batch: members whose writes take
#     100 ms (dm-delay) at queue_depth 1, a batch of 128 scattered
#     blocks (128 I/Os) under way (mode W); the wrappers suspended (so
#     nothing moves), the image taken: some of the blocks are on a disk
#     and the rest not; assembled again over the bare disks: the blocks
#     read back, and after the batches both disks hold them (check 0);
#   - a member failed with writes waiting in the pool: the disk left
#     writes them through; the image taken then assembles with the
#     member missing, degraded, the writes there; a spare is rebuilt from
#     the disk left, and check finds 0;
#   - a write flood into a pool of 16 slots with a long cycle: writers
#     wait (waits > 0, pressure starts the batches), and fio verify
#     passes;
#   - a member failure under a write load with a spare: the spare takes
#     the role and is rebuilt while the load runs (the pool's blocks
#     over the copy), the load verifies, check finds 0, and the 16 MiB
#     verify;
#   - one disk left (member 1 failed by message): a write is installed
#     at once (write through), or, with single batch, waits for its
#     batch (the cycle's T) and is installed then;
#   - a bad sector (member 0 a dm-hddsim disk with media errors): a
#     read that finds it is served from member 1 and rewritten over
#     member 0, which stays (the kernel log says so, the sectors heal,
#     member 0's disk holds the data);
#   - volatile (the metadata on a plain disk): fio verify; a write
#     followed by a flush (dd conv=fsync) is on both disks when the
#     flush returns (read raw under the array).
# The long tier runs the fio passes longer.
# vm-opts: --disks 5 --disk-size 128M --timeout 900
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
. "$RL_TESTS/hddsim.sh"
. "$RL_TESTS/altmirror.sh"
need_raidlab
need_hddsim
modprobe dm-delay || die "modprobe dm-delay"

MD=$(pmem_dev)
PM=$MD
LEN=131072		# 64 MiB: the pool at 1 % is 163 slots
DOFF=256		# the data offset in 4 KiB blocks (1 MiB)
FIO_RUNTIME=$(tier 10 30)
export FIO_RUNTIME

fresh() {
	for _d in $(disks 5); do wipe "$_d" 4 || die "wipe $_d"; done
	wipe "$MD" 16 || die "wipe pmem"
}

# line OPTS [DEV0 DEV1]: an altmirror line at LEN, the pmem as metadata
line() {
	_o="metadata $MD $1"
	# shellcheck disable=SC2046,SC2086
	set -- ${2:-$(disks 2)}
	# shellcheck disable=SC2086
	echo "0 $LEN raidlab altmirror $(echo $_o | wc -w) $_o 2 $*"
}

# raw DEV BLOCK: one 4 KiB block of the array's, read under it from DEV
raw() {
	dd if="$1" bs=4k skip=$((DOFF + $2)) count=1 iflag=direct 2>/dev/null
}

both_have() { raw_has "$M0" "$1" "$2" && raw_has "$M1" "$1" "$2"; }
neither_has() { ! raw_has "$M0" "$1" "$2" && ! raw_has "$M1" "$1" "$2"; }

# strided_write FILE: FILE's first 128 blocks at every other block from
# 4 MiB (block 1024) of the array: 128 runs, a batch of 128 I/Os
strided_write() {
	for _i in $(seq 0 127); do
		dd if="$1" of=/dev/mapper/arr bs=4k skip="$_i" seek=$((1024 + 2 * _i)) \
			count=1 oflag=direct 2>/dev/null || return 1
	done
}
# strided_read FILE: they read back
strided_read() {
	for _i in $(seq 0 127); do
		dd if=/dev/mapper/arr of=/tmp/sb bs=4k skip=$((1024 + 2 * _i)) count=1 \
			iflag=direct 2>/dev/null &&
			dd if="$1" bs=4k skip="$_i" count=1 2>/dev/null | cmp -s - /tmp/sb || return 1
	done
}
# strided_on DEV FILE: how many of them DEV holds (read under the array)
strided_on() {
	_n=0
	for _i in $(seq 0 127); do
		raw "$1" $((1024 + 2 * _i)) >/tmp/sb
		dd if="$2" bs=4k skip="$_i" count=1 2>/dev/null | cmp -s - /tmp/sb && _n=$((_n + 1))
	done
	echo "$_n"
}


head -c 1048576 /dev/urandom >/tmp/pat1
head -c 1048576 /dev/urandom >/tmp/pat2
head -c 1048576 /dev/urandom >/tmp/pat3

# --------------------------------------------------------------- refused ---
fresh
M0=$(disk 0)
M1=$(disk 1)
dm_refused raidlab "0 $LEN raidlab altmirror 2 metadata $MD 3 $M0 $M1 $(disk 2)" \
	"altmirror needs two members"
dm_refused raidlab "0 $LEN raidlab altmirror 0 2 $M0 $M1" \
	"altmirror needs a metadata device"
dm_refused raidlab "0 $LEN raidlab altmirror 2 metadata $(disk 4) 2 $M0 $M1" \
	"altmirror needs a DAX metadata device (or volatile)"
dm_refused raidlab "$(line "mem_fraction 0")" "Invalid mem_fraction"
dm_refused raidlab "$(line "mem_fraction 1.234")" "Invalid mem_fraction"
dm_refused raidlab "$(line "overlap sometimes")" "Invalid overlap"
dm_refused raidlab "$(line "cycle_min 500 cycle_max 100")" \
	"altmirror: cycle_min is above cycle_max"
dm_refused raidlab "0 $LEN raidlab mirror 3 metadata $MD volatile 2 $M0 $M1" \
	"volatile needs the altmirror scheme"

# ------------------------------------------------------- create, verify ---
fresh
check "created" dm_create arr "$(line "")"
check "resynced" rl_wait_sync arr 300
st=$(rl_scheme_fields arr)
check "status: the scheme's group (16 fields, both disks reading, 163 slots, on pmem, no recovery): $st" \
	test "$(echo "$st" | awk '{ print NF, $1, $2, $11, $12 }')" = "16 RR 0/163 pmem none"
t=$(dm_table arr)
log "table: $t"
check "fio verify" fio_write_then_verify /dev/mapper/arr 16M
log "status: $(rl_scheme_fields arr)"
check "batches ran" test "$(f 5)" -gt 0
check "the pool drains: every write on both disks" drained 120
check_zero "after fio"
# a read of a block whose newest version waits in the pool
h0=$(f 9)
# (block 8192: past fio's 16 MiB)
dd if=/tmp/pat1 of=/dev/mapper/arr bs=4k count=1 seek=8192 oflag=direct 2>/dev/null
dd if=/dev/mapper/arr of=/tmp/b1 bs=4k count=1 skip=8192 iflag=direct 2>/dev/null
h1=$(f 9)
head -c 4096 /tmp/pat1 >/tmp/p1
check "a read of a pending block is a pool hit ($h0 -> $h1)" test "$h1" -gt "$h0"
check "and reads the write" cmp -s /tmp/p1 /tmp/b1
dm_remove arr
check "the printed table loads again" dm_create arr "$t"
check "the 16 MiB verify after the reload" fio_verify /dev/mapper/arr 16M
dm_remove arr

# ------------------------------------------ a pool full of pending writes ---
LONG="cycle_min 600000 cycle_max 600000"
PEND="mem_fraction 4"	# 655 slots: 256 pending is no pressure
fresh			# a pool of another size: a new array
check "assembled with a 10-minute cycle" dm_create arr "$(line "$PEND $LONG")"
rl_wait_sync arr 300
pattern 8 /tmp/pat1
check "the pattern is acknowledged with nothing installed (batches 0, 256/655 used): $(f 5) $(f 2)" \
	test "$(f 5) $(f 2)" = "0 256/655"
check "the pattern reads back (from the pool)" pattern_at 8 /tmp/pat1
check "neither disk has it" neither_has 8 /tmp/pat1
dm_remove arr
check "removed: still neither disk has it (a suspend keeps the pool)" \
	neither_has 8 /tmp/pat1
rl_image_save_idle 80 "$M0" "$M1" || die "image"
# a torn copy: the header of the pool's first slot in use damaged
mark=$(dmesg_mark)
check "assembled again from the pool" dm_create arr "$(line "$PEND cycle_max 2000")"
check "the kernel log counts 256 blocks taken back" \
	dmesg_has "$mark" "altmirror: pool: 256 taken back"
check "the pattern reads back" pattern_at 8 /tmp/pat1
check "batches install it: the pool drains" drained 120
check "both disks have it" both_have 8 /tmp/pat1
check_zero "after the pool's replay"
dm_remove arr
rl_image_restore "$M0" "$M1" || die "restore"
# slot headers are 64 bytes from the pool area's start; find a valid one
# (magic "RAM1") and flip a bit of its lblock
off=$(python3 - "$MD" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"RAM1")
while i >= 0 and (i - 4) % 64:
    i = d.find(b"RAM1", i + 1)
print(i - 4 + 16 if i >= 0 else -1)
EOF
)
check "found a slot header in the image" test "$off" -ge 0
printf '\377' | dd of="$MD" bs=1 seek="$off" conv=notrunc,fsync 2>/dev/null
mark=$(dmesg_mark)
check "the torn image assembles" dm_create arr "$(line "$PEND cycle_max 2000")"
check "the kernel log counts 255 blocks taken back and 1 torn slot" \
	dmesg_has "$mark" "altmirror: pool: 255 taken back, 0 older and 1 torn"
check "the pattern reads back but for one block" \
	sh -c "dd if=/dev/mapper/arr bs=64k skip=128 count=16 iflag=direct 2>/dev/null |
	       cmp -l - /tmp/pat1 | awk '{ print int((\$1 - 1) / 4096) }' | sort -u | wc -l | grep -qx 1"
check "the pool drains" drained 120
check_zero "after the torn image's replay"
dm_remove arr

# ------------------------------------------------ a crash inside a batch ---
fresh
dm_create arr "$(line "$PEND")" && rl_wait_sync arr 300 && dm_remove arr || die "setup"
for i in 0 1; do
	d=$(disk $i)
	dm_create "dly$i" "0 $(sectors "$d") delay $d 0 0 $d 0 100" || die "delay $i"
done
check "assembled over write-delayed members (queue_depth 1, cycle 5 s)" \
	dm_create arr "$(line "$PEND queue_depth 1 cycle_min 5000 cycle_max 5000" \
		"/dev/mapper/dly0 /dev/mapper/dly1")"
strided_write /tmp/pat2
n=0
while [ "$(f 1)" = RR ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
sleep 2
md=$(f 1)
check "a batch is under way (modes $md)" test "$md" != RR
dmsetup suspend --noflush dly0 && dmsetup suspend --noflush dly1 || die "suspend"
rl_image_save_idle 80 "$M0" "$M1" || die "image"
on0=$(strided_on "$M0" /tmp/pat2)
on1=$(strided_on "$M1" /tmp/pat2)
dmsetup resume dly0
dmsetup resume dly1
dm_remove arr
dm_remove dly0
dm_remove dly1
check "the image holds a torn batch: $on0 of 128 blocks on disk 0, $on1 on disk 1" \
	test "$on0" -gt 0 -a "$on0" -lt 128 -o "$on1" -gt 0 -a "$on1" -lt 128
rl_image_restore "$M0" "$M1" || die "restore"
mark=$(dmesg_mark)
check "the image assembles over the bare disks" dm_create arr "$(line "$PEND cycle_max 2000")"
check "the kernel log counts the blocks taken back" \
	dmesg_has "$mark" -E "altmirror: pool: [1-9][0-9]* taken back"
check "the blocks read back" strided_read /tmp/pat2
check "the pool drains" drained 120
check "both disks have them" test "$(strided_on "$M0" /tmp/pat2) $(strided_on "$M1" /tmp/pat2)" = "128 128"
check_zero "after the torn batch"
dm_remove arr

# -------------------------------------- a member fails, then a crash ---
fresh
check "assembled with a 10-minute cycle" dm_create arr "$(line "$PEND $LONG")"
rl_wait_sync arr 300
pattern 12 /tmp/pat3
check "the pattern waits in the pool (256 used)" test "$(used)" = 256
check "member 1 failed by message" dm_message arr fail 1
check "disk 0 left writes it through: the pool drains" drained 30
rl_image_save_idle 80 "$M0" "$M1" || die "image"
dm_remove arr
rl_image_restore "$M0" "$M1" || die "restore"
check "the image assembles with member 1 missing" \
	dm_create arr "0 $LEN raidlab altmirror 4 metadata $MD $PEND 2 $M0 -"
check "degraded (health $(rl_health arr))" test "$(rl_health arr)" = AD
check "the pattern reads back from disk 0" pattern_at 12 /tmp/pat3
dm_remove arr
check "assembled again with a spare for member 1" \
	dm_create arr "0 $LEN raidlab altmirror 6 metadata $MD $PEND spare $(disk 2) 2 $M0 -"
check "the spare is rebuilt" rl_wait_sync arr 300
check "the spare holds the role (health $(rl_health arr))" test "$(rl_health arr)" = AA
check "the pattern reads back" pattern_at 12 /tmp/pat3
check_zero "after the rebuild from disk 0"
dm_remove arr

# ------------------------------------------------------- the pool filling ---
fresh
check "assembled with a pool of 16 slots and a 10-minute cycle" \
	dm_create arr "$(line "mem_fraction 0.01 $LONG")"
rl_wait_sync arr 300
check "status: 16 slots" test "$(f 2)" = 0/16
check "a write flood verifies" fio_write_then_verify /dev/mapper/arr 8M
log "status: $(rl_scheme_fields arr)"
check "writers waited (waits $(f 4), lowest free $(f 3))" test "$(f 4)" -gt 0
check "pressure started batches ($(f 5)) within the 10-minute cycle" test "$(f 5)" -gt 0
dm_remove arr

# ----------------------------------------------- a disk that fails every I/O ---
# Reads at a depth of 8 go to both disks (the one with fewer in flight);
# those member 1 fails are fixed from member 0, whose rewrite fails and
# fails member 1, and are served from member 0's copy all the same (1.22.0
# served the first one with its buffer unfilled: fio's verify caught it).
fresh
W=$(rl_wrap_members w 2)
check "assembled over wrapped members" dm_create arr "$(line "" "$W")"
rl_wait_sync arr 300
check "fio write (4 MiB)" fio_write /dev/mapper/arr 4M
check "the writes are on both disks" drained 30
_k=$(dmesg_mark)
rl_swap_error w1
FIO_IODEPTH=8
check "member 1's disk fails every I/O: the reads verify" fio_verify /dev/mapper/arr 4M
FIO_IODEPTH=
check "member 1 failed (health $(rl_health arr))" test "$(rl_health arr)" = AD
dmesg_since "$_k" | grep raidlab >/tmp/klog
head -n 4 /tmp/klog
check "reads went to member 1 and were fixed from member 0 (the kernel log)" \
	grep -q 'member 1 .*read error at .*rewritten from redundancy' /tmp/klog
dm_remove arr
dm_remove w0
dm_remove w1

# ------------------------------------------- a member fails, a spare takes it ---
fresh
W=$(rl_wrap_members w 2)
check "assembled over wrapped members with a spare" \
	dm_create arr "$(line "spare $(disk 2)" "$W")"
rl_wait_sync arr 300
check "fio write (16 MiB)" fio_write /dev/mapper/arr 16M
rl_load_start arr 32M 16M $(tier 20 40)
sleep 3
_k=$(dmesg_mark)
rl_swap_error w1
# until member 1 has failed: the spare may hold the role, rebuilt, before
# the status is first read (the health is AA again then)
n=0
while ! dmesg_has "$_k" "member 1 .* failed" && [ $n -lt 100 ]; do sleep 0.2; n=$((n + 1)); done
log "after the failure: $(rl_health arr) $(rl_sync arr) $(rl_scheme_fields arr)"
check "member 1 failed under the load (the kernel log)" dmesg_has "$_k" "member 1 .* failed"
check "the rebuild ends" rl_wait_sync arr 300
check "the spare holds the role (health $(rl_health arr))" test "$(rl_health arr)" = AA
rl_load_done "rebuild under load"
check "the pool drains" drained 120
check_zero "after the rebuild"
check "the 16 MiB verify" fio_verify /dev/mapper/arr 16M
dm_remove arr
dm_remove w0
dm_remove w1

# ------------------------------------------------------ one disk left ---
fresh
check "assembled with a 3-second cycle" dm_create arr "$(line "cycle_min 3000 cycle_max 3000")"
rl_wait_sync arr 300
check "member 1 failed by message" dm_message arr fail 1
sleep 1
dd if=/tmp/pat3 of=/dev/mapper/arr bs=4k count=1 seek=4096 oflag=direct 2>/dev/null
check "one disk left writes through: the pool drains within 2 s" drained 2
dm_remove arr
fresh
check "assembled with single batch" \
	dm_create arr "$(line "cycle_min 3000 cycle_max 3000 single batch")"
rl_wait_sync arr 300
check "member 1 failed by message" dm_message arr fail 1
# The cycle's last turn, before the failure, may have been a period ago:
# a first write's batch may then start at once. It sets the one disk's
# next start a period (3 s) on, which the second write waits for.
dd if=/tmp/pat3 of=/dev/mapper/arr bs=4k count=1 seek=4095 oflag=direct 2>/dev/null
check "single batch: the first write is installed" drained 10
dd if=/tmp/pat3 of=/dev/mapper/arr bs=4k count=1 seek=4096 oflag=direct 2>/dev/null
sleep 0.5
u=$(used)
check "single batch: the next write waits for its batch (used $u)" test "$u" = 1
check "and is installed within the cycle" drained 10
dm_remove arr

# ------------------------------------------------------- a bad sector ---
fresh
hdd_create hs0 "$M0" lightning time_scale 1000 || die "hddsim"
check "assembled over a dm-hddsim member 0" \
	dm_create arr "$(line "cycle_max 2000" "/dev/mapper/hs0 $M1")"
rl_wait_sync arr 300
dd if=/tmp/pat3 of=/dev/mapper/arr bs=64k count=1 oflag=direct 2>/dev/null
head -c 4096 /tmp/pat3 >/tmp/blk0
check "installed on both disks" drained 60
# block 0 of the array: member sectors 2048..2055
dm_message hs0 addbadblock 2048 8
bad() { dmsetup message hs0 0 countbadblocks; }
mark=$(dmesg_mark)
i=0 wrong=0
while [ $i -lt 40 ] && [ "$(bad | cut -d' ' -f2)" = 0 ]; do
	dd if=/dev/mapper/arr of=/tmp/b0 bs=4k count=1 iflag=direct 2>/dev/null
	cmp -s /tmp/b0 /tmp/blk0 || wrong=$((wrong + 1))
	i=$((i + 1))
done
log "reads until one went to member 0: $i; hddsim: $(bad); health $(rl_health arr)"
check "a read went to member 0's bad sectors" test "$(bad | cut -d' ' -f2)" -ge 1
check "every read returned the data" test $wrong = 0
check "member 0 stays in the array ($(rl_health arr))" test "$(rl_health arr)" = AA
check "the kernel log says the block was rewritten" \
	dmesg_has "$mark" -E "member 0 \(.*\): read error at 2048: rewritten from redundancy \(1 of 20\)"
check "the rewrite healed it (hddsim: $(bad))" test "$(bad | cut -d' ' -f1)" = 0
raw /dev/mapper/hs0 0 >/tmp/r0
check "member 0's disk holds the data" cmp -s /tmp/r0 /tmp/blk0
dm_remove arr
dm_remove hs0

# -------------------------------------------------------------- volatile ---
fresh
VMD=$(disk 4)
check "volatile over a plain metadata disk" \
	dm_create arr "0 $LEN raidlab altmirror 3 metadata $VMD volatile 2 $M0 $M1"
rl_wait_sync arr 300
check "status: the pool is volatile" test "$(f 11)" = volatile
check "fio verify (volatile)" fio_write_then_verify /dev/mapper/arr 8M
dd if=/tmp/pat3 of=/dev/mapper/arr bs=64k seek=$((16 * 16)) conv=fsync 2>/dev/null
check "a flush returns with the writes before it on both disks" \
	both_have 16 /tmp/pat3
check_zero "volatile"
dm_remove arr

check "kernel log clean" dmesg_clean
finish
