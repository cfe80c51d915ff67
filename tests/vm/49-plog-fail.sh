#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# plog (parity logging) through failures: written data verifies after
# reintegration with a check of 0 mismatches, after a member is failed
# (reads rebuilt from the row, writes served read-modify-write; the
# failure fixes up the regions with a log at once), and after
# a spare rebuilt the failed member; a reassembly from the DAX metadata
# reads the same, and so does a crash image (the logs in the DAX twins and
# on disk replayed), also with a member missing (its regions replayed or
# recomputed, then rebuilt onto a spare). The same writes check out with write-intent
# durability (journal off: the long tier only) and without metadata. Table lines that must be refused are refused with the
# reason in the kernel log. The long tier (--full) writes twice as much.
# vm-opts: --disks 6 --disk-size 256M --timeout 1500
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

PM=$(pmem_dev)
LEN=131072		# 64 MiB: well within the capacity of 5 x 256 MiB
M5=$(disks 5)
R1=$(tier 16M 32M)	# random writes at 0 (full rows follow at 32M)
R2=$(tier 8M 16M)	# random writes at 0 (a burst follows at 16M)

fresh() {
	for d in $(disks 6); do wipe "$d" 4 || die "wipe $d"; done
	wipe "$PM" 16 || die "wipe pmem"
}

fresh
dm_refused raidlab "0 $LEN raidlab raid5 2 log_disks 1 3 $(disks 3)" \
	"log_disks needs the plog scheme"
dm_refused raidlab "0 $LEN raidlab plog 2 log_ratio 1.2345 5 $M5" "Invalid log_ratio"
dm_refused raidlab "0 $((LEN + 8)) raidlab plog 2 chunk_size 64 5 $M5" \
	"Target length is not a multiple of chunk_size"
dm_refused raidlab "0 $((1 << 30)) raidlab plog 0 5 $M5" \
	"Target length exceeds the plog capacity"
dm_refused raidlab "0 $LEN raidlab plog 2 stripe_cache 8 5 $M5" \
	"stripe_cache is not a plog option"

# ---------------------------------------------------------------- pmem ---
check "plog over 5 disks with pmem metadata" \
	dm_create arr "0 $LEN raidlab plog 4 chunk_size 64 metadata $PM 5 $M5"
log "table: $(dm_table arr)"
log "status: $(dm_status arr)"
check "durability is pmem" test "$(rl_plog arr 9)" = pmem
check "initial resync finishes" rl_wait_sync arr 600
check "check after resync: 0" test "$(rl_scrub arr check 300)" = 0

# the random writes at 0 keep their fio state apart (fio.r1): a later
# fio_write to the array elsewhere would replace it, and a verify of R1
# against that state checks as many blocks as the later pass wrote
FIO_STATE_DIR=/tmp/fio.r1 FIO_RUNTIME=$(tier 8 15) check "randwrite 4k verifies" \
	fio_write_then_verify /dev/mapper/arr $R1
log "status: $(dm_status arr)"
n=$(dm_message arr plog_regions | wc -l)
log "regions with a log: $n"
check "plog_regions lists regions" test "$n" -gt 0
# log_bytes counts whole segments written to the log disks (each copy): 15 s
# of small random writes fill and write many of them
lb=$(rl_plog arr 10)
sb=$(($(rl_plog arr 7) * 512))
log "log bytes written: $lb (segments of $sb bytes)"
check "log segments were written: log_bytes is a positive multiple of a segment" \
	test "$lb" -ge "$sb" -a $((lb % sb)) = 0
check "reintegrate" dm_message arr reintegrate
check "no region keeps a log" test "$(rl_plog arr 16)" = 0
check "reintegrations counted" test "$(rl_plog arr 15)" -gt 0
check "check after reintegration: 0" test "$(rl_scrub arr check 300)" = 0

# full rows: L = 1, g = 4: a row is 3 chunks of 32 KiB
FIO_STATE_DIR=/tmp/fio.rows FIO_RW=write FIO_BS=96k check "full-row writes verify" \
	fio_write_then_verify /dev/mapper/arr 16M --offset=32M
check "reintegrate after full rows" dm_message arr reintegrate
check "check after full rows: 0" test "$(rl_scrub arr check 300)" = 0

# ------------------------------------------------------------ degraded ---
# A member failure fixes up every region with a log at once, with no
# access to it (the scheme's member_failed hook): its records reach the
# parity, or its parity is recomputed, while the array still can.
rl_plog_fail_fixups arr 1 56M
check "health ADAAA" test "$(rl_health arr)" = ADAAA
FIO_STATE_DIR=/tmp/fio.r1 check "degraded reads verify the random writes" \
	fio_verify /dev/mapper/arr $R1
FIO_STATE_DIR=/tmp/fio.rows FIO_RW=write FIO_BS=96k check "degraded reads verify the full rows" \
	fio_verify /dev/mapper/arr 16M --offset=32M
FIO_RUNTIME=$(tier 6 10) check "degraded randwrite 4k verifies" \
	fio_write_then_verify /dev/mapper/arr 8M --offset=48M
FIO_STATE_DIR=/tmp/fio.r1 check "the first data still verifies" \
	fio_verify /dev/mapper/arr $R1
log "status: $(dm_status arr)"
check "fail a second member" dm_message arr fail 3
check "array failed" test "$(rl_state arr)" = failed
expect_fail dd if=/dev/zero of=/dev/mapper/arr bs=4k count=1 seek=100 oflag=direct
dm_remove arr

# ------------------------------------------------------------- rebuild ---
fresh
check "plog with a spare" dm_create arr \
	"0 $LEN raidlab plog 6 chunk_size 64 metadata $PM spare $(disk 5) 5 $M5"
check "resync finishes" rl_wait_sync arr 600
FIO_STATE_DIR=/tmp/fio.r1 FIO_RUNTIME=$(tier 8 15) check "randwrite 4k verifies" \
	fio_write_then_verify /dev/mapper/arr $R1
check "fail member 2: the spare takes its role" dm_message arr fail 2
check "rebuild finishes" rl_wait_sync arr 600
check "health AAAAA after the rebuild" test "$(rl_health arr)" = AAAAA
FIO_STATE_DIR=/tmp/fio.r1 check "data verifies after the rebuild" fio_verify /dev/mapper/arr $R1
check "check after the rebuild: 0" test "$(rl_scrub arr check 300)" = 0
FIO_RUNTIME=$(tier 6 10) check "writes after the rebuild verify" \
	fio_write_then_verify /dev/mapper/arr 8M --offset=40M
TABLE=$(dm_table arr)
log "table: $TABLE"
dm_remove arr

# ---------------------------------------------------------- reassembly ---
check "reassembled from the metadata" dm_create arr "$TABLE"
FIO_STATE_DIR=/tmp/fio.r1 check "data verifies after reassembly" \
	fio_verify /dev/mapper/arr $R1
check "check after reassembly: 0" test "$(rl_scrub arr check 300)" = 0
dm_remove arr

# ------------------------------------------------------ fail under load ---
# two log buffers and 16 KiB segments: writers wait for buffers when the
# member fails; the spare is rebuilt while the writes go on
fresh
check "plog with two log buffers and a spare" dm_create arr2 \
	"0 $LEN raidlab plog 10 chunk_size 16 track_sectors 32 log_buffers 2 metadata $PM spare $(disk 5) 5 $M5"
check "resync finishes" rl_wait_sync arr2 600
rm -f /tmp/bg.rc
(FIO_RUNTIME=$(tier 12 30) FIO_IODEPTH=16 fio_write /dev/mapper/arr2 48M >/tmp/bg.log 2>&1
	echo $? >/tmp/bg.rc) &
sleep 3
check "fio is still writing" test ! -e /tmp/bg.rc
check "fail member 3 under load" dm_message arr2 fail 3
wait
cat /tmp/bg.log
check "the writes through the failure completed" test "$(cat /tmp/bg.rc)" = 0
check "rebuild finishes" rl_wait_sync arr2 600
check "health AAAAA" test "$(rl_health arr2)" = AAAAA
log "status: $(dm_status arr2)"
check "the writes verify" fio_verify /dev/mapper/arr2 48M
check "check after the rebuild: 0" test "$(rl_scrub arr2 check 300)" = 0
dm_remove arr2

# ------------------------------------------------------------- replay ---
# A crash image: the members' used start and the pmem copied while the
# array is live, records in its DAX twins and segments on disk. Loaded
# again, the logs are replayed: the data verifies and the parity checks.
fresh
check "plog for the replay" dm_create arr "0 $LEN raidlab plog 4 chunk_size 64 metadata $PM 5 $M5"
check "resync finishes" rl_wait_sync arr 600
FIO_RUNTIME=$(tier 6 10) check "randwrite 4k" fio_write /dev/mapper/arr $R2
check "it verifies" fio_verify /dev/mapper/arr $R2
# every log applied (its region's intent bit set, cleared seconds later),
# then new records: the image has logs in regions whose bits are set
check "reintegrate" dm_message arr reintegrate
FIO_STATE_DIR=/tmp/fio.burst FIO_RUNTIME=2 check "randwrite 4k for 2 s" \
	fio_write /dev/mapper/arr 2M --offset=16M
n=$(rl_plog arr 16)
d=$(rl_md arr | cut -d' ' -f3)
log "regions with a log at the crash: $n, dirty intent regions: $d; status: $(dm_status arr)"
check "some region holds a log at the crash" test "$n" -gt 0
check "intent bits are set at the crash" test "$d" -gt 0
rl_image_save_idle 64 $M5 || die "copy the crash image"
check "the first writes verify" fio_verify /dev/mapper/arr $R2
FIO_STATE_DIR=/tmp/fio.burst check "the last writes verify" \
	fio_verify /dev/mapper/arr 2M --offset=16M
dm_remove arr
rl_image_restore $M5 || die "restore the crash image"
check "loaded over the crash image" \
	dm_create arr "0 $LEN raidlab plog 4 chunk_size 64 metadata $PM 5 $M5"
log "status after replay: $(dm_status arr)"
check "no log left after the replay" test "$(rl_plog arr 16)" = 0
check "data verifies after the replay" fio_verify /dev/mapper/arr $R2
FIO_STATE_DIR=/tmp/fio.burst check "the last writes verify after the replay" \
	fio_verify /dev/mapper/arr 2M --offset=16M
check "check after the replay: 0" test "$(rl_scrub arr check 300)" = 0
dm_remove arr

# The same crash image with member 1 missing. Its regions' write-intent
# bits are still set (reintegrations just ran; bits clear lazily): they
# must not make the logs be dropped, only a parity rewrite the crash tore
# does. Regions member 1 logs for are recomputed from their data, the
# others replayed with its data read through parity. A spare rebuilds it.
rl_image_restore $M5 || die "restore the crash image"
rm -f /tmp/img? /tmp/imgpm
set -- $M5
check "crash image with member 1 missing assembles" dm_create arr \
	"0 $LEN raidlab plog 6 chunk_size 64 metadata $PM spare $(disk 5) 5 $1 - $3 $4 $5"
log "status: $(dm_status arr)"
n=$(dmesg | grep -c "a log member is unreadable, recomputing it")
log "regions recomputed for their missing log member: $n"
check "no log left after the degraded replay" test "$(rl_plog arr 16)" = 0
check "no row left unresolved" test "$(dmesg | grep -c 'could not be recomputed')" = 0
check "data verifies after the degraded replay" fio_verify /dev/mapper/arr $R2
FIO_STATE_DIR=/tmp/fio.burst check "the last writes verify after the degraded replay" \
	fio_verify /dev/mapper/arr 2M --offset=16M
check "rebuild onto the spare finishes" rl_wait_sync arr 600
check "health AAAAA after the rebuild" test "$(rl_health arr)" = AAAAA
check "data verifies after the rebuild" fio_verify /dev/mapper/arr $R2
FIO_STATE_DIR=/tmp/fio.burst check "the last writes verify after the rebuild" \
	fio_verify /dev/mapper/arr 2M --offset=16M
check "check after the degraded replay and rebuild: 0" \
	test "$(rl_scrub arr check 300)" = 0
dm_remove arr

# ----------------------------------------- write intent, no metadata ---
# the long tier: 48-plog's bufio round covers intent durability by default
if [ "$(tier 0 1)" = 1 ]; then
	fresh
	check "plog with journal off" dm_create arr \
		"0 $LEN raidlab plog 6 chunk_size 64 metadata $PM journal off 5 $M5"
	check "durability is intent" test "$(rl_plog arr 9)" = intent
	check "resync finishes" rl_wait_sync arr 600
	FIO_RUNTIME=$(tier 6 10) check "randwrite 4k verifies" fio_write_then_verify /dev/mapper/arr $R2
	n=$(rl_plog arr 16)
	d=$(rl_md arr | cut -d' ' -f3)
	log "intent: $n regions with a log, $d dirty intent regions"
	check "regions with a log hold intent bits" test "$n" -gt 0 -a "$d" -gt 0
	check "reintegrate" dm_message arr reintegrate
	check "check after reintegration: 0" test "$(rl_scrub arr check 300)" = 0
	# small writes (their blocks in the data cache), full rows over them, then
	# small writes again: their prereads must not come from a stale cache
	hot() {
		fio --name="$1" --filename=/dev/mapper/arr --size=8M --offset=16M --rw=randwrite \
			--bs=4k --ioengine=libaio --iodepth=8 --direct=1 --norandommap --randrepeat=0 \
			--runtime="$2" --time_based --output="$RL_OUT/$1.txt" >/dev/null 2>&1
	}
	check "hot small writes" hot hot1 4
	check "full rows over them" fio --name=rows --filename=/dev/mapper/arr --size=8M \
		--offset=16M --rw=write --bs=96k --ioengine=libaio --iodepth=4 --direct=1 \
		--output="$RL_OUT/rows.txt"
	check "hot small writes again" hot hot2 4
	log "cache: $(rl_plog arr 18) hits, $(rl_plog arr 19) misses"
	check "the data cache was used" test "$(rl_plog arr 18)" -gt 0
	check "reintegrate" dm_message arr reintegrate
	check "check after small writes over full rows: 0" test "$(rl_scrub arr check 300)" = 0
	dm_remove arr
fi

fresh
check "plog without metadata" dm_create arr "0 $LEN raidlab plog 2 chunk_size 64 5 $M5"
check "durability is none" test "$(rl_plog arr 9)" = none
check "resync finishes" rl_wait_sync arr 600
FIO_RUNTIME=$(tier 6 10) check "randwrite 4k verifies" fio_write_then_verify /dev/mapper/arr $R2
check "check without reintegrating first: 0" test "$(rl_scrub arr check 300)" = 0
dm_remove arr

finish
