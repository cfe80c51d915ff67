# SPDX-License-Identifier: GPL-2.0
"""device-mapper through its ioctls (include/uapi/linux/dm-ioctl.h), for
loops that create and remove many devices: under TCG each dmsetup process
costs a few hundred milliseconds, an ioctl well under one.

Only what the crash harness needs: create (create, load, resume), remove,
status/table, message. Devices get a /dev/mapper/NAME symlink to the
devtmpfs node /dev/dm-<minor>, as udev would make it, so table lines can
name them by path.
"""
import errno
import fcntl
import os
import struct
import time

CONTROL = "/dev/mapper/control"
_HDR = struct.Struct("<3I I I I i I I I Q 128s 129s 7x")   # struct dm_ioctl, 312 bytes
_SPEC = struct.Struct("<QQiI16s")                             # struct dm_target_spec
assert _HDR.size == 312 and _SPEC.size == 40
DEV_CREATE, DEV_REMOVE, DEV_SUSPEND, TABLE_LOAD, TABLE_STATUS, TARGET_MSG = 3, 4, 6, 9, 12, 14
SUSPEND_FLAG, STATUS_TABLE_FLAG, BUFFER_FULL_FLAG = 1 << 1, 1 << 4, 1 << 8
DATA_OUT_FLAG = 1 << 16


class DmIoctlError(OSError):
    pass


def _ioc(nr):
    return (3 << 30) | (_HDR.size << 16) | (0xFD << 8) | nr


class Control:
    def __init__(self, path=CONTROL):
        self.fd = os.open(path, os.O_RDWR)

    def close(self):
        os.close(self.fd)

    def _call(self, nr, name, payload=b"", flags=0, target_count=0, bufsize=16384):
        size = max(bufsize, _HDR.size + len(payload))
        buf = bytearray(size)
        _HDR.pack_into(buf, 0, 4, 0, 0, size, _HDR.size, target_count, 0, flags, 0, 0, 0,
                       name.encode(), b"")
        buf[_HDR.size:_HDR.size + len(payload)] = payload
        try:
            fcntl.ioctl(self.fd, _ioc(nr), buf, True)
        except OSError as e:
            raise DmIoctlError(e.errno, f"dm ioctl {nr} on {name}: {os.strerror(e.errno)}") \
                from None
        h = _HDR.unpack_from(buf, 0)
        return {"data_size": h[3], "data_start": h[4], "target_count": h[5], "flags": h[7],
                "dev": h[10]}, buf

    def create(self, name, lines):
        """Create @name with table @lines ("start len type params" each) and
        resume it; returns its /dev/dm-N path."""
        h, _ = self._call(DEV_CREATE, name)
        try:
            specs = b""
            for ln in lines:
                w = ln.split(None, 3)
                params = (w[3] if len(w) > 3 else "").encode() + b"\0"
                params += bytes(-(_SPEC.size + len(params)) % 8)
                specs += _SPEC.pack(int(w[0]), int(w[1]), 0, _SPEC.size + len(params),
                                    w[2].encode()) + params
            self._call(TABLE_LOAD, name, specs, target_count=len(lines))
            self._call(DEV_SUSPEND, name)       # no SUSPEND flag: resume
        except OSError:
            self._call(DEV_REMOVE, name)
            raise
        path = f"/dev/dm-{os.minor(h['dev'])}"
        link = f"/dev/mapper/{name}"
        try:
            os.unlink(link)
        except FileNotFoundError:
            pass
        os.symlink(f"../dm-{os.minor(h['dev'])}", link)
        for _ in range(100):        # devtmpfs creates the node asynchronously
            if os.path.exists(path):
                break
            time.sleep(0.01)
        return path

    def remove(self, name, retries=50):
        for i in range(retries):
            try:
                self._call(DEV_REMOVE, name)
                break
            except DmIoctlError as e:
                if e.errno == errno.ENXIO:
                    break
                if e.errno != errno.EBUSY or i == retries - 1:
                    raise
                time.sleep(0.1)
        try:
            os.unlink(f"/dev/mapper/{name}")
        except FileNotFoundError:
            pass

    def _targets(self, h, buf):
        out, off = [], h["data_start"]
        for _ in range(h["target_count"]):
            start, length, _, nxt, ttype = _SPEC.unpack_from(buf, off)
            end = buf.index(b"\0", off + _SPEC.size)
            params = bytes(buf[off + _SPEC.size:end]).decode()
            out.append(f"{start} {length} {ttype.rstrip(bytes(1)).decode()} {params}".rstrip())
            off = h["data_start"] + nxt       # status output: from the data's start
        return out

    def status(self, name, table=False):
        """The status (or table) lines of @name."""
        size = 16384
        while True:
            h, buf = self._call(TABLE_STATUS, name, flags=STATUS_TABLE_FLAG if table else 0,
                                bufsize=size)
            if not h["flags"] & BUFFER_FULL_FLAG:
                return self._targets(h, buf)
            size *= 4

    def message(self, name, msg, sector=0):
        """Send @msg; returns the target's reply ("" if none)."""
        payload = struct.pack("<Q", sector) + msg.encode() + b"\0"
        h, buf = self._call(TARGET_MSG, name, payload)
        if h["flags"] & DATA_OUT_FLAG:
            end = buf.index(b"\0", h["data_start"])
            return bytes(buf[h["data_start"]:end]).decode()
        return ""
