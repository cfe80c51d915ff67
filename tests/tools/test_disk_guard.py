# SPDX-License-Identifier: GPL-2.0
"""create and add-spare do not wipe a disk in use or holding data:
blockdev.signatures() on image files carrying each signature by hand (as
blkid finds them), the refusals and --force, --dry-run writing nothing, and
the O_EXCL claim (EBUSY faked through os.open: on a regular file O_EXCL
without O_CREAT does nothing)."""
import errno
import json
import os
import struct
import subprocess
import sys

import pytest

from raidlab_lib import admin, blockdev, cli, dm, ondisk as od
from test_raidlab_admin import ROOT, UUID, md_sb, msb

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


# ------------------------------------------------------------- create ---
def members(tmp_path, n=4, sig_at=None, writes=()):
    """n 8 MiB members (a non-signature pattern in their first MiB, to see
    it zeroed or not), the one at @sig_at also carrying @writes; a 4 MiB
    metadata device."""
    out = []
    for i in range(n):
        w = [(8192, b"\x5a" * 4096)] + (list(writes) if i == sig_at else [])
        out.append(image(tmp_path, f"m{i}", 8 * MIB, w))
    return out, image(tmp_path, "md", 4 * MIB, [(8192, b"\x5a" * 4096)])


def snapshot(paths):
    out = {}
    for p in paths:
        with open(p, "rb") as f:
            out[p] = f.read()
    return out


@pytest.mark.parametrize("writes,want", [s[2:] for s in SIGNATURES if s[1] == 8 * MIB],
                         ids=[s[0] for s in SIGNATURES if s[1] == 8 * MIB])
def test_create_refuses_each_signature(tmp_path, writes, want):
    m, md = members(tmp_path, sig_at=2, writes=writes)
    with pytest.raises(admin.ToolError) as e:
        admin.plan_create("raid5", m, md)
    msg = str(e.value)
    assert msg.startswith(f"{m[2]}: not blank: {want}") and "use --force" in msg, msg
    p = admin.plan_create("raid5", m, md, force=True)
    assert p.notes and p.notes[0].startswith(f"{m[2]}: {want}") and \
        p.notes[0].endswith("overwritten (--force)")
    assert p.signatures[m[2]] and not p.signatures[m[0]]


def test_create_refuses_metadata_and_spare_signatures(tmp_path):
    m, _ = members(tmp_path)
    md = image(tmp_path, "md-xfs", 4 * MIB, [(0, b"XFSB")])
    sp = image(tmp_path, "sp-swap", 8 * MIB, [(4086, b"SWAPSPACE2")])
    with pytest.raises(admin.ToolError) as e:
        admin.plan_create("raid5", m, md, [sp])
    # every disk named at once
    lines = str(e.value).splitlines()
    assert lines[0].startswith(f"{sp}: not blank: swap area")
    assert lines[1].strip().startswith(f"{md}: not blank: xfs filesystem")
    # --no-metadata: the members are still written (by the array), so checked
    (tmp_path / "nm").mkdir()
    m2, _ = members(tmp_path / "nm", sig_at=0, writes=[(1080, b"\x53\xef")])
    with pytest.raises(admin.ToolError, match="ext2 filesystem"):
        admin.plan_create("raid5", m2, None)


def test_create_refuses_busy_disks_before_signatures(tmp_path):
    m, md = members(tmp_path, sig_at=0, writes=[(0, b"XFSB")])
    busy = {m[1]: blockdev.IN_USE, md: blockdev.IN_USE}
    with pytest.raises(admin.ToolError) as e:
        admin.plan_create("raid5", m, md, force=True, busy=busy.get)
    assert str(e.value).splitlines() == [f"{m[1]}: {blockdev.IN_USE}: not touched",
                                         f"  {md}: {blockdev.IN_USE}: not touched"]


def run_cli(args):
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "raidlab")] + args,
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def test_create_dry_run_writes_nothing(tmp_path):
    m, md = members(tmp_path, sig_at=3, writes=[(4096, MD_MAGIC_LE)])
    before = snapshot(m + [md])
    args = ["create", "x", "--scheme", "raid5", "--metadata", md] + m
    # refused without --force, dry run or not: exit 1, the disk and signature named
    rc, out, err = run_cli(args + ["--dry-run"])
    assert rc == 1 and out == ""
    assert f"raidlab create: {m[3]}: not blank: linux_raid_member (md superblock 1.2)" in err
    # --force --dry-run: what would be zeroed and overwritten, the line
    rc, out, err = run_cli(args + ["--dry-run", "--force"])
    assert rc == 0, err
    assert out.splitlines() == [out.strip()] and out.split()[2] == "raidlab"
    for d in [md] + m:
        assert f"raidlab: would zero {d}: 1048576 bytes at 0" in err
    assert f"raidlab: {m[3]}: linux_raid_member (md superblock 1.2) (magic at byte 4096): " \
        "would be overwritten (--force)" in err
    rc, out, err = run_cli(args + ["--dry-run", "--force", "--json"])
    assert rc == 0, err
    assert "would zero" not in err           # in the JSON
    d = json.loads(out)
    assert d["dry_run"] and d["zero"][0] == {"device": md, "offset": 0, "length": MIB}
    assert {z["device"] for z in d["zero"]} == set(m + [md])
    assert d["signatures"][m[3]] == \
        ["linux_raid_member (md superblock 1.2) (magic at byte 4096)"]
    assert d["signatures"][m[0]] == [] and d["zeroed"][0] == md
    assert snapshot(m + [md]) == before


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, *args):
        self.calls.append(args)
        return ""


def test_create_writes_after_claiming_all(tmp_path, fake_open, monkeypatch):
    """The claim for writing fails on the last disk (taken by someone after
    the check): nothing written, nothing created."""
    create = Recorder()
    monkeypatch.setattr(dm, "create", create)
    m, md = members(tmp_path)
    before = snapshot(m + [md])
    fake_open["busy_rw"] = {md}
    args = ["create", "x", "--scheme", "raid5", "--metadata", md] + m
    assert cli.main(args) == 1
    assert snapshot(m + [md]) == before and not create.calls
    # the last member instead (the metadata device is zeroed first)
    fake_open["busy_rw"] = {m[3]}
    assert cli.main(args) == 1
    assert snapshot(m + [md]) == before and not create.calls
    # free: every disk written through an O_EXCL descriptor, then created
    fake_open["busy_rw"] = set()
    fake_open["calls"].clear()
    assert cli.main(args) == 0
    assert len(create.calls) == 1 and create.calls[0][0] == "x"
    writes = [(p, f) for p, f in fake_open["calls"] if p in m + [md]
              and f & (os.O_WRONLY | os.O_RDWR)]
    assert {p for p, _ in writes} == set(m + [md])
    assert all(f & os.O_EXCL for _, f in writes), writes
    for p, data in snapshot(m + [md]).items():
        assert data[:MIB] == bytes(MIB) and data[MIB:] == before[p][MIB:]


def test_create_busy_cli_message(tmp_path, fake_open, capsys, monkeypatch):
    monkeypatch.setattr(dm, "create", Recorder())
    m, md = members(tmp_path)
    fake_open["busy"] = {m[2]}
    assert cli.main(["create", "x", "--scheme", "raid5", "--metadata", md, "--force"] + m) == 1
    err = capsys.readouterr().err
    assert err == f"raidlab create: {m[2]}: {blockdev.IN_USE}: not touched\n"


# ---------------------------------------------------------- add-spare ---
@pytest.fixture
def array(tmp_path, monkeypatch):
    """A live raid5 over four images (a metadata device of array UUID): the
    table from a fake dm.table(), dmsetup, create and reload recorded."""
    m = [image(tmp_path, f"m{i}", 8 * MIB, [(0, msb(i))]) for i in range(4)]
    md = image(tmp_path, "md", 4 * MIB, [(0, md_sb())])
    t = dm.Table(scheme="raid5", devs=m, length=dm.max_length("raid5", 4, 128, 8 * 2048 - 2048))
    t.add("chunk_size", 128)
    t.add("metadata", md)
    st = {"line": t.line(), "dmsetup": Recorder(), "create": Recorder(), "reload": Recorder(),
          "m": m, "md": md}
    monkeypatch.setattr(dm, "table", lambda name: dm.parse_table(st["line"]))
    monkeypatch.setattr(dm, "dmsetup", st["dmsetup"])
    monkeypatch.setattr(dm, "create", st["create"])
    monkeypatch.setattr(dm, "reload", st["reload"])
    return st


def add_spare(dev, *opts):
    return cli.main(["add-spare", "r5", dev, *opts])


def test_add_spare_blank(tmp_path, array, fake_open, capsys):
    sp = image(tmp_path, "sp", 8 * MIB, [(8192, b"\x5a" * 4096)])
    assert add_spare(sp) == 0
    # 1.21: a live reload, then its resume; nothing removed or created
    assert array["dmsetup"].calls == [("resume", "r5")] and not array["create"].calls
    assert array["reload"].calls[0][1].get_all("spare") == [sp]
    assert snapshot([sp])[sp] == bytes(8 * MIB)
    assert all(f & os.O_EXCL for p, f in fake_open["calls"]
               if p == sp and f & (os.O_WRONLY | os.O_RDWR))
    assert f"metadata {array['md']} spare {sp} 4 " in capsys.readouterr().out


@pytest.mark.parametrize("writes,want", [
    ([(1080, b"\x53\xef")], "ext2 filesystem"),
    ([(0, b"LABELONE"), (24, b"LVM2 001")], "LVM2_member"),
    ([(0, msb(1, uuid=FOREIGN, dev=b"\x77" * 16))],
     "dm-raidlab member superblock of array 99999999"),
    # this array's role 2, whose disk the table has: the same disk by another path?
    ([(0, msb(2))], "(role 2), the disk the array has in role 2"),
    ([(0, md_sb())], "dm-raidlab metadata of array"),
])
def test_add_spare_refuses(tmp_path, array, capsys, writes, want):
    sp = image(tmp_path, "sp", 8 * MIB, writes)
    before = snapshot([sp])
    assert add_spare(sp) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"raidlab add-spare: {sp}: not blank: ") and want in err, err
    assert "use --force" in err
    assert snapshot([sp]) == before
    assert not array["dmsetup"].calls and not array["reload"].calls
    assert add_spare(sp, "--force") == 0
    assert "overwritten (--force)" in capsys.readouterr().err
    assert snapshot([sp])[sp][:MIB] == bytes(MIB) and array["reload"].calls


@pytest.mark.parametrize("role,missing", [(od.ROLE_SPARE, None), (2, 2)])
def test_add_spare_own_disk_back(tmp_path, array, role, missing):
    """A spare of this array, or a member the table no longer has, comes
    back without --force."""
    if missing is not None:
        t = dm.parse_table(array["line"])
        t.devs[missing] = dm.MISSING
        array["line"] = t.line()
    sp = image(tmp_path, "sp", 8 * MIB, [(0, msb(role))])
    assert add_spare(sp) == 0
    assert snapshot([sp])[sp][:MIB] == bytes(MIB)


def test_add_spare_dry_run_and_busy(tmp_path, array, fake_open, capsys):
    sp = image(tmp_path, "sp", 8 * MIB, [(4096, MD_MAGIC_LE), (8192, b"\x5a" * 4096)])
    before = snapshot([sp])
    assert add_spare(sp, "--dry-run", "--force", "--json") == 0
    cap = capsys.readouterr()
    d = json.loads(cap.out)
    assert d["dry_run"] and d["zero"] == [{"device": sp, "offset": 0, "length": MIB}]
    assert d["signatures"] == \
        {sp: ["linux_raid_member (md superblock 1.2) (magic at byte 4096)"]}
    assert f"spare {sp} 4 " in d["table"]
    assert add_spare(sp, "--dry-run", "--force") == 0
    cap = capsys.readouterr()
    assert cap.out.strip() == d["table"]
    assert f"raidlab: would zero {sp}: 1048576 bytes at 0" in cap.err
    assert add_spare(sp, "--dry-run") == 1
    assert snapshot([sp]) == before
    assert not array["dmsetup"].calls and not array["create"].calls
    fake_open["busy"] = {sp}
    assert add_spare(sp, "--force") == 1
    assert f"{sp}: in use (mounted, held by dm or md" in capsys.readouterr().err
    assert snapshot([sp]) == before and not array["create"].calls
