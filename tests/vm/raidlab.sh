# SPDX-License-Identifier: GPL-2.0
#
# Guest-side helpers for dm-raidlab tests, sourced after lib.sh.
#
#   rl_len SCHEME CHUNK DEV...          largest valid target length (sectors;
#                                       raid10: its default layout, near 2)
#   rl_table SCHEME CHUNK DEV...        a table line over DEV... (all space;
#                                       RL_LEN=sectors to use less, RL_OPTS=extra
#                                       optional words, e.g. assume_clean)
#   rl_create NAME SCHEME CHUNK DEV...  dmsetup create with rl_table
#   rl_st NAME K                        K-th word of the raidlab status (1 = scheme;
#                                       1-8 are dm-raid's: 3 = health, 4 = synced/total,
#                                       5 = sync_action, 6 = mismatches)
#   rl_table_counted NAME               the table line's word counts hold: its
#                                       <#opt_args> options, then <#devs> devices
#                                       and nothing after them
#   rl_health NAME / rl_state NAME      health chars / optimal|degraded|failed
#   rl_sync NAME                        "<action> <synced>/<total>"
#   rl_wait_sync NAME SECS              wait for the resync to finish (idle)
#   rl_counters NAME                    "lreads lwrites dreads dwrites preads pwrites"
#   rl_member_counters NAME I           "dr dw pr pw" of member I
#   rl_data_writes NAME I               dw of member I (its data writes)
#   rl_queues NAME                      "policy queue_depth fg_issued bg_issued"
#   rl_tail NAME K                      K-th word after the member counters
#   rl_mismatches NAME                  mismatch count of the last check/repair
#   rl_scrub NAME check|repair [SECS]   run one and print its mismatch count
#   rl_md NAME                          "md_backend md_state dirty_regions spares"
#   rl_jnl NAME                         "journal records bytes waits" (write-hole journal)
#   rl_bbl NAME                         bad-block entries per member, "n:n:..." or "-"
#   rl_wrap_members PREFIX N            dm-linear over each of the first N disks,
#                                       /dev/mapper/PREFIX0..; prints the paths
#   rl_swap_error NAME                  make dm device NAME fail every I/O
#   rl_snapshot NAME FILE               read all of /dev/mapper/NAME, uncached, into FILE
#   rl_load_start NAME OFF SIZE SECS [DEPTH]
#                                       random 4k writes to /dev/mapper/NAME in
#                                       [OFF, OFF + SIZE) that verify as they go,
#                                       for SECS s, in the background
#   rl_load_done WHAT                   wait for it: ok/not ok "WHAT: the load's
#                                       verify passed"
#   rl_image_save MIB DEV...            copy the first MIB MiB of each DEV and the
#                                       whole pmem device ($PM) to /tmp (a crash
#                                       image of a live array)
#   rl_image_restore DEV...             write them back (same DEV order)
#   rl_image_save_idle MIB DEV...       rl_image_save of an idle array, the
#                                       pmem first: as it is now, before the
#                                       lazy intent clears the slow member
#                                       copies would let pass (the members do
#                                       not change while the array is idle)
#   rl_jcheck EXPR                      the JSON on stdin makes EXPR (python,
#                                       over d) true (tools' --json output)
#   rl_scheme_fields NAME               the fields of the scheme's counted group
#                                       that ends the status (1.8), on one line
#   rl_scheme_field NAME K              K-th field of the scheme's counted group
#                                       that ends the status (1.8); empty past
#                                       its count
#   rl_plog NAME K                      the same for a plog array (1 = L ...
#                                       8 = capacity_sectors ... 14 = pool_waits
#                                       15 = reintegrations, 16 = regions_with_log)
#   rl_plog_logs_drain NAME SECS        no region of the plog keeps a log within
#                                       SECS (polled each second; logs the time)
#   rl_plog_fail_fixups NAME M OFFSET   checks of its own: small random writes
#                                       (8M at OFFSET) leave logs, which the idle
#                                       array keeps 3 s (the control); member M
#                                       failed by message; every region's log is
#                                       fixed up within 60 s with no access (the
#                                       scheme's member_failed hook), no "stale
#                                       parity" logged; the writes verify degraded
#   rl_plog_create NAME CHUNK DEV...    a new plog at its own capacity: created at
#                                       one chunk's length to read capacity_sectors,
#                                       removed (a metadata device in RL_OPTS and
#                                       the members' first MiB blanked), created
#                                       again at the capacity rounded down to CHUNK
#                                       (RL_OPTS as rl_table); reassemble an
#                                       existing one with RL_LEN=... rl_create

# data columns of a row
rl_ncols() {
	case $1 in
	raid0) echo "$2" ;;
	mirror) echo 1 ;;
	raid4 | raid5) echo $(($2 - 1)) ;;
	raid6) echo $(($2 - 2)) ;;
	plog) echo $(($2 - 2)) ;; # a bound only: rl_plog_create finds the capacity
	*) die "rl_ncols: unknown scheme $1" ;;
	esac
}

rl_len() {
	_s=$1
	_c=$2
	shift 2
	_min=
	for _d in "$@"; do
		_z=$(sectors "$_d")
		[ -z "$_min" ] || [ "$_z" -lt "$_min" ] && _min=$_z
	done
	if [ "$_s" = mirror ]; then
		echo "$_min"
	elif [ "$_s" = raid10 ]; then # near 2 (the default layout): N / 2 chunks a row
		echo $(((_min / _c) * $# / 2 * _c))
	elif [ "$_s" = chained ]; then # a primary half and a backup half
		echo $(((_min / _c) / 2 * $# * _c))
	else
		echo $(((_min / _c) * _c * $(rl_ncols "$_s" $#)))
	fi
}

rl_table() {
	_s=$1
	_c=$2
	shift 2
	_o="chunk_size $_c${RL_OPTS:+ $RL_OPTS}"
	echo "0 ${RL_LEN:-$(rl_len "$_s" "$_c" "$@")} raidlab $_s $(echo "$_o" | wc -w) $_o $# $*"
}

rl_create() {
	_n=$1
	shift
	dm_create "$_n" "$(rl_table "$@")"
}

rl_st() { dmsetup status "$1" | awk -v k="$2" '{ print $(k + 3) }'; }
rl_health() { rl_st "$1" 3; }
rl_state() { rl_st "$1" 9; }
rl_sync() { dmsetup status "$1" | awk '{ print $8, $7 }'; }
rl_wait_sync() {
	dmsetup info "$1" >/dev/null 2>&1 || return 1	# no device: fail now
	_i=0
	while [ "$(rl_st "$1" 5)" != idle ]; do
		_i=$((_i + 1))
		[ "$_i" -gt $(($2 * 2)) ] && return 1
		sleep 0.5
	done
	return 0
}
rl_counters() { dmsetup status "$1" | awk '{ print $14, $15, $16, $17, $18, $19 }'; }
rl_member_counters() {
	dmsetup status "$1" | awk -v i="$2" '{ split($(20 + i), c, ":"); print c[1], c[2], c[3], c[4] }'
}
rl_data_writes() { rl_member_counters "$1" "$2" | awk '{ print $2 }'; }
# the fields after the per-member counters: K = 1 is the queue policy
rl_table_counted() {
	dmsetup table "$1" | awk '{ n = $5; m = $(6 + n); exit !(m > 0 && NF == 6 + n + m) }'
}
rl_tail() { dmsetup status "$1" | awk -v k="$2" '{ print $(3 + 16 + $5 + k) }'; }
rl_queues() { echo "$(rl_tail "$1" 1) $(rl_tail "$1" 2) $(rl_tail "$1" 3) $(rl_tail "$1" 4)"; }
rl_mismatches() { rl_st "$1" 6; }
# start a check or repair and wait for it: prints the mismatch count
rl_scrub() {
	dm_message "$1" "$2" || return 1
	_i=0
	sleep 0.2
	while [ "$(rl_st "$1" 5)" = "$2" ]; do
		_i=$((_i + 1))
		[ "$_i" -gt $((${3:-120} * 5)) ] && return 1
		sleep 0.2
	done
	rl_mismatches "$1"
}
rl_md() { echo "$(rl_tail "$1" 5) $(rl_tail "$1" 6) $(rl_tail "$1" 7) $(rl_tail "$1" 8)"; }
rl_jnl() { echo "$(rl_tail "$1" 9) $(rl_tail "$1" 10) $(rl_tail "$1" 11) $(rl_tail "$1" 12)"; }
rl_bbl() { rl_tail "$1" 13; }

rl_wrap_members() {
	_p=$1
	_i=0
	_l=
	while [ "$_i" -lt "$2" ]; do
		_d=$(disk "$_i")
		dm_create "$_p$_i" "0 $(sectors "$_d") linear $_d 0" || die "cannot wrap $_d"
		_l="$_l${_l:+ }/dev/mapper/$_p$_i"
		_i=$((_i + 1))
	done
	echo "$_l"
}

rl_swap_error() {
	_z=$(sectors "/dev/mapper/$1")
	dmsetup suspend --noflush "$1" &&
		echo "0 $_z error" | dmsetup load "$1" &&
		dmsetup resume "$1"
}

rl_snapshot() {
	drop_caches
	dd if="/dev/mapper/$1" of="$2" bs=1M iflag=direct 2>/dev/null
}

# the K-th field of the scheme's group that ends the status line (1.8):
# "<scheme> <#fields> <fields>...", the scheme's name ($4) followed by the
# count of the words after it
# rl_jcheck EXPR: the JSON on stdin makes the python expression EXPR (over
# d) true; else the JSON goes to stderr
rl_jcheck() {
	python3 -c "import json, sys
d = json.load(sys.stdin)
ok = bool($1)
if not ok:
    json.dump(d, sys.stderr, indent=1)
sys.exit(0 if ok else 1)"
}

rl_scheme_fields() {
	dmsetup status "$1" | awk '{
		for (i = 5; i < NF; i++)
			if ($i == $4 && $(i + 1) == NF - i - 1) {
				s = ""
				for (j = i + 2; j <= NF; j++)
					s = s (j > i + 2 ? " " : "") $j
				print s
				exit
			}
	}'
}
rl_scheme_field() { rl_scheme_fields "$1" | awk -v k="$2" '{ print $k }'; }
rl_plog() { rl_scheme_field "$@"; }

rl_plog_logs_drain() {
	_ld=0
	while [ "$(rl_plog "$1" 16)" != 0 ]; do
		_ld=$((_ld + 1))
		[ $_ld -gt "$2" ] && return 1
		sleep 1
	done
	log "$1: no region keeps a log after ${_ld} s"
}

rl_plog_fail_fixups() {
	_fn=$1
	_fm=$2
	_fo=$3
	FIO_RUNTIME=$(tier 4 8) check "$_fn: randwrite 4k before the failure verifies" \
		fio_write_then_verify "/dev/mapper/$_fn" 8M --offset="$_fo"
	_fl=$(rl_plog "$_fn" 16)
	log "$_fn: regions with a log before the failure: $_fl of $(rl_plog "$_fn" 4)"
	check "$_fn: regions hold logs before the failure" test "$_fl" -gt 0
	sleep 3
	check "$_fn: control: the idle array keeps its logs ($_fl regions)" \
		test "$(rl_plog "$_fn" 16)" = "$_fl"
	_fk=$(dmesg_mark)
	check "$_fn: fail member $_fm" dm_message "$_fn" fail "$_fm"
	check "$_fn: the failure fixes up every region with a log, no access needed" \
		rl_plog_logs_drain "$_fn" 60
	expect_fail dmesg_has "$_fk" "stale parity"	# no fix-up left stale parity
	check "$_fn: the writes before the failure verify, degraded" \
		fio_verify "/dev/mapper/$_fn" 8M --offset="$_fo"
}

rl_plog_create() {
	_pn=$1
	_pc=$2
	shift 2
	RL_LEN=$_pc rl_create "$_pn" plog "$_pc" "$@" || return 1
	_pcap=$(rl_plog "$_pn" 8)
	dm_remove "$_pn" || return 1
	# a metadata device now describes a one-chunk array ("Metadata
	# describes another length"): blank it, and the members' superblocks
	_pmd=$(echo " $RL_OPTS " | sed -n 's/.* metadata \([^ ]*\) .*/\1/p')
	if [ -n "$_pmd" ]; then
		wipe "$_pmd" 4 || return 1
		for _pd in "$@"; do
			dd if=/dev/zero of="$_pd" bs=1M count=1 conv=fsync 2>/dev/null || return 1
		done
	fi
	case $_pcap in
	'' | *[!0-9]*)
		echo "rl_plog_create: no capacity_sectors in the status ('$_pcap')"
		return 1
		;;
	esac
	[ "$_pcap" -ge "$_pc" ] || { echo "rl_plog_create: capacity $_pcap < one chunk"; return 1; }
	RL_LEN=$(((_pcap / _pc) * _pc)) rl_create "$_pn" plog "$_pc" "$@"
}

rl_load_start() {
	fio --name=load --filename="/dev/mapper/$1" --direct=1 --ioengine=libaio \
		--rw=randwrite --bs=4k --iodepth="${5:-4}" --offset="$2" --size="$3" \
		--time_based --runtime="$4" --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --verify_backlog=256 --randrepeat=0 \
		>/tmp/load.log 2>&1 &
	RL_LOAD=$!
}

rl_load_done() {
	wait "$RL_LOAD"
	_lrc=$?
	tail -n 4 /tmp/load.log
	check "$1: the load's verify passed" sh -c \
		"test $_lrc = 0 && ! grep -q -E 'verify: bad|err= *[1-9]' /tmp/load.log"
}

# The crash images are read and written with O_DIRECT: no page cache of a
# disk the array wrote under it (or of the pmem it wrote through DAX) is
# taken for its contents, and no copy through it costs the guest's time.
#
# _rl_image_members MIB DEV...: the first MIB MiB of each DEV to /tmp/img<i>
_rl_image_members() {
	_imb=$1
	shift
	_i=0
	for _d in "$@"; do
		dd if="$_d" of=/tmp/img$_i bs=1M count="$_imb" iflag=direct 2>/dev/null || return 1
		_i=$((_i + 1))
	done
}

rl_image_save() {
	_rl_image_members "$@" || return 1
	dd if="$PM" of=/tmp/imgpm bs=1M iflag=direct 2>/dev/null
}

rl_image_save_idle() {
	dd if="$PM" of=/tmp/imgpm bs=1M iflag=direct 2>/dev/null || return 1
	_rl_image_members "$@"
}

rl_image_restore() {
	_i=0
	for _d in "$@"; do
		dd if=/tmp/img$_i of="$_d" bs=1M oflag=direct conv=fsync 2>/dev/null || return 1
		_i=$((_i + 1))
	done
	dd if=/tmp/imgpm of="$PM" bs=1M oflag=direct conv=fsync 2>/dev/null
}

# until_ok SECS CMD...: wait until CMD succeeds (polled every 0.2 s)
until_ok() {
	_uo=$(($1 * 5))
	shift
	while ! "$@"; do
		_uo=$((_uo - 1))
		[ "$_uo" -gt 0 ] || return 1
		sleep 0.2
	done
}

# rl_lab_array SCHEME MB MD [NZERO]: arr (raid5 or raid10) over rw0..rw3,
# the first four disks under dm-linear (the first NZERO disks, default 4,
# zeroed for MB + 2 MiB first), MB MiB of each, chunk 64, assume_clean,
# 1024-sector regions, its metadata on MD (wiped); sets W and LEN.
# rl_lab_array_done removes it and the linear devices.
rl_lab_array() {
	wipe "$3" 4 || return 1
	for _i in $(seq 0 $((${4:-4} - 1))); do
		dd if=/dev/zero of="$(disk "$_i")" bs=1M count=$(($2 + 2)) conv=fsync 2>/dev/null
	done
	W=$(rl_wrap_members rw 4)
	case $1 in
	raid5) LEN=$(($2 * 2048 * 3)) ;;
	raid10) LEN=$(($2 * 2048 * 2)) ;;
	esac
	_o="chunk_size 64 assume_clean region_size 1024 metadata $3"
	dm_create arr "0 $LEN raidlab $1 $(echo "$_o" | wc -w) $_o 4 $W"
}
rl_lab_array_done() {
	dm_remove arr || return 1
	for _i in 0 1 2 3; do dm_remove "rw$_i" || return 1; done
}
