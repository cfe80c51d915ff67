#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bad input: random and mutated raidlab table lines and messages from
# `raidlab fuzz-lines` (seeded, so a failure can be replayed; raid0, mirror,
# raid10, chained, raid4, raid5, raid6 and plog). Every table line the kernel refuses must
# come with raidlab's reason in the log ("device-mapper: table: ...:
# raidlab: <reason>", or dm core's own for a line that never reaches
# raidlab); a line it accepts is removed again. The generator's unmutated
# lines (two per scheme, over blank members and metadata) must all be
# accepted. Messages go to a live raid5 (pmem metadata, on disks of its own:
# m6 and m7) holding data written with fio verify: a message other than
# an accepted "fail" leaves its health as it was, an accepted "fail" fails
# exactly one member ("fail" is not sent again once one did, so the array
# stays up); after the storm the array is optimal, or degraded with one
# member failed if a fail was taken, and the data verifies; optimal, check
# finds 0 mismatches, then member 1 is failed by hand; degraded, the data
# verifies again and check is refused. The kernel log must stay free of
# warnings (finish checks it). Corrupted metadata images are 85-tools'
# part. 40 lines in the default tier (a new seed each run), 900 in the
# long one: enough to wrap the 128 KiB kernel log (see dmesg_since).
# vm-opts: --disks 8 --timeout 1200
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab
command -v python3 >/dev/null || skip "no python3 in the guest (scripts/lab/mkinitramfs.sh)"

SEED=${RL_FUZZ_SEED:-$(cut -d' ' -f1 /proc/uptime | tr -d .)}
COUNT=${RL_FUZZ_COUNT:-$(tier 40 900)}
PM=$(pmem_dev) || skip "no pmem"
log "fuzz: seed $SEED, $COUNT lines"
python3 "$RL_TOOLS/raidlab" fuzz-lines --seed "$SEED" --count "$COUNT" --valid 2 \
	--devs "$(disk 0),$(disk 1),$(disk 2),$(disk 3)" --metadata "$(disk 5)" \
	--spares "$(disk 4)" --member-sectors "$(sectors "$(disk 0)")" >/tmp/fuzz.txt ||
	die "fuzz-lines"

# the live array the messages go to: over slices of m6 and m7, which no
# fuzzed line names
wipe "$PM" 4
for d in $(disks 6); do wipe "$d" 2; done
S=524288	# 256 MiB
run dm_create lv0 "0 $S linear $(disk 6) 0"
run dm_create lv1 "0 $S linear $(disk 6) $S"
run dm_create lv2 "0 $S linear $(disk 7) 0"
for d in lv0 lv1 lv2; do wipe /dev/mapper/$d 2; done
live="0 $((64 * 2048 * 2)) raidlab raid5 3 assume_clean metadata $PM 3 /dev/mapper/lv0 /dev/mapper/lv1 /dev/mapper/lv2"
check "live array created" dm_create live "$live"
FIO_RUNTIME=5 check "data written to the live array" fio_write /dev/mapper/live 96M

# nd HEALTH: its D count
nd() { echo "$1" | tr -cd D | wc -c; }

tables=0 refused=0 dmcore=0 accepted=0 userspace=0 silent=0 msgs=0 msg_ok=0
valid=0 valid_ok=0 fails_skipped=0 bad_health=0 failed_by_msg=0
health=$(rl_health live)
while read -r kind rest; do
	case $kind in
	valid)
		valid=$((valid + 1))
		# a new array: blank metadata and member superblocks
		case " $rest " in
		*" metadata "*)
			for d in $(disks 6); do
				dd if=/dev/zero of="$d" bs=1M count=4 conv=fsync 2>/dev/null
			done
			;;
		esac
		before=$(dmesg_mark)
		if printf '%s\n' "$rest" | command dmsetup create fz >/dev/null 2>&1; then
			valid_ok=$((valid_ok + 1))
			dmsetup remove --retry fz >/dev/null 2>&1 || die "cannot remove a valid line"
		else
			log "a valid line refused: $rest"
			dmesg_since "$before" | sed 's/^/    /'
			[ -e /dev/mapper/fz ] && command dmsetup remove fz >/dev/null 2>&1
		fi
		;;
	table)
		tables=$((tables + 1))
		before=$(dmesg_mark)
		if printf '%s\n' "$rest" | command dmsetup create fz >/dev/null 2>&1; then
			accepted=$((accepted + 1))
			dmsetup remove --retry fz >/dev/null 2>&1 || die "cannot remove an accepted line"
			continue
		fi
		[ -e /dev/mapper/fz ] && command dmsetup remove fz >/dev/null 2>&1
		# the table load's own lines: the live array's jobs log beside it
		new=$(dmesg_since "$before" | grep -E "device-mapper: (table|ioctl):")
		if [ -z "$new" ]; then
			# dmsetup refused it before the kernel saw it
			userspace=$((userspace + 1))
		elif echo "$new" | grep -q "device-mapper: table: [0-9:]*: raidlab: [A-Za-z]"; then
			refused=$((refused + 1))
		elif echo "$new" | grep -q "device-mapper: table: [0-9:]*: ."; then
			# dm core's own reason (unknown target type, zero-length
			# target): the line never reached raidlab
			dmcore=$((dmcore + 1))
		else
			silent=$((silent + 1))
			log "refused without a reason: $rest"
			echo "$new" | sed 's/^/    /'
		fi
		;;
	message)
		# one member failed is all a raid5 survives: no second fail
		case $rest in
		fail*)
			if [ "$(nd "$health")" -gt 0 ]; then
				fails_skipped=$((fails_skipped + 1))
				continue
			fi
			;;
		esac
		msgs=$((msgs + 1))
		ok=0
		# after "--": dmsetup would take the message's own "-" words as
		# its options, and a "--" of the message as their end ("-- fail
		# 0" would be sent as "fail 0")
		# shellcheck disable=SC2086
		command dmsetup message live 0 -- $rest >/dev/null 2>&1 && ok=1
		msg_ok=$((msg_ok + ok))
		h=$(rl_health live)
		case "$ok $rest" in
		"1 fail"*) want=1 ;;
		*) want=0 ;;
		esac
		if [ "$want" = 1 ] && [ "$(nd "$h")" = 1 ] && [ "$(nd "$health")" = 0 ]; then
			failed_by_msg=$((failed_by_msg + 1))
			log "'$rest' failed a member: $health -> $h"
		elif [ "$h" != "$health" ]; then
			bad_health=$((bad_health + 1))
			log "health $health -> $h after '$rest' (accepted: $ok)"
		fi
		health=$h
		;;
	esac
done </tmp/fuzz.txt
log "tables: $tables ($refused refused by raidlab with a reason, $dmcore by dm core with a reason, $accepted accepted, $userspace refused by dmsetup, $silent refused silently); valid lines: $valid ($valid_ok accepted); messages: $msgs ($msg_ok accepted, $failed_by_msg failed a member, $fails_skipped fail messages not sent)"
echo "fuzz seed=$SEED tables=$tables refused=$refused dmcore=$dmcore accepted=$accepted userspace=$userspace silent=$silent valid=$valid valid_ok=$valid_ok messages=$msgs accepted_messages=$msg_ok failed_by_msg=$failed_by_msg" >"$RL_OUT/fuzz-counts.txt"
check "every refused table line has a reason" test "$silent" = 0
check "the kernel saw and refused lines" test "$refused" -gt $((tables / 4))
check "every valid line is accepted, 2 of each of the 8 schemes ($valid_ok of $valid)" \
	test "$valid_ok" = 16 -a "$valid" = 16
check "messages were sent" test "$msgs" -gt 0
check "only an accepted fail changed the health, and by one member" test "$bad_health" = 0

# the storm is over: stop a check or repair it may have left running slowly
dm_message live idle 2>/dev/null
run dm_message live sync_rate 0
h=$(rl_health live)
log "live after the storm: $h $(rl_state live); $(dm_status live)"
if [ "$failed_by_msg" = 0 ]; then
	check "no member failed: AAA optimal" test "$h $(rl_state live)" = "AAA optimal"
	check "data written before the storm verifies" fio_verify /dev/mapper/live 96M
	check "check after the storm: 0" test "$(rl_scrub live check 300)" = 0
	# the degraded half, which the storm did not reach
	run dm_message live fail 1
	h=$(rl_health live)
fi
check "one member failed: degraded ($h)" test "$(nd "$h")" = 1 -a "$(rl_state live)" = degraded
check "data written before the storm verifies, degraded" fio_verify /dev/mapper/live 96M
expect_fail dm_message live check
dm_remove live
for d in lv0 lv1 lv2; do dm_remove $d; done
finish
