#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The layout methods against the members' bytes (issue 14's contract:
# ->locate and ->owner on the instance, the "locate" and "owner"
# messages): for raid0, raid10 (near, far), chained, raid5, raid6 and
# plog (and mirror, raid4 and raid10 offset in the long tier), random data
# is written through the array, and for the first and a middle sector of
# every chunk of it (locate.py) the data and each copy on the member that
# "locate" names hold the array's bytes, "owner" names every location
# back, and each P (and raid6's Q) is the syndrome of its row's data.
# Then: `raidlab locate` in text and JSON, and the messages' refusals.
# vm-opts: --disks 5 --disk-size 64M --timeout 900
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"

need_raidlab
command -v python3 >/dev/null || skip "no python3 in the guest (scripts/lab/mkinitramfs.sh)"
RL="python3 $RL_TOOLS/raidlab"
CHUNK=16
# sectors written and checked: 15 chunks (24 in the long tier), five rows
# of raid5 over 4 and raid6 over 5, so that P and Q visit every member
AREA=$((CHUNK * $(tier 15 24)))

# layout NAME WHAT: write AREA sectors of random data, check them
layout() {
	dd if=/dev/urandom of=/tmp/area bs=512 count=$AREA 2>/dev/null
	check "$2: random data written through the array" dio_write "/dev/mapper/$1" 0 /tmp/area
	[ "$2" = plog ] && run dm_message "$1" reintegrate
	python3 "$RL_TESTS/locate.py" "$1" $AREA $CHUNK 0 7 >/out/locate-$2.txt 2>&1
	_r=$?
	grep '^# ' /out/locate-$2.txt | head -20
	check "$2: locate and owner agree with the members' bytes" test $_r = 0
}

# mirror, raid4 and raid10's offset layout: the long tier only (their
# maps are dm_raidlab_layout's in KUnit too, and the messages take the
# same path for every scheme)
long_only() { [ "$(tier 1 0)" = 1 ] && case $1 in mirror | raid4 | raid10-offset) true ;; *) false ;; esac; }

for spec in "raid0 3" "mirror 3" "raid4 4" "raid5 4" "raid6 5"; do
	set -- $spec
	long_only "$1" && continue
	for _d in $(disks "$2"); do wipe "$_d" 4 || die "wipe $_d"; done
	# shellcheck disable=SC2046
	RL_OPTS=$([ "$1" = raid0 ] || [ "$1" = mirror ] || echo assume_clean) \
		check "$1: create" rl_create arr "$1" $CHUNK $(disks "$2")
	layout arr "$1"
	run dm_remove arr
done

# the copy-set schemes: raid10's three layouts and chained declustering
for spec in "raid10:4:layout near copies 2" "raid10:5:layout far copies 3" \
	"raid10:4:layout offset copies 2" "chained:5:"; do
	s=${spec%%:*} rest=${spec#*:}
	n=${rest%%:*} o=${rest#*:}
	tag=$s${o:+-$(echo "$o" | cut -d' ' -f2)}
	long_only "$tag" && continue
	for _d in $(disks "$n"); do wipe "$_d" 4 || die "wipe $_d"; done
	# shellcheck disable=SC2046
	RL_LEN=16384 RL_OPTS=$o check "$tag: create" rl_create arr "$s" $CHUNK $(disks "$n")
	rl_wait_sync arr 300 || not_ok "$tag: initial resync"
	layout arr "$tag"
	run dm_remove arr
done

for _d in $(disks 5); do wipe "$_d" 4 || die "wipe $_d"; done
# shellcheck disable=SC2046
RL_OPTS="log_disks 1 regions 5" check "plog: create" rl_plog_create arr $CHUNK $(disks 5)
rl_wait_sync arr 600 || not_ok "plog: initial resync"
layout arr plog

# the tool: one sector's places as text and JSON, and a member sector's owner
$RL locate arr 7 >/out/locate.txt 2>&1
check "raidlab locate: text names the data and its P" \
	sh -c "grep -q '^  data ' /out/locate.txt && grep -q '^  p ' /out/locate.txt"
$RL locate arr 7 --json >/tmp/loc.json
check "raidlab locate --json: data first, then P, on other members" \
	rl_jcheck "[x['part'] for x in d['locations']] == ['data', 'p'] and d['locations'][0]['member'] != d['locations'][1]['member'] and d['locations'][0]['device'].startswith('/dev/')" </tmp/loc.json
_m=$(python3 -c 'import json; d = json.load(open("/tmp/loc.json")); print(d["locations"][0]["member"], d["locations"][0]["sector"])')
# shellcheck disable=SC2086
$RL locate arr --member $_m --json >/tmp/own.json
check "raidlab locate --member: the data's member sector is sector 7" \
	rl_jcheck "d['part'] == 'data' and d['sector'] == 7" </tmp/own.json

# refusals: past the end, a bad member, words that are no number
_len=$(dmsetup table arr | awk '{ print $2 }')
expect_fail dm_message arr locate "$_len"
expect_fail dm_message arr locate x12
expect_fail dm_message arr owner 5 0
expect_fail dm_message arr owner 0 1x
check "owner past the members' span: none" \
	test "$(dmsetup message arr 0 owner 0 999999999)" = none
run dm_remove arr
finish
