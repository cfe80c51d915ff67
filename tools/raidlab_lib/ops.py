# SPDX-License-Identifier: GPL-2.0
"""Operations verbs (issue 18; Documentation/raidlab-ops.rst): examine,
size, fail by name, mkconf, and assemble --scan from /etc/raidlab.conf.

/etc/raidlab.conf, as mdadm.conf:

    DEVICE /dev/disk/by-id/* /dev/nvme*n*     where --scan looks (default SCAN_GLOBS)
    ARRAY <name> uuid=<array uuid> [metadata=<dev>] [sched=<policy>]
    PROGRAM <path>                            run by monitor for each event
    HOMEHOST <name>|<system>|<ignore>         this host as arrays record it (1.21):
                                              an array of another host is not assembled

Lines are words; "#" starts a comment. An ARRAY's metadata device, when
not named, is the scanned device whose metadata superblock has its uuid.
"""
import os
import sys
import time
from dataclasses import dataclass, field

from . import admin, blockdev, dm, ondisk
from .sizes import SizeError, array_sectors
from .admin import ToolError, out_json
from .progress import Progress

CONF = "/etc/raidlab.conf"


# ----------------------------------------------------------------- conf ---
@dataclass
class ConfArray:
    name: str
    uuid: str
    metadata: str = None
    sched: str = None


@dataclass
class Conf:
    arrays: list = field(default_factory=list)
    devices: list = field(default_factory=list)     # globs
    program: str = None
    homehost: str = None


def parse_conf(text, where=CONF):
    """The config file's lines; ToolError naming the line of a bad one."""
    c = Conf()
    for n, raw in enumerate(text.splitlines(), 1):
        w = raw.split("#", 1)[0].split()
        if not w:
            continue
        key = w[0].upper()
        if key == "DEVICE":
            c.devices += w[1:]
        elif key in ("PROGRAM", "HOMEHOST") and len(w) == 2:
            setattr(c, key.lower(), w[1])
        elif key == "ARRAY" and len(w) >= 3:
            kv = dict(x.split("=", 1) for x in w[2:] if "=" in x)
            bad = [x for x in w[2:] if "=" not in x] + \
                [k for k in kv if k not in ("uuid", "metadata", "sched")]
            if bad or "uuid" not in kv:
                raise ToolError(f"{where}:{n}: ARRAY <name> uuid=<uuid> [metadata=<dev>] "
                                f"[sched=<policy>]: {raw.strip()!r}")
            c.arrays.append(ConfArray(w[1], kv["uuid"].lower(), kv.get("metadata"),
                                      kv.get("sched")))
        else:
            raise ToolError(f"{where}:{n}: unknown line {raw.strip()!r}")
    names = [a.name for a in c.arrays]
    if len(set(names)) != len(names):
        raise ToolError(f"{where}: an array name is listed twice")
    return c


def read_conf(path):
    try:
        with open(path) as f:
            return parse_conf(f.read(), path)
    except FileNotFoundError:
        raise ToolError(f"{path}: no such file (raidlab mkconf > {path} writes one)") from None


def find_metadata(uuid, candidates, read_md=blockdev.read_md):
    """The device among @candidates whose metadata superblock has @uuid:
    the one with the most events (a stale copy, a clone made before the
    last commits, loses); ToolError if two have the most (which one is the
    array's cannot be told)."""
    found = []
    for p in candidates:
        try:
            _, md, _ = read_md(p)
        except OSError:
            continue
        if md is not None and ondisk.uuid_str(md.uuid) == uuid:
            found.append((md.events, p))
    if not found:
        return None
    found.sort(reverse=True)
    if len(found) > 1 and found[0][0] == found[1][0]:
        raise ToolError(f"array {uuid}: {found[0][1]} and {found[1][1]} both hold its metadata "
                        f"at events {found[0][0]}: name one with metadata= in the ARRAY line")
    return found[0][1]


def live_arrays():
    """{dm name: dm uuid} of the raidlab devices this kernel has."""
    out = {}
    for ln in dm.dmsetup("ls", "--target", dm.TARGET, check=False).splitlines():
        w = ln.split()
        if not w or w[0] == "No":
            continue
        info = dm.dmsetup("info", "-c", "--noheadings", "-o", "uuid", w[0], check=False)
        out[w[0]] = info.strip()
    return out


def cmd_assemble_scan(a):
    """assemble --scan with no name: every ARRAY of the config file that
    is not running, over the DEVICE globs."""
    conf = read_conf(a.config)
    homehost = admin.homehost_of(a.homehost or conf.homehost)
    live = live_arrays()
    excl = [f"/dev/mapper/{n}" for n in live]
    devices = admin.scan_devices(excl, conf.devices or None)
    results, failed = [], 0
    for arr in conf.arrays:
        r = {"name": arr.name, "uuid": arr.uuid}
        results.append(r)
        if arr.name in live or dm.dm_uuid(arr.uuid) in live.values():
            r["result"] = "running"
            continue
        try:
            md = arr.metadata or find_metadata(arr.uuid, devices)
            if not md:
                raise ToolError("no metadata device with this uuid")
            mid = blockdev.dev_id(md)
            plan = admin.plan_assemble(md, [d for d in devices if blockdev.dev_id(d) != mid],
                                       scanned=True, sched=arr.sched, homehost=homehost,
                                       take_over=a.take_over)
            if ondisk.uuid_str(plan.md.uuid) != arr.uuid:
                raise ToolError(f"{md}: holds array {ondisk.uuid_str(plan.md.uuid)}")
            for p in plan.problems:
                print(f"raidlab: {arr.name}: refused {p}", file=sys.stderr)
            if not a.dry_run:
                dm.create(arr.name, plan.table, arr.uuid)
            r.update(result="would assemble" if a.dry_run else "assembled",
                     metadata=md, table=plan.table.line())
        except (ToolError, dm.DmError, OSError) as e:
            r["result"], r["error"] = "failed", str(e)
            failed += 1
    if a.json:
        out_json({"arrays": results, "dry_run": a.dry_run})
    else:
        for r in results:
            print(f"{r['name']}: {r['result']}" + (f": {r['error']}" if "error" in r else ""))
    return 1 if failed else 0


def cmd_mkconf(a):
    """ARRAY lines of the running arrays that have a metadata device."""
    lines = ["# /etc/raidlab.conf (raidlab mkconf): the arrays `raidlab assemble --scan`",
             "# assembles at boot; see Documentation/raidlab-ops.rst"]
    for name in sorted(live_arrays()):
        t = dm.table(name)
        md = t.get("metadata")
        if not md:
            lines.append(f"# {name}: no metadata device, not assembled by --scan")
            continue
        _, sb, _ = blockdev.read_md(dm.dev_path(md))
        if sb is None:
            lines.append(f"# {name}: metadata {md} unreadable")
            continue
        lines.append(f"ARRAY {name} uuid={ondisk.uuid_str(sb.uuid)}")
    print("\n".join(lines))
    return 0


# -------------------------------------------------------------- examine ---
def examine(path):
    """What @path holds of dm-raidlab: a member superblock, a metadata
    superblock, or nothing; a dict."""
    d = {"device": path, "kind": "none"}
    msb, err = blockdev.read_msb(path)
    if msb is not None:
        d.update(kind="member", superblock=msb.to_json())
        return d
    try:
        _, md, errors = blockdev.read_md(path)
    except OSError as e:
        d["error"] = e.strerror
        return d
    if md is not None:
        dump = admin.md_dump(path)
        d.update(kind="metadata", superblock=dump["superblock"], metadata=dump)
    elif err is not None and not isinstance(err, ondisk.BlankError) and \
            "magic" not in str(err):
        d.update(kind="damaged", error=str(err))
    return d


def export_lines(d):
    """udev's IMPORT{program} form (KEY=value), as mdadm --examine --export:
    ID_FS_TYPE raidlab_member or raidlab_metadata makes lsblk, wipefs'
    users and installers treat the disk as taken (udev/60-raidlab.rules)."""
    sb = d.get("superblock") or {}
    if d["kind"] == "member":
        return [f"ID_FS_TYPE=raidlab_member", "ID_FS_USAGE=raid",
                f"ID_FS_UUID={sb['uuid']}", f"ID_FS_UUID_SUB={sb['dev_uuid']}",
                f"RAIDLAB_UUID={sb['uuid']}", f"RAIDLAB_ROLE={sb['role']}",
                f"RAIDLAB_SCHEME={sb['scheme']}", f"RAIDLAB_EVENTS={sb['events']}"]
    if d["kind"] == "metadata":
        return ["ID_FS_TYPE=raidlab_metadata", "ID_FS_USAGE=raid",
                f"ID_FS_UUID={sb['uuid']}", f"RAIDLAB_UUID={sb['uuid']}",
                f"RAIDLAB_SCHEME={sb['scheme']}"] + \
            ([f"RAIDLAB_HOMEHOST={sb['homehost']}"] if sb.get("homehost") else [])
    return []


def cmd_examine(a):
    out = [examine(p) for p in a.devices]
    if a.export:
        for d in out:
            print("\n".join(export_lines(d)))
        return 0
    if a.json:
        out_json(out if len(out) > 1 else out[0])
        return 0
    for d in out:
        sb = d.get("superblock")
        if d["kind"] == "member":
            role = "spare" if sb["role"] == "spare" else f"role {sb['role']}"
            print(f"{d['device']}: dm-raidlab member of array {sb['uuid']} ({sb['scheme']}, "
                  f"{sb['nr_members']} members): {role}, disk {sb['dev_uuid']}, events "
                  f"{sb['events']}, data from sector {sb['data_offset']}, "
                  f"{sb['member_sectors']} sectors")
        elif d["kind"] == "metadata":
            print(f"{d['device']}: dm-raidlab metadata")
            admin.print_md(d["metadata"])
        else:
            print(f"{d['device']}: {d.get('error') or 'no dm-raidlab superblock'}")
    return 0


# ----------------------------------------------------------------- size ---
def cmd_size(a):
    if a.table:
        t = dm.parse_table(a.table if a.table.split()[2:3] == [dm.TARGET]
                           else f"0 1 {dm.TARGET} {a.table}")
        scheme, devs, chunk = t.scheme, t.devs, int(t.get("chunk_size") or 128)
        metadata = bool(t.get("metadata"))
        opts = [(k, v) for k, v in t.opts if k not in admin.GENERIC_OPTS]
    else:
        if not a.scheme or not a.members:
            raise ToolError("size needs --table LINE, or --scheme and the members")
        scheme, devs, chunk = a.scheme, a.members, a.chunk
        metadata = not a.no_metadata
        opts = admin.parse_opts(a.opt)
    if scheme == "sr":
        opts = admin.sr_opts(opts)
    sizes = [a.member_sectors] * len(devs) if a.member_sectors else \
        [blockdev.size_sectors(dm.dev_path(d)) for d in devs if d != dm.MISSING]
    if not sizes:
        raise ToolError("no member to size")
    try:
        n = array_sectors(scheme, len(devs), chunk, min(sizes), opts, metadata)
    except SizeError as e:
        raise ToolError(str(e)) from None
    if a.json:
        out_json({"scheme": scheme, "members": len(devs), "chunk_sectors": chunk,
                  "member_sectors": min(sizes), "metadata": metadata, "array_sectors": n})
    else:
        print(n)
    return 0


# ----------------------------------------------------------------- fail ---
def member_index(table, word):
    """A member named by index, or by a device path of the table."""
    if word.isdigit():
        return int(word)
    try:
        want = blockdev.dev_id(word)
    except OSError as e:
        raise ToolError(f"{word}: {e.strerror}") from None
    for i, d in enumerate(table.devs):
        if d != dm.MISSING and blockdev.dev_id(dm.dev_path(d)) == want:
            return i
    raise ToolError(f"{word} is not a member of the array (spares and the metadata device "
                    "cannot be failed)")


def cmd_fail(a):
    i = member_index(dm.table(a.name), a.member)
    dm.message(a.name, "fail", i)
    print(f"{a.name}: member {i} failed")
    return 0


def cmd_readd(a):
    i = member_index(dm.table(a.name), a.member)
    dm.message(a.name, "re_add", i, *(["full"] if a.full else []))
    how = "rebuilt whole" if a.full else "rebuilt where written since it failed"
    print(f"{a.name}: member {i} re-added: {how}")
    return 0


def replace_state(old_dev, table, i, last_error):
    """Where a replace of member @i (whose disk was @old_dev) is, from the
    table now and the answer of "last_error": ("done", the new disk),
    ("stopped", the kernel's reason) or ("running", None)."""
    if table.devs[i] != old_dev:
        return "done", table.devs[i]
    if last_error.startswith(f"replace of member {i} "):
        return "stopped", last_error
    return "running", None


def wait_replace(name, i, old_dev, timeout=0, interval=0.5, stream=sys.stderr,
                 sleep=time.sleep, now=time.monotonic):
    """Show the copy's progress until the role's disk changes (the swap) or
    the kernel stops the replace; returns the new disk. ToolError if it
    stopped (the reason) or @timeout seconds passed."""
    status, table, message = dm.status, dm.table, dm.message
    t0 = now()
    prog = Progress(status(name).total, stream=stream, unit="sectors")
    while True:
        state, what = replace_state(old_dev, table(name), i,
                                    message(name, "last_error").strip())
        if state != "running":
            break
        st = status(name)
        if st.sync_action == "recover":
            prog.update(st.synced, total=st.total, note="replace")
        if timeout and now() - t0 > timeout:
            prog.finish()
            raise ToolError(f"{name}: replace of member {i} still running after {timeout} s")
        sleep(interval)
    prog.finish()
    if state == "stopped":
        raise ToolError(f"{name}: {what}")
    return what


def dev_word(path):
    """A device as tables and messages name it: "major:minor"."""
    try:
        rdev = os.stat(path).st_rdev
    except OSError as e:
        raise ToolError(f"{path}: {e.strerror}") from None
    return f"{os.major(rdev)}:{os.minor(rdev)}"


def cmd_replace(a):
    t = dm.table(a.name)
    i = member_index(t, a.member)
    old = t.devs[i]
    spare = None
    if a.with_spare:
        spare = dev_word(a.with_spare)
    dm.message(a.name, "replace", i, *([spare] if spare else []))
    result = {"name": a.name, "member": i, "old": old, "new": None, "old_removed": False}
    if a.no_wait:
        print(f"{a.name}: member {i} ({old}): copy onto a spare started", file=sys.stderr)
    else:
        result["new"] = wait_replace(a.name, i, old, a.timeout, sleep=time.sleep)
        if not a.keep_old:
            t2 = dm.table(a.name)
            new, _ = plan_remove(t2, dm.status(a.name).health, dm.dev_path(old))
            try:
                dm.reload_live(a.name, new, t2)
            except dm.DmError as e:
                raise ToolError(f"member {i} replaced, but removing the old disk "
                                f"failed: {e}") from None
            result["old_removed"] = True
    if a.json:
        out_json(result)
    elif not a.no_wait:
        print(f"{a.name}: member {i} replaced: {result['new']} serves it; {old} is "
              + ("out of the table" if result["old_removed"] else "a spare"))
    return 0


def plan_remove(table, health, dev, dev_id=blockdev.dev_id, path=dm.dev_path):
    """The table without @dev: a spare of it, or a failed member (its slot
    becomes "-"). ToolError for a member in use."""
    want = dev_id(dev)
    t = dm.Table(table.scheme, list(table.devs), table.length, table.start, list(table.opts))
    spares = [v for k, v in t.opts if k == "spare"]
    for s in spares:
        if dev_id(path(s)) == want:
            t.opts = [(k, v) for k, v in t.opts if not (k == "spare" and v == s)]
            return t, "spare"
    for i, d in enumerate(t.devs):
        if d != dm.MISSING and dev_id(path(d)) == want:
            if health[i] != "D":
                raise ToolError(f"{dev} is member {i}, in use ({health[i]}): fail it first "
                                f"(raidlab fail NAME {dev})")
            t.devs[i] = dm.MISSING
            return t, f"failed member {i}"
    raise ToolError(f"{dev} is neither a spare nor a member of the array")


def cmd_remove(a):
    t = dm.table(a.name)
    st = dm.status(a.name)
    new, what = plan_remove(t, st.health, a.dev)
    if not a.dry_run:
        # 1.21: a live reload, as add-spare
        try:
            dm.reload_live(a.name, new, t)
        except dm.DmError as e:
            raise ToolError(str(e)) from None
    if a.json:
        out_json({"name": a.name, "removed": a.dev, "was": what, "table": new.line(),
                  "dry_run": a.dry_run})
    else:
        print(new.line())
    return 0


def cmd_status_libdm(a):
    from . import libdm
    line = dm.dmsetup("status", a.name).strip()
    try:
        d = libdm.status_line_raid(line)
    except libdm.LibdmError as e:
        raise ToolError(str(e)) from None
    if a.json:
        out_json(d)
    else:
        print(" ".join(f"{k}={v}" for k, v in d.items()))
    return 0


# ------------------------------------------------------------- argparse ---
def register(verbs):
    p = verbs.add_parser("examine", help="a member's or a metadata device's superblock",
                         description="Read a device's dm-raidlab superblock: a member's "
                         "(array uuid, role or spare, disk uuid, events) or a metadata "
                         "device's. Reads only.")
    p.add_argument("devices", nargs="+", help="devices to read")
    p.add_argument("--export", action="store_true",
                   help="KEY=value lines for udev's IMPORT{program} (ID_FS_TYPE, ID_FS_UUID, "
                   "RAIDLAB_*); nothing for a device without a superblock")
    admin._add_json(p)
    p.set_defaults(func=cmd_examine)

    p = verbs.add_parser("size", help="the length (sectors) of an array for a table line",
                         description="Print the largest length of an array over the given "
                         "members, as the kernel computes it (every scheme, plog's layout "
                         "included): the number for the table line's <length>.")
    p.add_argument("members", nargs="*", help="member devices (their smallest size counts)")
    p.add_argument("--table", help="a table line (with or without '<start> <length> raidlab'): "
                   "its scheme, options and devices")
    p.add_argument("--scheme", choices=admin.CREATE_SCHEMES, help="the redundancy scheme")
    p.add_argument("--chunk", type=int, default=128, help="chunk in sectors (default 128)")
    p.add_argument("--opt", action="append", metavar="NAME=VALUE",
                   help="a scheme option, as for create (repeatable)")
    p.add_argument("--no-metadata", action="store_true",
                   help="members used from sector 0 (no metadata device)")
    p.add_argument("--member-sectors", type=int,
                   help="size every member at this many sectors instead of reading them")
    admin._add_json(p)
    p.set_defaults(func=cmd_size)

    p = verbs.add_parser("fail", help="mark a member failed, by index or device (message fail)")
    p.add_argument("name", help="the array's dm name")
    p.add_argument("member", help="member index, or a device path of the table")
    p.set_defaults(func=cmd_fail)

    p = verbs.add_parser("re-add", help="take a failed member's own disk back, rebuilt from the "
                         "write-intent bitmap (message re_add)",
                         description="The failed member's disk is back (a path, a cable, a "
                         "storage host returned) and the table still names it. Only the "
                         "regions written since it failed are copied onto it. The array needs "
                         "a metadata device; a member that failed before the table was loaded "
                         "is refused unless --full.")
    p.add_argument("name", help="the array's dm name")
    p.add_argument("member", help="member index, or a device path of the table")
    p.add_argument("--full", action="store_true", help="rebuild the whole disk, not only the "
                   "regions written since it failed")
    p.set_defaults(func=cmd_readd)

    p = verbs.add_parser("replace", help="copy a member onto a spare while it serves, then "
                         "swap them (message replace)",
                         description="md's want_replacement: the member's disk keeps serving "
                         "reads and writes while it is copied onto a spare (every write goes "
                         "to both); then the spare takes the role in one metadata commit, and "
                         "the old disk becomes a spare, which is then removed from the table "
                         "(a live reload) unless --keep-old. The array keeps all its "
                         "redundancy meanwhile. Needs a metadata device and a free spare "
                         "(raidlab add-spare).")
    p.add_argument("name", help="the array's dm name")
    p.add_argument("member", help="member index, or a device path of the table")
    p.add_argument("--with", dest="with_spare", metavar="SPARE",
                   help="the spare to copy onto (a spare of the table; default the first free)")
    p.add_argument("--keep-old", action="store_true",
                   help="leave the old disk in the table as a spare")
    p.add_argument("--no-wait", action="store_true",
                   help="return once the copy is asked for (progress: raidlab status)")
    p.add_argument("--timeout", type=float, default=0,
                   help="give up waiting after this many seconds (default never)")
    admin._add_json(p)
    p.set_defaults(func=cmd_replace)

    p = verbs.add_parser("remove", help="take a spare or a failed member's disk out of a "
                         "running array (dmsetup reload, I/O going on)",
                         description="Remove DEV from the array's table: a spare, or the disk "
                         "of a failed member (its slot becomes '-'). As add-spare, the new "
                         "line is reloaded over the running array (1.21); if its resume is "
                         "refused, the old line is loaded again.")
    p.add_argument("name", help="the array's dm name")
    p.add_argument("dev", help="the spare, or the failed member's disk")
    p.add_argument("--dry-run", action="store_true", help="print the new table line; change "
                   "nothing")
    admin._add_json(p)
    p.set_defaults(func=cmd_remove)

    p = verbs.add_parser("mkconf", help="print /etc/raidlab.conf lines for the running arrays")
    p.set_defaults(func=cmd_mkconf)
