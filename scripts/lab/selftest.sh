#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that the VM harness passes what passes and fails what fails:
#   pass      guest exits 0 and leaves /out/hello.txt     -> vm-run 0, file copied back
#   args      arguments with spaces and quotes arrive intact -> 0
#   fail      guest exits 1                               -> nonzero
#   skip      guest calls skip                            -> 77
#   warning   guest writes "WARNING:" to /dev/kmsg, exits 0 -> nonzero
#   panic     guest crashes the kernel (sysrq c)          -> nonzero (no result line)
#   timeout   guest sleeps past --timeout                 -> 124
#   stall     a boot limit shorter than any boot: stopped, booted once
#             more, stopped again                         -> 124, console.stalled.log
#   fio       fio_verify passes (twice) after a time-limited fio_write and
#             detects data corrupted after fio_write          -> 0
#   persist   a second boot with the same --disk-dir sees the first boot's
#             data and an fsdax pmem                      -> 0, 0
#
#   scripts/lab/selftest.sh [case...]
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VMRUN=$ROOT/scripts/lab/vm-run.sh
DIR=$ROOT/build/vm/selftest
rm -rf "$DIR"
mkdir -p "$DIR"
OPTS=(--quiet --disks 4 --disk-size 1G)

gs() { # name: write the guest script from stdin
	{ echo '#!/bin/sh'; echo '. "$RL_TESTS/lib.sh"'; cat; } >"$DIR/$1.sh"
}
gs pass <<-'EOF'
	echo "hello from $RL_NAME" >"$RL_OUT/hello.txt"
	exit 0
EOF
gs args <<-'EOF'
	[ $# -eq 3 ] && [ "$1" = "a b" ] && [ "$2" = "it's" ] && [ "$3" = '$HOME"' ] || die "args: $# [$*]"
	exit 0
EOF
gs fail <<-'EOF'
	exit 1
EOF
gs skip <<-'EOF'
	skip "nothing to do"
EOF
gs warning <<-'EOF'
	echo "WARNING: raidlab selftest: this line must fail the run" >/dev/kmsg
	exit 0
EOF
gs panic <<-'EOF'
	echo 1 >/proc/sys/kernel/sysrq
	echo c >/proc/sysrq-trigger
	sleep 60
	exit 0
EOF
gs timeout <<-'EOF'
	sleep 600
	exit 0
EOF
gs fio <<-'EOF'
	m0=$(disk 0)
	# a write pass cut short by its runtime, verified twice (the verify pass
	# must not replace the saved state with one covering all of SIZE)
	FIO_RUNTIME=3 check "fio_write (time-limited)" fio_write "$m0" 512M
	check "fio_verify of intact data" fio_verify "$m0" 512M
	check "fio_verify again" fio_verify "$m0" 512M
	FIO_RUNTIME=5 check "fio_write" fio_write "$m0" 8M
	check "fio_verify of intact data" fio_verify "$m0" 8M
	dd if=/dev/urandom of="$m0" bs=1M count=8 oflag=direct 2>/dev/null
	expect_fail fio_verify "$m0" 8M
	finish
EOF
gs persist1 <<-'EOF'
	echo "raidlab-persist-$1" | dd of="$(disk 0)" bs=512 count=1 conv=sync,fsync 2>/dev/null
	test "$(cat /sys/block/pmem0/queue/dax)" = 1 || die "pmem not DAX"
	echo "pmem-$1" | dd of=/dev/rl/pmem bs=4096 seek=100 count=1 conv=sync,fsync 2>/dev/null
	exit 0
EOF
gs persist2 <<-'EOF'
	got=$(dd if="$(disk 0)" bs=512 count=1 2>/dev/null | tr -d '\000')
	[ "$got" = "raidlab-persist-$1" ] || die "disk 0 holds '$got'"
	got=$(dd if=/dev/rl/pmem bs=4096 skip=100 count=1 2>/dev/null | tr -d '\000')
	[ "$got" = "pmem-$1" ] || die "pmem holds '$got'"
	test "$(cat /sys/block/pmem0/queue/dax)" = 1 || die "pmem not DAX"
	exit 0
EOF

GOOD=0 BAD=0
expect() { # case expected(0|nonzero|N) vm-run args...
	local name=$1 want=$2 rc t0 ok
	shift 2
	t0=$(date +%s)
	"$VMRUN" "${OPTS[@]}" --out "$DIR/out-$name" "$@" >"$DIR/$name.log" 2>&1
	rc=$?
	case $want in
	nonzero) [ $rc -ne 0 ] && ok=1 || ok=0 ;;
	*) [ $rc -eq "$want" ] && ok=1 || ok=0 ;;
	esac
	if [ $ok = 1 ]; then
		GOOD=$((GOOD + 1))
		printf 'selftest: %-9s ok    (vm-run exit %d, expected %s, %ds)\n' "$name" $rc "$want" $(($(date +%s) - t0))
	else
		BAD=$((BAD + 1))
		printf 'selftest: %-9s WRONG (vm-run exit %d, expected %s, %ds)\n' "$name" $rc "$want" $(($(date +%s) - t0))
		sed 's/^/    /' "$DIR/$name.log" | tail -n 40
	fi
	return $((1 - ok))
}

want_case() { [ ${#CASES[@]} -eq 0 ] || [[ " ${CASES[*]} " == *" $1 "* ]]; }
CASES=("$@")

if want_case pass && expect pass 0 "$DIR/pass.sh"; then
	if [ "$(cat "$DIR/out-pass/hello.txt" 2>/dev/null)" = "hello from pass" ]; then
		echo "selftest: pass      ok    (/out/hello.txt copied back)"; GOOD=$((GOOD + 1))
	else
		echo "selftest: pass      WRONG (/out/hello.txt not copied back)"; BAD=$((BAD + 1))
	fi
fi
want_case args && expect args 0 "$DIR/args.sh" "a b" "it's" '$HOME"'
want_case fail && expect fail nonzero "$DIR/fail.sh"
want_case skip && expect skip 77 "$DIR/skip.sh"
want_case warning && expect warning nonzero "$DIR/warning.sh"
want_case panic && expect panic nonzero "$DIR/panic.sh"
want_case timeout && expect timeout 124 --timeout 45 "$DIR/timeout.sh"
if want_case stall && RAIDLAB_BOOT_LIMIT=2 expect stall 124 "$DIR/pass.sh"; then
	if [ -s "$DIR/out-stall/console.stalled.log" ] && grep -q "booting once more" "$DIR/stall.log"; then
		echo "selftest: stall     ok    (the first boot's console kept, the second boot said so)"; GOOD=$((GOOD + 1))
	else
		echo "selftest: stall     WRONG (no console.stalled.log, or no word of the second boot)"; BAD=$((BAD + 1))
	fi
fi
want_case fio && expect fio 0 "$DIR/fio.sh"
if want_case persist; then
	rm -rf "$DIR/disks"
	expect persist1 0 --disk-dir "$DIR/disks" "$DIR/persist1.sh" $$ &&
		expect persist2 0 --disk-dir "$DIR/disks" "$DIR/persist2.sh" $$
	rm -rf "$DIR/disks"
fi

echo "selftest: $GOOD ok, $BAD wrong"
[ $BAD -eq 0 ]
