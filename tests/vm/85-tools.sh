#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/raidlab in the guest (python3 from the lab initramfs):
#   1. replay-log against a real dm-log-writes log: its entries, crash points
#      and marks, a replay to a mark and to the end compared with the logged
#      device, an incremental replay;
#   2. fuzz-lines is deterministic in the guest too;
#   3. the array verbs: with dm-raidlab >= 1.2 (metadata device, superblocks,
#      spares: issue 4) create -> fio verify -> stop -> assemble -> detail
#      --json -> fail -> (with background jobs: a mismatch count in the
#      status) rebuild onto the spare -> check, refusals of disks
#      holding superblocks and of stale members, and the kernel refusing
#      metadata and member superblocks damaged by `raidlab corrupt`; with an
#      older module only what it has:
#      create --no-metadata, status/detail --json, fail.
# vm-opts: --disks 6 --disk-size 512M --timeout 1200
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"

need_raidlab
command -v python3 >/dev/null || skip "no python3 in the guest (scripts/lab/mkinitramfs.sh)"
RL="python3 $RL_TOOLS/raidlab"

# ------------------------------------------------------ 1. replay-log ---
need_log_writes
DATA=$(disk 4)
LOG=$(disk 5)
wipe "$LOG" 4
dd if=/dev/zero of="$DATA" bs=1M count=4 conv=fsync 2>/dev/null
dm_create lw "0 $(sectors "$DATA") log-writes $DATA $LOG" || die "log-writes create"
dd if=/dev/urandom of=/tmp/a bs=4k count=64 2>/dev/null
dd if=/dev/urandom of=/tmp/b bs=4k count=32 2>/dev/null
run dd if=/tmp/a of=/dev/mapper/lw bs=4k oflag=direct conv=fsync 2>/dev/null
dm_message lw mark one
run dd if=/tmp/b of=/dev/mapper/lw bs=4k seek=16 oflag=direct conv=fsync 2>/dev/null
run dd if=/tmp/b of=/dev/mapper/lw bs=4k seek=200 oflag=direct conv=fsync 2>/dev/null
dm_remove lw

$RL replay-log "$LOG" --list >/out/log-list.txt 2>&1
check "replay-log lists the log" grep -q "mark one" /out/log-list.txt
$RL replay-log "$LOG" --list-points --random 5 --seed 1 --json >/tmp/pts.json
check "crash points: flushes found, the end, 5 random" \
	rl_jcheck 'd["flush_points"] and d["points"][-1] == d["entries"] and len(d["points"]) >= len(d["flush_points"])' </tmp/pts.json
END=$(python3 -c 'import json; print(json.load(open("/tmp/pts.json"))["entries"])')
K=$($RL replay-log "$LOG" --mark one)
check "mark one found (point $K of $END)" test "${K:-0}" -gt 0 -a "$K" -lt "$END"

# replay to the mark: the first write only
dd if=/dev/zero of="$(disk 3)" bs=1M count=4 conv=fsync 2>/dev/null
run $RL replay-log "$LOG" --to "$K" --dest "$(disk 3)"
dd if="$(disk 3)" of=/tmp/r1 bs=4k count=64 iflag=direct 2>/dev/null
check "replay to the mark holds the first write" cmp -s /tmp/a /tmp/r1
dd if="$(disk 3)" of=/tmp/r2 bs=4k skip=200 count=32 iflag=direct 2>/dev/null
check "replay to the mark lacks the later writes" cmp -s -n 131072 /tmp/r2 /dev/zero
# then incrementally to the end: the device equals the logged one
run $RL replay-log "$LOG" --from "$K" --to "$END" --dest "$(disk 3)"
dd if="$(disk 3)" of=/tmp/r3 bs=4k count=256 iflag=direct 2>/dev/null
dd if="$DATA" of=/tmp/d3 bs=4k count=256 iflag=direct 2>/dev/null
check "incremental replay to the end equals the logged device" cmp -s /tmp/r3 /tmp/d3

# ------------------------------------------------------ 2. fuzz-lines ---
$RL fuzz-lines --seed 11 --count 200 >/tmp/f1
$RL fuzz-lines --seed 11 --count 200 >/tmp/f2
check "fuzz-lines: 200 lines, same for the same seed" \
	sh -c 'test "$(wc -l </tmp/f1)" -eq 200 && cmp -s /tmp/f1 /tmp/f2'

# ---------------------------------------------------- 3. array verbs ---
ver=$(dmsetup targets | awk '$1 == "raidlab" { sub(/^v/, "", $2); print $2 }')
major=${ver%%.*}
minor=${ver#*.}
minor=${minor%%.*}
log "dm-raidlab $ver"
M="$(disk 0) $(disk 1) $(disk 2) $(disk 3)"
for d in $M; do wipe "$d" 4; done
FIO_RUNTIME=${FIO_RUNTIME:-8}

if [ $((major * 1000 + minor)) -lt 1002 ]; then
	log "dm-raidlab $ver has no metadata device (1.2, issue 4): the verbs it supports only"
	expect_fail $RL create r5 --scheme raid5 --chunk 128 $M
	run $RL create r5 --scheme raid5 --chunk 128 --no-metadata --assume-clean $M
	check "create: the kernel took the computed length" \
		test "$(dmsetup table r5 | cut -d' ' -f2)" -eq "$(rl_len raid5 128 $M)"
	fio_write_then_verify /dev/mapper/r5 32M || not_ok "fio verify on the created array"
	$RL status r5 --json >/tmp/st.json
	check "status --json: raid5, optimal, 4 alive" \
		rl_jcheck 'd["scheme"] == "raid5" and d["array_state"] == "optimal" and d["health"] == "AAAA"' </tmp/st.json
	run $RL fail r5 1
	$RL detail r5 --json >/tmp/det.json
	check "detail --json after fail 1: degraded, member 1 failed" \
		rl_jcheck 'd["status"]["array_state"] == "degraded" and [m["health"] for m in d["members"]] == ["alive", "failed", "alive", "alive"]' </tmp/det.json
	fio_verify /dev/mapper/r5 32M || not_ok "fio verify degraded"
	$RL detail r5 >/out/detail.txt
	check "detail (text) names the failed member" grep -q "failed" /out/detail.txt
	expect_fail $RL rebuild r5
	run $RL stop r5
	finish
fi

# ---- dm-raidlab >= 1.2: metadata device, superblocks, spares ----
MD=$(pmem_dev)
SP=$(disk 4)
wipe "$SP" 4
# the members are zeroes (fresh sparse images, the first and last MiB wiped
# above): parity is consistent already, no resync to wait for
run $RL create r5 --scheme raid5 --chunk 128 --metadata "$MD" --spare "$SP" --assume-clean $M
fio_write_then_verify /dev/mapper/r5 64M || not_ok "fio verify on the created array"
$RL detail r5 --json >/tmp/det.json
check "detail --json: 4 alive, metadata ok, a spare" \
	rl_jcheck 'd["status"]["health"] == "AAAA" and d["status"]["md_state"] == "ok" and d["status"]["spares_available"] == 1 and d["metadata"]["superblock"]["nr_members"] == 4' </tmp/det.json
expect_fail $RL create r6 --scheme raid5 --metadata "$(disk 5)" $M
check "create: the live array's members refused as in use (O_EXCL)" \
	grep -q "^raidlab create: $(disk 0): in use" /tmp/.rl_expect_fail
run $RL stop r5

$RL detail --metadata "$MD" --json $M >/tmp/off.json
check "detail --metadata offline: superblock and 4 member superblocks of its uuid" \
	rl_jcheck 'd["superblock"] and all(x["superblock"] and x["superblock"]["uuid"] == d["superblock"]["uuid"] for x in d["devices"])' </tmp/off.json
$RL assemble r5 --metadata "$MD" --scan --json >/tmp/asm.json || not_ok "assemble --scan failed"
check "assemble --scan: every role and the spare found" \
	rl_jcheck '"-" not in d["roles"] and len(d["spares"]) == 1' </tmp/asm.json
fio_verify /dev/mapper/r5 64M || not_ok "fio verify after assemble"

run $RL fail r5 1
# background jobs (rebuild onto spares, check, repair: the sync work of issue
# 4) show as a mismatch count in the status; without them the spare stays
SYNC=0
$RL status r5 --json | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["mismatches"] is None)' &&
	SYNC=1
if [ $SYNC = 1 ]; then
	check "rebuild onto the spare runs to its end" $RL rebuild r5 --wait --timeout 900
	$RL status r5 --json >/tmp/st.json
	check "rebuilt onto the spare: 4 alive, no spare left" \
		rl_jcheck 'd["health"] == "AAAA" and d["spares_available"] == 0' </tmp/st.json
	fio_verify /dev/mapper/r5 64M || not_ok "fio verify after rebuild"
	$RL check r5 --wait --timeout 900 --json >/tmp/chk.json
	check "check after rebuild: no mismatch" rl_jcheck 'd["mismatches"] == 0' </tmp/chk.json
else
	log "no background jobs in dm-raidlab $ver: rebuild and check not tested"
	$RL status r5 --json >/tmp/st.json
	check "fail 1: degraded, the spare still available" \
		rl_jcheck 'd["health"] == "ADAA" and d["spares_available"] == 1' </tmp/st.json
	fio_verify /dev/mapper/r5 64M || not_ok "fio verify degraded"
fi
run $RL stop r5
# the failed member is stale now: assemble leaves it out
$RL assemble r5 --metadata "$MD" --json $M "$SP" >/tmp/asm2.json 2>/tmp/asm2.err ||
	{ not_ok "assemble after the failure"; cat /tmp/asm2.err; }
sed "s/^/    assemble: /" /tmp/asm2.err
# (sync.c records a failure in the metadata; without it the member comes back)
if [ $SYNC = 1 ]; then
	# the spare holds role 1 now
	check "assemble refuses the failed member 1 as the wrong disk for role 1" \
		grep -q "refused $(disk 1): wrong-disk: claims role 1 but" /tmp/asm2.err
fi
TABLE=$(python3 -c 'import json; print(json.load(open("/tmp/asm2.json"))["table"])') ||
	die "no table from assemble"
log "table: $TABLE"
dmsetup info r5 >/dev/null 2>&1 && run $RL stop r5

# corrupted superblocks: the kernel refuses the table line with a message
# (the tool's own decoder validated each block before damaging it)
dd if="$MD" of=/tmp/md.img bs=4k count=2 2>/dev/null
MX=$(echo "$TABLE" | awk '{ print $NF }')   # the last role's disk
dd if="$MX" of=/tmp/mx.img bs=4k count=1 iflag=direct 2>/dev/null
# each refused with its own message (Documentation/dm-raidlab.rst, "Refusals"):
# damage KIND -> the message. nr_members + 1 reads a member state past the
# array's (the superblock's own check, before the table is compared); the
# last role + 1 is past the array's roles
for kc in "flip:Metadata superblock: bad checksum" \
	"truncate:Metadata superblock: bad checksum" \
	"magic:Metadata superblock: bad magic" \
	"version:Metadata superblock: unsupported version" \
	"feature:Metadata superblock: unknown incompatible feature" \
	"uuid:Member belongs to another array" \
	"geometry:Metadata superblock: member state out of range" \
	"chunk:Metadata superblock: chunk size is not a power of two" \
	"bitmap:Metadata superblock: bitmap past the last block number"; do
	# five of them in the long tier (KUnit dm_raidlab_metadata decodes each)
	case ${kc%%:*} in
	truncate | version | feature | chunk | bitmap) [ "$(tier 0 1)" = 1 ] || continue ;;
	esac
	run $RL corrupt "$MD" --kind "${kc%%:*}" --bits 8 --seed 1 >/dev/null
	dm_refused raidlab "$TABLE" "${kc#*:}"
	dd if=/tmp/md.img of="$MD" bs=4k count=2 conv=fsync,notrunc 2>/dev/null
done
for kc in "uuid:Member belongs to another array" \
	"stale:Member superblock is stale" \
	"role:Member superblock: role out of range" \
	"dev-uuid:Member is not the disk the metadata knows in its role"; do
	run $RL corrupt "$MX" --member --kind "${kc%%:*}" --seed 1 >/dev/null
	dm_refused raidlab "$TABLE" "${kc#*:}"
	dd if=/tmp/mx.img of="$MX" bs=4k count=1 oflag=direct conv=fsync,notrunc 2>/dev/null
done
# one slot torn: the other (older) one loads
run $RL corrupt "$MD" --kind flip --slot newest --bits 8 --seed 2
check "one damaged slot: the array loads from the other" dm_create r5 "$TABLE"
dmsetup info r5 >/dev/null 2>&1 && run $RL stop r5
finish
