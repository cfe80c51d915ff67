#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dm-hddsim, the emulated mechanical disk:
#  - bad table lines are refused with a clear message, bad messages too;
#  - media errors: addbadblock makes reads of the sectors fail, a write
#    heals what it covers, removebadblock and clearbadblocks empty the
#    list, countbadblocks counts sectors and failed reads;
#  - the table line comes back, the device is rotational;
#  - data written through it is really stored (fio verify, and the bytes
#    on the underlying device at the offset);
#  - 4 KiB sequential against random read throughput on the IBM Lightning
#    preset matches the model's ratio, computed here from the paper's
#    parameters (paper 000 Fig. 12), within 10 %;
#  - the counters move as they must: random reads seek about a third of the
#    disk per request and wait half a turn, sequential reads hardly do;
#    with the queue never empty the arm is busy for the whole run;
#  - hdd_stack / hdd_unstack (hddsim.sh) wrap and unwrap every member.
# vm-opts: --disks 4 --timeout 600 --alone
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/hddsim.sh"
need_hddsim

m0=$(disk 0)
m1=$(disk 1)
dev_len=$(sectors "$m0")
cap=$(hdd_capacity lightning)
check "lightning capacity is 949 * 14 * 48 sectors" test "$cap" = 637728

# refused TABLE MESSAGE: create must fail and the kernel log must say why
refused() { dm_refused hddsim "$@"; }

refused "0 1000 hddsim $m0 0" "Not enough arguments"
refused "0 1000 hddsim $m0 x lightning" "Invalid device offset"
refused "0 1000 hddsim $m0 0 floppy" "Unknown preset"
refused "0 1000 hddsim /dev/nonexistent 0 lightning" "Device lookup failed"
refused "0 1000 hddsim $m0 0 lightning 3 heads 2" "Invalid number of optional arguments"
refused "0 1000 hddsim $m0 0 lightning 1 heads" "Optional argument lacks a value"
refused "0 1000 hddsim $m0 0 lightning 2 platters 3" "Unknown optional argument"
refused "0 1000 hddsim $m0 0 lightning 4 heads 2 heads 3" "Duplicate optional argument"
refused "0 1000 hddsim $m0 0 lightning 2 heads 0" "Invalid number of heads"
refused "0 1000 hddsim $m0 0 lightning 2 zones 0:8/2000:4" "Invalid zone start cylinder"
refused "0 1000 hddsim $m0 0 lightning 2 zones 0:8:9" "Invalid zones"
refused "0 1000 hddsim $m0 0 lightning 4 sectors 8 zones 0:8" "sectors and zones are exclusive"
refused "0 1000 hddsim $m0 0 lightning 2 time_scale 0" "Invalid time_scale"
refused "0 1000 hddsim $m0 0 lightning 2 period_us 50" "Invalid rotation period"
refused "0 1000 hddsim $m0 0 custom 4 cylinders 10 heads 2" "custom needs cylinders, heads, sectors or zones, and a period"
refused "0 $((cap + 1)) hddsim $m0 0 lightning" "Target length exceeds the emulated disk's capacity"
refused "0 1000 hddsim $m0 $((dev_len - 999)) lightning" "Target length exceeds the underlying device"

# ------------------------------------------------- table, rotational, data ---
len=32768
check "good line accepted" dm_create hv "0 $len hddsim $m1 2048 lightning 2 time_scale 10"
check "table line comes back" sh -c "dmsetup table hv | grep -q ' 2048 lightning 2 time_scale 10\$'"
dmsetup table hv
rot=$(cat "$(dm_sysfs hv)/queue/rotational")
check "rotational=1 (inherited from the rotational member)" test "$rot" = 1
expect_fail dm_message hv bogus
check "reset_counters accepted" dm_message hv reset_counters

if FIO_RUNTIME=30 FIO_BS=64k FIO_IODEPTH=4 fio_write_then_verify /dev/mapper/hv 16M; then
	ok "fio write + verify through hddsim (time_scale 10)"
else
	not_ok "fio write + verify through hddsim"
fi
check "writes counted" test "$(hdd_st hv writes)" -gt 0
check "reads counted" test "$(hdd_st hv reads)" -gt 0
a=$(dd if=/dev/mapper/hv bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
b=$(dd if="$m1" bs=512 skip=2048 count=32768 2>/dev/null | md5sum | cut -d' ' -f1)
check "the data is on the underlying device at the offset" test "$a" = "$b"
dmsetup status hv

# --------------------------------------------------------- media errors ---
bad() { dmsetup message hv 0 countbadblocks; }
rd() { dio_read /dev/mapper/hv "$1" "$2" /tmp/rd; }
wr() { head -c $(($2 * 512)) /dev/zero >/tmp/wr && dio_write /dev/mapper/hv "$1" /tmp/wr; }
command -v python3 >/dev/null || die "no python3 in the guest (scripts/lab/mkinitramfs.sh)"
expect_fail dm_message hv addbadblock
expect_fail dm_message hv addbadblock x
expect_fail dm_message hv addbadblock $len
expect_fail dm_message hv addbadblock 100 0
expect_fail dm_message hv addbadblock $((len - 4)) 8
expect_fail dm_message hv addbadblock 100 513
check "no media error at first" test "$(bad)" = "0 0"
check "addbadblock 100 16" dm_message hv addbadblock 100 16
check "countbadblocks: 16 sectors" test "$(bad)" = "16 0"
check "a read before them succeeds" rd 92 8
expect_fail rd 112 8
check "the failed read is counted" test "$(bad)" = "16 1"
check "a write over sectors 100..103 heals them" wr 100 4
check "countbadblocks: 12 left" test "$(bad | cut -d' ' -f1)" = 12
check "the healed sectors read" rd 100 4
expect_fail rd 104 1
check "removebadblock 104 4" dm_message hv removebadblock 104 4
check "countbadblocks: 8 left" test "$(bad | cut -d' ' -f1)" = 8
check "clearbadblocks" dm_message hv clearbadblocks
check "countbadblocks: none left" test "$(bad | cut -d' ' -f1)" = 0
check "they all read" rd 100 16
check "remove" dm_remove hv

# ------------------------------------------------------------ throughput ---
# Lightning (paper 000 Fig. 12) and the preset's chosen skews/head switch.
N=949 H=14 S=48 P=13.9 TS=5 CS=9 HS=1.16 A=2.0 B=0.01 C=0.46 BS=8
# sequential 4 KiB reads with the queue never empty: a cylinder is H*S
# sectors plus (H-1) track skews and one cylinder skew of rotation (each
# skew covers its switch), read in H*S/BS requests.
# random 4 KiB reads over the whole disk: E[seek(|X-Y|)] for uniform
# cylinders X, Y, a head switch when only the head changes, half a turn,
# and BS sectors of transfer.
model=$(awk -v N=$N -v H=$H -v S=$S -v P=$P -v TS=$TS -v CS=$CS -v HS=$HS \
	-v A=$A -v B=$B -v C=$C -v BS=$BS '
	# busybox awk has no sqrt(): Newton iterations
	function root(x, y, i) {
		y = x
		for (i = 0; i < 40; i++) y = (y + x / y) / 2
		return y
	}
	BEGIN {
	seq = ((H * S + (H - 1) * TS + CS) * P / S) / (H * S / BS)
	es = 0
	for (d = 1; d < N; d++) es += 2 * (N - d) / (N * N) * (A + B * d + C * root(d))
	rnd = es + (1 / N) * (1 - 1 / H) * HS + P / 2 + BS * P / S
	printf "%.4f %.4f %.4f %.4f", seq, rnd, rnd / seq, es
}')
set -- $model
seq_ms=$1 rnd_ms=$2 ratio_model=$3 seek_ms=$4
log "model: sequential $seq_ms ms, random $rnd_ms ms per 4 KiB read (seek $seek_ms ms): ratio $ratio_model"

QD=64
check "lightning disk over m0" dm_create hl "0 $cap hddsim $m0 0 lightning"
# fio_read RW: 10 s of 4 KiB direct reads at queue depth QD=64 (the
# arm's queue must not run dry while the real device stalls: TCG on a
# loaded host stalls it for tens of ms at times, and 64 sequential requests
# are 165 ms of arm time); prints "<iops> <runtime_ms>" (IOPS from terse
# fields 6, KiB read, and 9, runtime in ms: field 8 is rounded to a whole
# number)
fio_read() {
	dm_message hl reset_counters
	fio --name=hs --filename=/dev/mapper/hl --size=$((cap * 512)) --rw="$1" \
		--bs=4k --ioengine=libaio --iodepth=$QD --direct=1 --time_based \
		--runtime=10 --randseed=42 --minimal >/tmp/fio.$1 2>&1 ||
		{ cat /tmp/fio.$1; return 1; }
	awk -F';' '{ printf "%.2f %d\n", $6 / 4 * 1000 / $9, $9 }' /tmp/fio.$1
}
# stats NAME: the status fields the checks use
stats() {
	req=$(hdd_st hl requests) cyls=$(hdd_st hl seek_cyls) rot=$(hdd_st hl rot_us)
	busy=$(hdd_st hl busy_us) late=$(hdd_st hl late) late_us=$(hdd_st hl late_us)
	log "$1: $(dmsetup status hl)"
}

set -- $(fio_read read) || die "fio sequential read failed"
seq_iops=$1 seq_ms_run=$2
stats seq
seq_req=$req seq_cyls=$cyls seq_rot=$rot seq_busy=$busy seq_late=$late
set -- $(fio_read randread) || die "fio random read failed"
rnd_iops=$1 rnd_ms_run=$2
stats rnd
rnd_req=$req rnd_cyls=$cyls rnd_rot=$rot rnd_busy=$busy rnd_late=$late

res=$(awk -v s="$seq_iops" -v r="$rnd_iops" -v m="$ratio_model" 'BEGIN {
	printf "%.3f %.3f", s / r, (s / r) / m }')
set -- $res
ratio=$1 rel=$2
log "measured: sequential $seq_iops IOPS, random $rnd_iops IOPS: ratio $ratio (model $ratio_model, measured/model $rel)"
log "late completions: sequential $seq_late of $seq_req, random $rnd_late of $rnd_req"
echo "preset,seq_iops,rand_iops,ratio,model_ratio,seq_late,rand_late" >"$RL_OUT/hddsim-ratio.csv"
echo "lightning,$seq_iops,$rnd_iops,$ratio,$ratio_model,$seq_late,$rnd_late" >>"$RL_OUT/hddsim-ratio.csv"

# Tolerance 10 %: the random rate is a mean over ~450 services whose
# coefficient of variation is about 0.26 (seek and rotation), a 1.2 %
# standard error (3.7 % at 3 sigma); the sequential rate is almost exact;
# the rest covers completions the underlying device delivers late (the
# status counts them: late, late_us).
inside() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
check "seq/random ratio $ratio within 10 % of the model's $ratio_model" inside "$rel" 0.90 1.10
check "sequential IOPS $seq_iops within 10 % of the model's" \
	inside "$(awk -v i="$seq_iops" -v t="$seq_ms" 'BEGIN { print i * t / 1000 }')" 0.90 1.10
check "random IOPS $rnd_iops within 10 % of the model's" \
	inside "$(awk -v i="$rnd_iops" -v t="$rnd_ms" 'BEGIN { print i * t / 1000 }')" 0.90 1.10

# counters: random reads seek ~N/3 cylinders each, sequential only cross
# cylinders (one per H*S/BS = 84 requests)
check "random reads: $rnd_cyls cylinders over $rnd_req requests (about N/3 each)" \
	inside "$(awk -v c="$rnd_cyls" -v r="$rnd_req" -v n=$N 'BEGIN { print c / r / (n / 3) }')" 0.8 1.2
check "sequential reads: $seq_cyls cylinders over $seq_req requests (cylinder crossings only)" \
	test "$seq_cyls" -le $((seq_req / 84 + 2))
check "random reads wait about half a turn: $rnd_rot us over $rnd_req" \
	inside "$(awk -v w="$rnd_rot" -v r="$rnd_req" -v p=$P 'BEGIN { print w / r / (p * 500) }')" 0.85 1.15
check "sequential reads hardly wait: $seq_rot of $seq_busy us busy" \
	inside "$(awk -v w="$seq_rot" -v b="$seq_busy" 'BEGIN { print w / b }')" 0 0.05
# fio's runtime includes draining the queue at the end, so the arm's busy
# time should be the whole runtime
busy_ok() { # BUSY_US RUN_MS
	inside "$(awk -v b="$1" -v t="$2" 'BEGIN { print b / 1000 / t }')" 0.9 1.05
}
check "the arm is busy the whole sequential run: $seq_busy us in $seq_ms_run ms" \
	busy_ok "$seq_busy" "$seq_ms_run"
check "the arm is busy the whole random run: $rnd_busy us in $rnd_ms_run ms" \
	busy_ok "$rnd_busy" "$rnd_ms_run"
check "remove" dm_remove hl

# ------------------------------------------------------------- hdd_stack ---
run hdd_stack eagle time_scale 10
check "hdd_stack wrapped every member" test "$(echo $HDD_DEVS | wc -w)" = "$RL_NDISKS"
for d in $HDD_DEVS; do
	n=${d#/dev/mapper/}
	check "$n: eagle, rotational" test "$(hdd_st "$n" preset) $(cat "$(dm_sysfs "$n")/queue/rotational")" = "eagle 1"
done
dd if=/dev/mapper/hdd1 of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null
check "reads through hdd1 counted" test "$(hdd_st hdd1 reads)" = 16
check "hdd_unstack" hdd_unstack
check "no hdd device left" test -z "$(ls /dev/mapper | grep hdd)"
finish
