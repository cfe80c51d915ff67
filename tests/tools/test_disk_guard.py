# SPDX-License-Identifier: GPL-2.0
"""Not wiping a disk in use or holding data: blockdev.signatures() on
image files carrying each signature by hand (as blkid finds them), and the
O_EXCL claim (EBUSY faked through os.open: on a regular file O_EXCL without
O_CREAT does nothing)."""
import errno
import os
import struct

import pytest

from raidlab_lib import blockdev, ondisk as od
from test_raidlab_admin import UUID, md_sb, msb

MIB = 1 << 20
MD_MAGIC_LE = struct.pack("<II", 0xA92B4EFC, 1)         # md 1.x: magic, major_version 1
FOREIGN = b"\x99" * 16                                  # another array's uuid


def image(tmp_path, name, size=8 * MIB, writes=()):
    """A sparse image of @size bytes with (offset, bytes) written; a
    negative offset counts from the end."""
    p = tmp_path / name
    with open(p, "wb") as f:
        f.truncate(size)
        for off, data in writes:
            f.seek(off if off >= 0 else size + off)
            f.write(data)
    return str(p)


def ext_sb(compat=0, incompat=0, ro_compat=0):
    """ext2/3/4: the magic at 1080 (superblock at 1024, s_magic at 0x38) and
    the three feature words at 1024 + 0x5C."""
    return [(1080, b"\x53\xef"), (1024 + 0x5C, struct.pack("<III", compat, incompat, ro_compat))]


def mbr_entry(n, ptype, boot=0):
    e = bytearray(16)
    e[0], e[4] = boot, ptype
    struct.pack_into("<II", e, 8, 2048, 16384)
    return (446 + 16 * n, bytes(e))


ODD = 8 * MIB + 3 * 4096 + 1536             # 512-aligned only: md 0.90 and 1.0 placement

# (id, image size, writes, the description expected)
SIGNATURES = [
    ("ext2", 8 * MIB, ext_sb(), "ext2 filesystem (magic at byte 1080)"),
    ("ext3", 8 * MIB, ext_sb(compat=0x4, incompat=0x2), "ext3 filesystem (magic at byte 1080)"),
    ("ext4", 8 * MIB, ext_sb(compat=0x4, incompat=0x2c2, ro_compat=0x7b),
     "ext4 filesystem (magic at byte 1080)"),
    ("ext4-nojournal", 8 * MIB, ext_sb(incompat=0x40), "ext4 filesystem"),
    ("ext4-huge-file", 8 * MIB, ext_sb(compat=0x4, incompat=0x2, ro_compat=0x8),
     "ext4 filesystem"),
    ("ext4-flex-bg", 8 * MIB, ext_sb(compat=0x4, incompat=0x202), "ext4 filesystem"),
    ("jbd", 8 * MIB, ext_sb(incompat=0x8), "jbd (an ext3/ext4 external journal)"),
    ("xfs", 8 * MIB, [(0, b"XFSB")], "xfs filesystem (magic at byte 0)"),
    ("btrfs", 8 * MIB, [(65600, b"_BHRfS_M")], "btrfs filesystem (magic at byte 65600)"),
    ("lvm2-sector0", 8 * MIB, [(0, b"LABELONE"), (24, b"LVM2 001")],
     "LVM2_member (an LVM2 physical volume) (magic at byte 0)"),
    ("lvm2-sector1", 8 * MIB, [(512, b"LABELONE"), (536, b"LVM2 001")],
     "LVM2_member (an LVM2 physical volume) (magic at byte 512)"),
    ("lvm2-sector3", 8 * MIB, [(1536, b"LABELONE"), (1560, b"LVM2 001")],
     "LVM2_member (an LVM2 physical volume) (magic at byte 1536)"),
    ("md-1.1", 8 * MIB, [(0, MD_MAGIC_LE)],
     "linux_raid_member (md superblock 1.1) (magic at byte 0)"),
    ("md-1.2", 8 * MIB, [(4096, MD_MAGIC_LE)],
     "linux_raid_member (md superblock 1.2) (magic at byte 4096)"),
    ("md-1.0", ODD, [((ODD & ~0xFFF) - 8192, MD_MAGIC_LE)],
     f"linux_raid_member (md superblock 1.0) (magic at byte {(ODD & ~0xFFF) - 8192})"),
    ("md-0.90-le", ODD, [((ODD & ~0xFFFF) - 65536, struct.pack("<II", 0xA92B4EFC, 0))],
     f"linux_raid_member (md superblock 0.90) (magic at byte {8 * MIB - 65536})"),
    ("md-0.90-be", ODD, [((ODD & ~0xFFFF) - 65536, struct.pack(">II", 0xA92B4EFC, 0))],
     "linux_raid_member (md superblock 0.90)"),
    ("swap", 8 * MIB, [(4086, b"SWAPSPACE2")], "swap area (magic at byte 4086)"),
    ("swap-64k-pages", 8 * MIB, [(65526, b"SWAPSPACE2")], "swap area (magic at byte 65526)"),
    ("swap-v0", 8 * MIB, [(4086, b"SWAP-SPACE")], "swap area"),
    ("swsuspend", 8 * MIB, [(4086, b"S1SUSPEND")], "swsuspend (a hibernation image)"),
    ("gpt", 8 * MIB, [(510, b"\x55\xaa"), mbr_entry(0, 0xEE), (512, b"EFI PART")],
     "gpt partition table (magic at byte 512)"),
    ("gpt-4k", 8 * MIB, [(4096, b"EFI PART")], "gpt partition table (4 KiB sectors)"),
    ("gpt-backup", 8 * MIB, [(-512, b"EFI PART")], "gpt partition table (backup header)"),
    ("mbr", 8 * MIB, [(510, b"\x55\xaa"), mbr_entry(1, 0x83, boot=0x80)],
     "dos partition table (an MBR) (magic at byte 510)"),
    ("luks", 8 * MIB, [(0, b"LUKS\xba\xbe")], "crypto_LUKS header (magic at byte 0)"),
    ("luks2-secondary", 8 * MIB, [(0x8000, b"SKUL\xba\xbe")],
     "crypto_LUKS (a LUKS2 secondary header) (magic at byte 32768)"),
    ("raidlab-member", 8 * MIB, [(0, msb(2, uuid=FOREIGN))],
     f"dm-raidlab member superblock of array {od.uuid_str(FOREIGN)} (role 2)"),
    ("raidlab-spare", 8 * MIB, [(0, msb(od.ROLE_SPARE))], "dm-raidlab member superblock of "
     f"array {od.uuid_str(UUID)} (spare)"),
    ("raidlab-metadata", 8 * MIB, [(4096, md_sb())],
     f"dm-raidlab metadata of array {od.uuid_str(UUID)} (raid5, 4 members)"),
    ("raidlab-member-damaged", 8 * MIB, [(0, msb(1)[:100] + b"\xff" + msb(1)[101:])],
     "damaged dm-raidlab member superblock (Member superblock: bad checksum)"),
    ("raidlab-metadata-damaged", 8 * MIB, [(0, md_sb()[:200] + b"\xff" + md_sb()[201:])],
     "damaged dm-raidlab metadata (Metadata superblock: bad checksum)"),
    ("f2fs", 8 * MIB, [(1024, b"\x10\x20\xf5\xf2")], "f2fs filesystem (magic at byte 1024)"),
    ("vfat", 8 * MIB, [(82, b"FAT32   "), (510, b"\x55\xaa"), (446, b"\x0e\x1f\xbe\x77")],
     "vfat filesystem (magic at byte 82)"),
    ("vfat-12", 8 * MIB, [(54, b"FAT12   ")], "vfat filesystem (magic at byte 54)"),
    ("vfat-16", 8 * MIB, [(54, b"FAT16   ")], "vfat filesystem (magic at byte 54)"),
    ("vfat-any", 8 * MIB, [(54, b"FAT     ")], "vfat filesystem (magic at byte 54)"),
    # a boot sector's code where a partition table would be: no dos table
    ("ntfs", 8 * MIB, [(3, b"NTFS    "), (510, b"\x55\xaa"), mbr_entry(0, 0x07)],
     "ntfs filesystem (magic at byte 3)"),
    ("exfat", 8 * MIB, [(3, b"EXFAT   ")], "exfat filesystem (magic at byte 3)"),
    ("iso9660", 8 * MIB, [(32769, b"CD001")], "iso9660 filesystem (magic at byte 32769)"),
    ("squashfs", 8 * MIB, [(0, b"hsqs")], "squashfs filesystem (magic at byte 0)"),
    ("bcache", 8 * MIB, [(4096 + 24, bytes.fromhex("c68573f64e1a45ca8265f57f48ba6d81"))],
     "bcache superblock (magic at byte 4120)"),
]


@pytest.mark.parametrize("size,writes,want", [s[1:] for s in SIGNATURES],
                         ids=[s[0] for s in SIGNATURES])
def test_signatures_found(tmp_path, size, writes, want):
    found = blockdev.signatures(image(tmp_path, "d", size, writes))
    assert len(found) == 1 and found[0].startswith(want), found


@pytest.mark.parametrize("size,writes", [
    (8 * MIB, []),                                       # blank
    (4096, []),                                          # smaller than most offsets
    (100, [(0, b"XFS")]),                                # smaller than a block
    (8 * MIB, [(510, b"\x55\xaa")]),                     # a boot sector, no partition
    (8 * MIB, [(510, b"\x55\xaa"), mbr_entry(0, 0x83, boot=0x42)]),  # not a boot flag
    (8 * MIB, [(512, b"LABELONE")]),                     # LVM2 label without its type
    (8 * MIB, [(2048, b"LABELONE"), (2072, b"LVM2 001")]),  # sector 4: not looked at
    (8 * MIB, [(4096, struct.pack("<II", 0xA92B4EFC, 2))]),  # md: major version 2
    (8 * MIB, [(1080, b"\xef\x53")]),                    # ext magic byte-swapped
    (8 * MIB, [(4085, b"SWAPSPACE2")]),                  # a byte off
    (8 * MIB, [(MIB, b"XFSB" * 1024)]),                  # data beyond the probed places
])
def test_signatures_none(tmp_path, size, writes):
    assert blockdev.signatures(image(tmp_path, "d", size, writes)) == []


def test_signatures_several_in_disk_order(tmp_path):
    d = image(tmp_path, "d", 8 * MIB, [(65600, b"_BHRfS_M"), (4096, MD_MAGIC_LE),
                                       *ext_sb(compat=4)])
    assert [s.split()[0] for s in blockdev.signatures(d)] == \
        ["ext3", "linux_raid_member", "btrfs"]


def test_signatures_of_a_raidlab_member(tmp_path):
    """What lies from a member superblock's data offset on is its array's
    contents (here a mirror's last sectors: an md 1.0 superblock and a GPT
    backup header inside the array): not reported; before it, reported."""
    size = 8 * MIB
    writes = [(0, msb(1)), (-8192, MD_MAGIC_LE), (-512, b"EFI PART")]
    assert blockdev.signatures(image(tmp_path, "a", size, writes)) == \
        [f"dm-raidlab member superblock of array {od.uuid_str(UUID)} (role 1)"]
    # an array of this disk's: nothing at all
    assert blockdev.signatures(image(tmp_path, "b", size, writes), lambda s: None) == []
    # inside the reserved first MiB, a signature is still one
    d = image(tmp_path, "c", size, writes + [(65600, b"_BHRfS_M")])
    assert blockdev.signatures(d, lambda s: None) == \
        ["btrfs filesystem (magic at byte 65600)"]


# ------------------------------------------------------------- claims ---
@pytest.fixture
def fake_open(monkeypatch):
    """os.open refusing O_EXCL opens of chosen paths with EBUSY (as the
    kernel refuses a mounted or held block device); every call recorded."""
    real = os.open
    state = {"busy": set(), "busy_rw": set(), "calls": []}

    def fake(path, flags, *args, **kw):
        state["calls"].append((str(path), flags))
        if flags & os.O_EXCL and (str(path) in state["busy"] or
                                  (flags & os.O_RDWR and str(path) in state["busy_rw"])):
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(path))
        return real(path, flags, *args, **kw)
    monkeypatch.setattr(os, "open", fake)
    return state


def test_claim_opens_with_o_excl(tmp_path, fake_open):
    disks = [image(tmp_path, f"d{i}", 2 * MIB, [(0, b"\xab" * 8192)]) for i in range(2)]
    with blockdev.Claim(disks) as c:
        c.zero(disks[0], 0, 4096)
    # O_EXCL without O_CREAT is ignored on a regular file: the images open
    opens = [f for p, f in fake_open["calls"] if p in disks]
    assert opens and all(f & os.O_EXCL and f & os.O_RDWR for f in opens)
    with open(disks[0], "rb") as f:
        assert f.read(8192) == bytes(4096) + b"\xab" * 4096
    assert blockdev.busy(disks[0]) is None


def test_claim_busy_all_or_none(tmp_path, fake_open):
    disks = [image(tmp_path, f"d{i}", 2 * MIB) for i in range(3)]
    fake_open["busy"] = {disks[1], disks[2]}
    with pytest.raises(blockdev.ClaimError) as e:
        blockdev.Claim(disks)
    assert [p for p, _ in e.value.failed] == disks[1:]
    assert str(e.value).startswith(f"{disks[1]}: in use (mounted, held by dm or md")
    assert blockdev.busy(disks[2]) == blockdev.IN_USE
    assert blockdev.busy(disks[0]) is None


def _is_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def test_claim_releases_on_failure(tmp_path, fake_open):
    disks = [image(tmp_path, f"d{i}", 2 * MIB) for i in range(2)]
    fake_open["busy"] = {disks[1]}
    before = {fd for fd in range(256) if _is_open(fd)}
    with pytest.raises(blockdev.ClaimError):
        blockdev.Claim(disks)
    assert {fd for fd in range(256) if _is_open(fd)} == before
