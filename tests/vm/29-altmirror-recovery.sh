#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# altmirror's recovery onto two replacements (paper 003 section 4;
# Documentation/dm-raidlab.rst, "Recovery onto two replacements"), every
# member and spare wrapped in dm-linear (w0 w1 the members, w2 w3 the
# spares), the pool on the pmem:
#   - under a verifying write load, member 1 fails: the recovery begins
#     (status active, the kernel log names R1 = w2, R2 = w3 and the
#     survivor w0, which takes no write while it runs: member 0's write
#     count stands still); it ends (the kernel log gives its time), the
#     roles swapped: the table names w3 and w2 as the members and w0 as
#     a spare; the load verifies, check finds 0, the 16 MiB verify
#     passes, and the table printed then assembles again;
#   - a crash during the recovery (member 1 failed by message, the
#     recovery slowed by sync_rate): a pattern
#     written during it and installed on both replacements (the pool
#     empty), another still in the pool; the wrappers suspended, the
#     image taken; assembled over the bare disks as the metadata names
#     them (w0's disk, R1's, and R2's as a spare): the kernel log says the
#     recovery resumes; it ends, the survivor a spare; both patterns read
#     back and are on both members (the scan of the survivor did not
#     bring its older data back), check finds 0, the 16 MiB verify;
#   - the second replacement fails during the recovery: the survivor
#     catches up from the first (the kernel log), the rebuild ends as a
#     mirror's (w0 and w2 the members), a pattern written during the
#     recovery is on w0's disk, check finds 0, the verify;
#   - the first replacement fails during the recovery: the survivor
#     catches up from the second, which is given the role then and
#     rebuilt; the pattern reads back, check finds 0, the verify.
# vm-opts: --disks 5 --disk-size 128M --timeout 900
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
. "$RL_TESTS/altmirror.sh"
need_raidlab

MD=$(pmem_dev)
PM=$MD
LEN=131072		# 64 MiB: 16384 blocks
DOFF=256		# the data offset in 4 KiB blocks (1 MiB)
SLOW=4096		# KiB/s: a recovery of about 16 s
FIO_RUNTIME=$(tier 10 30)
export FIO_RUNTIME

fresh() {
	for _d in $(disks 5); do wipe "$_d" 4 || die "wipe $_d"; done
	wipe "$MD" 16 || die "wipe pmem"
}

# rec_is STATE SECS: the recovery's state becomes STATE
rec_is() {
	_n=0
	while [ "$(f 12)" != "$1" ]; do
		_n=$((_n + 1))
		[ "$_n" -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
}
# cursor_past BLOCKS SECS: the recovery copied more than BLOCKS
cursor_past() {
	_n=0
	while [ "$(f 13 | cut -d/ -f1)" -le "$1" ]; do
		_n=$((_n + 1))
		[ "$_n" -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
}
line() { # MEMBERS [OPTS]: the pmem as metadata
	_o="metadata $MD $2"
	# shellcheck disable=SC2086
	echo "0 $LEN raidlab altmirror $(echo $_o | wc -w) $_o 2 $1"
}
devnum() { printf '%d:%d\n' "0x$(stat -L -c %t "$1")" "0x$(stat -L -c %T "$1")"; }
# the table's members and spares, as major:minor
table_devs() { dm_table arr | awk '{
	for (i = 1; i <= NF; i++) if ($i == "spare") s = s " " $(i + 1)
	print $(NF - 1), $NF, "spares" s }'; }

head -c 1048576 /dev/urandom >/tmp/pat1
head -c 524288 /dev/urandom >/tmp/pat2	# 128 blocks: fits the pool
D0=$(disk 0)
D2=$(disk 2)
D3=$(disk 3)

# ----------------------------------------- under load, to the role swap ---
fresh
W=$(rl_wrap_members w 4)
# shellcheck disable=SC2086
set -- $W
check "assembled over wrapped members, two spares" \
	dm_create arr "$(line "$1 $2" "spare $3 spare $4")"
rl_wait_sync arr 300
st=$(rl_scheme_fields arr)
check "status: 16 fields, no recovery ($st)" \
	test "$(echo "$st" | awk '{ print NF, $12, $13 }')" = "16 none 0/16384"
check "fio write (16 MiB)" fio_write /dev/mapper/arr 16M
dm_message arr sync_rate $((SLOW * 2))
rl_load_start arr 32M 16M $(tier 30 60)
sleep 3
mark=$(dmesg_mark)
rl_swap_error w1
check "the recovery begins (status $(f 12))" rec_is active 60
check "the kernel log names R1, R2 and the survivor" dmesg_has "$mark" \
	"altmirror: recovery onto $(devnum "$3") and $(devnum "$4"); $(devnum "$1") is only read"
dw0=$(rl_member_counters arr 0 | cut -d' ' -f2)
sleep 4
dw1=$(rl_member_counters arr 0 | cut -d' ' -f2)
log "during the recovery: $(rl_sync arr); $(rl_scheme_fields arr)"
check "the survivor takes no write ($dw0 -> $dw1)" test "$dw0" = "$dw1"
check "the recovery ends" rl_wait_sync arr 300
check "the status says none again ($(f 12), $(f 13) copied, $(f 16) ms)" \
	test "$(f 12) $(f 13)" = "none 16384/16384"
check "the kernel log gives its time" dmesg_has "$mark" -E \
	"altmirror: recovery done in [0-9]+ ms: the survivor is a spare"
check "roles swapped: members R2, R1; the survivor a spare ($(table_devs))" \
	test "$(table_devs)" = "$(devnum "$4") $(devnum "$3") spares $(devnum "$1")"
check "health AA ($(rl_health arr))" test "$(rl_health arr)" = AA
rl_load_done "the recovery under load"
check "the pool drains" drained 120
check_zero "after the recovery"
check "the 16 MiB verify" fio_verify /dev/mapper/arr 16M
t=$(dm_table arr)
dm_remove arr
check "the table printed then assembles again" dm_create arr "$t"
check "the 16 MiB verify after the reassembly" fio_verify /dev/mapper/arr 16M
dm_remove arr
for i in 0 1 2 3; do dm_remove w$i; done

# --------------------------------------------- a crash during the recovery ---
fresh
W=$(rl_wrap_members w 4)
# shellcheck disable=SC2086
set -- $W
dm_create arr "$(line "$1 $2" "spare $3 spare $4")" && rl_wait_sync arr 300 ||
	die "setup"
check "fio write (16 MiB)" fio_write /dev/mapper/arr 16M
dm_message arr sync_rate $SLOW
dm_message arr fail 1
check "the recovery begins" rec_is active 60
# pat1 near the end, far past the cursor; installed on both replacements
pattern 60 /tmp/pat1
check "pat1 leaves the pool (on R1 and R2)" drained 60
cursor_past 2048 60
# the replacements frozen (nothing reaches them): pat2 stays in the pool
for i in 2 3; do dmsetup suspend --noflush w$i || die "suspend w$i"; done
pattern 56 /tmp/pat2
log "at the crash: $(rl_sync arr); $(rl_scheme_fields arr)"
check "pat2 is acknowledged into the pool ($(used) used)" test "$(used)" -ge 128
check "the recovery is under way ($(f 13))" test "$(f 12)" = active
dmsetup suspend --noflush w0 || die "suspend w0"
rl_image_save 80 "$D0" "$D2" "$D3" || die "image"
for i in 0 2 3; do dmsetup resume w$i; done
dm_remove arr
for i in 0 1 2 3; do dm_remove w$i; done
rl_image_restore "$D0" "$D2" "$D3" || die "restore"
check "the old line is refused (R1 holds member 1's role)" \
	sh -c "! printf '%s\n' '$(line "$D0 $(disk 1)" "spare $D3")' | dmsetup create arr 2>/dev/null"
mark=$(dmesg_mark)
check "the image assembles as the metadata names its disks" \
	dm_create arr "$(line "$D0 $D2" "spare $D3")"
check "the kernel log says the recovery resumes" \
	dmesg_has "$mark" "altmirror: the recovery resumes (active)"
dm_message arr sync_rate 0
check "the recovery ends" rl_wait_sync arr 300
check "the kernel log says it ended with the roles swapped" dmesg_has "$mark" \
	-E "altmirror: recovery done in [0-9]+ ms: the survivor is a spare"
check "the status says none ($(f 12))" test "$(f 12)" = none
check "the survivor is a spare ($(table_devs))" \
	test "$(table_devs)" = "$(devnum "$D3") $(devnum "$D2") spares $(devnum "$D0")"
check "pat1 reads back" pattern_at 60 /tmp/pat1
check "pat2 reads back" pattern_at 56 /tmp/pat2
check "the pool drains" drained 120
check "R1's disk holds pat1 (the scan kept the newer data)" raw_has "$D2" 60 /tmp/pat1
check "R2's disk holds pat1" raw_has "$D3" 60 /tmp/pat1
check "R1's disk holds pat2" raw_has "$D2" 56 /tmp/pat2
check "R2's disk holds pat2" raw_has "$D3" 56 /tmp/pat2
check_zero "after the crash's recovery"
check "the 16 MiB verify" fio_verify /dev/mapper/arr 16M
dm_remove arr

# ---------------------------------------- a replacement fails during it ---
# fail_replacement WRAPPER WHAT FROM: the recovery under way, WRAPPER (a
# replacement) fails; the survivor catches up from the FROM replacement
fail_replacement() {
	_w=$1 _what=$2 _from=$3
	fresh
	W=$(rl_wrap_members w 4)
	# shellcheck disable=SC2086
	set -- $W
	dm_create arr "$(line "$1 $2" "spare $3 spare $4")" &&
		rl_wait_sync arr 300 || die "setup"
	check "$_what: fio write (16 MiB)" fio_write /dev/mapper/arr 16M
	dm_message arr sync_rate $SLOW
	dm_message arr fail 1
	check "$_what: the recovery begins" rec_is active 60
	pattern 60 /tmp/pat1
	check "$_what: pat1 leaves the pool" drained 60
	mark=$(dmesg_mark)
	rl_swap_error "$_w"
	# the next write (and the next window) reach it
	pattern 40 /tmp/pat2
	check "$_what: the survivor catches up" rec_is none 120
	check "$_what: the kernel log says from which" dmesg_has "$mark" \
		"the survivor catches up from the $_from"
	check "$_what: and that it did" dmesg_has "$mark" \
		"altmirror: the survivor caught up; the rebuild goes on as a mirror's"
	dm_message arr sync_rate 0
	check "$_what: the rebuild ends" rl_wait_sync arr 300
	check "$_what: health AA ($(rl_health arr))" test "$(rl_health arr)" = AA
	check "$_what: pat1 reads back" pattern_at 60 /tmp/pat1
	check "$_what: pat2 reads back" pattern_at 40 /tmp/pat2
	check "$_what: the survivor's disk has pat1" raw_has "$D0" 60 /tmp/pat1
	check "$_what: the pool drains" drained 120
	check_zero "$_what"
	check "$_what: the 16 MiB verify" fio_verify /dev/mapper/arr 16M
	dm_remove arr
	for i in 0 1 2 3; do dm_remove w$i; done
}
fail_replacement w3 "R2 fails" first
fail_replacement w2 "R1 fails" second

check "kernel log clean" dmesg_clean
finish
