# SPDX-License-Identifier: GPL-2.0
"""raidlab corrupt: damage the superblocks the kernel wrote, for the
bad-input tests (issue 4: "corrupted metadata images: flipped bits,
truncation, a wrong version, a foreign uuid"). Every kind leaves a block the
kernel must refuse with a message (or, for one slot of two, fall back to
the other slot).

Kinds that change a field re-checksum the block, so the kernel's later
checks (version, features, geometry, uuid) are reached; the block must
validate with this tool's decoder first, which proves the checksums agree.
"""
import json
import random
import struct
import sys

from . import blockdev, ondisk

# kind -> (what it does, re-checksummed)
MD_KINDS = {
    "flip": ("flip --bits random bits (checksum left stale)", False),
    "truncate": ("zero all but the first 128 bytes (64 for a member): a cut-off image",
                 False),
    "magic": ("change the magic", False),
    "csum": ("change the checksum field only", False),
    "version": ("version 2", True),
    "feature": ("an unknown incompat feature bit", True),
    "uuid": ("a new array uuid (members become foreign)", True),
    "geometry": ("nr_members + 1", True),
    "chunk": ("chunk_sectors 100 (not a power of two)", True),
    "bitmap": ("bitmap_start 2^64 - 1 (the bitmap's end wraps past 0)", True),
    "zero": ("zero the block", False),
}
MSB_KINDS = {
    "flip": MD_KINDS["flip"], "truncate": MD_KINDS["truncate"], "magic": MD_KINDS["magic"],
    "version": MD_KINDS["version"],
    "uuid": ("another array's uuid (a foreign disk)", True),
    "stale": ("events - 1 (a stale disk)", True),
    "role": ("role + 1 (the wrong disk in a role)", True),
    "dev-uuid": ("a new disk uuid (a disk the metadata does not know)", True),
}
_SB_OFF = {"version": 16, "incompat": 24, "uuid": 48, "nr_members": 80, "chunk": 84,
           "bitmap_start": 144}
_MSB_OFF = {"version": 16, "role": 20, "uuid": 24, "dev_uuid": 40, "events": 56}


def _recsum(b, xor, size):
    struct.pack_into("<I", b, 0, ondisk.block_csum(b, xor, size))


def damage(block, kind, rng, bits=1, member=False):
    """A damaged copy of a valid superblock block (bytes)."""
    b = bytearray(block)
    offs = _MSB_OFF if member else _SB_OFF
    xor, size = ((ondisk.MSB_CSUM_XOR, ondisk.MSB_SIZE) if member
                 else (ondisk.MD_SB_CSUM_XOR, ondisk.SB_SIZE))
    if kind == "flip":
        for _ in range(bits):
            i = rng.randrange(size * 8)
            b[i // 8] ^= 1 << (i % 8)
    elif kind == "truncate":
        keep = 64 if member else 128
        b[keep:] = bytes(len(b) - keep)
    elif kind == "magic":
        b[8] ^= 0xFF
    elif kind == "csum":
        b[0] ^= 0x01
    elif kind == "zero":
        b[:] = bytes(len(b))
    elif kind == "version":
        struct.pack_into("<I", b, offs["version"], 2)
    elif kind == "feature":
        struct.pack_into("<I", b, offs["incompat"], 1 << 31)
    elif kind in ("uuid", "dev-uuid"):
        o = offs["uuid" if kind == "uuid" else "dev_uuid"]
        b[o:o + 16] = bytes(rng.randrange(256) for _ in range(16))
    elif kind == "geometry":
        n = struct.unpack_from("<I", b, offs["nr_members"])[0]
        struct.pack_into("<I", b, offs["nr_members"], n + 1)
    elif kind == "chunk":
        struct.pack_into("<I", b, offs["chunk"], 100)
    elif kind == "bitmap":
        struct.pack_into("<Q", b, offs["bitmap_start"], (1 << 64) - 1)
    elif kind == "stale":
        e = struct.unpack_from("<Q", b, offs["events"])[0]
        struct.pack_into("<Q", b, offs["events"], max(e - 1, 0))
    elif kind == "role":
        r = struct.unpack_from("<I", b, offs["role"])[0]
        struct.pack_into("<I", b, offs["role"], r + 1)
    else:
        raise ValueError(f"unknown kind {kind!r}")
    kinds = MSB_KINDS if member else MD_KINDS
    if kinds[kind][1]:
        _recsum(b, xor, size)
    return bytes(b)


def cmd_corrupt(a):
    rng = random.Random(a.seed)
    member = a.member
    kinds = MSB_KINDS if member else MD_KINDS
    if a.kind not in kinds:
        print(f"raidlab corrupt: kind {a.kind!r} is not one of {', '.join(kinds)}",
              file=sys.stderr)
        return 2
    done = []
    if member:
        blk = blockdev.read_at(a.dev, 0, ondisk.BLOCK)
        ondisk.decode_msb(blk)                      # must be valid first
        blockdev.write_at(a.dev, 0, damage(blk, a.kind, rng, a.bits, member=True))
        done.append({"block": 0})
    else:
        raw = blockdev.read_at(a.dev, 0, 2 * ondisk.BLOCK)
        blocks = [raw[:ondisk.BLOCK], raw[ondisk.BLOCK:]]
        slot, st, errors = ondisk.newest_sb(blocks)
        if st is None:
            raise ondisk.FormatError("no valid superblock to corrupt: "
                                     + "; ".join(map(str, errors)))
        if a.slot == "newest":
            slots = [slot]
        elif a.slot == "both":
            slots = [i for i, e in enumerate(errors) if e is None]
        else:
            slots = [int(a.slot)]
            if errors[slots[0]] is not None:
                raise ondisk.FormatError(f"slot {slots[0]} is not valid: {errors[slots[0]]}")
        for s in slots:
            bad = damage(blocks[s], a.kind, rng, a.bits)
            blockdev.write_at(a.dev, s * ondisk.BLOCK, bad)
            done.append({"slot": s})
    out = {"dev": a.dev, "kind": a.kind, "what": kinds[a.kind][0], "member": member,
           "blocks": done}
    if a.json:
        json.dump(out, sys.stdout)
        print()
    else:
        print(f"{a.dev}: {a.kind}: {out['what']} in " + ", ".join(
            f"slot {d['slot']}" if "slot" in d else "the member superblock" for d in done))
    return 0


def register(verbs):
    p = verbs.add_parser(
        "corrupt", help="damage a metadata or member superblock (bad-input tests)",
        description="Damage the superblock the kernel wrote on DEV: metadata kinds "
        + ", ".join(MD_KINDS) + "; member (--member) kinds " + ", ".join(MSB_KINDS)
        + ". Field changes are re-checksummed so the kernel's later checks are reached.")
    p.add_argument("dev", help="the device whose superblock to damage")
    p.add_argument("--kind", required=True, help="what to damage (the kinds above)")
    p.add_argument("--member", action="store_true", help="DEV is a member: its rl_msb")
    p.add_argument("--slot", default="both", help="metadata: newest, both (default) or 0/1")
    p.add_argument("--bits", type=int, default=1, help="flip: how many bits")
    p.add_argument("--seed", type=int, default=0, help="random seed of flip (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_corrupt)
