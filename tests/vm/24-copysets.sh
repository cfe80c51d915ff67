#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# raid10 and chained declustering, end to end (Documentation/dm-raidlab.rst,
# "Striped mirrors and chained declustering"):
#   - each layout (raid10 near 2 over 4, far 2 over 4, offset 3 over 5
#     in the long tier; chained over 5) with its metadata on the pmem: created, resynced
#     (check finds 0), its status group and table line; 16 MiB of fio
#     verify data, random 4 KiB writes beside it verified while they run,
#     and the 16 MiB verified again after the table is loaded again;
#   - the layout is recorded: the same metadata with another layout or
#     copy count is refused ("The metadata holds another copy layout");
#   - failures under load: raid10 near 2 over 4 loses member 1, then 3
#     (another mirror set): degraded, the data verifies; then 0 (1's
#     partner): failed. chained over 5 loses 1 and 3 (not neighbours):
#     degraded, the data verifies; then 2: failed. Two missing
#     neighbours are refused at load, two others are not;
#   - a rebuild onto a spare under load (raid10 far): the spare takes the
#     failed role, the load verifies, check finds 0;
#   - discard: blkdiscard of a range goes to every copy and fails nothing,
#     and the data around it verifies.
# vm-opts: --disks 6 --disk-size 256M --timeout 1200
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

MD=$(pmem_dev)
CHUNK=64
LEN=131072		# 64 MiB: fits every layout over 255 MiB of each member
LOADT=$(tier 6 15)

fresh() {
	for _d in $(disks 6); do wipe "$_d" 4 || die "wipe $_d"; done
	wipe "$MD" 16 || die "wipe pmem"
}

# line SCHEME OPTS DEV...: a table line at LEN over the members, pmem metadata
line() {
	_s=$1 _o="chunk_size $CHUNK metadata $MD${2:+ $2}"
	shift 2
	echo "0 $LEN raidlab $_s $(echo "$_o" | wc -w) $_o $# $*"
}

# ---- every layout: create, resync, verify, reload ----
# raid10 offset 3 over 5 in the long tier (KUnit checks its placement
# against md's, and 44-locate's long tier its bytes)
SPECS="raid10:layout near copies 2:4:near 2,raid10:layout far copies 2:4:far 2"
SPECS="$SPECS$(tier "" ",raid10:layout offset copies 3:5:offset 3"),chained::5:"
IFS=,
for spec in $SPECS; do
	unset IFS
	s=${spec%%:*} rest=${spec#*:}
	o=${rest%%:*} rest=${rest#*:}
	n=${rest%%:*} group=${rest#*:}
	what="$s ${o:-} over $n"
	fresh
	# shellcheck disable=SC2046
	check "$what: created" dm_create arr "$(line "$s" "$o" $(disks "$n"))"
	check "$what: resynced" rl_wait_sync arr 300
	check "$what: check finds 0 after the resync" test "$(rl_scrub arr check 300)" = 0
	check "$what: status group '$group'" test "$(rl_scheme_fields arr)" = "$group"
	check "$what: the table line keeps the options" \
		sh -c "dmsetup table arr | grep -q ' $s .*$o'"
	check "$what: fio writes 16 MiB" fio_write /dev/mapper/arr 16M
	rl_load_start arr 16M 32M "$LOADT"
	rl_load_done "$what"
	_t=$(dmsetup table arr)
	run dm_remove arr
	check "$what: the printed table assembles it again" dm_create arr "$_t"
	check "$what: optimal again" test "$(rl_state arr)" = optimal
	check "$what: the 16 MiB verify after the reassembly" fio_verify /dev/mapper/arr 16M
	check "$what: check finds 0 after the writes" test "$(rl_scrub arr check 300)" = 0
	run dm_remove arr
done

# ---- the layout is recorded: another one is refused ----
fresh
# shellcheck disable=SC2046
dm_create arr "$(line raid10 "layout offset copies 2 assume_clean" $(disks 4))" ||
	die "offset: create"
run dm_remove arr
_m=$(dmesg_mark)
# shellcheck disable=SC2046
dm_refused raidlab "$(line raid10 "layout far copies 2 assume_clean" $(disks 4))" \
	"The metadata holds another copy layout"
check "another layout: the kernel log names the recorded one" \
	dmesg_has "$_m" "the metadata holds layout offset, 2 copies over 4 members"
# shellcheck disable=SC2046
check "the same layout assembles" \
	dm_create arr "$(line raid10 "layout offset copies 2 assume_clean" $(disks 4))"
run dm_remove arr

# ---- raid10 near 2 over 4: failures under load ----
fresh
# shellcheck disable=SC2046
dm_create arr "$(line raid10 "layout near copies 2 assume_clean" $(disks 4))" || die "near: create"
check "near: fio writes 16 MiB" fio_write /dev/mapper/arr 16M
rl_load_start arr 16M 32M "$LOADT"
sleep 1
run dm_message arr fail 1
sleep 1
run dm_message arr fail 3
rl_load_done "near: members 1 and 3 failed under load"
check "near: 1 and 3 (two mirror sets) failed: degraded" \
	test "$(rl_health arr) $(rl_state arr)" = "ADAD degraded"
check "near: the 16 MiB verify degraded" fio_verify /dev/mapper/arr 16M
run dm_message arr fail 0
check "near: then 0, 1's partner: failed" test "$(rl_state arr)" = failed
expect_fail dio_read /dev/mapper/arr 0 8 /tmp/x
run dm_remove arr

# ---- chained over 5: failures that are and are not neighbours ----
fresh
# shellcheck disable=SC2046
dm_create arr "$(line chained "assume_clean" $(disks 5))" || die "chained: create"
check "chained: fio writes 16 MiB" fio_write /dev/mapper/arr 16M
rl_load_start arr 16M 32M "$LOADT"
sleep 1
run dm_message arr fail 1
sleep 1
run dm_message arr fail 3
rl_load_done "chained: members 1 and 3 failed under load"
check "chained: 1 and 3 (not neighbours) failed: degraded" \
	test "$(rl_health arr) $(rl_state arr)" = "ADADA degraded"
check "chained: the 16 MiB verify degraded" fio_verify /dev/mapper/arr 16M
run dm_remove arr
# shellcheck disable=SC2046
set -- $(disks 5)
check "chained: loaded again with 1 and 3 missing" \
	dm_create arr "$(line chained "" "$1" - "$3" - "$5")"
check "chained: the 16 MiB verify with 1 and 3 missing" fio_verify /dev/mapper/arr 16M
run dm_message arr fail 2
check "chained: then 2, a neighbour of both: failed" test "$(rl_state arr)" = failed
run dm_remove arr
fresh
dm_refused raidlab "$(line chained "" "$1" - - "$4" "$5")" \
	"More members missing than the scheme survives"

# ---- raid10 far 2: a rebuild onto a spare under load ----
fresh
# shellcheck disable=SC2046
dm_create arr "$(line raid10 "layout far copies 2 spare $(disk 5)" $(disks 4))" ||
	die "far: create"
# a resync, not assume_clean: fresh wipes only the disks' first MiBs
check "far: resynced" rl_wait_sync arr 300
check "far: fio writes 16 MiB" fio_write /dev/mapper/arr 16M
rl_load_start arr 16M 32M "$(tier 12 30)"
sleep 1
run dm_message arr fail 2
sleep 2
check "far: the spare took role 2 and rebuilt it" rl_wait_sync arr 300
rl_load_done "far: rebuild onto the spare under load"
check "far: all in sync after the rebuild" test "$(rl_health arr)" = AAAA
check "far: check finds 0 after the rebuild" test "$(rl_scrub arr check 300)" = 0
check "far: the 16 MiB verify after the rebuild" fio_verify /dev/mapper/arr 16M

# ---- discard: every copy, no failure, the rest intact ----
check "far: blkdiscard of 8 MiB from 40 MiB" blkdiscard -o $((40 << 20)) -l $((8 << 20)) /dev/mapper/arr
check "far: the discard failed no member" test "$(rl_health arr)" = AAAA
check "far: the 16 MiB before it still verify" fio_verify /dev/mapper/arr 16M
run dm_remove arr

finish
