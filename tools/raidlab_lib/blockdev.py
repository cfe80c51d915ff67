# SPDX-License-Identifier: GPL-2.0
"""Reading and writing block devices (or image files) around the page
cache: the kernel writes superblocks with bios, so a buffered read could
return what the page cache kept from before. O_DIRECT where the device takes
it (page-aligned buffers from mmap), buffered I/O plus fsync otherwise."""
import mmap
import os
import stat

from . import ondisk


def size_bytes(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_END)
    finally:
        os.close(fd)


def size_sectors(path):
    return size_bytes(path) >> 9


def _open(path, flags):
    try:
        return os.open(path, flags | os.O_DIRECT), True
    except OSError:
        return os.open(path, flags), False


def read_at(path, offset, length):
    """Bytes [offset, offset + length) (4 KiB aligned for O_DIRECT)."""
    fd, direct = _open(path, os.O_RDONLY)
    try:
        if direct and offset % 4096 == 0 and length % 4096 == 0:
            buf = mmap.mmap(-1, length)
            try:
                n = os.preadv(fd, [buf], offset)
                return bytes(buf[:n])
            except OSError:
                pass
            finally:
                buf.close()
        os.close(fd)
        fd = os.open(path, os.O_RDONLY)
        return os.pread(fd, length, offset)
    finally:
        os.close(fd)


def write_at(path, offset, data):
    """Write @data at @offset and make it durable."""
    fd, direct = _open(path, os.O_WRONLY)
    try:
        if direct and offset % 4096 == 0 and len(data) % 4096 == 0:
            buf = mmap.mmap(-1, len(data))
            try:
                buf[:] = data
                if os.pwritev(fd, [buf], offset) == len(data):
                    os.fsync(fd)
                    return
            except OSError:
                pass
            finally:
                buf.close()
        os.close(fd)
        fd = os.open(path, os.O_WRONLY)
        done = 0
        while done < len(data):
            done += os.pwrite(fd, data[done:], offset + done)
        os.fsync(fd)
    finally:
        os.close(fd)


def zero(path, offset, length, chunk=1 << 20):
    """Zero [offset, offset + length), clipped to the device."""
    end = min(offset + length, size_bytes(path))
    z = bytes(chunk)
    while offset < end:
        n = min(chunk, end - offset)
        write_at(path, offset, z[:n])
        offset += n


def dev_id(path):
    """Identity of a device or file: (st_rdev) for block devices, (dev, ino) else."""
    st = os.stat(path)
    if stat.S_ISBLK(st.st_mode):
        return ("blk", st.st_rdev)
    return ("file", st.st_dev, st.st_ino)


def is_block(path):
    try:
        return stat.S_ISBLK(os.stat(path).st_mode)
    except OSError:
        return False


def read_msb(path):
    """(MsbState or None, error or None) of a member's sector 0 block."""
    try:
        blk = read_at(path, 0, ondisk.BLOCK)
    except OSError as e:
        return None, ondisk.FormatError(f"cannot read: {e.strerror}")
    try:
        return ondisk.decode_msb(blk), None
    except ondisk.FormatError as e:
        return None, e


def read_md(path):
    """The metadata superblock slots: (slot, MdState or None, [per-slot error])."""
    blk = read_at(path, 0, ondisk.BLOCK * len(ondisk.SB_SLOTS))
    blocks = [blk[i * ondisk.BLOCK:(i + 1) * ondisk.BLOCK] for i in ondisk.SB_SLOTS]
    return ondisk.newest_sb(blocks)
