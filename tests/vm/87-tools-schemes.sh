#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/raidlab's detail and add-spare over every scheme with a metadata
# device (issue 14: the tools read the kernel's table line and status by
# count, with no copy of a scheme's grammar):
#   mirror, raid6 (and raid4 in the long tier): `raidlab create` (raid5 is
#   85-tools'), fio verify,
#   `detail --json` (health, metadata, members, the scheme's empty status
#   group), `add-spare` (the array assembled again with the spare), detail
#   again: one spare, the data still verifies;
#   plog: `raidlab create --scheme plog --opt ...` at its own capacity
#   (loaded at one chunk, capacity_sectors read, loaded again) with its
#   options (log_disks, log_buffers, ...) on the pmem metadata, then the
#   same detail, add-spare and detail: its 20-field status group, its
#   options kept in the table;
#   raid10 (far 2 over 4) and chained (over 4): `raidlab create` (raid10
#   with --opt layout=far), the initial resync, fio verify, the same
#   detail and add-spare (raid10's group: its layout and copies), then
#   stop and `raidlab assemble` from the metadata alone: the layout comes
#   back from the copy layout record, and the data verifies.
# vm-opts: --disks 6 --disk-size 256M --timeout 1200
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"

need_raidlab
command -v python3 >/dev/null || skip "no python3 in the guest (scripts/lab/mkinitramfs.sh)"
RL="python3 $RL_TOOLS/raidlab"
MD=$(pmem_dev)
[ -n "$MD" ] || skip "no pmem device"

fresh() {
	for _d in $(disks 6); do wipe "$_d" 4 || die "wipe $_d"; done
	wipe "$MD" 16 || die "wipe pmem"
}

# detail_spare NAME WHAT N SPARE FIELDS: detail, add-spare SPARE, detail;
# FIELDS is the scheme group's word count
detail_spare() {
	_n=$1 _w=$2 _k=$3 _sp=$4 _f=$5
	_all=$(printf '%*s' "$_k" '' | tr ' ' A)
	$RL detail "$_n" --json >/tmp/det.json || not_ok "$_w: detail --json failed"
	check "$_w: detail: $_all, metadata ok, $_k members, $_f scheme fields" \
		rl_jcheck "d['status']['health'] == '$_all' and d['status']['md_state'] == 'ok' and len(d['members']) == $_k and len(d['status']['scheme_fields']) == $_f" </tmp/det.json
	check "$_w: detail: the metadata device decoded, its record areas listed" \
		rl_jcheck "'error' not in d['metadata'] and d['metadata']['superblock']['scheme'] == '$_w' and len(d['metadata']['superblock']['areas']) >= 1" </tmp/det.json
	$RL detail "$_n" >/out/detail-$_n.txt 2>&1
	check "$_w: detail (text) runs" grep -q "role  health" /out/detail-$_n.txt
	wipe "$_sp" 4
	$RL add-spare "$_n" "$_sp" --json >/tmp/add.json 2>/tmp/add.err ||
		{ not_ok "$_w: add-spare failed"; cat /tmp/add.err; }
	check "$_w: add-spare: the new table has the spare" \
		rl_jcheck "' spare $_sp ' in d['table'] + ' '" </tmp/add.json
	$RL detail "$_n" --json >/tmp/det2.json || not_ok "$_w: detail after add-spare"
	check "$_w: after add-spare: one spare available, still $_all" \
		rl_jcheck "d['status']['spares_available'] == 1 and d['status']['health'] == '$_all' and len(d['spares']) == 1" </tmp/det2.json
}

# ---- mirror, raid6 (raid4: --full) through `raidlab create` ----
for s in mirror $(tier "" raid4) raid6; do
	fresh
	case $s in
	mirror) n=2 ;;
	raid4) n=4 ;;
	raid6) n=5 ;;
	esac
	# shellcheck disable=SC2046
	set -- $(disks "$n")
	sp=$(disk 5)
	ac=
	[ $s != mirror ] && ac=--assume-clean
	run $RL create arr --scheme $s --chunk 64 --metadata "$MD" $ac "$@"
	check "$s: created" test "$(rl_state arr)" = optimal
	FIO_RUNTIME=$(tier 8 20) fio_write_then_verify /dev/mapper/arr 16M || not_ok "$s: fio verify on the created array"
	detail_spare arr "$s" "$n" "$sp" 0
	fio_verify /dev/mapper/arr 16M || not_ok "$s: fio verify after add-spare"
	run $RL stop arr
done

# ---- plog, created at its capacity, with options of its own ----
fresh
# shellcheck disable=SC2046
set -- $(disks 5)
# `raidlab create` sizes it: loaded at one chunk, its capacity read, loaded again
$RL create arr --scheme plog --chunk 16 --metadata "$MD" --opt log_disks=1 \
	--opt log_buffers=4 --opt regions=5 --json "$@" >/tmp/create.json ||
	die "plog: raidlab create"
check "plog: created" test "$(rl_state arr)" = optimal
_cap=$(rl_plog arr 8)
check "plog: created at its capacity in whole chunks ($_cap sectors)" \
	rl_jcheck "d['array_sectors'] == $_cap // 16 * 16 and d['array_sectors'] > 16 and ' log_disks 1 ' in d['table']" </tmp/create.json
check "plog: the table's length is the capacity" \
	test "$(dmsetup table arr | awk '{ print $2 }')" = "$(($_cap / 16 * 16))"
rl_wait_sync arr 600 || not_ok "plog: initial resync"
fio_write_then_verify /dev/mapper/arr 8M || not_ok "plog: fio verify"
detail_spare arr plog 5 "$(disk 5)" 20
check "plog: its options kept in the table after add-spare" \
	rl_jcheck "' log_buffers 4 ' in d['table'] and ' regions 5 ' in d['table']" </tmp/add.json
check "plog: status group read by count: 5 regions" \
	rl_jcheck "d['status']['scheme_fields'][3] == '5'" </tmp/det2.json
fio_verify /dev/mapper/arr 8M || not_ok "plog: fio verify after add-spare"
dm_remove arr

# ---- raid10 and chained: options and layout from the metadata ----
for spec in "raid10 2 --opt layout=far" "chained 0"; do
	# shellcheck disable=SC2086
	set -- $spec
	s=$1 f=$2
	shift 2
	fresh
	# shellcheck disable=SC2046
	run $RL create arr --scheme "$s" --chunk 64 --metadata "$MD" "$@" $(disks 4)
	check "$s: created" test "$(rl_state arr)" = optimal
	rl_wait_sync arr 600 || not_ok "$s: initial resync"
	FIO_RUNTIME=$(tier 8 20) fio_write_then_verify /dev/mapper/arr 16M ||
		not_ok "$s: fio verify on the created array"
	detail_spare arr "$s" 4 "$(disk 5)" "$f"
	if [ "$s" = raid10 ]; then
		check "raid10: layout and copies kept in the table after add-spare" \
			rl_jcheck "' layout far copies 2 ' in d['table']" </tmp/add.json
		check "raid10: its status group: far 2" \
			rl_jcheck "d['status']['scheme_fields'] == ['far', '2']" </tmp/det2.json
	fi
	run $RL stop arr
	# shellcheck disable=SC2046
	$RL assemble arr --metadata "$MD" --json $(disks 4) "$(disk 5)" >/tmp/asm.json 2>/tmp/asm.err ||
		{ not_ok "$s: assemble from the metadata"; cat /tmp/asm.err; }
	check "$s: assembled with its layout, all members" \
		sh -c "test '$(rl_health arr)' = AAAA && dmsetup table arr | grep -q ' $s '"
	[ "$s" = raid10 ] && check "raid10: assembled as far 2 (from the layout record)" \
		sh -c "dmsetup table arr | grep -q ' layout far copies 2 '"
	fio_verify /dev/mapper/arr 16M || not_ok "$s: fio verify after assemble"
	run $RL stop arr
done

finish
