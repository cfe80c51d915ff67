# SPDX-License-Identifier: GPL-2.0
"""raidlab_lib.ondisk against dm-raidlab/svc/metadata.h: crc32c as the kernel
computes it, superblocks built by hand at metadata.h's offsets, corrupt
blocks rejected, the newest valid slot chosen."""
import struct

import pytest

from raidlab_lib import ondisk as od

UUID = bytes(range(16))
DEV = bytes(range(100, 116))


def crc32c_bitwise(seed, data):
    """A second, bit-at-a-time implementation: kernel semantics (seed in,
    raw register out)."""
    crc = seed
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc


def test_crc32c_vectors():
    assert od.crc32c(b"123456789") == 0xE3069283
    assert od.crc32c(b"") == 0
    # RFC 3720 B.4: 32 bytes of zeroes, of 0xff
    assert od.crc32c(bytes(32)) == 0x8A9136AA
    assert od.crc32c(b"\xff" * 32) == 0x62A8AB43
    # the kernel's crc32c(~0, ...) is the register without the final inversion
    assert od.crc32c_raw(0xFFFFFFFF, b"123456789") == 0xE3069283 ^ 0xFFFFFFFF
    data = bytes(range(256)) * 3
    assert od.crc32c_raw(0xFFFFFFFF, data) == crc32c_bitwise(0xFFFFFFFF, data)
    assert od.crc32c_raw(0x12345678, data) == crc32c_bitwise(0x12345678, data)


def test_struct_sizes():
    # metadata.h: rl_md_sb = 160-byte head + 8 areas x 24 + 32 members x 32
    # + the homehost's 64 (1.21)
    assert od.SB_SIZE == 160 + 8 * 24 + 32 * 32 + 64
    # rl_msb: 4+4+8+4+4+16+16+8+4+4+8+8+16
    assert od.MSB_SIZE == 104
    assert od.BITS_PER_BLOCK == 4072 * 8


def hand_msb(role=1, events=7, csum=None):
    b = bytearray(4096)
    struct.pack_into("<I", b, 4, 0)                   # flags
    struct.pack_into("<Q", b, 8, 0x3130424D42414C52)  # magic "RLABMB01"
    struct.pack_into("<I", b, 16, 1)                  # version
    struct.pack_into("<I", b, 20, role)
    b[24:40] = UUID
    b[40:56] = DEV
    struct.pack_into("<Q", b, 56, events)
    struct.pack_into("<I", b, 64, 4)                  # nr_members
    struct.pack_into("<I", b, 68, 128)                # chunk_sectors
    struct.pack_into("<Q", b, 72, 2048)               # data_offset
    struct.pack_into("<Q", b, 80, 1 << 20)            # member_sectors
    b[88:93] = b"raid5"
    c = crc32c_bitwise(0xFFFFFFFF, bytes(b[4:])) ^ 0x4D53B0A1 if csum is None else csum
    struct.pack_into("<I", b, 0, c)
    return bytes(b)


def test_msb_hand_built_round_trip():
    blk = hand_msb()
    st = od.decode_msb(blk)
    assert (st.role, st.events, st.nr_members, st.chunk_sectors, st.scheme) == \
        (1, 7, 4, 128, "raid5")
    assert st.uuid == UUID and st.dev_uuid == DEV and st.member_sectors == 1 << 20
    assert od.encode_msb(st) == blk
    spare = od.decode_msb(hand_msb(role=od.ROLE_SPARE))
    assert spare.is_spare and spare.to_json()["role"] == "spare"


def make_sb(**kw):
    st = od.MdState(scheme="raid5", nr_members=4, chunk_sectors=128, seq=5, events=3,
                    uuid=UUID, member_sectors=1 << 20, array_sectors=3 << 20,
                    resync_cursor=1000, region_shift=11, nr_regions=(1 << 20) >> 11,
                    bitmap_start=2, bitmap_blocks=1,
                    areas=[od.Area(7, 3, 16)],
                    members=[od.MemberDisk(od.MS_IN_SYNC, 0, bytes([i]) * 16) for i in range(4)])
    for k, v in kw.items():
        setattr(st, k, v)
    return st


def test_sb_offsets_by_hand():
    st = make_sb()
    st.members[2] = od.MemberDisk(od.MS_REBUILDING, 4096, b"\x02" * 16)
    blk = od.encode_sb(st)
    u32 = lambda o: struct.unpack_from("<I", blk, o)[0]   # noqa: E731
    u64 = lambda o: struct.unpack_from("<Q", blk, o)[0]   # noqa: E731
    assert blk[8:16] == b"RLABMD01"
    assert u32(16) == 1 and u64(32) == 5 and u64(40) == 3
    assert blk[48:64] == UUID and blk[64:80].rstrip(b"\0") == b"raid5"
    assert u32(80) == 4 and u32(84) == 128 and u64(88) == 2048
    assert u64(96) == 1 << 20 and u64(104) == 3 << 20 and u64(112) == 1000
    assert u32(128) == 11 and u32(132) == 1 and u64(136) == 512
    assert u64(144) == 2 and u64(152) == 1
    # areas at 160, members at 160 + 8 * 24 = 352 (32 bytes each)
    assert (u32(160), u64(168), u64(176)) == (7, 3, 16)
    m2 = 352 + 2 * 32
    assert (u32(m2), u64(m2 + 8), blk[m2 + 16:m2 + 32]) == (3, 4096, b"\x02" * 16)
    assert u32(0) == crc32c_bitwise(0xFFFFFFFF, blk[4:]) ^ 0x52D1A5B0
    back = od.decode_sb(blk)
    assert back.members[2].cursor == 4096 and back.areas[0].blocks == 16
    assert od.encode_sb(back) == blk


def test_blank_and_corrupt_rejected():
    with pytest.raises(od.BlankError):
        od.decode_sb(bytes(4096))
    with pytest.raises(od.BlankError):
        od.decode_msb(bytes(4096))
    good = od.encode_sb(make_sb())
    for off in (0, 9, 20, 100, 300, 4095):           # flip a bit anywhere
        bad = bytearray(good)
        bad[off] ^= 0x10
        with pytest.raises(od.FormatError) as e:
            od.decode_sb(bytes(bad))
        assert not isinstance(e.value, od.BlankError)
    with pytest.raises(od.FormatError, match="short"):
        od.decode_sb(good[:4000])
    with pytest.raises(od.FormatError, match="Metadata superblock: bad magic"):
        od.decode_sb(good[:8] + b"X" + good[9:])
    with pytest.raises(od.FormatError, match="Member superblock: bad checksum"):
        od.decode_msb(hand_msb(csum=1234))
    # a member superblock never validates as a metadata superblock
    with pytest.raises(od.FormatError):
        od.decode_sb(hand_msb())


@pytest.mark.parametrize("change,msg", [
    (dict(version=2), "unsupported version"),
    (dict(incompat=1), "unknown incompatible feature"),
    (dict(ro_compat=4), "unknown read-only feature"),
    (dict(nr_members=0), "invalid number of members"),
    (dict(nr_members=33), "invalid number of members"),
    (dict(chunk_sectors=100), "chunk size is not a power of two"),
    (dict(region_shift=2), "region shift out of range"),
    (dict(nr_regions=3), "region count does not match"),
    (dict(bitmap_blocks=2), "bad bitmap placement"),
    (dict(bitmap_start=1), "bad bitmap placement"),
    (dict(resync_cursor=(1 << 20) + 1), "resync cursor past the end"),
    (dict(areas=[od.Area(7, 2, 16)]), "record area over the bitmap"),
    (dict(areas=[od.Area(7, 1, 1)]), "record area over the superblock slots"),
    (dict(areas=[od.Area(7, 30, 0)]), "empty record area"),
    (dict(areas=[od.Area(7, 40, 16), od.Area(8, 30, 11)]), "record areas overlap"),
    (dict(areas=[od.Area(7, 3, 16), od.Area(7, 19, 1)]), "duplicate record area"),
])
def test_bad_superblocks_rejected(change, msg):
    st = make_sb(**change)
    if "nr_members" in change:
        st.members = st.members[:change["nr_members"]] + \
            [od.MemberDisk()] * max(0, change["nr_members"] - 4)
    blk = od.encode_sb(st) if change.get("nr_members", 4) <= 32 else None
    if blk is None:                                  # encode refuses 33: write it by hand
        b = bytearray(od.encode_sb(make_sb()))
        struct.pack_into("<I", b, 80, 33)
        struct.pack_into("<I", b, 0, od.block_csum(b, od.MD_SB_CSUM_XOR))
        blk = bytes(b)
    with pytest.raises(od.FormatError, match="Metadata superblock: " + msg):
        od.decode_sb(blk)


def test_record_areas_in_any_order():
    # issue 14: as the kernel (rl_md_sb_check_area()): areas need not follow
    # each other in block order, only stay off the slots, the bitmap and
    # each other
    st = make_sb(areas=[od.Area(7, 40, 16), od.Area(8, 20, 4)])
    got = od.decode_sb(od.encode_sb(st))
    assert [(a.id, a.start, a.blocks) for a in got.areas] == [(7, 40, 16), (8, 20, 4)]


def test_kernel_only_checks_what_it_checks():
    # scheme and length are the table comparison's business, not decode's
    st = od.decode_sb(od.encode_sb(make_sb(scheme="raid7", array_sectors=1 << 40)))
    assert od.check_sb_for_tools(st) == ["unknown scheme 'raid7'"]
    st = od.decode_sb(od.encode_sb(make_sb(array_sectors=1 << 40, data_offset=0)))
    assert len(od.check_sb_for_tools(st)) == 2


def test_scheme_name_and_tail():
    b = bytearray(od.encode_sb(make_sb()))
    b[64:80] = b"raid5\0x" + bytes(9)                # not NUL padded
    struct.pack_into("<I", b, 0, od.block_csum(b, od.MD_SB_CSUM_XOR))
    with pytest.raises(od.FormatError, match="bad scheme name"):
        od.decode_sb(bytes(b))
    b = bytearray(od.encode_sb(make_sb()))
    b[3000] = 1                                      # after the structure
    struct.pack_into("<I", b, 0, od.block_csum(b, od.MD_SB_CSUM_XOR))
    with pytest.raises(od.FormatError, match="garbage after the structure"):
        od.decode_sb(bytes(b))
    b = bytearray(hand_msb())
    b[200] = 1
    struct.pack_into("<I", b, 0, od.block_csum(b, od.MSB_CSUM_XOR))
    with pytest.raises(od.FormatError, match="Member superblock: garbage"):
        od.decode_msb(bytes(b))
    with pytest.raises(od.FormatError, match="role out of range"):
        od.decode_msb(hand_msb(role=4))


def test_bad_member_state():
    st = make_sb()
    st.members[1].state = 9
    with pytest.raises(od.FormatError, match="member state out of range"):
        od.decode_sb(od.encode_sb(st))


def test_newest_slot():
    a, b = od.encode_sb(make_sb(seq=8)), od.encode_sb(make_sb(seq=9))
    slot, st, errs = od.newest_sb([a, b])
    assert slot == 1 and st.seq == 9 and errs == [None, None]
    slot, st, _ = od.newest_sb([b, a])
    assert slot == 0 and st.seq == 9
    torn = bytearray(b)
    torn[2000] ^= 1                                  # a torn commit: the old slot loads
    slot, st, errs = od.newest_sb([a, bytes(torn)])
    assert slot == 0 and st.seq == 8 and isinstance(errs[1], od.FormatError)
    slot, st, errs = od.newest_sb([bytes(4096), bytes(4096)])
    assert slot is None and od.all_blank(errs)


def test_bitmap_round_trip():
    blk = od.encode_bitmap(2, 11, [0, 7, 8, 100, od.BITS_PER_BLOCK - 1])
    assert blk[24] == 0x81 and blk[25] == 0x01       # bit r of byte k = region 8k + r
    nr, seq, regions = od.decode_bitmap(blk, 2)
    assert (nr, seq, regions) == (2, 11, [0, 7, 8, 100, od.BITS_PER_BLOCK - 1])
    with pytest.raises(od.FormatError, match="misplaced"):
        od.decode_bitmap(blk, 3)
    with pytest.raises(od.FormatError, match="bit past the last region"):
        od.decode_bitmap(blk, 2, nbits=101)
    bad = bytearray(blk)
    bad[500] ^= 4
    with pytest.raises(od.FormatError, match="bad checksum"):
        od.decode_bitmap(bytes(bad))
    with pytest.raises(ValueError):
        od.encode_bitmap(2, 1, [od.BITS_PER_BLOCK])


def test_region_helpers():
    # rl_md_default_region_shift(member_sectors, chunk): at least the chunk and
    # a page, at most 65536 regions
    assert od.default_region_shift(1 << 20, 128) == 7
    assert od.default_region_shift(1 << 19, 1) == 3 and od.default_region_shift(1 << 20, 1) == 4
    assert od.default_region_shift(1 << 30, 128) == 14
    assert od.nr_regions_of(1000, 3) == 125 and od.nr_regions_of(1001, 3) == 126
    assert od.bitmap_blocks_of(od.BITS_PER_BLOCK + 1) == 2


def test_homehost():
    """rl_md_sb.homehost at 160 + 8 * 24 + 32 * 32 = 1376, with ro_compat bit
    0 (1.21): read back; refused as the kernel refuses it."""
    blk = od.encode_sb(make_sb(homehost="node-a.lab_1"))
    assert struct.unpack_from("<I", blk, 28)[0] == od.RO_COMPAT_HOMEHOST
    assert blk[1376:1376 + 64].rstrip(b"\0") == b"node-a.lab_1"
    back = od.decode_sb(blk)
    assert back.homehost == "node-a.lab_1" and back.to_json()["homehost"] == "node-a.lab_1"
    assert od.encode_sb(back) == blk
    assert od.decode_sb(od.encode_sb(make_sb())).homehost == ""
    with pytest.raises(ValueError):
        od.encode_sb(make_sb(homehost="a b"))

    def patched(at, raw, ro=None):
        b = bytearray(blk)
        b[at:at + len(raw)] = raw
        if ro is not None:
            struct.pack_into("<I", b, 28, ro)
        struct.pack_into("<I", b, 0, od.block_csum(b, od.MD_SB_CSUM_XOR))
        return bytes(b)
    for bad, msg in ((patched(1380, b" "), "bad homehost"),
                     (patched(1376 + 63, b"x"), "bad homehost"),
                     (patched(1376, b"h" * 64), "bad homehost"),
                     (patched(1376, bytes(64)), "bad homehost"),
                     (patched(1376, b"", ro=0), "a homehost without its feature bit"),
                     (patched(1376, b"", ro=2), "unknown read-only feature")):
        with pytest.raises(od.FormatError, match="Metadata superblock: " + msg):
            od.decode_sb(bad)
    assert od.homehost_ok("a") and od.homehost_ok("n" * 63) and od.homehost_ok("Z-9_x.y")
    for bad in ("", "n" * 64, "a:b", "a/b", "é"):
        assert not od.homehost_ok(bad)
