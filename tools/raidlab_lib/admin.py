# SPDX-License-Identifier: GPL-2.0
"""The array verbs (mdadm-like): create, assemble, detail, status, stop,
fail, check, repair, rebuild, add-spare. See Documentation/raidlab-tools.rst.

Pure planning (plan_create, plan_assemble) is separate from the I/O, so the
tests can run it on image files without a kernel.
"""
import glob
import json
import os
import socket
import sys
import time
from dataclasses import dataclass, field

from . import blockdev, dm, ondisk, srlayout
from .sizes import SizeError, array_sectors
from .progress import Progress

REDUNDANCY = {"raid0": 0, "mirror": None, "raid10": 1, "chained": 1, "raid4": 1,
              "raid5": 1, "raid6": 2}
# the copy-set schemes' own options (raid10: layout, copies; chained: none)
COPYSET_OPTS = {"raid10": ("layout", "copies"), "chained": ()}
# schemes with a layout of their own, sized by sizes.py (plog: plogsize.py,
# the kernel's layout arithmetic; altmirror: a mirror of two)
SELF_SIZED = {"plog": {"min_members": 3, "redundancy": 1},
              "altmirror": {"min_members": 2, "redundancy": 1}}
# sr sizes itself by its geometry (srlayout.py): dr, dm and geom its options
CREATE_SCHEMES = sorted(ondisk.SCHEMES) + sorted(SELF_SIZED) + ["sr"]
RATE_MESSAGE = "sync_rate"  # KiB/s bound of background work (resync, rebuild, check, repair)
SCAN_GLOBS = ("/dev/rl/*", "/dev/sd*", "/dev/vd*", "/dev/mapper/*")
WRITE_VERBS_NEED = (1, 3)   # dm-raidlab version with metadata, spares, check/repair
# the table options every scheme has (args.c's rl_gopts); the others are the scheme's
GENERIC_OPTS = ("assume_clean", "start_dirty_degraded", "chunk_size", "sched", "queue_depth",
                "journal", "stripe_cache", "metadata", "spare", "region_size")


class ToolError(Exception):
    pass


def redundancy(scheme, n, opts=()):
    if scheme == "altmirror":
        return 1
    if scheme in SELF_SIZED:
        faults = dict(opts).get("faults")
        # as the kernel's plog_params(): faults 0 is the default, 1
        return max(int(faults), 1) if faults and faults.isdigit() \
            else SELF_SIZED[scheme]["redundancy"]
    if scheme == "raid10":      # any copies - 1 (more where no chunk loses every copy)
        return min(dm.copyset_layout(scheme, opts)[1] - 1, n - 1)
    if scheme == "sr":          # any dm - 1
        return int(dict(opts).get("dm", 1)) - 1
    r = REDUNDANCY[scheme]
    return n - 1 if r is None else min(r, n - 1)


def out_json(obj):
    json.dump(obj, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


def human_sectors(s):
    b = s * 512
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or unit == "TiB":
            return f"{b:.1f} {unit}" if unit != "B" else f"{b} B"
        b /= 1024


# --------------------------------------------------------------- create ---
@dataclass
class CreatePlan:
    table: dm.Table
    zero: list                  # [(path, offset, length)] to zero before dmsetup create
    member_sectors: int
    notes: list = field(default_factory=list)
    signatures: dict = field(default_factory=dict)  # path: [what it holds]


def zero_json(zero):
    return [{"device": p, "offset": off, "length": n} for p, off, n in zero]


def refuse_unusable(disks, busy):
    """Refuse the disks that cannot be claimed (in use), all named at once."""
    bad = [(d, why) for d in disks for why in [busy(d)] if why]
    if bad:
        raise ToolError("\n  ".join(f"{d}: {why}: not touched" for d, why in bad))


def refuse_signatures(found, force, dry_run=False):
    """Refuse disks holding something (signatures() found it) unless
    @force; with it, the notes saying what is overwritten."""
    held = {d: sigs for d, sigs in found.items() if sigs}
    if held and not force:
        raise ToolError("\n  ".join(f"{d}: not blank: {', '.join(sigs)}; use --force to "
                                     "overwrite it" for d, sigs in held.items()))
    verb = "would be overwritten" if dry_run else "overwritten"
    return [f"{d}: {s}: {verb} (--force)" for d, sigs in held.items() for s in sigs]


def parse_opts(words):
    """--opt NAME=VALUE words as (name, value) pairs, in order. The kernel
    checks them (its scheme's option table); this only splits them."""
    out = []
    for w in words or ():
        name, eq, value = w.partition("=")
        if not eq or not name or not value or " " in w:
            raise ToolError(f"--opt {w!r}: want NAME=VALUE")
        out.append((name, value))
    return out


def sr_opts(opts):
    """sr's --opt pairs checked, in the line's order: dr, dm, and geom as
    a geometry line (a disk model's name resolved), then the others
    (propagate, table_entries) as given, for the kernel to check; the
    shape over the members is srlayout.max_length()'s to check."""
    try:
        dr, dmc, line = srlayout.options(opts)
    except srlayout.SrError as e:
        raise ToolError(str(e)) from None
    rest = [(k.lower(), v) for k, v in opts if k.lower() not in srlayout.LAYOUT_OPTS]
    return [("dr", str(dr)), ("dm", str(dmc)), ("geom", line)] + rest


SYSTEM_HOMEHOST = "<system>"
IGNORE_HOMEHOST = "<ignore>"


def homehost_of(word=None, config=None, hostname=socket.gethostname):
    """The host name arrays are created and assembled as (mdadm's homehost,
    1.21): @word (--homehost), else the HOMEHOST of the config file
    @config if it exists, else <system>, this machine's name. <ignore>, or
    a host name that cannot be one ("(none)" before it is set): None,
    nothing recorded and nothing checked."""
    if word is None and config and os.path.exists(config):
        from . import ops
        word = ops.read_conf(config).homehost
    word = word or SYSTEM_HOMEHOST
    if word == IGNORE_HOMEHOST:
        return None
    if word == SYSTEM_HOMEHOST:
        word = hostname()
        # no usable name yet ("(none)" in an early boot): as <ignore>
        return word if ondisk.homehost_ok(word) else None
    if not ondisk.homehost_ok(word):
        raise ToolError(f"homehost {word!r}: 1 to 63 of A-Z a-z 0-9 . _ - (--homehost, or "
                        "HOMEHOST in the config file)")
    return word


def check_homehost(metadata, md, homehost, take_over):
    """Refuse an array another host recorded as its own (1.21), as mdadm
    does not assemble a foreign array by itself."""
    if md.homehost and homehost and md.homehost != homehost and not take_over:
        raise ToolError(f"{metadata}: the array belongs to host {md.homehost}, this host is "
                        f"{homehost}: assemble it there, or --take-over to assemble it here "
                        "and record this host")


def plan_create(scheme, members, metadata, spares=(), chunk=128, region_size=None,
                assume_clean=False, sched=None, queue_depth=None, force=False,
                size=blockdev.size_sectors, probe=blockdev.signatures, busy=blockdev.busy,
                dry_run=False, opts=(), homehost=None):
    """Check the disks and build the table line of a new array. Every disk
    is refused while it is in use, and unless @force while it holds
    anything (blockdev.signatures(): a filesystem, a volume or raid label,
    a partition table, a dm-raidlab superblock). A self-sized scheme's
    line has the length of one chunk: cmd_create() sizes it."""
    if scheme not in CREATE_SCHEMES:
        raise ToolError(f"unknown scheme {scheme!r} (one of {', '.join(CREATE_SCHEMES)})")
    n = len(members)
    least = SELF_SIZED[scheme]["min_members"] if scheme in SELF_SIZED \
        else 1 if scheme == "sr" else ondisk.MIN_MEMBERS[scheme]
    parity = scheme == "plog" or ondisk.SCHEMES.get(scheme) == "parity"
    if not least <= n <= ondisk.MD_MAX_MEMBERS:
        raise ToolError(f"{scheme} needs {least}..{ondisk.MD_MAX_MEMBERS} "
                        f"members, got {n}")
    if len(spares) > dm.MAX_SPARES:
        raise ToolError(f"at most {dm.MAX_SPARES} spares")
    if chunk < 8 or chunk & (chunk - 1):
        raise ToolError("chunk must be a power of two of at least 8 sectors")
    if parity and chunk > 2048:
        raise ToolError("chunk too large for a parity scheme (at most 2048 sectors)")
    # as the kernel: every copy or parity of fresh members alike, so not raid0
    if assume_clean and scheme == "raid0":
        raise ToolError("--assume-clean needs a redundant scheme")
    own = COPYSET_OPTS.get(scheme)
    if own is not None:
        bad = [k for k, _ in opts if k.lower() not in own]
        if bad:
            raise ToolError(f"--opt: {scheme} has no option {bad[0]!r}"
                            + (f" (its own: {', '.join(own)})" if own else ""))
        try:
            kind, copies = dm.copyset_layout(scheme, opts)
        except ValueError:
            raise ToolError("--opt copies: a number") from None
        if kind not in ("near", "far", "offset", "chained") or not 2 <= copies <= n:
            raise ToolError(f"{scheme}: layout near, far or offset and 2..{n} copies")
    elif scheme == "sr":
        opts = sr_opts(opts)
    elif opts and scheme not in SELF_SIZED:
        raise ToolError(f"--opt: {scheme} has no options of its own")
    present = [m for m in members if m != dm.MISSING]
    missing = n - len(present)
    if missing > redundancy(scheme, n, opts):
        raise ToolError(f"{missing} missing members: more than {scheme} survives")
    disks = present + list(spares) + ([metadata] if metadata else [])
    ids = {}
    for d in disks:
        try:
            i = blockdev.dev_id(d)
        except OSError as e:
            raise ToolError(f"{d}: {e.strerror}") from None
        if i in ids:
            raise ToolError(f"{d}: same device as {ids[i]}")
        ids[i] = d
    refuse_unusable(disks, busy)
    found = {d: probe(d) for d in disks}
    notes = refuse_signatures(found, force, dry_run)
    offset = ondisk.MD_DATA_OFFSET if metadata else 0
    sizes = {d: size(d) for d in present + list(spares)}
    smallest = min(sizes[d] for d in present)
    if smallest <= offset:
        raise ToolError("member device too small")
    member_sectors = smallest - offset
    for s in spares:
        if sizes[s] < smallest:
            raise ToolError(f"spare {s} is smaller than the members ({sizes[s]} < {smallest} "
                            "sectors)")
    try:
        length = array_sectors(scheme, n, chunk, smallest, opts, bool(metadata))
    except SizeError as e:
        raise ToolError(str(e)) from None
    if length <= 0 or chunk > member_sectors:
        raise ToolError("members too small for one row")
    t = dm.Table(scheme=scheme, devs=list(members), length=length)
    t.add("chunk_size", chunk)
    if assume_clean:
        t.add("assume_clean")
    if sched:
        t.add("sched", sched)
    if queue_depth:
        t.add("queue_depth", queue_depth)
    if metadata:
        t.add("metadata", metadata)
    for s in spares:
        t.add("spare", s)
    if region_size:
        t.add("region_size", region_size)
    if metadata and homehost:
        t.add("homehost", homehost)
    for name, value in opts:
        t.add(name, value)
    zero = []
    if metadata:
        zero.append((metadata, 0, min(1 << 20, size(metadata) * 512)))
        zero += [(d, 0, ondisk.MD_DATA_OFFSET * 512) for d in present + list(spares)]
    return CreatePlan(t, zero, member_sectors, notes, found)


def print_dry_run(zero):
    """What a --dry-run would have written, on stderr (stdout keeps the
    table line alone)."""
    for p, off, n in zero:
        print(f"raidlab: would zero {p}: {n} bytes at {off}", file=sys.stderr)
    if not zero:
        print("raidlab: would zero nothing", file=sys.stderr)


def write_zero(zero):
    """Claim every disk of @zero (O_EXCL, all before any is written), then
    zero the ranges."""
    try:
        claim = blockdev.Claim([p for p, _, _ in zero])
    except blockdev.ClaimError as e:
        raise ToolError("\n  ".join(f"{p}: {why}: not touched" for p, why in e.failed)) \
            from None
    with claim:
        for p, off, n in zero:
            claim.zero(p, off, n)


def name_by_uuid(name, metadata):
    """Give a new array the DM UUID RAIDLAB-<its uuid>, which the kernel
    made when it formatted @metadata (udev and lsblk see it)."""
    _, md, _ = blockdev.read_md(metadata)
    if md is None:      # the array runs: say so, and go on
        print(f"raidlab: warning: {metadata}: no superblock after the array was created: "
              f"{name} has no DM UUID", file=sys.stderr)
        return
    dm.set_uuid(name, ondisk.uuid_str(md.uuid))


def auto_opts(a, opts):
    """--auto: sr's dr from paper 002's configurator over the members, the
    --opt geom's disk and the workload; dm kept (the copies the user wants).
    A note on stderr says the choice and the model's numbers."""
    import argparse
    from .models import p002_sr_array as p002
    if a.scheme != "sr":
        raise ToolError("--auto chooses an sr shape: use it with --scheme sr")
    d = dict(opts)
    if "geom" not in d:
        raise ToolError("--auto needs --opt geom=LINE or a disk model (S, R and the heads)")
    try:
        ns = argparse.Namespace(seek_max=p002.S_DEFAULT, rotation=p002.R_DEFAULT, max_dr=None,
                                geom=d["geom"], workload=a.workload, locality=1.0, q=None,
                                p=1.0, trace=a.trace, propagate="bg", capacity=None,
                                copies=int(d.get("dm", 1)))
        c = p002.configure_args(ns, len(a.members))
    except (ValueError, OSError) as e:
        raise ToolError(f"--auto: {e}") from None
    print(f"raidlab: --auto: sr {c['Ds']}x{c['Dr']}x{c['Dm']} (paper 002: L {c['L']}, "
          f"Dr* {c['Dr_opt']}, model {c['T_ms']} ms a request)", file=sys.stderr)
    return [(k, v) for k, v in opts if k not in ("dr", "dm")] + \
        [("dr", str(c["Dr"])), ("dm", str(c["Dm"]))]


def cmd_create(a):
    metadata = None if a.no_metadata else a.metadata
    if not metadata and not a.no_metadata:
        raise ToolError("--metadata DEV is required (or --no-metadata for an array without "
                        "superblocks)")
    plan = plan_create(a.scheme, a.members, metadata, a.spare or [], a.chunk, a.region_size,
                       a.assume_clean, a.sched, a.queue_depth, a.force, dry_run=a.dry_run,
                       opts=auto_opts(a, parse_opts(a.opt)) if a.auto else parse_opts(a.opt),
                       homehost=homehost_of(a.homehost, a.config) if metadata else None)
    for note in plan.notes:
        print("raidlab: " + note, file=sys.stderr)
    if a.dry_run:
        if not a.json:
            print_dry_run(plan.zero)
    else:
        write_zero(plan.zero)
        dm.create(a.name, plan.table)
        if metadata:
            name_by_uuid(a.name, metadata)
    if a.json:
        out_json({"name": a.name, "table": plan.table.line(), "member_sectors":
                  plan.member_sectors, "array_sectors": plan.table.length,
                  "dry_run": a.dry_run, "zeroed": [p for p, _, _ in plan.zero],
                  "zero": zero_json(plan.zero), "signatures": plan.signatures})
    else:
        print(plan.table.line())
    return 0


# ------------------------------------------------------------- assemble ---
@dataclass
class Candidate:
    path: str
    msb: object = None
    error: object = None
    verdict: str = ""           # member, spare, stale, foreign, wrong-disk, failed, blank, ...
    why: str = ""

    def to_json(self):
        return {"path": self.path, "verdict": self.verdict, "why": self.why,
                "superblock": self.msb.to_json() if self.msb else None,
                "error": str(self.error) if self.error else None}


@dataclass
class AssemblePlan:
    md: object
    slot: int
    roles: list                 # path or "-" per member
    spares: list
    candidates: list
    table: dm.Table = None
    problems: list = field(default_factory=list)

    def to_json(self):
        return {"uuid": ondisk.uuid_str(self.md.uuid), "slot": self.slot,
                "events": self.md.events, "roles": self.roles, "spares": self.spares,
                "table": self.table.line() if self.table else None,
                "problems": self.problems, "devices": [c.to_json() for c in self.candidates]}


def read_cs_layout(metadata, md, read_at=blockdev.read_at):
    """A copy-set array's layout from its record area on @metadata
    (engines/copyset.h); ToolError if it has none or it is damaged."""
    area = next((x for x in md.areas if x.id == ondisk.CS_AREA_ID), None)
    if area is None:
        raise ToolError(f"{metadata}: no copy layout record (the array was never loaded)")
    try:
        return ondisk.decode_cs_layout(read_at(metadata, area.start * ondisk.BLOCK,
                                               ondisk.BLOCK))
    except ondisk.FormatError as e:
        raise ToolError(f"{metadata}: {e}") from None


def record_opts(metadata, md, read_at=blockdev.read_at):
    """The scheme's own options from its copy layout record: raid10's layout
    and copies, sr's words (dr, dm, geom); none for another scheme."""
    if md.scheme == "raid10":
        cs = read_cs_layout(metadata, md, read_at)
        return [("layout", cs["kind"]), ("copies", str(cs["copies"]))]
    if md.scheme != "sr":
        return []
    cs = read_cs_layout(metadata, md, read_at)
    if not cs["words"]:
        raise ToolError(f"{metadata}: the sr layout record has no options (written before "
                        "dm-raidlab 1.14.0): load the array once with its table line")
    try:
        return srlayout.words_to_opts(cs["words"])
    except srlayout.SrError as e:
        raise ToolError(f"{metadata}: {e}") from None


def plan_assemble(metadata, devices, spares=(), scanned=False, force=False,
                  read_msb=blockdev.read_msb, read_md=blockdev.read_md, sched=None,
                  read_at=blockdev.read_at, homehost=None, take_over=False):
    """Put every device holding a member superblock of the metadata's array
    in its role; refuse stale, foreign and unknown disks (as rl_md_open()
    would); missing roles become "-". An array of another host than
    @homehost is refused unless @take_over (check_homehost())."""
    slot, md, errors = read_md(metadata)
    if md is None:
        if ondisk.all_blank(errors):
            raise ToolError(f"{metadata}: blank metadata (a new array: use create)")
        raise ToolError(f"{metadata}: no valid superblock: "
                        + "; ".join(f"slot {i}: {e}" for i, e in enumerate(errors)))
    bad = ondisk.check_sb_for_tools(md)
    if bad:
        raise ToolError(f"{metadata}: cannot build a table from this superblock: "
                        + "; ".join(bad))
    check_homehost(metadata, md, homehost, take_over)
    roles = [dm.MISSING] * md.nr_members
    role_cand = [None] * md.nr_members
    spare_paths, cands, problems = [], [], []
    explicit_spares = list(spares)
    for path in list(devices) + explicit_spares:
        c = Candidate(path)
        cands.append(c)
        c.msb, c.error = read_msb(path)
        s = c.msb
        if s is None:
            if path in explicit_spares:
                c.verdict, c.why = "spare", "blank disk named with --spare"
                spare_paths.append(path)
            else:
                c.verdict = "blank" if isinstance(c.error, ondisk.BlankError) else "invalid"
                c.why = str(c.error)
            continue
        if s.uuid != md.uuid:
            c.verdict, c.why = "foreign", f"belongs to array {ondisk.uuid_str(s.uuid)}"
            continue
        if s.is_spare:
            c.verdict, c.why = "spare", "spare of this array"
            spare_paths.append(path)
            continue
        r = s.role
        m = md.members[r]
        if s.dev_uuid != m.dev_uuid:
            c.verdict = "wrong-disk"
            c.why = (f"claims role {r} but the metadata knows disk {ondisk.uuid_str(m.dev_uuid)} "
                     "there")
            continue
        if m.state == ondisk.MS_FAILED:
            c.verdict, c.why = "failed", f"role {r} is failed in the metadata"
            continue
        if s.events < md.events:
            c.verdict, c.why = "stale", f"events {s.events} < the metadata's {md.events}"
            continue
        if s.events > md.events + 1:
            c.verdict, c.why = "newer", f"events {s.events} > the metadata's {md.events} + 1"
            continue
        if role_cand[r] is not None:
            c.verdict, c.why = "duplicate", f"role {r} already taken by {role_cand[r].path}"
            continue
        c.verdict, c.why = "member", f"role {r}"
        role_cand[r] = c
        roles[r] = path
    for c in cands:
        if c.verdict in ("foreign", "wrong-disk", "stale", "newer", "duplicate", "invalid",
                         "failed") \
                and not (scanned and c.verdict in ("foreign", "invalid")):
            problems.append(f"{c.path}: {c.verdict}: {c.why}")
    if len(spare_paths) > dm.MAX_SPARES:
        problems.append(f"{len(spare_paths)} spares, using the first {dm.MAX_SPARES}")
        spare_paths = spare_paths[:dm.MAX_SPARES]
    missing = sum(1 for r in roles if r == dm.MISSING)
    plan = AssemblePlan(md, slot, roles, spare_paths, cands, problems=problems)
    own = record_opts(metadata, md, read_at)
    if missing > redundancy(md.scheme, md.nr_members, own) and not force:
        raise ToolError(f"{missing} of {md.nr_members} members missing, more than {md.scheme} "
                        "survives: " + json.dumps(plan.to_json()["roles"]) + "".join(
                            "\n  " + p for p in problems))
    t = dm.Table(scheme=md.scheme, devs=roles, length=md.array_sectors)
    t.add("chunk_size", md.chunk_sectors)
    for name, value in own:
        t.add(name, value)
    if sched:
        t.add("sched", sched)
    t.add("metadata", metadata)
    for s in spare_paths:
        t.add("spare", s)
    t.add("region_size", 1 << md.region_shift)
    if homehost:
        t.add("homehost", homehost)
    plan.table = t
    return plan


def has_holders(path):
    """True if another block device is stacked on @path (a dm table, md,
    a partition): the upper device is the one to scan."""
    try:
        st = os.stat(path)
        d = f"/sys/dev/block/{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
        return bool(os.listdir(d + "/holders"))
    except OSError:
        return False


def scan_devices(exclude=(), globs=None):
    """Block devices to look at with --scan (@globs, else SCAN_GLOBS): one
    path per device, none that another device is stacked on (the upper one
    is scanned instead)."""
    seen, out = set(), []
    excl = set()
    for e in exclude:
        try:
            excl.add(blockdev.dev_id(e))
        except OSError:
            pass
    for g in globs or SCAN_GLOBS:
        for p in sorted(glob.glob(g)):
            if not blockdev.is_block(p):
                continue
            i = blockdev.dev_id(p)
            if i in seen or i in excl or has_holders(p):
                continue
            seen.add(i)
            out.append(p)
    return out


def cmd_assemble(a):
    if a.scan and not a.name:
        from . import ops
        return ops.cmd_assemble_scan(a)
    if not a.name or not a.metadata:
        raise ToolError("assemble NAME --metadata DEV [DEV...], or --scan alone (every array "
                        "of the config file)")
    devices = list(a.devices)
    if a.scan:
        excl = [a.metadata] + ([f"/dev/mapper/{a.name}"] if a.name else [])
        devices += [d for d in scan_devices(excl) if d not in devices and d not in (a.spare or [])]
    if not devices:
        raise ToolError("no devices: name them or use --scan")
    plan = plan_assemble(a.metadata, devices, a.spare or [], scanned=a.scan, force=a.force,
                         sched=a.sched, homehost=homehost_of(a.homehost, a.config),
                         take_over=a.take_over)
    for p in plan.problems:
        print("raidlab: refused " + p, file=sys.stderr)
    if not a.dry_run:
        dm.create(a.name, plan.table, ondisk.uuid_str(plan.md.uuid))
    if a.json:
        d = plan.to_json()
        d.update(name=a.name, dry_run=a.dry_run)
        out_json(d)
    else:
        print(plan.table.line())
    return 0


# ------------------------------------------------------- detail, status ---
def md_dump(path):
    """Offline view of a metadata device: both slots, and which one loads."""
    raw = blockdev.read_at(path, 0, ondisk.BLOCK * len(ondisk.SB_SLOTS))
    slots = []
    for i in ondisk.SB_SLOTS:
        blk = raw[i * ondisk.BLOCK:(i + 1) * ondisk.BLOCK]
        try:
            st = ondisk.decode_sb(blk)
            slots.append({"slot": i, "valid": True, "seq": st.seq, "sb": st.to_json()})
        except ondisk.FormatError as e:
            slots.append({"slot": i, "valid": False, "blank": isinstance(e, ondisk.BlankError),
                          "error": str(e)})
    slot, st, _ = ondisk.newest_sb([raw[i * ondisk.BLOCK:(i + 1) * ondisk.BLOCK]
                                    for i in ondisk.SB_SLOTS])
    d = {"metadata": path, "loaded_slot": slot, "slots": slots,
         "superblock": st.to_json() if st else None}
    if st and st.bitmap_blocks:
        dirty = 0
        for b in range(st.bitmap_blocks):
            blk = blockdev.read_at(path, (st.bitmap_start + b) * ondisk.BLOCK, ondisk.BLOCK)
            nbits = min(st.nr_regions - b * ondisk.BITS_PER_BLOCK, ondisk.BITS_PER_BLOCK)
            try:
                dirty += len(ondisk.decode_bitmap(blk, st.bitmap_start + b, nbits)[2])
            except ondisk.FormatError as e:
                if isinstance(e, ondisk.BlankError) or "bad checksum" in str(e):
                    # torn by a crash: the kernel takes all its regions as dirty
                    dirty += nbits
                    d.setdefault("bitmap_torn", []).append(st.bitmap_start + b)
                else:
                    d.setdefault("bitmap_errors", []).append(f"block {st.bitmap_start + b}: {e}")
        d["bitmap_dirty_regions"] = dirty
    return d


def live_detail(name):
    st = dm.status(name)
    t = dm.table(name)
    d = {"name": name, "status": st.to_json(), "table": t.line()}
    md = t.get("metadata")
    members = []
    for i, dev in enumerate(t.devs):
        m = {"role": i, "device": dev, "health": st.member_health()[i]}
        m.update(st.members[i])
        members.append(m)
    d["members"] = members
    d["spares"] = t.get_all("spare")
    if md:
        try:
            d["metadata"] = md_dump(dm.dev_path(md))
        except (OSError, dm.DmError) as e:
            d["metadata"] = {"metadata": md, "error": str(e)}
    return d


def print_status(name, st):
    print(f"{name}: {st.scheme}, {st.nr_devs} members, chunk {st.chunk_sectors} sectors, "
          f"{st.length} sectors ({human_sectors(st.length)})")
    pct = 100.0 * st.synced / st.total if st.total else 100.0
    mm = st.fields.get("mismatches")
    print(f"  state {st.array_state}, health {st.health}, sync {st.sync_action} "
          f"{st.synced}/{st.total} ({pct:.1f} %)" + ("" if mm is None else f", mismatches {mm}"))
    if st.md_backend is not None or st.md_state is not None:
        print(f"  metadata {st.md_backend or '-'} ({st.md_state or '-'}), intent dirty regions "
              f"{st.intent_dirty_regions}, spares available {st.spares_available}")
    bbl = st.fields.get("bad_blocks")
    if bbl and any(bbl):
        print("  bad-block entries per member " + " ".join(map(str, bbl)))


def print_md(d, indent="  "):
    sb = d.get("superblock")
    if d.get("error"):
        print(f"{indent}metadata {d['metadata']}: {d['error']}")
        return
    for s in d["slots"]:
        state = f"seq {s['seq']}" if s["valid"] else s["error"]
        print(f"{indent}slot {s['slot']}: {state}")
    if not sb:
        print(f"{indent}no valid superblock")
        return
    print(f"{indent}array {sb['uuid']}: {sb['scheme']}, {sb['nr_members']} members, chunk "
          f"{sb['chunk_sectors']}, {sb['array_sectors']} sectors, events {sb['events']}, "
          f"{'clean' if sb['clean'] else 'not clean'}"
          + (f", homehost {sb['homehost']}" if sb.get("homehost") else ""))
    print(f"{indent}resync cursor {sb['resync_cursor']}/{sb['member_sectors']}, mismatches "
          f"{sb['mismatches']}, regions {sb['nr_regions']} x {1 << sb['region_shift']} sectors"
          + (f", {d['bitmap_dirty_regions']} dirty" if "bitmap_dirty_regions" in d else ""))
    for i, m in enumerate(sb["members"]):
        cur = f" cursor {m['cursor']}" if m["state"] == "rebuilding" else ""
        print(f"{indent}  role {i:2d}: {m['state']:<10} disk {m['dev_uuid']}{cur}")


def cmd_detail(a):
    if a.metadata:
        d = md_dump(a.metadata)
        d["devices"] = []
        for p in a.devices:
            s, e = blockdev.read_msb(p)
            d["devices"].append({"path": p, "superblock": s.to_json() if s else None,
                                 "error": str(e) if e else None})
        if a.json:
            out_json(d)
            return 0
        print(f"{a.metadata}:")
        print_md(d)
        for x in d["devices"]:
            s = x["superblock"]
            if s:
                print(f"  {x['path']}: array {s['uuid']} role {s['role']} disk {s['dev_uuid']} "
                      f"events {s['events']}")
            else:
                print(f"  {x['path']}: {x['error']}")
        return 0
    if not a.name:
        raise ToolError("detail needs NAME or --metadata DEV")
    d = live_detail(a.name)
    if a.json:
        out_json(d)
        return 0
    print_status(a.name, dm.parse_status(dm.dmsetup("status", a.name).strip()))
    print("  role  health      device")
    for m in d["members"]:
        print(f"  {m['role']:4d}  {m['health']:<10}  {m['device']}")
    for s in d["spares"]:
        print(f"  spare             {s}")
    if "metadata" in d:
        print(f"  metadata device {d['metadata'].get('metadata')} (on disk):")
        print_md(d["metadata"], "    ")
    return 0


def cmd_status(a):
    if a.libdm:
        from . import ops
        return ops.cmd_status_libdm(a)
    st = dm.status(a.name)
    if a.json:
        d = st.to_json()
        d["name"] = a.name
        out_json(d)
    else:
        print_status(a.name, st)
    return 0


def cmd_stop(a):
    dm.dmsetup("remove", "--retry", a.name)
    return 0


# ------------------------------------------------------ messages, waits ---
def wait_action(name, action, timeout=0, start_grace=5.0, interval=0.5, stream=sys.stderr,
                status=dm.status, sleep=time.sleep, now=time.monotonic):
    """Show a progress bar while the array's sync_action is @action; returns
    the last status. If the action is not seen within @start_grace seconds it
    is taken as already finished."""
    t0 = now()
    st = status(name)
    prog = Progress(st.total, stream=stream, unit="sectors")
    seen = False
    while True:
        if st.sync_action == action:
            seen = True
            prog.update(st.synced, total=st.total, note=action)
        elif seen or now() - t0 > start_grace:
            break
        if timeout and now() - t0 > timeout:
            prog.finish()
            raise ToolError(f"{name}: {action} still running after {timeout} s")
        sleep(interval)
        st = status(name)
    if seen:
        prog.update(st.total if st.sync_action == "idle" else st.synced, note=st.sync_action)
        prog.finish()
    return st


def _dev_or_word(word):
    """A table's device word as a path, or the word if it has no node here."""
    try:
        return dm.dev_path(word)
    except dm.DmError:
        return word


def cmd_locate(a):
    if a.member is not None:
        d = dm.owner(a.name, a.member, a.sector)
        d.update(name=a.name, member=a.member, member_sector=a.sector)
        if a.json:
            out_json(d)
        elif d["sector"] is None:
            print(f"member {a.member} sector {a.sector}: {d['part']}")
        else:
            print(f"member {a.member} sector {a.sector}: {d['part']} of sector {d['sector']}")
        return 0
    d = dm.locate(a.name, a.sector)
    devs = dm.table(a.name).devs
    for loc in d["locations"]:
        m = loc["member"]
        loc["device"] = _dev_or_word(devs[m]) if m < len(devs) else None
    d.update(name=a.name, sector=a.sector)
    if a.json:
        out_json(d)
        return 0
    print(f"sector {a.sector}: row {d['row']}, column {d['col']}, "
          f"the next {d['len']} sectors alike")
    for loc in d["locations"]:
        print(f"  {loc['part']:<5} member {loc['member']:<2} {loc['device']:<16} "
              f"sector {loc['sector']}")
    return 0


def _sync_verb(a, action):
    dm.message(a.name, action)
    if not a.wait:
        return 0
    st = wait_action(a.name, action, a.timeout)
    mm = st.fields.get("mismatches")
    if a.json:
        out_json({"name": a.name, "action": action, "sync_action": st.sync_action,
                  "mismatches": mm})
    else:
        print(f"{a.name}: {action} done ({st.sync_action}), mismatches "
              f"{'-' if mm is None else mm}")
    return 0


def cmd_check(a):
    return _sync_verb(a, "check")


def cmd_repair(a):
    return _sync_verb(a, "repair")


def cmd_rebuild(a):
    if a.rate:
        dm.message(a.name, RATE_MESSAGE, a.rate)
    st = dm.status(a.name)
    if st.sync_action != "recover" and not st.rebuilding():
        if "D" in st.health and not st.spares_available:
            raise ToolError(f"{a.name}: degraded ({st.health}) and no spare: add one with "
                            "`raidlab add-spare`")
        print(f"{a.name}: nothing to rebuild ({st.health}, {st.sync_action})")
        return 0
    if a.wait:
        st = wait_action(a.name, "recover", a.timeout)
    if a.json:
        out_json(st.to_json())
    else:
        print_status(a.name, st)
    if a.wait and st.rebuilding() and st.sync_action != "recover":
        raise ToolError(f"{a.name}: a member is still rebuilding but the rebuild is not "
                        f"running ({st.sync_action} at {st.synced}/{st.total}): the kernel "
                        "log says why")
    return 0


def own_msb(table, md):
    """signatures()' msb_sig for a disk added to the array of @table, whose
    metadata superblock is @md (None if unreadable): a member superblock of
    this array is no signature (a spare, or a member the table no longer
    has, coming back), unless it is the superblock of a member the table
    has (the same disk under another path)."""
    def sig(msb):
        if md is None or msb.uuid != md.uuid:
            return blockdev.describe_msb(msb)
        r = msb.role
        if not msb.is_spare and r < len(table.devs) and table.devs[r] != dm.MISSING \
                and r < len(md.members) and md.members[r].dev_uuid == msb.dev_uuid:
            return (blockdev.describe_msb(msb) + f", the disk the array has in role {r} "
                    f"({table.devs[r]}): another path to it?")
        return None
    return sig


def cmd_add_spare(a):
    t = dm.table(a.name)
    if not t.get("metadata"):
        raise ToolError(f"{a.name}: spares need a metadata device in the table")
    if len(t.get_all("spare")) >= dm.MAX_SPARES:
        raise ToolError(f"{a.name}: already {dm.MAX_SPARES} spares")
    mine = blockdev.dev_id(a.dev)
    for d in t.devs + t.get_all("spare") + [t.get("metadata")]:
        if d != dm.MISSING and blockdev.dev_id(dm.dev_path(d)) == mine:
            raise ToolError(f"{a.dev} is already in {a.name}'s table ({d})")
    refuse_unusable([a.dev], blockdev.busy)
    try:
        _, md, _ = blockdev.read_md(dm.dev_path(t.get("metadata")))
    except OSError:
        md = None
    found = {a.dev: blockdev.signatures(a.dev, own_msb(t, md))}
    for note in refuse_signatures(found, a.force, a.dry_run):
        print("raidlab: " + note, file=sys.stderr)
    sizes = [blockdev.size_sectors(dm.dev_path(d)) for d in t.devs if d != dm.MISSING]
    size = blockdev.size_sectors(a.dev)
    if sizes and size < min(sizes):
        raise ToolError(f"{a.dev} is smaller than the members")
    zero = [(a.dev, 0, min(ondisk.MD_DATA_OFFSET, size) * 512)]
    old = t.line()
    t.add("spare", a.dev)
    if a.dry_run:
        if not a.json:
            print_dry_run(zero)
    else:
        write_zero(zero)
        # 1.21: a live reload; the new table takes the array over
        try:
            dm.reload_live(a.name, t, dm.parse_table(old))
        except dm.DmError as e:
            raise ToolError(str(e)) from None
    if a.json:
        out_json({"name": a.name, "table": t.line(), "dry_run": a.dry_run,
                  "zero": zero_json(zero), "signatures": found})
    else:
        print(t.line())
    return 0


# ------------------------------------------------------------ argparse ---
def _add_homehost(p):
    p.add_argument("--homehost", help="this host's name as arrays record it (default: the "
                   "config file's HOMEHOST, else the host name; <ignore>: none)")
    if not any("--config" in act.option_strings for act in p._actions):
        p.add_argument("--config", default="/etc/raidlab.conf",
                       help="the config file whose HOMEHOST applies (default "
                       "/etc/raidlab.conf)")


def _add_json(p):
    p.add_argument("--json", action="store_true", help="print JSON")


def register(verbs):
    p = verbs.add_parser("create", help="zero the disks, build the table line, dmsetup create",
                         description="Create an array: refuse disks in use, and disks holding "
                         "anything (a filesystem, a volume or raid label, a partition table, "
                         "a dm-raidlab superblock) unless --force; zero the metadata device and "
                         "the members' first MiB, and load the table (the kernel formats the "
                         "zeroed metadata).")
    p.add_argument("name", help="the array's dm name")
    p.add_argument("members", nargs="+", help="member devices; - for a missing one")
    p.add_argument("--scheme", required=True, choices=CREATE_SCHEMES, help="the redundancy scheme")
    p.add_argument("--opt", action="append", metavar="NAME=VALUE",
                   help="a scheme option of the table line (plog: log_disks=1, "
                   "faults=2, ...; sr: dr=, dm=, geom=LINE or a disk model), passed to "
                   "the kernel as it is; repeatable")
    p.add_argument("--auto", action="store_true",
                   help="sr: choose dr (and keep dm) by paper 002's model (raidlab model "
                   "p002 --configure) for the members, the geom and the workload")
    p.add_argument("--workload", help="--auto: a workload of paper 002's Table 3 "
                   "(cello-base, cello-disk6, tpcc): its seek locality")
    p.add_argument("--trace", help="--auto: blkparse text of the real workload (its "
                   "locality and queue depth)")
    p.add_argument("--chunk", type=int, default=128, help="chunk in sectors (default 128)")
    p.add_argument("--metadata", help="metadata device (pmem or any block device)")
    p.add_argument("--no-metadata", action="store_true",
                   help="no metadata device: no superblocks, members used from sector 0")
    p.add_argument("--spare", action="append", help="spare device (repeatable, up to 4)")
    p.add_argument("--region-size", type=int, help="write-intent region in sectors")
    p.add_argument("--assume-clean", action="store_true",
                   help="no initial resync (the members' redundancy is taken as consistent)")
    p.add_argument("--sched", help="member queue policy")
    p.add_argument("--queue-depth", type=int, help="member I/Os issued at once per member")
    p.add_argument("--force", action="store_true",
                   help="overwrite disks that hold something (a filesystem, a volume or raid "
                   "label, a partition table, another array's superblock)")
    p.add_argument("--dry-run", action="store_true",
                   help="check the disks, say what would be zeroed, print the table line; "
                   "write nothing")
    _add_homehost(p)
    _add_json(p)
    p.set_defaults(func=cmd_create)

    p = verbs.add_parser("assemble", help="find the members of an array and dmsetup create it",
                         description="Assemble one array (NAME --metadata DEV), or with "
                         "--scan and no NAME every ARRAY of the config file that is not "
                         "running (its DEVICE globs; the metadata device found by uuid).")
    p.add_argument("name", nargs="?", help="the dm name to create")
    p.add_argument("devices", nargs="*", help="candidate member and spare devices")
    p.add_argument("--metadata", help="the array's metadata device")
    p.add_argument("--scan", action="store_true", help="also look at " + " ".join(SCAN_GLOBS)
                   + "; with no NAME, assemble the config file's arrays")
    p.add_argument("--config", default="/etc/raidlab.conf",
                   help="the config file of --scan (default /etc/raidlab.conf)")
    p.add_argument("--spare", action="append", help="a blank disk to add as a spare")
    p.add_argument("--sched", help="member queue policy of the table line")
    p.add_argument("--force", action="store_true", help="assemble even if too many are missing")
    p.add_argument("--take-over", action="store_true",
                   help="assemble an array another host recorded as its own (its homehost), "
                   "and record this host")
    p.add_argument("--dry-run", action="store_true", help="print the table line; create nothing")
    _add_homehost(p)
    _add_json(p)
    p.set_defaults(func=cmd_assemble, more_positionals="devices")

    p = verbs.add_parser("detail", help="members, health, sync, metadata of an array")
    p.add_argument("name", nargs="?", help="the array's dm name (or --metadata)")
    p.add_argument("devices", nargs="*", help="with --metadata: member superblocks to show")
    p.add_argument("--metadata", help="offline: dump this metadata device's superblocks")
    _add_json(p)
    p.set_defaults(func=cmd_detail, more_positionals="devices")

    p = verbs.add_parser("status", help="the status line, parsed")
    p.add_argument("name", help="the array's dm name")
    p.add_argument("--libdm", action="store_true",
                   help="the line as libdevmapper's dm-raid parser (LVM's) reads it")
    _add_json(p)
    p.set_defaults(func=cmd_status)

    p = verbs.add_parser("stop", help="stop an array (dmsetup remove; the disks stay as "
                         "they are, assemble brings it back)")
    p.add_argument("name", help="the array's dm name")
    p.set_defaults(func=cmd_stop)

    p = verbs.add_parser("locate", help="where a logical sector lives: data, copies, P, Q",
                         description="Ask the kernel (message locate) for every location of "
                         "a logical sector, or with --member (message owner) what a member "
                         "sector holds.")
    p.add_argument("name", help="the array's dm name")
    p.add_argument("sector", type=int, help="logical sector; with --member, member sector")
    p.add_argument("--member", type=int, help="member index: say what its sector holds")
    _add_json(p)
    p.set_defaults(func=cmd_locate)

    for verb, func in (("check", cmd_check), ("repair", cmd_repair)):
        p = verbs.add_parser(verb, help=f"start a {verb} of the redundancy")
        p.add_argument("name", help="the array's dm name")
        p.add_argument("--wait", action="store_true", help="progress bar until done, mismatches")
        p.add_argument("--timeout", type=float, default=0,
                       help="--wait: give up after this many seconds (default never)")
        _add_json(p)
        p.set_defaults(func=func)

    p = verbs.add_parser("rebuild", help="rebuild progress onto a spare")
    p.add_argument("name", help="the array's dm name")
    p.add_argument("--wait", action="store_true", help="progress bar until the rebuild ends")
    p.add_argument("--rate", type=int, help="bound background work to KiB/s (sync_rate)")
    p.add_argument("--timeout", type=float, default=0,
                   help="--wait: give up after this many seconds (default never)")
    _add_json(p)
    p.set_defaults(func=cmd_rebuild)

    p = verbs.add_parser("add-spare", help="zero a disk and add it to the running array as a "
                         "spare (dmsetup reload, I/O going on)")
    p.add_argument("name", help="the array's dm name")
    p.add_argument("dev", help="the disk to add as a spare")
    p.add_argument("--force", action="store_true",
                   help="overwrite a disk that holds something (a filesystem, a volume or raid "
                   "label, a partition table, another array's superblock)")
    p.add_argument("--dry-run", action="store_true",
                   help="check the disk, say what would be zeroed, print the new table line; "
                   "write nothing, leave the array running")
    _add_json(p)
    p.set_defaults(func=cmd_add_spare)
