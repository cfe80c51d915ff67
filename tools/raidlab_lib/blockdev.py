# SPDX-License-Identifier: GPL-2.0
"""Reading and writing block devices (or image files) around the page
cache: the kernel writes superblocks with bios, so a buffered read could
return what the page cache kept from before. O_DIRECT where the device takes
it (page-aligned buffers from mmap), buffered I/O plus fsync otherwise.

A disk the tools are about to overwrite is claimed first (Claim: opened
with O_EXCL, every one before anything is written) and looked at for what
it holds (signatures(): filesystems, volume and raid labels, partition
tables), so that neither a disk in use nor one holding data is wiped by
mistake."""
import errno
import mmap
import os
import stat
import struct

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


def _write_direct(fd, offset, data):
    """One O_DIRECT write from a page-aligned buffer; False if it cannot be
    done that way (unaligned, or the device refuses it)."""
    if offset % 4096 or len(data) % 4096:
        return False
    buf = mmap.mmap(-1, len(data))
    try:
        buf[:] = data
        return os.pwritev(fd, [buf], offset) == len(data)
    except OSError:
        return False
    finally:
        buf.close()


def _write_buffered(fd, offset, data):
    done = 0
    while done < len(data):
        done += os.pwrite(fd, data[done:], offset + done)


def write_at(path, offset, data):
    """Write @data at @offset and make it durable."""
    fd, direct = _open(path, os.O_WRONLY)
    try:
        if direct and _write_direct(fd, offset, data):
            os.fsync(fd)
            return
        os.close(fd)
        fd = os.open(path, os.O_WRONLY)
        _write_buffered(fd, offset, data)
        os.fsync(fd)
    finally:
        os.close(fd)


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


# ----------------------------------------------------------------- claim ---
IN_USE = "in use (mounted, held by dm or md, or open exclusively by another process)"


def open_excl(path, write=True):
    """Open a disk with O_EXCL: on a block device the kernel refuses it
    (EBUSY) while it is mounted, held by dm or md, or open O_EXCL by another
    process, and lets nobody else claim it while the fd stays open. (On a
    regular file O_EXCL without O_CREAT does nothing.) Returns (fd, direct)."""
    flags = (os.O_RDWR if write else os.O_RDONLY) | os.O_EXCL
    try:
        return os.open(path, flags | os.O_DIRECT), True
    except OSError as e:
        if e.errno == errno.EBUSY:
            raise
    return os.open(path, flags), False


def why_not(e):
    """What an OSError of open_excl() means for the disk."""
    if e.errno == errno.EBUSY:
        return IN_USE
    return f"cannot open it with O_EXCL: {e.strerror}"


def busy(path):
    """Why @path cannot be claimed (opened O_EXCL) now, or None. Read-only:
    the check itself writes nothing."""
    try:
        fd, _ = open_excl(path, write=False)
    except OSError as e:
        return why_not(e)
    os.close(fd)
    return None


class ClaimError(Exception):
    """Disks that could not be claimed: .failed is [(path, why)]."""

    def __init__(self, failed):
        self.failed = failed
        super().__init__("\n  ".join(f"{p}: {why}" for p, why in failed))


class Claim:
    """Disks to be written, all opened with O_EXCL before any is written and
    held until release(): nobody can mount or assemble them meanwhile. If
    one cannot be opened, none is kept and ClaimError names every disk that
    failed. A context manager."""

    def __init__(self, paths):
        self.fds = {}
        failed = []
        for p in paths:
            if p in self.fds:
                continue
            try:
                self.fds[p] = open_excl(p)
            except OSError as e:
                failed.append((p, why_not(e)))
        if failed:
            self.release()
            raise ClaimError(failed)

    def zero(self, path, offset, length, chunk=1 << 20):
        """Zero [offset, offset + length) of a claimed disk, clipped to it,
        through the O_EXCL descriptor; durable on return."""
        fd, direct = self.fds[path]
        end = min(offset + length, os.lseek(fd, 0, os.SEEK_END))
        z = bytes(chunk)
        while offset < end:
            n = min(chunk, end - offset)
            if not (direct and _write_direct(fd, offset, z[:n])):
                if direct:
                    # an O_DIRECT descriptor takes no unaligned buffer: a
                    # second, plain one (the O_EXCL claim stays held)
                    plain = os.open(path, os.O_WRONLY)
                    try:
                        _write_buffered(plain, offset, z[:n])
                        os.fsync(plain)
                    finally:
                        os.close(plain)
                else:
                    _write_buffered(fd, offset, z[:n])
            offset += n
        os.fsync(fd)

    def release(self):
        for fd, _ in self.fds.values():
            os.close(fd)
        self.fds = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


# ------------------------------------------------------------ signatures ---
# What a disk holds, found as blkid (util-linux libblkid) finds it: magic
# numbers at fixed places. Python only: the VM guest has no blkid. The names
# are blkid's TYPE values where it has one.
MD_SB_MAGIC = 0xA92B4EFC            # linux md, every version
LUKS2_SECONDARY = (0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000,
                   0x400000)
SWAP_MAGICS = (b"SWAPSPACE2", b"SWAP-SPACE", b"S1SUSPEND", b"S2SUSPEND", b"ULSUSPEND",
               b"LINHIB0001")
# (what, offset of the magic, magic)
MAGICS = (
    ("xfs filesystem", 0, b"XFSB"),
    ("btrfs filesystem", 0x10040, b"_BHRfS_M"),
    ("crypto_LUKS header", 0, b"LUKS\xba\xbe"),
    ("squashfs filesystem", 0, b"hsqs"),
    ("iso9660 filesystem", 0x8001, b"CD001"),
    ("f2fs filesystem", 0x400, b"\x10\x20\xf5\xf2"),
    ("bcache superblock", 0x1018, bytes.fromhex("c68573f64e1a45ca8265f57f48ba6d81")),
    ("ntfs filesystem", 3, b"NTFS    "),
    ("exfat filesystem", 3, b"EXFAT   "),
    ("vfat filesystem", 0x36, b"FAT12   "),
    ("vfat filesystem", 0x36, b"FAT16   "),
    ("vfat filesystem", 0x36, b"FAT     "),
    ("vfat filesystem", 0x52, b"FAT32   "),
    ("gpt partition table", 0x200, b"EFI PART"),
    ("gpt partition table (4 KiB sectors)", 0x1000, b"EFI PART"),
)
PROBE_CHUNK = 64 << 10


class _Disk:
    """A disk's bytes for probing: read in 64 KiB aligned pieces, each once."""

    def __init__(self, path):
        self.path = path
        self.size = size_bytes(path)
        self.pieces = {}

    def at(self, offset, length):
        """Bytes [offset, offset + length) (offset < 0: from the end); b""
        if any of it is outside the disk."""
        if offset < 0:
            offset += self.size
        if offset < 0 or offset + length > self.size:
            return b""
        out = b""
        while len(out) < length:
            i, o = divmod(offset + len(out), PROBE_CHUNK)
            if i not in self.pieces:
                self.pieces[i] = read_at(self.path, i * PROBE_CHUNK, PROBE_CHUNK)
            piece = self.pieces[i][o:o + length - len(out)]
            if not piece:
                return b""
            out += piece
        return out

    def u32(self, offset, order="<"):
        b = self.at(offset, 4)
        return struct.unpack(order + "I", b)[0] if b else None


def _at(off, what):
    return off, f"{what} (magic at byte {off})"


def _probe_magics(d):
    found = [_at(off, what) for what, off, magic in MAGICS if d.at(off, len(magic)) == magic]
    if not any(what.startswith("gpt") for _, what in found):
        # the backup header in the last sector (512 or 4096 bytes), found
        # when the primary one is gone
        for sector in (512, 4096):
            if d.at(-sector, 8) == b"EFI PART":
                found.append(_at(d.size - sector, "gpt partition table (backup header)"))
                break
    return found


def _probe_ext(d):
    if d.at(0x438, 2) != b"\x53\xef":
        return []
    compat, incompat, ro_compat = struct.unpack("<III", d.at(0x45C, 12))
    if incompat & 0x8:
        what = "jbd (an ext3/ext4 external journal)"
    elif ro_compat & ~0x7 or incompat & ~0x16:
        what = "ext4 filesystem"                # features ext3 lacks
    elif compat & 0x4:
        what = "ext3 filesystem"                # a journal
    else:
        what = "ext2 filesystem"
    return [_at(0x438, what)]


def _probe_lvm(d):
    for sector in range(4):
        b = d.at(sector * 512, 32)
        if b[:8] == b"LABELONE" and b[24:32] == b"LVM2 001":
            return [_at(sector * 512, "LVM2_member (an LVM2 physical volume)")]
    return []


def _probe_md(d):
    """Linux md superblocks: 0.90 in the last 64 KiB-aligned 64 KiB (either
    byte order), 1.0 8 KiB before the 4 KiB-aligned end, 1.1 at 0, 1.2 at 4 KiB."""
    found = []
    if d.size > 0x10000:
        off = (d.size & ~0xFFFF) - 0x10000
        for order in "<>":
            if d.u32(off, order) == MD_SB_MAGIC and d.u32(off + 4, order) == 0:
                found.append(_at(off, "linux_raid_member (md superblock 0.90)"))
                break
    places = [(0, "1.1"), (0x1000, "1.2")]
    if d.size > 0x10000:
        places.append(((d.size & ~0xFFF) - 0x2000, "1.0"))
    for off, version in places:
        if d.u32(off) == MD_SB_MAGIC and d.u32(off + 4) == 1:
            found.append(_at(off, f"linux_raid_member (md superblock {version})"))
    return found


def _probe_swap(d):
    for page in (0x1000, 0x2000, 0x4000, 0x8000, 0x10000):
        for magic in SWAP_MAGICS:
            if d.at(page - 10, len(magic)) == magic:
                return [_at(page - 10, "swap area" if magic.startswith(b"SWAP")
                            else "swsuspend (a hibernation image)")]
    return []


def _probe_luks2_secondary(d):
    if d.at(0, 6) == b"LUKS\xba\xbe":
        return []                               # the primary header said it
    for off in LUKS2_SECONDARY:
        if d.at(off, 6) == b"SKUL\xba\xbe":
            return [_at(off, "crypto_LUKS (a LUKS2 secondary header)")]
    return []


def _probe_mbr(d, found):
    """A DOS partition table: 0x55AA at 510 and a partition entry in use.
    Not reported for a filesystem's boot sector (vfat, ntfs, exfat) nor for
    a GPT's protective MBR (type 0xEE)."""
    if d.at(510, 2) != b"\x55\xaa":
        return []
    if any(what.split()[0] in ("vfat", "ntfs", "exfat") for _, what in found):
        return []
    types = []
    for i in range(4):
        e = d.at(446 + 16 * i, 16)
        if any(e) and e[0] in (0, 0x80) and e[4]:
            types.append(e[4])
    gpt = any(what.startswith("gpt") for _, what in found)
    if not types or (gpt and set(types) == {0xEE}):
        return []
    return [_at(510, "dos partition table (an MBR)")]


def describe_msb(msb):
    return (f"dm-raidlab member superblock of array {ondisk.uuid_str(msb.uuid)} "
            f"({'spare' if msb.is_spare else 'role %d' % msb.role})")


def _probe_raidlab(d, msb_sig):
    """dm-raidlab's own blocks: a member superblock at 0, a metadata
    superblock in block 0 or 1. Returns (findings, member superblock or None)."""
    blocks = [d.at(i * ondisk.BLOCK, ondisk.BLOCK) or bytes(ondisk.BLOCK)
              for i in ondisk.SB_SLOTS]
    magics = [struct.unpack_from("<Q", b, 8)[0] for b in blocks]
    if magics[0] == ondisk.MSB_MAGIC:
        try:
            msb = ondisk.decode_msb(blocks[0])
        except ondisk.FormatError as e:
            return [(0, f"damaged dm-raidlab member superblock ({e})")], None
        what = msb_sig(msb)
        return ([(0, what)] if what else []), msb
    slots = [i for i in ondisk.SB_SLOTS if magics[i] == ondisk.MD_MAGIC]
    if not slots:
        return [], None
    _, st, errors = ondisk.newest_sb(blocks)
    if st is None:
        return [(slots[0] * ondisk.BLOCK, "damaged dm-raidlab metadata ("
                 + "; ".join(str(errors[i]) for i in slots) + ")")], None
    return [(0, f"dm-raidlab metadata of array {ondisk.uuid_str(st.uuid)} ({st.scheme}, "
             f"{st.nr_members} members)")], None


def signatures(path, msb_sig=describe_msb):
    """What @path holds that overwriting it would destroy: filesystems (ext2,
    ext3, ext4, xfs, btrfs, f2fs, vfat, ntfs, exfat, iso9660, squashfs),
    LVM2 physical volumes, linux md superblocks (0.90, 1.0, 1.1, 1.2), swap,
    LUKS headers, bcache, gpt and dos partition tables, and dm-raidlab
    member and metadata superblocks. One description a finding, in disk
    order; [] for a disk with none.

    @msb_sig(MsbState) describes a valid dm-raidlab member superblock, or
    returns None when it is no signature to the caller (a disk of the array
    it is added to). A disk holding one belongs to that array from the
    superblock's data offset on: what lies there is the array's contents (a
    mirror member ends with the array's last sectors), not reported."""
    d = _Disk(path)
    found, msb = _probe_raidlab(d, msb_sig)
    for probe in (_probe_magics, _probe_ext, _probe_lvm, _probe_md, _probe_swap,
                  _probe_luks2_secondary):
        found += probe(d)
    found += _probe_mbr(d, found)
    if msb is not None:
        found = [(off, what) for off, what in found if off < msb.data_offset * 512]
    return [what for _, what in sorted(found)]
