#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/raidlab's detail, add-spare and (1.22) replace over every scheme
# with a metadata device (issue 14: the tools read the kernel's table line
# and status by count, with no copy of a scheme's grammar); each replace
# copies member 0 onto the spare just added, the old disk kept as a spare,
# and the data verifies after it:
#   mirror (raid4 and raid6 in the long tier): `raidlab create` (raid5 is
#   85-tools'), fio verify,
#   `detail --json` (health, metadata, members, the scheme's empty status
#   group), `add-spare` (the array assembled again with the spare), detail
#   again: one spare, the data still verifies;
#   plog: `raidlab create --scheme plog --opt ...` at its own capacity
#   (loaded at one chunk, capacity_sectors read, loaded again) with its
#   options (log_disks, log_buffers, ...) on the pmem metadata, then the
#   same detail, add-spare and detail: its 20-field status group, its
#   options kept in the table;
#   raid10 (far 2 over 4) and chained (over 4, the long tier only): `raidlab create` (raid10
#   with --opt layout=far), the initial resync, fio verify, the same
#   detail and add-spare (raid10's group: its layout and copies), then
#   stop and `raidlab assemble` from the metadata alone: the layout comes
#   back from the copy layout record, and the data verifies;
#   sr (issue 16) over six 16 MiB slices: `raidlab create --opt
#   geom=st39133 --opt dr=2` at the length the tools compute from the
#   geometry (one chunk more is refused by the kernel), fio verify, its
#   group, stop and `raidlab assemble` (dr, dm and the geom line from the
#   layout record's words); a record without words (1.13.0) is named by
#   assemble and mended by a load with the line; `--auto` picks 2 x 3 x 1
#   for Cello base's locality.
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
	# replace (1.22): member 0 copied onto the spare, the old disk kept a spare
	_mm=$(python3 -c "import os, sys; r = os.stat(sys.argv[1]).st_rdev; print(f'{os.major(r)}:{os.minor(r)}')" "$_sp")
	$RL replace "$_n" 0 --with "$_sp" --keep-old --json >/tmp/rep.json 2>/tmp/rep.err ||
		{ not_ok "$_w: replace failed"; cat /tmp/rep.err; }
	check "$_w: replace: the spare serves member 0, the old disk is kept" \
		rl_jcheck "d['new'] == '$_mm' and d['old_removed'] is False" </tmp/rep.json
	check "$_w: after replace: $_all, the old disk a spare" \
		sh -c "test '$(rl_health "$_n")' = '$_all' && dmsetup table $_n | grep -q ' spare '"
}

# ---- mirror (raid4, raid6: --full) through `raidlab create` ----
for s in mirror $(tier "" "raid4 raid6"); do
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
	fio_verify /dev/mapper/arr 16M || not_ok "$s: fio verify after add-spare and replace"
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
fio_verify /dev/mapper/arr 8M || not_ok "plog: fio verify after add-spare and replace"
dm_remove arr

# ---- raid10 and chained (--full): options and layout from the metadata ----
for spec in "raid10 2 --opt layout=far" "chained 0"; do
	# shellcheck disable=SC2086
	set -- $spec
	s=$1 f=$2
	shift 2
	[ "$s" = chained ] && [ "$(tier 0 1)" = 0 ] && continue
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

# ---- sr: sized by its geometry, assembled from the layout record's words ----
fresh
# six 16 MiB slices: ST39133 cylinders 2 .. 15 of each after the 1 MiB offset
_sl=
for i in 0 1 2 3 4 5; do
	echo "0 32768 linear $(disk $i) 0" | dmsetup create "rlsr$i" || die "slice $i"
	_sl="$_sl /dev/mapper/rlsr$i"
done
# shellcheck disable=SC2086
$RL create arr --scheme sr --chunk 64 --metadata "$MD" --opt geom=st39133 --opt dr=2 \
	--dry-run --json $_sl >/tmp/sr.json || die "sr: raidlab create --dry-run"
_len=$(python3 -c "import json; print(json.load(open('/tmp/sr.json'))['array_sectors'])")
_line=$(python3 -c "import json; print(json.load(open('/tmp/sr.json'))['table'])")
# the tools' capacity is the kernel's: one chunk more is refused
dm_refused raidlab "0 $((_len + 64)) ${_line#* * }" "Target length exceeds the members' capacity"
fresh
# shellcheck disable=SC2086
$RL create arr --scheme sr --chunk 64 --metadata "$MD" --opt geom=st39133 --opt dr=2 \
	--json $_sl >/tmp/sr.json || die "sr: raidlab create"
check "sr: created at the tools' length ($_len sectors), the model's geom line on it" \
	sh -c "dmsetup table arr | grep -q '^0 $_len raidlab sr .* dr 2 dm 1 geom period_ns=6000000,cylinders=10000,heads=6,zones=0:334/'"
rl_wait_sync arr 600 || not_ok "sr: initial resync"
fio_write_then_verify /dev/mapper/arr 16M || not_ok "sr: fio verify on the created array"
$RL detail arr --json >/tmp/det.json || not_ok "sr: detail --json"
check "sr: detail: its group Ds 3, Dr 2, Dm 1" \
	rl_jcheck "d['status']['scheme_fields'][:3] == ['3', '2', '1']" </tmp/det.json
run $RL stop arr
# shellcheck disable=SC2086
$RL assemble arr --metadata "$MD" $_sl >/tmp/asm.txt 2>/tmp/asm.err ||
	{ not_ok "sr: assemble from the metadata"; cat /tmp/asm.err; }
check "sr: assembled with dr, dm and geom from the layout record, all members" \
	sh -c "test '$(rl_health arr)' = AAAAAA && dmsetup table arr | grep -q ' dr 2 dm 1 geom period_ns=6000000,'"
fio_verify /dev/mapper/arr 16M || not_ok "sr: fio verify after assemble"
run $RL stop arr
# a record of 1.13.0 (no words): assemble says so; a load with the line
# gives the record its words
python3 - "$MD" <<'PY' || die "sr: clearing the record's words"
import os, sys
sys.path.insert(0, os.environ["RL_TOOLS"])
from raidlab_lib import blockdev, ondisk
md = blockdev.read_md(sys.argv[1])[1]
area = next(a for a in md.areas if a.id == ondisk.CS_AREA_ID)
at = area.start * ondisk.BLOCK
rec = ondisk.decode_cs_layout(blockdev.read_at(sys.argv[1], at, ondisk.BLOCK))
assert rec["words"].startswith("dr 2 dm 1 geom "), rec
rec["words"] = ""
with open(sys.argv[1], "r+b") as f:
    f.seek(at)
    f.write(ondisk.encode_cs_layout(**rec))
    f.flush()
PY
# shellcheck disable=SC2086
if $RL assemble arr --metadata "$MD" $_sl >/tmp/asm.txt 2>/tmp/asm.err; then
	not_ok "sr: assembled from a record without words"
	dm_remove arr
else
	check "sr: a record without words: assemble names the 1.14.0 change" \
		grep -q "before dm-raidlab 1.14.0" /tmp/asm.err
fi
echo "0 $_len ${_line#* * }" | dmsetup create arr || not_ok "sr: load with its line"
dm_remove arr
# shellcheck disable=SC2086
$RL assemble arr --metadata "$MD" $_sl >/tmp/asm.txt 2>/tmp/asm.err ||
	{ not_ok "sr: assemble after the load that wrote the words"; cat /tmp/asm.err; }
fio_verify /dev/mapper/arr 16M || not_ok "sr: fio verify after the record was mended"
run $RL stop arr
# --auto: paper 002's shape for six disks, Cello base's locality: 2 x 3 x 1
# (--force: the slices hold the array above)
# shellcheck disable=SC2086
$RL create arr --scheme sr --auto --workload cello-base --opt geom=st39133 --metadata "$MD" \
	--force --dry-run --json $_sl >/tmp/auto.json 2>/tmp/auto.err ||
	{ not_ok "sr: create --auto"; cat /tmp/auto.err; }
check "sr: --auto chose dr 3 dm 1 (2x3x1) and said so" \
	sh -c "grep -q ' dr 3 dm 1 geom ' /tmp/auto.json && grep -q 'sr 2x3x1' /tmp/auto.err"
for i in 0 1 2 3 4 5; do dm_remove "rlsr$i"; done

finish
