#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Geometry calibration by timed reads (tools/calib/hddcalib, paper 002
# section 3.2) recovers the parameters of the dm-hddsim preset lightning:
# sectors per track, heads, cylinders and skews exactly (period to 0.5 %),
# head switch to 25 %, and the fitted seek curve to 10 % (or 0.3 ms) at
# distances 1, 10, 100 and full stroke. (The timing tolerances cover the
# guest's time stamp jitter on a loaded TCG host: runs at time_scale 1/20
# measured the head switch 3 % to 13 % off and seek(100) -1 % to +7 %.)
# (In the --full tier since issue 14: the default run keeps its 60 minutes
# for the schemes; 70-tracker covers the geom and tracker path by default.)
# vm-opts: --disks 4 --timeout 900 --tier full --alone
. "$RL_TESTS/lib.sh"
. "$RL_TESTS/hddsim.sh"
need_hddsim
CALIB=$RL_TOOLS/calib/hddcalib
[ -x "$CALIB" ] || skip "tools/calib/hddcalib not built (make)"

# kv LINE KEY: a value from "geom <m> k=v,k=v,..."
kv() { echo "$1" | cut -d' ' -f3 | tr ',' '\n' | sed -n "s/^$2=//p"; }
inside() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
near() { # GOT WANT REL_TOL ABS_TOL
	awk -v g="$1" -v w="$2" -v r="$3" -v a="$4" 'BEGIN {
		d = g - w; if (d < 0) d = -d
		exit !(d <= r * w || d <= a) }'
}
root() { awk -v x="$1" 'BEGIN { y = x; for (i = 0; i < 40; i++) y = (y + x / y) / 2; print y }'; }

# calib PRESET MEMBER PERIOD_NS CYLS HEADS SPT TSKEW CSKEW HS_NS A_NS B_NS C_NS
calib() {
	p=$1 m=$2
	shift 2
	dev=$(disk "$m")
	cap=$(hdd_capacity "$p")
	check "$p over $dev (time_scale $SCALE)" dm_create "cal$m" "0 $cap hddsim $dev 0 $p 2 time_scale $SCALE"
	t0=$(cut -d' ' -f1 /proc/uptime)
	line=$("$CALIB" -m "$m" -s "$SCALE" "/dev/mapper/cal$m" 2>"$RL_OUT/calib-$p.txt")
	cat "$RL_OUT/calib-$p.txt"
	log "$p ($(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { print b - a }') s): $line"
	echo "$p,$line" >>"$RL_OUT/calib.csv"
	check "$p: a geom line for member $m" sh -c "echo '$line' | grep -q '^geom $m period_ns='"
	check "$p: period $(kv "$line" period_ns) ns (want $1)" near "$(kv "$line" period_ns)" "$1" 0.005 0
	check "$p: cylinders $(kv "$line" cylinders) (want $2)" test "$(kv "$line" cylinders)" = "$2"
	check "$p: heads $(kv "$line" heads) (want $3)" test "$(kv "$line" heads)" = "$3"
	check "$p: spt $(kv "$line" spt) (want $4)" test "$(kv "$line" spt)" = "$4"
	check "$p: track_skew $(kv "$line" track_skew) (want $5)" test "$(kv "$line" track_skew)" = "$5"
	check "$p: cyl_skew $(kv "$line" cyl_skew) (want $6)" test "$(kv "$line" cyl_skew)" = "$6"
	check "$p: head switch $(kv "$line" head_switch_ns) ns (want $7)" \
		near "$(kv "$line" head_switch_ns)" "$7" 0.25 0
	ga=$(kv "$line" seek_a_ns) gb=$(kv "$line" seek_b_ns) gc=$(kv "$line" seek_c_ns)
	for d in 1 10 100 $(($2 - 1)); do
		r=$(root "$d")
		got=$(awk -v a="$ga" -v b="$gb" -v c="$gc" -v d="$d" -v r="$r" 'BEGIN { printf "%.0f", a + b * d + c * r }')
		want=$(awk -v a="$8" -v b="$9" -v c="${10}" -v d="$d" -v r="$r" 'BEGIN { printf "%.0f", a + b * d + c * r }')
		check "$p: fitted seek($d) $got ns (want $want)" near "$got" "$want" 0.10 300000
	done
	check "remove cal$m" dm_remove "cal$m"
}

# The emulated disk runs 20 times slower than real (time_scale 1/20): the
# guest's completion time stamps jitter by milliseconds under TCG on a
# loaded host, more than a sector time (0.29 ms on the Lightning) at full
# speed; 1/10 is enough on a quiet host, not on a loaded one. hddcalib -s
# converts back to disk time. (The Eagle is recovered the same way, in
# 1.4 times as long: left out to keep the test short.)
SCALE=1/20
echo "preset,line" >"$RL_OUT/calib.csv"
calib lightning 0 13900000 949 14 48 5 9 1160000 2000000 10000 460000
finish
