#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bad table lines are refused with a clear message in the kernel log, and
# leave no warning there; a bad message is refused too.
# vm-opts: --disks 4
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

m0=$(disk 0)
m1=$(disk 1)
m2=$(disk 2)
m3=$(disk 3)
len5=$(rl_len raid5 128 "$m0" "$m1" "$m2" "$m3")
len0=$(rl_len raid0 128 "$m0" "$m1" "$m2" "$m3")

# refused TABLE MESSAGE: create must fail and the kernel log must say why
refused() { dm_refused raidlab "$@"; }

refused "0 $len5 raidlab" "Not enough arguments"
refused "0 $len5 raidlab raid5 0" "Not enough arguments"
refused "0 $len5 raidlab raid9 0 4 $m0 $m1 $m2 $m3" "Unknown scheme"
refused "0 $len0 raidlab raid0 2 sched elevator 4 $m0 $m1 $m2 $m3" "Unknown sched policy"
refused "0 $len0 raidlab raid0 4 sched look sched fifo 4 $m0 $m1 $m2 $m3" "Duplicate sched"
refused "0 $len0 raidlab raid0 2 queue_depth 0 4 $m0 $m1 $m2 $m3" "Invalid queue_depth"
refused "0 $len0 raidlab raid0 2 queue_depth 1025 4 $m0 $m1 $m2 $m3" "Invalid queue_depth"
refused "0 $len5 raidlab raid5 3 chunk_size 128 4 $m0 $m1 $m2 $m3" "Optional argument lacks a value"
refused "0 $len5 raidlab raid5 9 chunk_size 128 4 $m0 $m1 $m2 $m3" "Invalid number of optional arguments"
refused "0 $len5 raidlab raid5 0 5 $m0 $m1 $m2 $m3" "Invalid number of devices"
refused "0 $len5 raidlab raid5 0 3 $m0 $m1 $m2 $m3" "Device count does not match"
refused "0 $len5 raidlab raid5 0 2 $m0 $m1" "Too few devices for the scheme"
refused "0 $len5 raidlab mirror 0 1 $m0" "Too few devices for the scheme"
refused "0 $len5 raidlab raid5 2 chunk_size 100 4 $m0 $m1 $m2 $m3" "chunk_size is not a power of two"
refused "0 $len5 raidlab raid5 2 chunk_size 4 4 $m0 $m1 $m2 $m3" "Invalid chunk_size"
refused "0 $len5 raidlab raid5 2 chunk_size 8192 4 $m0 $m1 $m2 $m3" "chunk_size too large"
refused "0 $len5 raidlab raid5 2 bogus 1 4 $m0 $m1 $m2 $m3" "Unknown optional argument"
refused "0 $len0 raidlab raid0 2 stripe_cache 8 4 $m0 $m1 $m2 $m3" "stripe_cache needs a parity scheme"
refused "0 $len5 raidlab raid5 2 homehost h1 4 $m0 $m1 $m2 $m3" "homehost needs a metadata device"
refused "0 $len5 raidlab raid5 4 metadata $m3 homehost a/b 3 $m0 $m1 $m2" "Invalid homehost"
refused "0 $len5 raidlab raid5 0 4 $m0 $m1 $m2 $m0" "Same device given twice"
refused "0 $len5 raidlab raid5 0 4 $m0 $m1 $m2 /dev/nonexistent" "Member device lookup failed"
refused "0 $((len5 + 384)) raidlab raid5 0 4 $m0 $m1 $m2 $m3" "Target length exceeds"
refused "0 $((len5 - 8)) raidlab raid5 0 4 $m0 $m1 $m2 $m3" "Target length is not a multiple of the stripe width"
refused "0 $((len0 - 128)) raidlab raid0 0 4 $m0 $m1 $m2 $m3" "Target length is not a multiple of the stripe width"

# raid10 and chained: their options, their sizing, what they survive
refused "0 1024 raidlab raid10 2 layout middle 4 $m0 $m1 $m2 $m3" "Invalid layout: near, far or offset"
refused "0 1024 raidlab raid10 2 copies 1 4 $m0 $m1 $m2 $m3" "Invalid copies"
refused "0 1024 raidlab raid10 2 copies 5 4 $m0 $m1 $m2 $m3" "Copies must be at least 2 and at most the members"
refused "0 1024 raidlab raid10 4 layout far layout near 4 $m0 $m1 $m2 $m3" "Duplicate layout"
refused "0 1000 raidlab raid10 0 4 $m0 $m1 $m2 $m3" "Target length is not a multiple of the chunk size"
refused "0 $((len0 + 1024)) raidlab raid10 0 4 $m0 $m1 $m2 $m3" "Target length exceeds the members' capacity"
refused "0 1024 raidlab mirror 2 layout near 2 $m0 $m1" "layout needs the raid10 scheme"
refused "0 1024 raidlab chained 2 copies 2 4 $m0 $m1 $m2 $m3" "copies needs the raid10 scheme"
refused "0 1024 raidlab chained 0 2 $m0 $m1" "Too few devices for the scheme"
refused "0 1024 raidlab raid10 2 reads fast 4 $m0 $m1 $m2 $m3" "Invalid reads: balance or dup"
refused "0 1024 raidlab chained 4 reads dup reads dup 4 $m0 $m1 $m2 $m3" "Duplicate reads"
refused "0 1024 raidlab raid5 2 reads dup 4 $m0 $m1 $m2 $m3" "reads needs the raid10, chained or sr scheme"
# two neighbours in the chain: partition 1 has no copy; two others are fine
refused "0 1024 raidlab chained 0 4 $m0 - - $m3" "More members missing than the scheme survives"
check "chained with two members missing that are not neighbours accepted" \
	dm_create ch "0 1024 raidlab chained 0 4 $m0 - $m2 -"
check "chained: degraded" test "$(rl_state ch)" = degraded
check "chained removed" dm_remove ch

# plog options that ask for more memory than the 512 MiB budget (one chunk
# of length, over the whole 2 GiB disks): 1024 log buffers of 4 MiB
# segments (4 GiB), and 4 regions (a region's check chunks are held in
# memory to reintegrate it: about 1.2 GiB); the same geometry with the
# defaults (about 61 MiB) is accepted, so the refusals are the options'
MSG_MEM="plog options ask for more than the 512 MiB memory budget"
refused "0 128 raidlab plog 6 chunk_size 128 track_sectors 8192 log_buffers 1024 4 $m0 $m1 $m2 $m3" "$MSG_MEM"
refused "0 128 raidlab plog 4 chunk_size 128 regions 4 4 $m0 $m1 $m2 $m3" "$MSG_MEM"
check "plog over the same disks with the defaults accepted" \
	dm_create pl "0 128 raidlab plog 2 chunk_size 128 4 $m0 $m1 $m2 $m3"
check "plog removed" dm_remove pl

# a good line for the message checks
check "good raid5 line accepted" dm_create good "0 $len5 raidlab raid5 0 4 $m0 $m1 $m2 $m3"
expect_fail dm_message good fail 4
expect_fail dm_message good fail x
expect_fail dm_message good fail
expect_fail dm_message good explode
expect_fail dm_message good sched
expect_fail dm_message good sched elevator
expect_fail dm_message good geom 0
expect_fail dm_message good geom 9 period_ns=13900000
expect_fail dm_message good geom 0 period_ns=13900000,cylinders=949
expect_fail dm_message good geom 0 garbage
expect_fail dm_message good tracker 4
expect_fail dm_message good tracker
check "no member failed by the bad messages (A, or a while resyncing)" \
	test "$(rl_health good | tr a A)" = AAAA
check "reset_counters accepted" dm_message good reset_counters
check "remove" dm_remove good
finish
