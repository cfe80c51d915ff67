#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Replace (1.22, issue 18): a member's disk is copied onto a spare while
# it serves, every write going to both, then the spare takes the role in
# one metadata commit and the old disk becomes a spare (md's
# want_replacement).
#
# raid5 over rw0..rw3 (dm-linear over the first four disks, 32 MiB of
# each), spares rw4 and rw5, a DAX metadata device:
#   - under load: pattern A over the first 16 MiB, then a verifying
#     random-write load over the rest while `raidlab replace arr 1 --with
#     rw4` copies and swaps; the tool then removes the old disk from the
#     table (a live reload). rw4 serves role 1, the old disk is out of the
#     table, the load and A verify, and check finds 0 mismatches (a copy
#     that missed writes leaves parity that disagrees with it);
#   - the new disk fails: rw5 turns into an error target during a slowed
#     copy of member 2; the replace stops with its reason in last_error and
#     the tool's exit, and role 2 keeps its disk, in sync;
#   - the old disk fails: member 3 is failed during its copy onto rw5; the
#     replace stops and role 3 is rebuilt from redundancy onto rw5 (the
#     spare the replace let go); meanwhile a reload is refused (the spare
#     is held);
#   - refusals: no free spare, a device that is not a spare, a member out
#     of range, and an array without a metadata device.
# Crash windows (images of every disk, the metadata first, written back):
#   - mid-copy: the array assembles with the old disk in the role and the
#     new one a spare; naming the new one in the role is refused;
#   - after the swap: it assembles with the new disk in the role; naming
#     the old one in the role is refused.
# Each time the data verifies and check finds 0 mismatches.
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

RL() { python3 "$RL_TOOLS/raidlab" "$@"; }
PM=$(pmem_dev)
MB=32
LEN=$((MB * 2048 * 3))
IMB=$((MB + 2))			# MiB of each disk an image holds

# mm NAME: the major:minor of /dev/mapper/NAME, as tables name it
mm() { dmsetup info -c --noheadings -o major,minor --separator : "$1" | tr -d ' '; }
# role_dev I: the table's device of member I
role_dev() { dm_table arr | awk -v i="$1" '{ n = $5; print $(7 + n + i) }'; }

# setup: arr over rw0..rw3 with spares rw4 and rw5, pattern A written
setup() {
	wipe "$PM" 4 || return 1
	for _i in 0 1 2 3 4 5; do
		dd if=/dev/zero of="$(disk "$_i")" bs=1M count=$IMB conv=fsync 2>/dev/null
	done
	W=$(rl_wrap_members rw 6)
	_o="chunk_size 64 assume_clean region_size 1024 metadata $PM spare /dev/mapper/rw4 spare /dev/mapper/rw5"
	dm_create arr "0 $LEN raidlab raid5 $(echo "$_o" | wc -w) $_o 4 $(echo "$W" | cut -d' ' -f1-4)" || return 1
	rm -rf /tmp/fa
	FIO_STATE_DIR=/tmp/fa FIO_BS=64k fio_write /dev/mapper/arr 16M
}

teardown() {
	dm_remove arr || return 1
	for _i in 0 1 2 3 4 5; do dm_remove "rw$_i" || return 1; done
}

# verified WHAT: pattern A verifies, check finds 0, health AAAA
verified() {
	FIO_STATE_DIR=/tmp/fa FIO_BS=64k check "$1: pattern A verifies" fio_verify /dev/mapper/arr 16M
	check "$1: health AAAA" test "$(rl_health arr)" = AAAA
	check "$1: check finds 0 mismatches" test "$(rl_scrub arr check 300)" = 0
}

disk_back() {
	dmsetup suspend "$1" &&
		echo "0 $(sectors "$(disk "$2")") linear $(disk "$2") 0" | dmsetup load "$1" &&
		dmsetup resume "$1"
}

# ------------------------------------------------------- under load ---
run setup
OLD1=$(mm rw1)
# the copy slowed to about 8 s, so that the load's writes land in ranges
# copied already as well as in ranges still to copy
run dm_message arr sync_rate 4096
rl_load_start arr $((16 << 20)) $((LEN * 512 - (16 << 20))) 14 8
sleep 1
M=$(dmesg_mark)
check "raidlab replace of member 1 with rw4, under load" RL replace arr 1 --with /dev/mapper/rw4
rl_load_done "replace under load"
run dm_message arr sync_rate 0
check "rw4 serves role 1" test "$(role_dev 1)" = "$(mm rw4)"
check "the old disk is out of the table" sh -c "! dmsetup table arr | grep -qw $OLD1"
check "the kernel says the copy started" dmesg_has "$M" "member 1 .*: copy onto .* started"
check "and that member 1 is replaced" dmesg_has "$M" "member 1 replaced"
log "replace: $(dmesg_since "$M" | grep -E 'replace|copy onto|is a spare' | tr '\n' ' ')"
verified "after the replace"

# ------------------------------------------------- the new disk fails ---
run dm_message arr sync_rate 2048
(sleep 3; rl_swap_error rw5) &
ERR=$!
check "a replace whose new disk fails exits non-zero" sh -c \
	"! python3 $RL_TOOLS/raidlab replace arr 2 --with /dev/mapper/rw5 >/tmp/rp.out 2>&1"
wait $ERR
check "with the kernel's reason" grep -q "replace of member 2 stopped: the new disk failed a write" /tmp/rp.out
check "which last_error keeps" sh -c "dmsetup message arr 0 last_error | grep -q 'the new disk failed a write'"
check "role 2 keeps its disk" test "$(role_dev 2)" = "$(mm rw2)"
run disk_back rw5 5
run dm_message arr sync_rate 0
verified "after the new disk failed"

# ------------------------------------------------- the old disk fails ---
run dm_message arr sync_rate 2048
check "replace --no-wait of member 3 (the first free spare)" RL replace arr 3 --no-wait
log "status: $(dmsetup status arr)"
check "the copy runs (recover)" until_ok 10 sh -c "test \"\$(dmsetup status arr | awk '{ print \$8 }')\" = recover"
T=$(dm_table arr)
M=$(dmesg_mark)
check "a reload during the copy is refused" sh -c "! echo '$T' | dmsetup reload arr 2>/dev/null"
check "because the spare is held" dmesg_has "$M" "A spare is held"
run dm_message arr fail 3
check "the replace stops when the old disk fails" until_ok 10 sh -c \
	"dmsetup message arr 0 last_error | grep -q 'replace of member 3 stopped: the old disk failed'"
run dm_message arr sync_rate 0
check "role 3 is rebuilt" rl_wait_sync arr 120
check "onto rw5, the spare the replace let go" test "$(role_dev 3)" = "$(mm rw5)"
verified "after the old disk failed"

# ------------------------------------------------------- refusals ---
check "replace with no free spare is refused" sh -c "! dmsetup message arr 0 replace 0 2>/dev/null"
check "and says so" sh -c "dmsetup message arr 0 last_error | grep -q 'no free spare'"
check "replace of member 9 is refused" sh -c "! dmsetup message arr 0 replace 9 2>/dev/null"
check "replace onto a device that is not a spare is refused" sh -c \
	"! dmsetup message arr 0 replace 0 $(mm rw0) 2>/dev/null"
check "and says so" sh -c "dmsetup message arr 0 last_error | grep -q 'is not a spare'"
run teardown
run rl_wrap_members rw 2 >/dev/null
run dm_create m2 "0 8192 raidlab mirror 0 2 /dev/mapper/rw0 /dev/mapper/rw1"
check "replace without a metadata device is refused" sh -c "! dmsetup message m2 0 replace 0 2>/dev/null"
check "and says so" sh -c "dmsetup message m2 0 last_error | grep -q 'no metadata device'"
run dm_remove m2
run dm_remove rw0
run dm_remove rw1

# --------------------------------------------------- crash windows ---
# image save|restore: the metadata first, then every disk
image() {
	if [ "$1" = save ]; then
		rl_image_save_idle "$IMB" $(disks 6)
	else
		rl_image_restore $(disks 6)
	fi
}
# table ROLE1: the array's table with ROLE1 in role 1, the other as a spare
table() {
	_o="chunk_size 64 assume_clean region_size 1024 metadata $PM spare /dev/mapper/$2 spare /dev/mapper/rw5"
	echo "0 $LEN raidlab raid5 $(echo "$_o" | wc -w) $_o 4 /dev/mapper/rw0 /dev/mapper/$1 /dev/mapper/rw2 /dev/mapper/rw3"
}
# assemble_as GOOD BAD WHAT: with BAD in role 1 the load is refused; with GOOD it runs
assemble_as() {
	run dm_remove arr
	run image restore
	check "$3: naming $2 in role 1 is refused" sh -c "! echo '$(table "$2" "$1")' | dmsetup create arr 2>/dev/null"
	[ -e /dev/mapper/arr ] && dmsetup remove arr
	run dm_create arr "$(table "$1" "$2")"
	verified "$3"
	check "$3: $1 serves role 1" test "$(role_dev 1)" = "$(mm "$1")"
}

run setup
run dm_message arr sync_rate 1024
check "crash mid-copy: replace --no-wait" RL replace arr 1 --with /dev/mapper/rw4 --no-wait
check "crash mid-copy: the copy is under way" until_ok 20 sh -c \
	"test \"\$(dmsetup status arr | awk '{ print \$8 }')\" = recover -a \"\$(dmsetup status arr | awk '{ split(\$7, a, \"/\"); print a[1] }')\" -gt 4096"
run image save
assemble_as rw1 rw4 "crash mid-copy"
run teardown

run setup
check "crash after the swap: raidlab replace --keep-old" RL replace arr 1 --with /dev/mapper/rw4 --keep-old
check "crash after the swap: the old disk stays, a spare" sh -c "dmsetup table arr | grep -qw 'spare $(mm rw1)'"
run image save
assemble_as rw4 rw1 "crash after the swap"
run teardown
finish
