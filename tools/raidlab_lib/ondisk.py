# SPDX-License-Identifier: GPL-2.0
"""The on-disk format of dm-raidlab's durable state, as dm-raidlab/svc/metadata.h
defines it: the metadata superblock (struct rl_md_sb, two slots), the member
superblock (struct rl_msb, sector 0 of every member) and the write-intent
bitmap blocks (struct rl_md_bitmap_disk).

All integers are little endian, the structures packed. Every block carries
at offset 0 a checksum of its bytes after the csum field:
crc32c(~0, bytes, len) ^ <per-structure constant>, where crc32c() is the
kernel's (lib/libcrc32c.c): seeded with the given value, the raw register
returned, no final inversion (so it equals ~crc32c_standard(bytes)).
``CSUM_SPAN`` says which bytes: the rest of the 4 KiB block.

decode_*() raise FormatError with the kernel's message (BlankError for a
block of zeroes, the kernel's -ENODATA); encode_*() build a 4 KiB block.
"""
import struct
import uuid as uuidmod
from dataclasses import dataclass, field

BLOCK = 4096
BLOCK_SECTORS = BLOCK >> 9
MD_MAGIC = 0x3130444D42414C52       # "RLABMD01" (the md branch's value; main had 0x31304d44...)
MSB_MAGIC = 0x3130424D42414C52      # "RLABMB01"
MD_VERSION = 1
MD_SB_CSUM_XOR = 0x52D1A5B0
MSB_CSUM_XOR = 0x4D53B0A1
MD_BITMAP_CSUM_XOR = 0x42D1B17A
MD_DATA_OFFSET = 2048               # member sectors before data: 1 MiB
MD_MAX_MEMBERS = 32
MD_MAX_AREAS = 8
MD_SCHEME_LEN = 16
MD_CLEAN = 1 << 0
RO_COMPAT_HOMEHOST = 1 << 0     # rl_md_sb.homehost is set (1.21)
COMPAT_SUPP = INCOMPAT_SUPP = 0
RO_COMPAT_SUPP = RO_COMPAT_HOMEHOST
HOMEHOST_LEN = 64               # NUL included
MS_IN_SYNC, MS_FAILED, MS_REBUILDING = 1, 2, 3
MEMBER_STATES = {MS_IN_SYNC: "in_sync", MS_FAILED: "failed", MS_REBUILDING: "rebuilding"}
ROLE_SPARE = 0xFFFFFFFE
BITMAP_HDR = 24
BITS_PER_BLOCK = (BLOCK - BITMAP_HDR) * 8
SB_SLOTS = (0, 1)                   # metadata blocks of the two superblock slots
MD_MIN_REGION = 8                   # sectors
MD_MAX_REGION_SHIFT = 40
MD_DEFAULT_REGIONS = 65536
MD_DEFAULT_REGION = 2048            # sectors: the kernel's default regions are at least this
MD_MAX_REGIONS = 1 << 20

# Which bytes the checksum covers: from the end of the csum field to the end
# of the 4 KiB block, as metadata_fmt.c's rl_md_csum(block, RL_MD_BLOCK, xor).
CSUM_SPAN = "block"

# Schemes and their data columns (dm-raidlab/schemes/*.c); parity schemes
# have chunk limits of their own (args.c); the copy-set schemes (raid10,
# chained) size themselves by their layout (dm.copyset_capacity()).
SCHEMES = {"raid0": "stripe", "mirror": "mirror", "raid10": "copyset",
           "chained": "copyset", "raid4": "parity", "raid5": "parity", "raid6": "parity"}
MIN_MEMBERS = {"raid0": 2, "mirror": 2, "raid10": 2, "chained": 3, "raid4": 3, "raid5": 3,
               "raid6": 4}
PARITY_MEMBERS = {"raid4": 1, "raid5": 1, "raid6": 2}   # raid6: P and Q


def data_columns(scheme, nr_members):
    """Data chunks a row of a striped scheme holds (1 for a mirror); the
    copy-set schemes: their members over two copies, rounded down (at
    most what a row holds: copies are at least 2)."""
    kind = SCHEMES[scheme]
    if kind == "parity":
        return nr_members - PARITY_MEMBERS[scheme]
    return {"stripe": nr_members, "mirror": 1, "copyset": nr_members // 2}[kind]


# The layout of a copy-set array (engines/copyset.h, struct
# rl_cs_layout_disk): one block in the record area CS_AREA_ID.
CS_AREA_ID = 0x4C534352             # "RCSL"
CS_MD_MAGIC = 0x4C534352
CS_MD_VERSION = 1
CS_MD_CSUM_XOR = 0x6C73636C
CS_KINDS = ("mirror", "near", "far", "offset", "chained")
_CS = struct.Struct("<IIIIIIIIQ")
CS_WORDS_MAX = 2048                 # RL_CS_WORDS_MAX, with the NUL


def encode_cs_layout(kind, nr, copies, chunk_shift, used, place=0, words=""):
    """The 4 KiB record of a copy layout (rl_cs_layout_encode())."""
    blk = bytearray(BLOCK)
    _CS.pack_into(blk, 0, 0, CS_MD_MAGIC, CS_MD_VERSION, CS_KINDS.index(kind), nr, copies,
                  chunk_shift, place, used)
    w = words.encode()[:CS_WORDS_MAX - 1]
    blk[_CS.size:_CS.size + len(w)] = w
    struct.pack_into("<I", blk, 0, block_csum(blk, CS_MD_CSUM_XOR))
    return bytes(blk)


def decode_cs_layout(block):
    """rl_cs_layout_decode(): {kind, nr, copies, chunk_shift, used, place,
    words} (words: the scheme's own table words, "" if none); raises
    BlankError for zeroes, FormatError for a damaged record."""
    if not any(block):
        raise BlankError("copy layout record: empty")
    csum, magic, version, kind, nr, copies, shift, place, used = _CS.unpack_from(block)
    words = bytes(block[_CS.size:_CS.size + CS_WORDS_MAX])
    if magic != CS_MD_MAGIC or csum != block_csum(block, CS_MD_CSUM_XOR) or \
            version != CS_MD_VERSION or kind >= len(CS_KINDS) or b"\0" not in words:
        raise FormatError("copy layout record: damaged")
    return {"kind": CS_KINDS[kind], "nr": nr, "copies": copies, "chunk_shift": shift,
            "used": used, "place": place,
            "words": words.split(b"\0", 1)[0].decode(errors="replace")}


# ------------------------------------------------------------------ crc32c ---
def _crc32c_table():
    poly = 0x82F63B78           # Castagnoli, reflected
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_CRC_TABLE = _crc32c_table()


def crc32c_raw(seed, data):
    """The kernel's crc32c(seed, data, len): the register after the bytes,
    no final inversion."""
    crc = seed & 0xFFFFFFFF
    t = _CRC_TABLE
    for b in bytes(data):
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def crc32c(data):
    """Standard CRC-32C (iSCSI, RFC 3720): crc32c(b"123456789") == 0xE3069283."""
    return crc32c_raw(0xFFFFFFFF, data) ^ 0xFFFFFFFF


def block_csum(block, xor, size=None):
    """Checksum of a block as the kernel computes it: crc32c(~0) over the
    bytes after the 4-byte csum field, xored with the structure's constant."""
    end = len(block) if CSUM_SPAN == "block" or size is None else size
    return crc32c_raw(0xFFFFFFFF, block[4:end]) ^ xor


# ------------------------------------------------------------------ errors ---
class FormatError(ValueError):
    """A block that does not validate; str() is the kernel's message."""


class BlankError(FormatError):
    """A block of zeroes (the kernel's -ENODATA): nothing written there."""


# ---------------------------------------------------------- struct layouts ---
_SB_HEAD = struct.Struct("<IIQIIIIQQ16s16sIIQQQQQIIQQQ")
_AREA = struct.Struct("<IIQQ")
_MEMBER = struct.Struct("<IIQ16s")
_HOMEHOST_AT = _SB_HEAD.size + MD_MAX_AREAS * _AREA.size + MD_MAX_MEMBERS * _MEMBER.size
SB_SIZE = _HOMEHOST_AT + HOMEHOST_LEN
_MSB = struct.Struct("<IIQII16s16sQIIQQ16s")
MSB_SIZE = _MSB.size
_BITMAP_HDR = struct.Struct("<IIQQ")
assert _BITMAP_HDR.size == BITMAP_HDR


def _scheme_bytes(name):
    b = name.encode()
    if len(b) >= MD_SCHEME_LEN or not b:
        raise ValueError(f"scheme name {name!r} must be 1..{MD_SCHEME_LEN - 1} bytes")
    return b.ljust(MD_SCHEME_LEN, b"\0")


def _scheme_str(raw):
    if b"\0" not in raw:
        raise FormatError("Scheme name not terminated")
    return raw.split(b"\0", 1)[0].decode("ascii", "replace")


def uuid_str(b):
    return str(uuidmod.UUID(bytes=bytes(b)))


def uuid_bytes(s):
    return uuidmod.UUID(s).bytes if isinstance(s, str) else bytes(s)


def new_uuid():
    return uuidmod.uuid4().bytes


# --------------------------------------------------------- in-core forms ---
@dataclass
class MemberDisk:
    state: int = MS_IN_SYNC
    cursor: int = 0
    dev_uuid: bytes = bytes(16)

    def to_json(self):
        return {"state": MEMBER_STATES.get(self.state, str(self.state)), "cursor": self.cursor,
                "dev_uuid": uuid_str(self.dev_uuid)}


@dataclass
class Area:
    id: int = 0
    start: int = 0
    blocks: int = 0


@dataclass
class MdState:
    """struct rl_md_state (plus the version and feature words of the block)."""
    scheme: str = "raid5"
    nr_members: int = 0
    chunk_sectors: int = 128
    flags: int = 0
    seq: int = 1
    events: int = 1
    uuid: bytes = bytes(16)
    data_offset: int = MD_DATA_OFFSET
    member_sectors: int = 0
    array_sectors: int = 0
    resync_cursor: int = 0
    mismatches: int = 0
    region_shift: int = 0
    nr_regions: int = 0
    bitmap_start: int = 2
    bitmap_blocks: int = 0
    areas: list = field(default_factory=list)
    members: list = field(default_factory=list)
    version: int = MD_VERSION
    compat: int = 0
    incompat: int = 0
    ro_compat: int = 0
    homehost: str = ""

    def to_json(self):
        return {
            "scheme": self.scheme, "nr_members": self.nr_members, "homehost": self.homehost,
            "chunk_sectors": self.chunk_sectors, "uuid": uuid_str(self.uuid),
            "version": self.version, "flags": self.flags, "clean": bool(self.flags & MD_CLEAN),
            "seq": self.seq, "events": self.events, "data_offset": self.data_offset,
            "member_sectors": self.member_sectors, "array_sectors": self.array_sectors,
            "resync_cursor": self.resync_cursor, "mismatches": self.mismatches,
            "region_shift": self.region_shift, "nr_regions": self.nr_regions,
            "bitmap_start": self.bitmap_start, "bitmap_blocks": self.bitmap_blocks,
            "areas": [a.__dict__.copy() for a in self.areas],
            "members": [m.to_json() for m in self.members],
        }


@dataclass
class MsbState:
    """struct rl_msb_state."""
    role: int = 0
    uuid: bytes = bytes(16)
    dev_uuid: bytes = bytes(16)
    events: int = 1
    nr_members: int = 0
    chunk_sectors: int = 128
    data_offset: int = MD_DATA_OFFSET
    member_sectors: int = 0
    scheme: str = "raid5"
    flags: int = 0
    version: int = MD_VERSION

    @property
    def is_spare(self):
        return self.role == ROLE_SPARE

    def to_json(self):
        return {"role": "spare" if self.is_spare else self.role, "uuid": uuid_str(self.uuid),
                "dev_uuid": uuid_str(self.dev_uuid), "events": self.events,
                "nr_members": self.nr_members, "chunk_sectors": self.chunk_sectors,
                "data_offset": self.data_offset, "member_sectors": self.member_sectors,
                "scheme": self.scheme, "version": self.version, "flags": self.flags}


# ---------------------------------------------------------- superblock ---
# The checks and messages of metadata_fmt.c's rl_md_sb_decode(), rl_msb_decode()
# and rl_md_bitmap_decode(), in the same order.
def _check_block(block, magic, xor, what, size):
    if len(block) < BLOCK:
        raise FormatError(f"{what}: short block")
    block = bytes(block[:BLOCK])
    if not any(block):
        raise BlankError(f"{what} is blank")
    if struct.unpack_from("<Q", block, 8)[0] != magic:
        raise FormatError(f"{what}: bad magic")
    if struct.unpack_from("<I", block, 0)[0] != block_csum(block, xor, size):
        raise FormatError(f"{what}: bad checksum")
    return block


def _scheme_ok(raw):
    """NUL terminated, and NUL padded after the name (rl_md_scheme_ok())."""
    n = raw.find(b"\0")
    return n > 0 and not any(raw[n:])


def homehost_ok(name):
    """rl_md_homehost_ok(): 1 to 63 of A-Z a-z 0-9 . _ -"""
    return 0 < len(name) < HOMEHOST_LEN and \
        all(c.isascii() and (c.isalnum() or c in "._-") for c in name)


def _homehost(block, ro_compat, what):
    """rl_md_sb_homehost(): the name, "" without the feature bit."""
    raw = bytes(block[_HOMEHOST_AT:_HOMEHOST_AT + HOMEHOST_LEN])
    if not ro_compat & RO_COMPAT_HOMEHOST:
        if any(raw):
            raise FormatError(f"{what}: a homehost without its feature bit")
        return ""
    name, nul, pad = raw.partition(b"\0")
    try:
        text = name.decode("ascii")
    except UnicodeDecodeError:
        text = ""
    if not nul or any(pad) or not homehost_ok(text):
        raise FormatError(f"{what}: bad homehost")
    return text


def _check_tail(block, size, what):
    if any(block[size:]):
        raise FormatError(f"{what}: garbage after the structure")


def encode_sb(st):
    """A 4 KiB metadata superblock block from an MdState."""
    if len(st.areas) > MD_MAX_AREAS or len(st.members) > MD_MAX_MEMBERS:
        raise ValueError("too many areas or members")
    b = bytearray(BLOCK)
    _SB_HEAD.pack_into(
        b, 0, 0, st.flags, MD_MAGIC, st.version, st.compat, st.incompat, st.ro_compat,
        st.seq, st.events, uuid_bytes(st.uuid), _scheme_bytes(st.scheme), st.nr_members,
        st.chunk_sectors, st.data_offset, st.member_sectors, st.array_sectors,
        st.resync_cursor, st.mismatches, st.region_shift, len(st.areas), st.nr_regions,
        st.bitmap_start, st.bitmap_blocks)
    off = _SB_HEAD.size
    for a in st.areas:
        _AREA.pack_into(b, off, a.id, 0, a.start, a.blocks)
        off += _AREA.size
    off = _SB_HEAD.size + MD_MAX_AREAS * _AREA.size
    for m in st.members:
        _MEMBER.pack_into(b, off, m.state, 0, m.cursor, uuid_bytes(m.dev_uuid))
        off += _MEMBER.size
    if st.homehost:
        if not homehost_ok(st.homehost):
            raise ValueError(f"bad homehost {st.homehost!r}")
        struct.pack_into("<I", b, 28, st.ro_compat | RO_COMPAT_HOMEHOST)
        raw = st.homehost.encode()
        b[_HOMEHOST_AT:_HOMEHOST_AT + len(raw)] = raw
    struct.pack_into("<I", b, 0, block_csum(b, MD_SB_CSUM_XOR, SB_SIZE))
    return bytes(b)


def _overlap(s1, n1, s2, n2):
    """Whether block ranges [s1, s1 + n1) and [s2, s2 + n2) overlap."""
    return s1 < s2 + n2 and s2 < s1 + n1


def decode_sb(block):
    """Validate and decode a metadata superblock block (MdState)."""
    what = "Metadata superblock"
    block = _check_block(block, MD_MAGIC, MD_SB_CSUM_XOR, what, SB_SIZE)
    (_, flags, _, version, compat, incompat, ro_compat, seq, events, uuid, scheme, nr_members,
     chunk, data_offset, member_sectors, array_sectors, resync_cursor, mismatches,
     region_shift, nr_areas, nr_regions, bitmap_start, bitmap_blocks) = _SB_HEAD.unpack_from(block)
    if version != MD_VERSION:
        raise FormatError(f"{what}: unsupported version")
    if incompat & ~INCOMPAT_SUPP:
        raise FormatError(f"{what}: unknown incompatible feature")
    if ro_compat & ~RO_COMPAT_SUPP:
        raise FormatError(f"{what}: unknown read-only feature")
    if not _scheme_ok(scheme):
        raise FormatError(f"{what}: bad scheme name")
    _check_tail(block, SB_SIZE, what)
    st = MdState(scheme=_scheme_str(scheme), nr_members=nr_members, chunk_sectors=chunk,
                 flags=flags, seq=seq, events=events, uuid=uuid, data_offset=data_offset,
                 member_sectors=member_sectors, array_sectors=array_sectors,
                 resync_cursor=resync_cursor, mismatches=mismatches, region_shift=region_shift,
                 nr_regions=nr_regions, bitmap_start=bitmap_start, bitmap_blocks=bitmap_blocks,
                 version=version, compat=compat, incompat=incompat, ro_compat=ro_compat,
                 homehost=_homehost(block, ro_compat, what))
    # rl_md_sb_check()
    if not 1 <= nr_members <= MD_MAX_MEMBERS:
        raise FormatError(f"{what}: invalid number of members")
    if not chunk or chunk & (chunk - 1):
        raise FormatError(f"{what}: chunk size is not a power of two")
    if not MD_MIN_REGION.bit_length() - 1 <= region_shift <= MD_MAX_REGION_SHIFT:
        raise FormatError(f"{what}: region shift out of range")
    if nr_regions != nr_regions_of(member_sectors, region_shift) or nr_regions > MD_MAX_REGIONS:
        raise FormatError(f"{what}: region count does not match")
    if bitmap_start < 2 or bitmap_blocks != bitmap_blocks_of(nr_regions):
        raise FormatError(f"{what}: bad bitmap placement")
    if bitmap_start + bitmap_blocks >= 1 << 64:
        raise FormatError(f"{what}: bitmap past the last block number")
    if nr_areas > MD_MAX_AREAS:
        raise FormatError(f"{what}: too many record areas")
    if resync_cursor > member_sectors:
        raise FormatError(f"{what}: resync cursor past the end")
    # as the kernel's rl_md_sb_check_area(): anywhere past the slots, off
    # the bitmap and each other, in any order
    off = _SB_HEAD.size
    for i in range(nr_areas):
        aid, _, start, blocks = _AREA.unpack_from(block, off)
        if not blocks:
            raise FormatError(f"{what}: empty record area")
        if start + blocks >= 1 << 64:
            raise FormatError(f"{what}: record area past the last block number")
        if start < 2:
            raise FormatError(f"{what}: record area over the superblock slots")
        if _overlap(start, blocks, bitmap_start, bitmap_blocks):
            raise FormatError(f"{what}: record area over the bitmap")
        if any(a.id == aid for a in st.areas):
            raise FormatError(f"{what}: duplicate record area")
        if any(_overlap(start, blocks, a.start, a.blocks) for a in st.areas):
            raise FormatError(f"{what}: record areas overlap")
        st.areas.append(Area(aid, start, blocks))
        off += _AREA.size
    off = _SB_HEAD.size + MD_MAX_AREAS * _AREA.size
    for i in range(nr_members):
        state, _, cursor, dev_uuid = _MEMBER.unpack_from(block, off)
        if state not in MEMBER_STATES:
            raise FormatError(f"{what}: member state out of range")
        if cursor > member_sectors:
            raise FormatError(f"{what}: rebuild cursor past the end")
        st.members.append(MemberDisk(state, cursor, dev_uuid))
        off += _MEMBER.size
    return st


def check_sb_for_tools(st):
    """Checks the kernel leaves to the table comparison at open; the tools
    need them to build a table from the superblock. Returns problems."""
    out = []
    if st.scheme == "sr":       # sized by its geometry: the kernel compares the record
        pass
    elif st.scheme not in SCHEMES:
        out.append(f"unknown scheme {st.scheme!r}")
    elif st.nr_members < MIN_MEMBERS[st.scheme]:
        out.append(f"{st.nr_members} members is too few for {st.scheme}")
    elif not st.array_sectors or \
            st.array_sectors > st.member_sectors * data_columns(st.scheme, st.nr_members):
        out.append("array length does not fit the members")
    if st.data_offset != MD_DATA_OFFSET:
        out.append(f"data offset {st.data_offset}, not {MD_DATA_OFFSET}")
    return out


def newest_sb(blocks):
    """Pick the superblock to load from the slots' blocks, as the kernel
    does: the valid one with the larger seq.

    Returns (slot, MdState, [per-slot error or None]); slot is None when no
    slot is valid (all blank: a new array; else the errors say why)."""
    best, best_slot, errors = None, None, []
    for slot, blk in enumerate(blocks):
        try:
            st = decode_sb(blk)
        except FormatError as e:
            errors.append(e)
            continue
        errors.append(None)
        if best is None or st.seq > best.seq:
            best, best_slot = st, slot
    return best_slot, best, errors


def all_blank(errors):
    return all(isinstance(e, BlankError) for e in errors)


# ------------------------------------------------------ member superblock ---
def encode_msb(st):
    b = bytearray(BLOCK)
    _MSB.pack_into(b, 0, 0, st.flags, MSB_MAGIC, st.version, st.role, uuid_bytes(st.uuid),
                   uuid_bytes(st.dev_uuid), st.events, st.nr_members, st.chunk_sectors,
                   st.data_offset, st.member_sectors, _scheme_bytes(st.scheme))
    struct.pack_into("<I", b, 0, block_csum(b, MSB_CSUM_XOR, MSB_SIZE))
    return bytes(b)


def decode_msb(block):
    """Validate and decode a member superblock (MsbState)."""
    what = "Member superblock"
    block = _check_block(block, MSB_MAGIC, MSB_CSUM_XOR, what, MSB_SIZE)
    (_, flags, _, version, role, uuid, dev_uuid, events, nr_members, chunk, data_offset,
     member_sectors, scheme) = _MSB.unpack_from(block)
    if version != MD_VERSION:
        raise FormatError(f"{what}: unsupported version")
    if not _scheme_ok(scheme):
        raise FormatError(f"{what}: bad scheme name")
    _check_tail(block, MSB_SIZE, what)
    if not 1 <= nr_members <= MD_MAX_MEMBERS:
        raise FormatError(f"{what}: invalid number of members")
    if role >= nr_members and role != ROLE_SPARE:
        raise FormatError(f"{what}: role out of range")
    if not chunk or chunk & (chunk - 1):
        raise FormatError(f"{what}: chunk size is not a power of two")
    return MsbState(role=role, uuid=uuid, dev_uuid=dev_uuid, events=events,
                    nr_members=nr_members, chunk_sectors=chunk, data_offset=data_offset,
                    member_sectors=member_sectors, scheme=_scheme_str(scheme), flags=flags,
                    version=version)


# ----------------------------------------------------------------- bitmap ---
def encode_bitmap(blocknr, seq, regions):
    """A bitmap block: block number @blocknr holding the set @regions (region
    numbers local to this block, 0 .. BITS_PER_BLOCK - 1)."""
    b = bytearray(BLOCK)
    _BITMAP_HDR.pack_into(b, 0, 0, 0, blocknr, seq)
    for r in regions:
        if not 0 <= r < BITS_PER_BLOCK:
            raise ValueError(f"region {r} outside a bitmap block")
        b[BITMAP_HDR + r // 8] |= 1 << (r % 8)
    struct.pack_into("<I", b, 0, block_csum(b, MD_BITMAP_CSUM_XOR))
    return bytes(b)


def decode_bitmap(block, blocknr=None, nbits=BITS_PER_BLOCK):
    """Validate a bitmap block holding @nbits regions; returns (blocknr, seq,
    sorted local regions). Bit r of byte k is region k * 8 + r (the kernel's
    __set_bit_le())."""
    what = "Metadata bitmap block"
    if len(block) < BLOCK:
        raise FormatError(f"{what}: short block")
    block = bytes(block[:BLOCK])
    if not any(block):
        raise BlankError(f"{what} is blank")
    _, _, nr, seq = _BITMAP_HDR.unpack_from(block)
    if struct.unpack_from("<I", block, 0)[0] != block_csum(block, MD_BITMAP_CSUM_XOR):
        raise FormatError(f"{what}: bad checksum")
    if blocknr is not None and nr != blocknr:
        raise FormatError(f"{what}: misplaced")
    if not 0 < nbits <= BITS_PER_BLOCK:
        raise FormatError(f"{what}: past the last region")
    regions = [k * 8 + r for k, byte in enumerate(block[BITMAP_HDR:]) if byte
               for r in range(8) if byte >> r & 1]
    if regions and regions[-1] >= nbits:
        raise FormatError(f"{what}: bit past the last region")
    return nr, seq, regions


def nr_regions_of(member_sectors, shift):
    """rl_md_nr_regions()."""
    return -(-member_sectors >> shift)


def bitmap_blocks_of(nr_regions):
    """rl_md_bitmap_blocks()."""
    return -(-nr_regions // BITS_PER_BLOCK)


def default_region_shift(member_sectors, min_sectors):
    """rl_md_default_region_shift(): regions of at least @min_sectors (the
    kernel passes the larger of the chunk size and MD_DEFAULT_REGION) and of
    a page, at most 65536 regions."""
    m = max(min_sectors, 1)
    shift = max((m - 1).bit_length(), MD_MIN_REGION.bit_length() - 1)
    while shift < MD_MAX_REGION_SHIFT and \
            nr_regions_of(member_sectors, shift) > MD_DEFAULT_REGIONS:
        shift += 1
    return shift
