#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The operations verbs (issue 18) against the kernel:
#   - raidlab size computes plog's length before the table exists
#     (plogsize.py): for several shapes, with and without a metadata
#     device, it equals the capacity_sectors the kernel prints for the same
#     members and options; raidlab create makes a plog array at that length
#     in one load, and an altmirror one; size --table agrees with rl_len;
#   - create --dry-run names every device it would write, and writes none;
#   - mkconf and assemble --scan: a stopped array comes back from the
#     config file alone (the metadata device found by its uuid), with its
#     DM UUID; a second --scan finds it running; an ARRAY whose metadata
#     is nowhere fails, with exit 1;
#   - examine --json of a member and a spare.
# vm-opts: --disks 6
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/raidlab.sh"
need_raidlab

RL() { python3 "$RL_TOOLS/raidlab" "$@"; }
PM=$(pmem_dev)
MS=$(tier 131072 262144)	# member sectors: 64 MiB (128 MiB)
for i in 0 1 2 3 4 5; do
	run dm_create "w$i" "0 $MS linear $(disk $i) 0"
	run wipe "/dev/mapper/w$i" 2
done
W="/dev/mapper/w0 /dev/mapper/w1 /dev/mapper/w2 /dev/mapper/w3 /dev/mapper/w4 /dev/mapper/w5"
# first N of $W
wn() { echo "$W" | cut -d' ' -f1-"$1"; }

# kernel_cap N CHUNK "OPTS": capacity_sectors of a one-chunk plog, no metadata
kernel_cap() {
	k=
	_o="chunk_size $2${3:+ $3}"
	dm_create p "0 $2 raidlab plog $(echo "$_o" | wc -w) $_o $1 $(wn "$1")" || return 1
	rl_plog p 8
	dm_remove p
}

for shape in "5 16 log_disks 1" "6 32 faults 2" "4 64" "5 16 log_ratio 0.5 track_sectors 64" \
	"6 8 log_disks 2 regions 9"; do
	set -- $shape
	n=$1 c=$2
	shift 2
	opts=$*
	k=$(kernel_cap "$n" "$c" "$opts")
	o=$(echo "$opts" | awk '{ for (i = 1; i < NF; i += 2) printf " --opt %s=%s", $i, $(i + 1) }')
	s=$(RL size --no-metadata --scheme plog --chunk "$c" $o $(wn "$n"))
	check "plog N=$n chunk $c${opts:+ $opts}: raidlab size $s = the kernel's capacity $k" \
		test -n "$k" -a "$s" = "$k"
done
# a log write that cannot hold a chunk's record: both refuse it
check "plog chunk 256 over 256-sector tracks: the kernel refuses it" \
	sh -c "! dmsetup create p --table '0 256 raidlab plog 2 chunk_size 256 5 $(wn 5)' 2>/dev/null"
dmsetup remove p 2>/dev/null
check "and raidlab size refuses it with the kernel's reason" \
	sh -c "python3 $RL_TOOLS/raidlab size --no-metadata --scheme plog --chunk 256 $(wn 5) 2>&1 | grep -q 'cannot hold a chunk'"

# with a metadata device (bufio on w5): the data offset counts
run wipe /dev/mapper/w5 2
dm_create p "0 16 raidlab plog 6 chunk_size 16 metadata /dev/mapper/w5 log_disks 1 5 $(wn 5)" &&
	k=$(rl_plog p 8) && dm_remove p
s=$(RL size --scheme plog --chunk 16 --opt log_disks=1 $(wn 5))
check "plog with metadata: raidlab size $s = the kernel's capacity $k" test "$s" = "$k"

# create: plog in one load at the computed length
for i in 0 1 2 3 4; do run wipe "/dev/mapper/w$i" 2; done
run wipe "$PM" 4
check "raidlab create --scheme plog (one load)" \
	RL create pl --scheme plog --chunk 16 --opt log_disks=1 --metadata "$PM" $(wn 5)
check "its length is raidlab size's ($s)" test "$(dmsetup table pl | awk '{ print $2 }')" = "$s"
check "the plog array verifies" fio_write_then_verify /dev/mapper/pl 8M
run RL stop pl

# altmirror: raidlab size is the kernel's largest length
run wipe "$PM" 4
for i in 0 1; do run wipe "/dev/mapper/w$i" 2; done
as=$(RL size --scheme altmirror $(wn 2))
check "altmirror: the kernel refuses raidlab size + 8 sectors" \
	sh -c "! dmsetup create am --table '0 $((as + 8)) raidlab altmirror 2 metadata $PM 2 $(wn 2)' 2>/dev/null"
dmsetup remove am 2>/dev/null
run wipe "$PM" 4
check "raidlab create --scheme altmirror" RL create am --scheme altmirror --metadata "$PM" $(wn 2)
check "altmirror's length is raidlab size's" \
	test "$(dmsetup table am | awk '{ print $2 }')" = "$(RL size --scheme altmirror $(wn 2))"
run RL stop am

# size --table of a raid5 line equals the test library's rl_len
check "size --table raid5 = rl_len" \
	test "$(RL size --table "raid5 2 chunk_size 64 4 $(wn 4)" --no-metadata)" = "$(rl_len raid5 64 $(wn 4))"

# --dry-run: every device named, none written
for i in 0 1 2 3 4 5; do run wipe "/dev/mapper/w$i" 2; done
dd if=/dev/urandom of=/tmp/mark bs=4k count=1 2>/dev/null
for i in 0 1 2 3 4; do dd if=/tmp/mark of="/dev/mapper/w$i" bs=4k seek=100 oflag=direct conv=notrunc 2>/dev/null; done
RL create r5 --scheme raid5 --metadata /dev/mapper/w4 --spare /dev/mapper/w5 --dry-run $(wn 4) 2>/tmp/dry.err >/dev/null
log "dry run: $(cat /tmp/dry.err)"
n=0
for d in $W; do grep -q "would zero $d:" /tmp/dry.err && n=$((n + 1)); done
check "create --dry-run names all 6 devices it would write" test "$n" = 6
check "and writes none (a mark in the first MiB stays)" \
	sh -c "dd if=/dev/mapper/w0 bs=4k skip=100 count=1 2>/dev/null | cmp -s - /tmp/mark"
check "no array was created" sh -c "! dmsetup info r5 >/dev/null 2>&1"

# mkconf, stop, assemble --scan from the config alone
check "raidlab create raid5 with a spare" \
	RL create r5 --scheme raid5 --chunk 64 --metadata /dev/mapper/w4 --spare /dev/mapper/w5 $(wn 4)
uuid=$(RL examine --export /dev/mapper/w4 | sed -n 's/^RAIDLAB_UUID=//p')
run fio_write /dev/mapper/r5 8M
RL mkconf >/etc/raidlab.conf
echo "DEVICE /dev/mapper/w*" >>/etc/raidlab.conf
log "raidlab.conf: $(cat /etc/raidlab.conf)"
run RL stop r5
RL examine --json /dev/mapper/w2 >/tmp/ex.json
check "examine --json: w2 is role 2 of the array" \
	rl_jcheck "d['kind'] == 'member' and d['superblock']['role'] == 2 and d['superblock']['uuid'] == '$uuid'" </tmp/ex.json
RL examine --json /dev/mapper/w5 >/tmp/ex.json
check "examine --json: w5 is its spare" rl_jcheck "d['superblock']['role'] == 'spare'" </tmp/ex.json
check "assemble --scan brings r5 back from the config" RL assemble --scan
check "with its DM UUID" test "$(dmsetup info -c --noheadings -o uuid r5)" = "RAIDLAB-$uuid"
check "with its spare" test "$(rl_md r5 | awk '{ print $4 }')" = 1
check "the data verifies" fio_verify /dev/mapper/r5 8M
check "a second --scan: running" sh -c "python3 $RL_TOOLS/raidlab assemble --scan | grep -qx 'r5: running'"

# homehost (1.21): the array records the host that created it, and
# another host's scan does not assemble it unless --take-over
hh=$(python3 -c 'import socket; print(socket.gethostname())')
RL examine --export /dev/mapper/w4 >/tmp/ex.txt
check "the metadata records the creating host ($hh)" grep -qx "RAIDLAB_HOMEHOST=$hh" /tmp/ex.txt
check "the table line says it" sh -c "dmsetup table r5 | grep -q ' homehost $hh '"
run RL stop r5
cp /etc/raidlab.conf /tmp/conf.save
echo "HOMEHOST other-host" >>/etc/raidlab.conf
RL assemble --scan >/tmp/scan.out 2>&1
rc=$?
log "scan as other-host: $(cat /tmp/scan.out)"
check "another host's scan refuses it (exit 1), naming its host" \
	sh -c "[ $rc = 1 ] && grep -q 'r5: failed: .*belongs to host $hh, this host is other-host' /tmp/scan.out"
check "and r5 is not assembled" sh -c "! dmsetup info r5 >/dev/null 2>&1"
check "--take-over assembles it" RL assemble --scan --take-over
check "and records the new host" \
	sh -c "python3 $RL_TOOLS/raidlab examine --export /dev/mapper/w4 | grep -qx RAIDLAB_HOMEHOST=other-host"
check "the data verifies after the take-over" fio_verify /dev/mapper/r5 8M
cp /tmp/conf.save /etc/raidlab.conf
echo "ARRAY ghost uuid=00000000-0000-0000-0000-000000000001" >>/etc/raidlab.conf
RL assemble --scan >/tmp/scan.out 2>&1
rc=$?
log "scan: $(cat /tmp/scan.out)"
check "an ARRAY without its metadata device fails the scan (exit 1) and is named" \
	sh -c "[ $rc = 1 ] && grep -q 'ghost: failed: no metadata device with this uuid' /tmp/scan.out"

# remove: a spare, then a failed member's disk; a member in use is refused
check "raidlab remove of the spare" RL remove r5 /dev/mapper/w5
check "the table has no spare, the array its DM UUID" \
	sh -c "! dmsetup table r5 | grep -q spare && [ \"\$(dmsetup info -c --noheadings -o uuid r5)\" = RAIDLAB-$uuid ]"
check "spares 0" test "$(rl_md r5 | awk '{ print $4 }')" = 0
check "raidlab remove of a member in use is refused" sh -c "! python3 $RL_TOOLS/raidlab remove r5 /dev/mapper/w0"
run RL fail r5 /dev/mapper/w1
check "raidlab remove of the failed member's disk" RL remove r5 /dev/mapper/w1
check "its slot is '-' and its health D" \
	sh -c "dmsetup table r5 | grep -q ' 4 [^ ]* - ' && [ \"\$(dmsetup status r5 | awk '{ print \$6 }')\" = ADAA ]"
check "the data verifies degraded" fio_verify /dev/mapper/r5 8M
run RL stop r5
for i in 0 1 2 3 4 5; do run dm_remove "w$i"; done
finish
