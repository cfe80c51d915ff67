# SPDX-License-Identifier: GPL-2.0
#
# Guest-side helpers for the dm-raidlab VM tests (POSIX sh / busybox ash).
# Source it from a test:   . "$RL_TESTS/lib.sh"
#
# Environment set by the guest init (scripts/lab/guest-init.sh):
#   RL_NDISKS        number of member disks, /dev/rl/m0 .. m<N-1>
#   RL_PMEM          1 if /dev/rl/pmem (fsdax NVDIMM) exists
#   RL_HAVE_RAIDLAB  1 if dm-raidlab.ko is installed (modprobe dm-raidlab)
#   RL_OUT           /out: files left there are copied to the host's --out dir
#   RL_TESTS RL_TOOLS RL_NAME KVER, DM_DISABLE_UDEV=1
#
# Results:   ok MSG | not_ok MSG | check MSG CMD... | expect_fail CMD... | finish
#            tier DEFAULT FULL (a value for this tier: RL_FULL=1 is the long one)
#            skip MSG (exit 77) | die MSG (FAIL: MSG, exit 1) | run CMD... (die on error)
# Logging:   log MSG | kmsg MSG (marker in the kernel log)
# Disks:     disk I | disks [N] | pmem_dev | sectors DEV | wipe DEV [MiB]
#            dio_read DEV SECTOR COUNT FILE | dio_write DEV SECTOR FILE (O_DIRECT)
# dm:        dm_create NAME TABLE | dm_reload NAME TABLE | dm_remove NAME | dm_remove_all
#            dm_refused TARGET LINE MSG (create must fail, the log must say why)
#            dm_table NAME | dm_status NAME | dm_message NAME MSG... | dm_suspend/dm_resume NAME
#            dm_sysfs NAME (/sys/block/dm-N); dmsetup is wrapped so /dev/mapper/NAME
#            is a symlink to ../dm-N as udev would make it
#            need_raidlab (modprobe dm-raidlab or skip)
#            need_log_writes (modprobe the lab's patched dm-log-writes or die)
# md:        md_stop_all
# I/O:       fio_write_then_verify TARGET SIZE [fio options...]   (see below)
#            fio_write / fio_verify TARGET SIZE [fio options...]  (the two passes)
#            mkfs_mount DEV DIR [ext4|xfs] [mkfs options...] | drop_caches
# Checks:    dmesg_clean | taint_clean | wait_for PATH [SECS] | wait_grep FILE PATTERN [SECS]

RL_PASS=0
RL_FAIL=0
RL_OUT=${RL_OUT:-/out}
export DM_DISABLE_UDEV=1

# The host fails a run on these in the console; dmesg_clean uses them too.
RL_BAD_RE='WARNING:|BUG:|Oops|general protection fault|Kernel panic|possible circular locking|possible recursive locking|inconsistent lock state|lockdep|UBSAN|KASAN|Call Trace|blocked for more than'

# ------------------------------------------------------------ results ---
log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }

# a marker in the kernel log (info level: in dmesg.txt, not on the console)
kmsg() { echo "<6>raidlab-test: $*" >/dev/kmsg 2>/dev/null || true; }

die() {
	echo "FAIL: $*"
	kmsg "FAIL: $*"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# ok and not_ok also append "UPTIME N ok|not_ok MSG" to $RL_OUT/checks.txt:
# the time each check took (scripts/lab/vm-times.py), the default tier's budget
_rl_time() { echo "$(cut -d' ' -f1 /proc/uptime) $*" >>"$RL_OUT/checks.txt" 2>/dev/null; }

ok() {
	RL_PASS=$((RL_PASS + 1))
	echo "ok $((RL_PASS + RL_FAIL)) - $*"
	_rl_time "$((RL_PASS + RL_FAIL)) ok $*"
}

not_ok() {
	RL_FAIL=$((RL_FAIL + 1))
	echo "not ok $((RL_PASS + RL_FAIL)) - $*"
	_rl_time "$((RL_PASS + RL_FAIL)) not_ok $*"
	kmsg "not ok: $*"
}

# tier DEFAULT FULL: DEFAULT in the default tier, FULL in the long one
# (vm-tests.sh --full: RL_FULL=1), e.g. FIO_RUNTIME=$(tier 4 8): less data,
# fewer trials in the default tier, whose budget is scripts/lab/README.md's
tier() { if [ "${RL_FULL:-0}" = 1 ]; then echo "$2"; else echo "$1"; fi; }

# check MSG CMD...: ok if CMD succeeds, not_ok otherwise
check() {
	_rl_msg=$1
	shift
	if "$@"; then ok "$_rl_msg"; else not_ok "$_rl_msg (rc=$?: $*)"; fi
}

# expect_fail CMD...: the command must fail (ok) - success is a not_ok.
# Returns 0 when it failed as expected.
expect_fail() {
	if "$@" >/tmp/.rl_expect_fail 2>&1; then
		not_ok "expected to fail but succeeded: $*"
		sed 's/^/    /' /tmp/.rl_expect_fail
		return 1
	fi
	ok "fails as expected: $*"
	return 0
}

# run CMD...: echo and run; die if it fails
run() {
	log "+ $*"
	"$@" || die "command failed (rc=$?): $*"
}

# finish: check the kernel log, print "N passed, M failed", exit 1 if any failed
finish() {
	dmesg_clean || not_ok "kernel log is clean"
	echo "$RL_PASS passed, $RL_FAIL failed"
	[ "$RL_FAIL" -eq 0 ] || exit 1
	exit 0
}

# -------------------------------------------------------------- disks ---
disk() {
	[ -e "/dev/rl/m$1" ] || die "no member disk m$1 (RL_NDISKS=$RL_NDISKS)"
	echo "/dev/rl/m$1"
}

# disks [N]: the first N member disks (default all), space separated
disks() {
	_rl_n=${1:-$RL_NDISKS}
	[ "$_rl_n" -le "$RL_NDISKS" ] || die "need $_rl_n disks, have $RL_NDISKS (vm-opts: --disks)"
	_rl_i=0
	_rl_l=
	while [ "$_rl_i" -lt "$_rl_n" ]; do
		_rl_l="$_rl_l${_rl_l:+ }/dev/rl/m$_rl_i"
		_rl_i=$((_rl_i + 1))
	done
	echo "$_rl_l"
}

pmem_dev() {
	[ -b /dev/rl/pmem ] || skip "no pmem (vm-run.sh --pmem-size 0?)"
	echo /dev/rl/pmem
}

# size in 512-byte sectors
sectors() { blockdev --getsz "$1"; }

# dio_read DEV SECTOR COUNT FILE / dio_write DEV SECTOR FILE: O_DIRECT I/O
# of whole sectors from or to DEV, from an aligned buffer (busybox dd's
# malloc()ed buffer is not, and it falls back to the page cache, whose
# 4 KiB pages and read-ahead touch more than was asked). Fails on an I/O
# error. Needs python3 in the guest.
dio_read() {
	python3 -c '
import mmap, os, sys
dev, sector, count, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
buf = mmap.mmap(-1, count * 512)
fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
try:
    got = os.preadv(fd, [buf], sector * 512)
except OSError:
    sys.exit(1)
if got != count * 512:
    sys.exit(1)
with open(out, "wb") as f:
    f.write(buf[:got])
' "$@"
}
dio_write() {
	python3 -c '
import mmap, os, sys
dev, sector, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = open(src, "rb").read()
if not data or len(data) % 512:
    sys.exit(2)
buf = mmap.mmap(-1, len(data))
buf[:] = data
fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
try:
    done = os.pwritev(fd, [buf], sector * 512)
except OSError:
    sys.exit(1)
sys.exit(0 if done == len(data) else 1)
' "$@"
}

# wipe DEV [MiB]: zero the first MiB (default 4) and the last MiB of a device
wipe() {
	_rl_mb=${2:-4}
	dd if=/dev/zero of="$1" bs=1M count="$_rl_mb" conv=fsync 2>/dev/null || return 1
	_rl_s=$(blockdev --getsz "$1")
	dd if=/dev/zero of="$1" bs=512 seek=$((_rl_s - 2048)) count=2048 conv=fsync 2>/dev/null
}

# wait_for PATH [SECS]: wait until PATH exists (default 10 s)
wait_for() {
	_rl_i=0
	while [ ! -e "$1" ]; do
		_rl_i=$((_rl_i + 1))
		[ "$_rl_i" -gt $((${2:-10} * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

# wait_grep FILE PATTERN [SECS]: wait until FILE has a line matching
# PATTERN (default 120 s)
wait_grep() {
	_rl_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_rl_i=$((_rl_i + 1))
		[ "$_rl_i" -gt $((${3:-120} * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# ----------------------------------------------------------- device-mapper ---
# With DM_DISABLE_UDEV=1 libdevmapper leaves a plain device node at
# /dev/mapper/NAME where udev would make a symlink to ../dm-N. dmsetup is
# wrapped to do what udev does, so `readlink -f /dev/mapper/NAME` names the
# /sys/block entry as on a normal system.
dm_udev_links() {
	for _rl_n in /dev/mapper/*; do
		[ -b "$_rl_n" ] && [ ! -L "$_rl_n" ] || continue
		_rl_mm=$(stat -c '%t %T' "$_rl_n") || continue
		_rl_k=$(readlink "/sys/dev/block/$((0x${_rl_mm% *})):$((0x${_rl_mm#* }))") || continue
		_rl_k=${_rl_k##*/}
		[ -b "/dev/$_rl_k" ] && ln -sf "../$_rl_k" "$_rl_n"
	done
	return 0
}
dmsetup() {
	command dmsetup "$@"
	_rl_rc=$?
	dm_udev_links
	return $_rl_rc
}

# dm_sysfs NAME: the /sys/block directory of a dm device
dm_sysfs() { echo "/sys/block/$(command dmsetup info -c --noheadings -o blkdevname "$1")"; }

# dm_create NAME TABLE: TABLE may have several lines
dm_create() {
	printf '%s\n' "$2" | dmsetup create "$1" || return 1
	wait_for "/dev/mapper/$1" 5
}

dm_reload() { printf '%s\n' "$2" | dmsetup reload "$1"; }
dm_remove() { dmsetup remove --retry "$1"; }
dm_remove_all() { dmsetup remove_all --retry >/dev/null 2>&1 || dmsetup remove_all; }
# dmesg_mark: the kernel log's last timestamp; dmesg_since MARK: the lines
# stamped after it. A line count would slip: once the 128 KiB ring buffer is
# full, each new line pushes an old one out, and the count stops growing.
dmesg_mark() { dmesg | tail -n 1 | sed -n 's/^\[ *\([0-9]*\.[0-9]*\)\].*/\1/p'; }
dmesg_since() {
	dmesg | awk -v t="${1:-0}" '{
		s = $0
		if (sub(/^\[ */, "", s) && sub(/\].*/, "", s) && s + 0 > t + 0)
			print
	}'
}

# dmesg_has MARK [GREP-OPTION...] PATTERN: a line after MARK matches
dmesg_has() {
	_rl_m=$1
	shift
	dmesg_since "$_rl_m" | grep -q "$@"
}

# dm_refused TARGET LINE MSG: `dmsetup create` of the table LINE must fail
# and the kernel log must say "TARGET: MSG" (ok / not_ok either way)
dm_refused() {
	_before=$(dmesg_mark)
	if echo "$2" | dmsetup create bad 2>/dev/null; then
		not_ok "accepted: $2"
		dmsetup remove bad
		return
	fi
	if dmesg_since "$_before" | grep -q "$1: $3"; then
		ok "refused with '$3': $2"
	else
		not_ok "refused without '$3': $2"
		dmesg_since "$_before" | sed 's/^/    /'
	fi
	[ -e /dev/mapper/bad ] && dmsetup remove bad
}

dm_table() { dmsetup table "$1"; }
dm_status() { dmsetup status "$1"; }
dm_suspend() { dmsetup suspend "$1"; }
dm_resume() { dmsetup resume "$1"; }
dm_message() {
	_rl_n=$1
	shift
	dmsetup message "$_rl_n" 0 "$@"
}

# need_raidlab: load dm-raidlab or skip the test when it is not built
need_raidlab() {
	[ "${RL_HAVE_RAIDLAB:-0}" = 1 ] || skip "dm-raidlab.ko not built (make)"
	grep -q '^dm_raidlab ' /proc/modules || modprobe dm-raidlab || die "modprobe dm-raidlab failed"
}

# need_log_writes: load dm-log-writes, and die unless it is the lab's patched
# build (scripts/lab/kpatch/dm-log-writes.patch: the stock 6.1 destructor can
# free its context under a completion's wake-up); an out-of-tree module
# carries taint O
need_log_writes() {
	modprobe dm-log-writes || die "modprobe dm-log-writes failed"
	case $(cat /sys/module/dm_log_writes/taint 2>/dev/null) in
	*O*) ;;
	*) die "dm-log-writes is the stock module, not the lab's patched build (scripts/lab/mkinitramfs.sh)" ;;
	esac
}

# ------------------------------------------------------------------- md ---
md_stop_all() {
	for _rl_md in /dev/md[0-9]* /dev/md/*; do
		[ -b "$_rl_md" ] && mdadm --stop "$_rl_md" >/dev/null 2>&1
	done
	return 0
}

# -------------------------------------------------------------------- I/O ---
# fio_write_then_verify TARGET SIZE [fio options...]
#   Write SIZE bytes of TARGET (a block device, or a file that is created)
#   with verification headers, then check them in a separate fio run
#   (--verify_only --verify_state_load=1 --verify_state_save=0: a verify-only run
#   must not re-save the state as if the whole size had been written), so that whatever the write pass
#   completed before its runtime limit is verified (fio skips verification of
#   a time-limited write+verify job). Extra options go to both passes and
#   override the defaults; the environment tunes them:
#   FIO_RW=randwrite FIO_BS=4k FIO_IODEPTH=4 FIO_RUNTIME=20 FIO_VERIFY=crc32c
#   FIO_ENGINE=libaio FIO_DIRECT=1 (e.g. FIO_RUNTIME=5 fio_write_then_verify
#   /dev/mapper/x 16M --offset=1G). FIO_RUNTIME limits only the write pass.
#   A mixed job (FIO_RW=randrw/rw/readwrite) ignores FIO_RUNTIME: it runs
#   to its end (SIZE bounds it) and its verify pass replays it whole without
#   the verify state, and must verify every block the write pass wrote.
#   fio's verify state cannot describe a mixed job: the --verify_only run
#   counts the reads its dry run replays as blocks verified (fio 3.33,
#   verify_state_should_stop), so it checked only W - R of the W blocks
#   written when the write pass wrote more blocks than the whole job reads,
#   and read past the last block written ("verify: bad magic header", issue
#   13) when a slow write pass, cut by its runtime, wrote fewer.
#   Prints fio's summary lines; the full output is kept in $RL_OUT/fio/.
#   Returns nonzero if either pass fails or reports an error.
# fio_write TARGET SIZE [opts] / fio_verify TARGET SIZE [opts]: the two passes
#   alone (same arguments for both; fio_verify checks what the last fio_write
#   to the same TARGET wrote, e.g. after failing a member or reassembling).
#   fio_verify may be repeated: only fio_write saves the verify state, which
#   lives in FIO_STATE_DIR (default /tmp/fio.state). A later fio_write to the
#   same TARGET (another offset or size) replaces it, and a verify of the
#   earlier writes then checks as many blocks as the later pass wrote: data
#   verified after other writes keeps a FIO_STATE_DIR of its own.
RL_FIO_N=0
_rl_fio() { # PASS TARGET SIZE [opts]
	_rl_pass=$1
	_rl_t=$2
	_rl_sz=$3
	shift 3
	RL_FIO_N=$((RL_FIO_N + 1))
	_rl_dir=${FIO_STATE_DIR:-/tmp/fio.state}/$(echo "$_rl_t" | tr / _)
	_rl_log=$RL_OUT/fio/$RL_FIO_N-$_rl_pass-$(basename "$_rl_t").txt
	mkdir -p "$_rl_dir" "$RL_OUT/fio"
	case ${FIO_RW:-randwrite} in
	randrw | rw | readwrite) _rl_mixed=1 ;;
	*) _rl_mixed= ;;
	esac
	set -- --name=rlverify --filename="$_rl_t" --size="$_rl_sz" \
		--rw="${FIO_RW:-randwrite}" --bs="${FIO_BS:-4k}" --ioengine="${FIO_ENGINE:-libaio}" \
		--iodepth="${FIO_IODEPTH:-4}" --direct="${FIO_DIRECT:-1}" \
		--verify="${FIO_VERIFY:-crc32c}" --verify_fatal=1 --group_reporting "$@"
	if [ "$_rl_pass" = write ] && [ -n "$_rl_mixed" ]; then
		log "fio write $_rl_t size=$_rl_sz ${FIO_RW} bs=${FIO_BS:-4k} (mixed: to the end)"
		set -- "$@" --do_verify=0 --verify_state_save=0
	elif [ "$_rl_pass" = write ]; then
		log "fio write $_rl_t size=$_rl_sz ${FIO_RW:-randwrite} bs=${FIO_BS:-4k} runtime<=${FIO_RUNTIME:-20}s"
		set -- "$@" --do_verify=0 --verify_state_save=1 --runtime="${FIO_RUNTIME:-20}"
	elif [ -n "$_rl_mixed" ]; then
		log "fio verify $_rl_t (mixed: the whole job replayed)"
		set -- "$@" --verify_only --verify_state_save=0
	else
		log "fio verify $_rl_t"
		# verify_state_save defaults to on: a verify-only run would then
		# replace the write pass's state with one claiming every block of
		# SIZE was written, and a second fio_verify would fail on blocks
		# the time-limited write pass never reached
		set -- "$@" --verify_only --verify_state_load=1 --verify_state_save=0 --verify_state_save=0
	fi
	if ! (cd "$_rl_dir" && fio "$@" >"$_rl_log" 2>&1) ||
		grep -q -E 'verify: bad|err= *[1-9]' "$_rl_log"; then
		echo "fio $_rl_pass pass failed (fio $*):"
		sed 's/^/    /' "$_rl_log"
		return 1
	fi
	# issued reads and writes: "R W"
	_rl_n=$(sed -n 's/.*issued rwts: total=\([0-9]*\),\([0-9]*\),.*/\1 \2/p' "$_rl_log" | head -n1)
	if [ "$_rl_pass" = write ]; then
		echo "$_rl_n" >"$_rl_dir/issued"
	elif [ -n "$_rl_mixed" ] && [ -s "$_rl_dir/issued" ]; then
		# the replay issues the job's reads (not done) and then one
		# verify read per block written
		# shellcheck disable=SC2046
		set -- $(cat "$_rl_dir/issued") $_rl_n
		if [ "$#" != 4 ] || [ "$(($3 - $1))" != "$2" ]; then
			echo "fio verify pass did not check every block written (issued R W: write pass $1 $2, verify pass $3 $4)"
			return 1
		fi
	fi
	grep -E '^ +(WRITE|READ):' "$_rl_log" | sed 's/^ */    /'
	return 0
}
fio_write() { _rl_fio write "$@"; }
fio_verify() { _rl_fio verify "$@"; }
fio_write_then_verify() {
	_rl_fio write "$@" || return 1
	_rl_fio verify "$@"
}

# mkfs_mount DEV DIR [ext4|xfs] [mkfs options...]
mkfs_mount() {
	_rl_dev=$1
	_rl_mnt=$2
	_rl_fs=${3:-ext4}
	[ $# -ge 3 ] && shift 3 || shift $#
	modprobe "$_rl_fs" || return 1
	case $_rl_fs in
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 "$@" "$_rl_dev" || return 1 ;;
	xfs) mkfs.xfs -q -f "$@" "$_rl_dev" || return 1 ;;
	*) mkfs -t "$_rl_fs" "$@" "$_rl_dev" || return 1 ;;
	esac
	mkdir -p "$_rl_mnt"
	mount -t "$_rl_fs" "$_rl_dev" "$_rl_mnt"
}

# ----------------------------------------------------------------- checks ---
# dmesg_clean: nonzero (and the lines printed) if the kernel log has a
# warning, bug, lockdep report, hung task...
dmesg_clean() {
	_rl_bad=$(dmesg | grep -E "$RL_BAD_RE" | head -n 20)
	[ -z "$_rl_bad" ] && return 0
	echo "kernel log problems:"
	echo "$_rl_bad" | sed 's/^/    /'
	return 1
}

# taint_clean: nonzero if the kernel is tainted by anything but an
# unsigned (E, 8192) out-of-tree (O, 4096) module
taint_clean() {
	_rl_tn=$(cat /proc/sys/kernel/tainted)
	[ $((_rl_tn & ~12288)) -eq 0 ] && return 0
	echo "kernel tainted: $_rl_tn"
	return 1
}
