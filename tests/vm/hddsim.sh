# SPDX-License-Identifier: GPL-2.0
#
# Guest-side helpers for dm-hddsim (the emulated mechanical disk), sourced
# after lib.sh. See Documentation/dm-hddsim.rst.
#
#   need_hddsim                      load dm-hddsim (or skip the test)
#   hdd_capacity PRESET [OPT...]     the emulated disk's capacity in sectors
#   hdd_create NAME DEV PRESET [OPT...]
#                                    /dev/mapper/NAME: hddsim over all of DEV
#                                    (or the capacity, if smaller), from sector
#                                    0, with the optional words OPT... (key
#                                    value pairs, e.g. time_scale 10)
#   hdd_stack PRESET [OPT...]        wrap every member /dev/rl/mN into
#                                    /dev/mapper/hddN (hdd_create); sets
#                                    HDD_DEVS to "/dev/mapper/hdd0 ..."; a
#                                    scheme stacked on $HDD_DEVS sees
#                                    rotating disks
#   hdd_unstack                      remove /dev/mapper/hddN
#   hdd_st NAME FIELD                one status field by name: preset capacity
#                                    requests reads writes others seek_cyls
#                                    seek_us rot_us xfer_us busy_us late
#                                    late_us cylinder
#
# rotational: dm derives a dm device's queue/rotational from the devices
# under it (rotational if any is). The lab's members are rotational, so an
# hddsim device over them is too; over a non-rotational device (pmem, brd)
# hdd_create sets /sys/block/dm-N/queue/rotational to 1 itself (a table
# reload resets it).

need_hddsim() {
	grep -q '^dm_hddsim ' /proc/modules && return 0
	[ -e "/lib/modules/$KVER/extra/dm-hddsim.ko" ] || skip "dm-hddsim.ko not built (make)"
	modprobe dm-hddsim 2>/dev/null || { depmod -a "$KVER" && modprobe dm-hddsim; } ||
		die "modprobe dm-hddsim failed"
}

# the optional-argument group of a table line: "<#words> <words...>"
_hdd_opts() {
	echo "$# $*"
}

hdd_capacity() {
	_hdd_p=$1
	shift
	need_hddsim
	# a one-sector probe over the first member reports the capacity
	dm_create hddprobe "0 1 hddsim /dev/rl/m0 0 $_hdd_p $(_hdd_opts "$@")" >/dev/null || return 1
	_hdd_c=$(hdd_st hddprobe capacity)
	dm_remove hddprobe
	echo "$_hdd_c"
}

hdd_create() {
	_hdd_n=$1
	_hdd_d=$2
	_hdd_p=$3
	shift 3
	_hdd_cap=$(hdd_capacity "$_hdd_p" "$@") || return 1
	_hdd_len=$(sectors "$_hdd_d")
	[ "$_hdd_cap" -lt "$_hdd_len" ] && _hdd_len=$_hdd_cap
	dm_create "$_hdd_n" "0 $_hdd_len hddsim $_hdd_d 0 $_hdd_p $(_hdd_opts "$@")" || return 1
	_hdd_rot=$(dm_sysfs "$_hdd_n")/queue/rotational
	[ "$(cat "$_hdd_rot")" = 1 ] || echo 1 >"$_hdd_rot"
}

hdd_stack() {
	HDD_DEVS=
	_hdd_i=0
	while [ "$_hdd_i" -lt "$RL_NDISKS" ]; do
		hdd_create "hdd$_hdd_i" "/dev/rl/m$_hdd_i" "$@" || return 1
		HDD_DEVS="$HDD_DEVS${HDD_DEVS:+ }/dev/mapper/hdd$_hdd_i"
		_hdd_i=$((_hdd_i + 1))
	done
	export HDD_DEVS
}

hdd_unstack() {
	for _hdd_m in /dev/mapper/hdd[0-9]*; do
		[ -e "$_hdd_m" ] && dm_remove "${_hdd_m#/dev/mapper/}"
	done
	return 0
}

# status: <start> <len> hddsim <preset> <capacity> <requests> <reads> <writes>
# <others> <seek_cyls> <seek_us> <rot_us> <xfer_us> <busy_us> <late>
# <late_us> <cylinder>
hdd_st() {
	case $2 in
	preset) _hdd_k=4 ;; capacity) _hdd_k=5 ;; requests) _hdd_k=6 ;;
	reads) _hdd_k=7 ;; writes) _hdd_k=8 ;; others) _hdd_k=9 ;;
	seek_cyls) _hdd_k=10 ;; seek_us) _hdd_k=11 ;; rot_us) _hdd_k=12 ;;
	xfer_us) _hdd_k=13 ;; busy_us) _hdd_k=14 ;; late) _hdd_k=15 ;;
	late_us) _hdd_k=16 ;; cylinder) _hdd_k=17 ;;
	*) die "hdd_st: unknown field $2" ;;
	esac
	dmsetup status "$1" | awk -v k="$_hdd_k" '{ print $k }'
}
