#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the dm-raidlab lab VM (QEMU, TCG) and run one guest script in it.
#
#   scripts/lab/vm-run.sh [options] <guest-script> [args...]
#   scripts/lab/vm-run.sh [options] --shell
#
# Options (also accepted as --opt=value):
#   --disks N          member disks, 4..8 (default 6): /dev/rl/m0.. in the guest;
#                      even ones are virtio-scsi scsi-hd, odd ones SATA AHCI ide-hd,
#                      all with rotation_rate=7200 and serial rl00, rl01, ...
#   --disk-size SIZE   size of new disk images (default 2G; sparse)
#   --disk-dir DIR     keep the disk images (m0.img.., pmem.img) in DIR and reuse
#                      the ones already there (reassembly across boots)
#   --pmem-size SIZE   NVDIMM size (default 256M; 0: none): /dev/rl/pmem (fsdax)
#   --timeout SEC      kill QEMU and fail after SEC seconds (default 900; shell: none)
#   --out DIR          console.log + the guest's /out files (default
#                      build/vm/out/<script name>; emptied first)
#   --append ARGS      extra kernel command line
#   --memory SIZE      guest RAM (default 2G)
#   --extra DIR        copy DIR's contents into the payload at /rl/extra (host
#                      binaries a guest script needs, e.g. raidlab bench
#                      --profile's perf)
#   --quiet            do not echo the console; print only the summary (and the
#                      log's tail on failure)
#   --keep             keep the run directory (payload, images) under build/vm/run
#   --shell            interactive guest shell (module loaded, disks ready)
#   --initrd FILE      boot FILE as the initrd instead of the lab's (an image
#                      of initramfs-tools, say, with root= in --append): no
#                      guest script; the system it boots must print
#                      "raidlab-init:" once up and "RAIDLAB-RESULT: <rc>"
#                      (and "RAIDLAB-TAINT: <n>") before it powers off
#
# Exit status: the guest script's exit status if it is nonzero (77 = skipped);
# 1 if it exited 0 but the kernel log shows a warning/bug (or the kernel is
# tainted by more than an out-of-tree unsigned module); 124 on timeout;
# 125 if the guest printed no result (crash, panic) or the harness failed.
#
# RAIDLAB_ACCEL=kvm tries KVM (-cpu host); the default and the CI path is TCG.
# RAIDLAB_KO=<path>: boot with that dm-raidlab.ko instead of the build's.
# RAIDLAB_BOOT_LIMIT (default 240): seconds a --quiet boot may take before
# the guest's init speaks; a boot that stalls longer is booted once more
# (scripts/lab/README.md), a second stall is a timeout (124).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB=$ROOT/scripts/lab
VMDIR=$ROOT/build/vm
T_START=$(date +%s.%N)

DISKS=6 DISK_SIZE=2G DISK_DIR= PMEM_SIZE=256M TIMEOUT= OUT= APPEND= MEMORY=2G
QUIET=0 KEEP=0 SHELL_MODE=0 OUT_SIZE=2G EXTRA= INITRD=

usage() { sed -n '4,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit "${1:-0}"; }
say() { echo "vm-run: $*" >&2; }
die() { say "error: $*"; exit 125; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
bytes() { # 2G / 256M / 512K / plain bytes -> bytes
	local v=$1
	case $v in
	*[kK]) echo $((${v%?} << 10)) ;; *[mM]) echo $((${v%?} << 20)) ;;
	*[gG]) echo $((${v%?} << 30)) ;; *[tT]) echo $((${v%?} << 40)) ;;
	*[!0-9]* | '') die "bad size '$v'" ;; *) echo "$v" ;;
	esac
}

while [ $# -gt 0 ]; do
	opt=$1
	val=
	case $opt in
	--*=*) val=${opt#*=}; opt=${opt%%=*}; set -- "$opt" "$val" "${@:2}" ;;
	esac
	case $opt in
	--disks | --disk-size | --disk-dir | --pmem-size | --timeout | --out | --append | --memory | --extra | --initrd)
		[ $# -ge 2 ] || die "$opt needs a value"
		val=$2
		shift 2
		case $opt in
		--disks) DISKS=$val ;; --disk-size) DISK_SIZE=$val ;; --disk-dir) DISK_DIR=$val ;;
		--pmem-size) PMEM_SIZE=$val ;; --timeout) TIMEOUT=$val ;; --out) OUT=$val ;;
		--append) APPEND="$APPEND $val" ;; --memory) MEMORY=$val ;;
		--extra) EXTRA=$val ;;
		--initrd) INITRD=$(realpath -e "$val") || die "no such initrd: $val" ;;
		esac
		;;
	--quiet) QUIET=1; shift ;;
	--keep) KEEP=1; shift ;;
	--shell) SHELL_MODE=1; shift ;;
	-h | --help) usage 0 ;;
	--) shift; break ;;
	-*) say "unknown option $opt"; usage 2 >&2 ;;
	*) break ;;
	esac
done

case $DISKS in [4-8]) ;; *) die "--disks must be 4..8 (got '$DISKS')" ;; esac
[ "$(id -u)" = 0 ] || die "must run as root"

SCRIPT= NAME=shell
if [ -n "$INITRD" ]; then
	NAME=$(basename "$INITRD")
elif [ $SHELL_MODE = 0 ]; then
	[ $# -ge 1 ] || usage 2 >&2
	SCRIPT=$(realpath -e "$1") || die "no such guest script: $1"
	shift
	NAME=$(basename "$SCRIPT" .sh)
fi
[ -n "$TIMEOUT" ] || { [ $SHELL_MODE = 1 ] && TIMEOUT=0 || TIMEOUT=900; }
case $TIMEOUT in *[!0-9]* | '') die "bad --timeout '$TIMEOUT'" ;; esac
DISK_BYTES=$(bytes "$DISK_SIZE")
PMEM_BYTES=$(bytes "$PMEM_SIZE")
KVER=${KVER:-$("$ROOT/scripts/kver.sh")}

# ------------------------------------------------------------ images ---
"$LAB/mkinitramfs.sh" || die "mkinitramfs.sh failed"
VMLINUX=$VMDIR/vmlinux-$KVER
[ -s "$VMDIR/base.cpio" ] && [ -s "$VMLINUX" ] || die "base.cpio or vmlinux missing"

mkdir -p "$VMDIR/run"
RUN=$(mktemp -d "$VMDIR/run/$NAME.XXXXXX")
QPID=
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	if [ $KEEP = 1 ]; then say "run directory kept: $RUN"; else rm -rf "$RUN"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# payload cpio: /rl/{tests/vm,tools,run,env,args} and the modules
P=$RUN/payload
mkdir -p "$P/rl/tests" "$P/rl/tools" "$P/rl/run" "$P/lib/modules/$KVER/extra"
[ -d "$ROOT/tests/vm" ] && cp -a "$ROOT/tests/vm" "$P/rl/tests/"
mkdir -p "$P/rl/tests/vm"
[ -d "$ROOT/tools" ] && cp -a "$ROOT/tools/." "$P/rl/tools/"
find "$P/rl" -name __pycache__ -prune -exec rm -rf {} + 2>/dev/null || true
if [ -n "$EXTRA" ]; then
	[ -d "$EXTRA" ] || die "--extra: no such directory: $EXTRA"
	mkdir -p "$P/rl/extra"
	cp -a "$EXTRA/." "$P/rl/extra/"
fi
# byte-compiled here by the binary the guest runs (base.cpio's python3 is
# /usr/bin/python3), so that the tool's first command in a boot does not
# compile it under TCG (1.6 s)
[ -x /usr/bin/python3 ] && /usr/bin/python3 -m compileall -q "$P/rl/tools" >/dev/null 2>&1
GSCRIPT=
if [ -n "$SCRIPT" ]; then
	case $SCRIPT in
	"$ROOT/tests/vm/"*) GSCRIPT=/rl/tests/vm/${SCRIPT#"$ROOT/tests/vm/"} ;;
	*) cp "$SCRIPT" "$P/rl/run/"; GSCRIPT=/rl/run/$(basename "$SCRIPT") ;;
	esac
fi
shq() { local s=$1; printf "'%s'" "${s//\'/\'\\\'\'}"; }
{
	echo "RL_NAME=$(shq "$NAME")"
	echo "RL_SCRIPT=$(shq "$GSCRIPT")"
	echo "export RL_NAME RL_SCRIPT"
} >"$P/rl/env"
{
	printf 'set --'
	for a in "$@"; do printf ' %s' "$(shq "$a")"; done
	echo
} >"$P/rl/args"
# the project's modules: dm-raidlab.ko and dm-hddsim.ko, each if built
# ($RAIDLAB_KO: another dm-raidlab.ko, e.g. the one DKMS built and installed)
MODNOTE=
for KO in "${RAIDLAB_KO:-$ROOT/dm-raidlab/dm-raidlab.ko}" "$ROOT/dm-hddsim/dm-hddsim.ko"; do
	if [ ! -e "$KO" ]; then
		MODNOTE="$MODNOTE${MODNOTE:+, }$(basename "$KO"): not built"
		continue
	fi
	cp "$KO" "$P/lib/modules/$KVER/extra/"
	MODNOTE="$MODNOTE${MODNOTE:+, }$(basename "$KO"): included"
	vm=$(modinfo -F vermagic "$KO" 2>/dev/null || true)
	case $vm in "$KVER "*) ;; *) say "warning: $KO vermagic '$vm' is not for $KVER" ;; esac
	[ -n "${RAIDLAB_KO:-}" ] && [ "$KO" = "$RAIDLAB_KO" ] && continue
	newer=$(find "$(dirname "$KO")" -name '*.[ch]' -newer "$KO" 2>/dev/null | head -n1)
	[ -n "$newer" ] && say "warning: $KO is older than $newer (run make)"
done
# modules.dep over base.cpio's modules and ours, made here: depmod in the
# guest takes 2.3 s of each boot under TCG. The payload's modules.* files
# replace base.cpio's; the guest runs depmod itself only if they do not
# list dm-raidlab.ko.
if ls "$P/lib/modules/$KVER/extra/"*.ko >/dev/null 2>&1; then
	DEP=$RUN/depmod
	mkdir -p "$DEP/lib/modules"
	(
		flock -s 9
		cp -al "$VMDIR/initramfs/lib/modules/$KVER" "$DEP/lib/modules/"
	) 9>"$VMDIR/.mkinitramfs.lock" 2>/dev/null &&
		cp "$P/lib/modules/$KVER/extra/"*.ko "$DEP/lib/modules/$KVER/extra/" &&
		depmod -b "$DEP" "$KVER" 2>/dev/null &&
		cp "$DEP/lib/modules/$KVER"/modules.* "$P/lib/modules/$KVER/" ||
		say "note: depmod here failed; the guest runs it"
	rm -rf "$DEP"
fi
(cd "$P" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$RUN/payload.cpio"
if [ -n "$INITRD" ]; then
	cp "$INITRD" "$RUN/initrd.cpio"
	MODNOTE="initrd $INITRD"
else
	cat "$VMDIR/base.cpio" "$RUN/payload.cpio" >"$RUN/initrd.cpio"
fi

# disks
DDIR=${DISK_DIR:-$RUN/disks}
mkdir -p "$DDIR"
DDIR=$(realpath "$DDIR")
mkimg() { # file bytes
	if [ -e "$1" ]; then
		local have
		have=$(stat -c %s "$1")
		[ "$have" = "$2" ] || say "note: reusing $1 ($have bytes, not $2)"
	else
		truncate -s "$2" "$1"
	fi
}
QDISKS=(-device virtio-scsi-pci,id=scsi0 -device ahci,id=ahci0)
for ((i = 0; i < DISKS; i++)); do
	img=$DDIR/m$i.img
	mkimg "$img" "$DISK_BYTES"
	ser=$(printf 'rl%02d' "$i")
	QDISKS+=(-drive "file=$img,format=raw,if=none,id=d$i,cache=unsafe,discard=unmap")
	if ((i % 2 == 0)); then
		QDISKS+=(-device "scsi-hd,bus=scsi0.0,drive=d$i,serial=$ser,rotation_rate=7200")
	else
		QDISKS+=(-device "ide-hd,bus=ahci0.$((i / 2)),drive=d$i,serial=$ser,rotation_rate=7200")
	fi
done
OUTIMG=$RUN/out.img
truncate -s "$(bytes "$OUT_SIZE")" "$OUTIMG"
QDISKS+=(-drive "file=$OUTIMG,format=raw,if=none,id=dout,cache=unsafe"
	-device "virtio-blk-pci,drive=dout,serial=rlout")
PMEM=0
if [ "$PMEM_BYTES" -gt 0 ]; then
	PMEM=1
	mkimg "$DDIR/pmem.img" "$PMEM_BYTES"
	PMEM_BYTES=$(stat -c %s "$DDIR/pmem.img")
	QDISKS+=(-object "memory-backend-file,id=nv0,share=on,mem-path=$DDIR/pmem.img,size=$PMEM_BYTES"
		-device nvdimm,id=nvdimm0,memdev=nv0)
fi

# output directory: emptied if it is ours (marker) or empty
OUT=${OUT:-$VMDIR/out/$NAME}
if [ -d "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
	[ -e "$OUT/.vm-run" ] || die "--out $OUT is not empty and was not made by vm-run.sh"
	rm -rf "${OUT:?}"/* "$OUT"/.[!.]* 2>/dev/null || true
fi
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
: >"$OUT/.vm-run"
LOG=$OUT/console.log

# ------------------------------------------------------------- boot ---
CMDLINE="console=ttyS0,115200 panic=-1 oops=panic loglevel=5 printk.devkmsg=on mitigations=off"
CMDLINE+=" watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 tsc=reliable"
CMDLINE+=" rl.disks=$DISKS rl.pmem=$PMEM rl.mode=$([ $SHELL_MODE = 1 ] && echo shell || echo run)"
if [ $SHELL_MODE = 1 ] && [ -t 0 ]; then
	read -r rows cols < <(stty size 2>/dev/null || echo "24 80")
	CMDLINE+=" rl.rows=$rows rl.cols=$cols"
fi
CMDLINE+="$APPEND"

case ${RAIDLAB_ACCEL:-tcg} in
kvm) ACCEL=(-accel kvm -cpu host) ;;
tcg) ACCEL=(-accel tcg,thread=multi -cpu max) ;;
*) die "RAIDLAB_ACCEL must be tcg or kvm" ;;
esac
QEMU=(qemu-system-x86_64 "${ACCEL[@]}" -smp 2 -m "$MEMORY,slots=2,maxmem=8G"
	-machine pc,nvdimm=on -nographic -nodefaults -serial mon:stdio -no-reboot -nic none
	-kernel "$VMLINUX" -initrd "$RUN/initrd.cpio" -append "$CMDLINE" "${QDISKS[@]}")
printf '%q ' "${QEMU[@]}" >"$OUT/qemu.cmd"
echo >>"$OUT/qemu.cmd"

# boot_quiet: QEMU in the background, its console to LOG. A boot that stalls
# before the guest's init prints its first line is the emulator's fault, not
# the test's (seen once under TCG on a loaded host: no console line after
# acpi/hmat for minutes, both vCPUs spinning): after BOOT_LIMIT seconds
# without "raidlab-init:" QEMU is stopped and boot_quiet returns 200. The
# disks are as they were: no test ran. Otherwise QEMU's status.
BOOT_LIMIT=${RAIDLAB_BOOT_LIMIT:-240}
STALLED=
boot_quiet() {
	local t=0
	timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null >"$LOG" 2>&1 &
	QPID=$!
	while kill -0 "$QPID" 2>/dev/null && ! grep -q -a "raidlab-init:" "$LOG"; do
		if [ $t -ge "$BOOT_LIMIT" ]; then
			kill "$QPID" 2>/dev/null
			wait "$QPID"
			return 200
		fi
		sleep 1
		t=$((t + 1))
	done
	wait "$QPID"
}

[ $QUIET = 1 ] || say "$NAME: booting ($DISKS x $DISK_SIZE disks in $DDIR, pmem $PMEM_SIZE, $MODNOTE, timeout ${TIMEOUT}s)"
T_BOOT=$(date +%s.%N)
set +e
if [ $SHELL_MODE = 1 ]; then
	if [ "$TIMEOUT" -gt 0 ]; then
		timeout -k 10 --foreground "$TIMEOUT" "${QEMU[@]}" 2>&1 | tee "$LOG"
	else
		"${QEMU[@]}" 2>&1 | tee "$LOG"
	fi
	QRC=${PIPESTATUS[0]}
else
	if [ $QUIET = 1 ]; then
		boot_quiet
		QRC=$?
		if [ "$QRC" = 200 ]; then
			mv -f "$LOG" "$OUT/console.stalled.log"
			say "$NAME: the boot stalled before the guest's init spoke (${BOOT_LIMIT}s; console.stalled.log): booting once more"
			STALLED=" after a stalled boot"
			boot_quiet
			QRC=$?
			[ "$QRC" = 200 ] && QRC=124
		fi
	else
		timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null 2>&1 | tee "$LOG"
		QRC=${PIPESTATUS[0]}
	fi
fi
QPID=
set -e
BOOT_WALL=$(since "$T_BOOT")

# ------------------------------------------------------------ verdict ---
# guest artifacts: a tar at the start of the rlout disk (all zeros if none)
if ! cmp -s -n 512 "$OUTIMG" /dev/zero; then
	tar -xf "$OUTIMG" -C "$OUT" 2>/dev/null || say "warning: could not unpack the guest's /out"
fi

BAD_RE='WARNING:|BUG:|Oops|general protection fault|Kernel panic|possible circular locking|possible recursive locking|inconsistent lock state|lockdep|UBSAN|KASAN|Call Trace|blocked for more than'
tr -d '\r' <"$LOG" >"$OUT/.console.txt"
bad=$(grep -a -n -E "$BAD_RE" "$OUT/.console.txt" | head -n 40 || true)
if [ -s "$OUT/dmesg.txt" ]; then
	bad2=$(grep -a -E "$BAD_RE" "$OUT/dmesg.txt" | head -n 20 || true)
	[ -n "$bad2" ] && bad="${bad:+$bad
}$(sed 's/^/dmesg: /' <<<"$bad2")"
fi
res=$(grep -a -o -E 'RAIDLAB-RESULT: [0-9]+' "$OUT/.console.txt" | tail -n1 | awk '{print $2}' || true)
taint=$(grep -a -o -E 'RAIDLAB-TAINT: [0-9]+' "$OUT/.console.txt" | tail -n1 | awk '{print $2}' || true)
rm -f "$OUT/.console.txt"

reason=
if [ -z "$res" ]; then
	if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then
		reason="timeout after ${TIMEOUT}s"
		RC=124
	else
		reason="no result line (guest crashed or QEMU failed, qemu rc=$QRC)"
		RC=125
	fi
elif [ "$res" != 0 ]; then
	reason="guest script exited $res"
	RC=$res
else
	RC=0
fi
if [ -n "$bad" ]; then
	reason="${reason:+$reason; }kernel log has warnings/bugs"
	[ "$RC" = 0 ] || [ "$RC" = 77 ] && RC=1
fi
# taint beyond an unsigned (E) out-of-tree (O) module: W, D, L, B... all mean trouble
if [ -n "$taint" ] && [ $((taint & ~12288)) -ne 0 ]; then
	reason="${reason:+$reason; }kernel tainted ($taint)"
	[ "$RC" = 0 ] || [ "$RC" = 77 ] && RC=1
fi

if [ "$RC" != 0 ] && [ "$RC" != 77 ] && [ $QUIET = 1 ] && [ -s "$LOG" ]; then
	echo "---- last 30 lines of $LOG ----" >&2
	tail -n 30 "$LOG" | tr -d '\r' >&2
	echo "----" >&2
fi
if [ -n "$bad" ]; then
	echo "---- offending kernel log lines ----" >&2
	echo "$bad" >&2
	echo "----" >&2
fi
case $RC in 0) verdict=PASS ;; 77) verdict=SKIP ;; *) verdict=FAIL ;; esac
say "$NAME: $verdict${reason:+ ($reason)}$STALLED, taint=${taint:-?}, boot-to-poweroff ${BOOT_WALL}s, wall $(since "$T_START")s, log $LOG"
exit "$RC"
