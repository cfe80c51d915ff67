# SPDX-License-Identifier: GPL-2.0
"""Read a raidlab status line as dm-raid's readers do: through
libdevmapper's dm_get_status_raid() (ctypes), the parser LVM and
dmeventd's raid plugin use. `raidlab status --libdm NAME` prints what it
finds; the tests check it against dm.parse_status().

Only libdevmapper.so.1.02.1 (every Debian 12 machine with dmsetup) is
needed; no headers.
"""
import ctypes

LIBDM = "libdevmapper.so.1.02.1"


class _StatusRaid(ctypes.Structure):
    # struct dm_status_raid of libdevmapper.h (1.02.185)
    _fields_ = [("reserved", ctypes.c_uint64), ("total_regions", ctypes.c_uint64),
                ("insync_regions", ctypes.c_uint64), ("mismatch_count", ctypes.c_uint64),
                ("dev_count", ctypes.c_uint32), ("raid_type", ctypes.c_char_p),
                ("dev_health", ctypes.c_char_p), ("sync_action", ctypes.c_char_p),
                ("data_offset", ctypes.c_uint64)]


class LibdmError(Exception):
    pass


def _lib():
    try:
        lib = ctypes.CDLL(LIBDM)
    except OSError as e:
        raise LibdmError(f"{LIBDM}: {e}") from None
    lib.dm_pool_create.restype = ctypes.c_void_p
    lib.dm_pool_create.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.dm_pool_destroy.argtypes = [ctypes.c_void_p]
    lib.dm_get_status_raid.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                       ctypes.POINTER(ctypes.POINTER(_StatusRaid))]
    return lib


def status_raid(params):
    """dm_get_status_raid() of @params (a status line after "<start>
    <length> <target>"), as a dict of its fields; LibdmError if it refuses
    the line."""
    lib = _lib()
    pool = lib.dm_pool_create(b"raidlab", 1024)
    if not pool:
        raise LibdmError("dm_pool_create failed")
    try:
        out = ctypes.POINTER(_StatusRaid)()
        if not lib.dm_get_status_raid(pool, params.encode(), ctypes.byref(out)):
            raise LibdmError(f"dm_get_status_raid refused {params!r}")
        s = out.contents
        return {"raid_type": s.raid_type.decode(), "dev_count": s.dev_count,
                "dev_health": s.dev_health.decode(), "insync_regions": s.insync_regions,
                "total_regions": s.total_regions,
                "sync_action": s.sync_action.decode() if s.sync_action else None,
                "mismatch_count": s.mismatch_count, "data_offset": s.data_offset}
    finally:
        lib.dm_pool_destroy(pool)


def status_line_raid(line):
    """status_raid() of a whole `dmsetup status` line."""
    w = line.split(None, 3)
    if len(w) < 4:
        raise LibdmError(f"not a status line: {line!r}")
    return status_raid(w[3])
