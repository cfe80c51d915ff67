#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bad input: random and mutated raidlab table lines and messages from
# `raidlab fuzz-lines` (seeded, so a failure can be replayed). Every table
# line the kernel refuses must come with raidlab's reason in the log
# ("device-mapper: table: ...: raidlab: <reason>", or dm core's own for a
# line that never reaches raidlab); a line it accepts is
# removed again; messages go to a live raid5 with a metadata device and
# either work or are refused. The kernel log must stay free of warnings
# (finish checks it). Corrupted metadata images are 85-tools' part.
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab
command -v python3 >/dev/null || skip "no python3 in the guest (scripts/lab/mkinitramfs.sh)"

SEED=${RL_FUZZ_SEED:-$(cut -d' ' -f1 /proc/uptime | tr -d .)}
COUNT=${RL_FUZZ_COUNT:-300}
PM=$(pmem_dev) || skip "no pmem"
log "fuzz: seed $SEED, $COUNT lines"
python3 "$RL_TOOLS/raidlab" fuzz-lines --seed "$SEED" --count "$COUNT" \
	--devs "$(disk 0),$(disk 1),$(disk 2),$(disk 3)" --metadata "$(disk 5)" \
	--spares "$(disk 4)" >/tmp/fuzz.txt || die "fuzz-lines"

# the live array the messages go to
wipe "$PM" 4
for d in $(disks 4); do wipe "$d" 2; done
live="0 $((64 * 2048 * 2)) raidlab raid5 3 assume_clean metadata $PM 3 $(disk 0) $(disk 1) $(disk 2)"
check "live array created" dm_create live "$live"

tables=0 refused=0 dmcore=0 accepted=0 userspace=0 silent=0 msgs=0 msg_ok=0
while read -r kind rest; do
	case $kind in
	table)
		tables=$((tables + 1))
		before=$(dmesg | wc -l)
		if printf '%s\n' "$rest" | command dmsetup create fz >/dev/null 2>&1; then
			accepted=$((accepted + 1))
			dmsetup remove --retry fz >/dev/null 2>&1 || die "cannot remove an accepted line"
			continue
		fi
		[ -e /dev/mapper/fz ] && command dmsetup remove fz >/dev/null 2>&1
		new=$(dmesg | tail -n +$((before + 1)))
		if ! echo "$new" | grep -q "device-mapper:"; then
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
		msgs=$((msgs + 1))
		# shellcheck disable=SC2086
		if command dmsetup message live 0 $rest >/dev/null 2>&1; then
			msg_ok=$((msg_ok + 1))
		fi
		;;
	esac
done </tmp/fuzz.txt
log "tables: $tables ($refused refused by raidlab with a reason, $dmcore by dm core with a reason, $accepted accepted, $userspace refused by dmsetup, $silent refused silently); messages: $msgs ($msg_ok accepted)"
echo "fuzz seed=$SEED tables=$tables refused=$refused dmcore=$dmcore accepted=$accepted userspace=$userspace silent=$silent messages=$msgs accepted_messages=$msg_ok" >"$RL_OUT/fuzz-counts.txt"
check "every refused table line has a reason" test "$silent" = 0
check "the kernel saw and refused lines" test "$refused" -gt $((tables / 4))
check "messages were sent" test "$msgs" -gt 0
dmsetup status live >/dev/null
check "the live array still answers" test -n "$(rl_state live)"
dm_remove live
finish
