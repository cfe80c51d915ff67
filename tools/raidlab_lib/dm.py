# SPDX-License-Identifier: GPL-2.0
"""The raidlab target as userspace sees it: table lines (build and parse),
the status line (parse), and dmsetup.

The status fields are listed once, in STATUS_HEAD / STATUS_TAIL below
(Documentation/dm-raidlab.rst, "Status output"); fields a newer module
appends after the known ones are kept in Status.extra, and known fields an
older module does not print are None. The line ends (1.8) with the
scheme's own group, "<scheme> <#fields> <fields>...", whose words are
Status.scheme_fields: read by count, so no scheme's grammar is copied here.
"""
import os
import subprocess
from dataclasses import dataclass, field

from . import ondisk

TARGET = "raidlab"

# Optional table arguments: key -> takes a value. "spare" may repeat.
# The options that take no value: the generic ones, and the scheme
# options that are flags (struct rl_opt's .flag: altmirror's volatile).
# Every other key takes one word: the generic ones (args.c) and every
# scheme's own (a "<name> <value>" each), so those need no copy here.
FLAG_OPTS = frozenset({"assume_clean", "start_dirty_degraded", "volatile"})
MAX_SPARES = 4
MISSING = "-"

# ------------------------------------------------------------- status ---
# INFO status, after "<start> <len> raidlab": the fixed head (1.20: its
# first eight fields are dm-raid's, as libdevmapper's dm_get_status_raid()
# reads them), one "<dr>:<dw>:<pr>:<pw>" word per member, then the tail.
# (name, type[, "optional"]): an optional field that does not parse as its
# type is absent (a module without that feature) and its word goes to the
# next field.
STATUS_HEAD = (
    ("scheme", str), ("nr_devs", int), ("health", str), ("sync_progress", str),
    ("sync_action", str), ("mismatches", int), ("data_offset", int), ("journal_char", str),
    ("array_state", str), ("chunk_sectors", int),
    ("logical_reads", int), ("logical_writes", int), ("data_reads", int),
    ("data_writes", int), ("parity_reads", int), ("parity_writes", int),
)
STATUS_TAIL = (
    ("sched", str), ("queue_depth", int), ("fg_issued", int), ("bg_issued", int),
    # the metadata service and spares
    ("md_backend", str), ("md_state", str), ("intent_dirty_regions", int),
    ("spares_available", int),
    # the write-hole journal
    ("journal", str), ("jnl_records", int), ("jnl_bytes", int), ("jnl_waits", int),
    # 1.7: bad-block entries per member, "n:n:..." ("-": no metadata device)
    ("bad_blocks", "bbl", "optional"),
)
# dm-raid's health characters: 'a' is a member being rebuilt, or every
# member while the array resyncs (Status.member_health() tells them apart)
HEALTH = {"A": "alive", "D": "failed", "a": "rebuilding"}
SYNC_ACTIONS = ("idle", "resync", "frozen", "recover", "check", "repair")
# the names of each scheme's counted group (Documentation/dm-raidlab.rst,
# the schemes' "Status" paragraphs), for --json; words past the names a
# tool knows are "field<N>"
SCHEME_FIELDS = {
    "plog": ("L", "A", "K", "B", "S", "G", "seg_sectors", "capacity_sectors", "durability",
             "log_bytes", "pool_total", "pool_free", "pool_min_free", "pool_waits",
             "reintegrations", "regions_with_log", "max_region_fill_segs", "cache_hits",
             "cache_misses", "faults"),
    "altmirror": ("modes", "used_slots", "min_free", "waits", "batches", "mean_batch",
                  "install_ms", "overlaps", "hits", "cycle_ms", "pool", "recovery",
                  "copied_blocks", "modified", "g", "recovery_ms"),
    "sr": ("Ds", "Dr", "Dm", "reads", "propagate", "pending", "forced", "full", "discarded",
           "records", "first"),
    "raid10": ("layout", "copies"),
}


def _bbl(word):
    """"0:1:0:1": bad-block entries per member."""
    counts = [int(x) for x in word.split(":")]
    if any(c < 0 for c in counts):
        raise ValueError(word)
    return counts


def _conv(typ, word):
    if word == "-":
        return None
    if typ == "bbl":
        return _bbl(word)
    return typ(word)


@dataclass
class Status:
    start: int
    length: int
    fields: dict
    members: list          # per member: {"data_reads":..., ...}
    extra: list = field(default_factory=list)
    scheme_fields: list = None   # the scheme's group (1.8); None before

    def __getattr__(self, name):
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def synced(self):
        return int(self.fields["sync_progress"].split("/")[0])

    @property
    def total(self):
        return int(self.fields["sync_progress"].split("/")[1])

    def member_health(self):
        """Per member: alive, failed, rebuilding, or resyncing (every live
        member 'a' while the array's copies or parity are made consistent,
        and no member in sync: dm-raid says 'a' for all of them then)."""
        h = self.fields["health"]
        resync = "A" not in h and self.fields.get("sync_action") in ("resync", "frozen") \
            and "a" in h
        return ["resyncing" if c == "a" and resync else HEALTH.get(c, c) for c in h]

    def rebuilding(self):
        """The members being rebuilt (health 'a' outside a resync)."""
        return [i for i, h in enumerate(self.member_health()) if h == "rebuilding"]

    def scheme_group(self):
        """The scheme's group as {name: word} (SCHEME_FIELDS), or None."""
        if self.scheme_fields is None:
            return None
        names = SCHEME_FIELDS.get(self.fields["scheme"], ())
        return {names[i] if i < len(names) else f"field{i + 1}": w
                for i, w in enumerate(self.scheme_fields)}

    def to_json(self):
        d = dict(self.fields)
        d.update(start=self.start, length=self.length, synced=self.synced, total=self.total,
                 members=self.members, extra=self.extra, scheme_fields=self.scheme_fields,
                 scheme=self.fields["scheme"], scheme_group=self.scheme_group())
        return d


class ParseError(ValueError):
    pass


def parse_status(line):
    """Parse one `dmsetup status` line of a raidlab target."""
    w = line.split()
    if len(w) < 3 or w[2] != TARGET:
        raise ParseError(f"not a {TARGET} status line: {line.strip()!r}")
    start, length = int(w[0]), int(w[1])
    w = w[3:]
    if len(w) < len(STATUS_HEAD):
        raise ParseError(f"status line too short: {line.strip()!r}")
    fields = {}
    for (name, typ), word in zip(STATUS_HEAD, w):
        fields[name] = _conv(typ, word)
    w = w[len(STATUS_HEAD):]
    n = fields["nr_devs"]
    if len(fields["health"]) != n or len(w) < n:
        raise ParseError("member count does not match the health characters or counters")
    members = []
    for word in w[:n]:
        parts = word.split(":")
        if len(parts) != 4:
            raise ParseError(f"bad member counters {word!r}")
        members.append(dict(zip(("data_reads", "data_writes", "parity_reads", "parity_writes"),
                                map(int, parts))))
    w = w[n:]
    k = 0
    for spec in STATUS_TAIL:
        name, typ = spec[:2]
        fields[name] = None
        if k >= len(w):
            continue
        try:
            fields[name] = _conv(typ, w[k])
        except ValueError:
            # an "optional" field a module without that feature does not
            # print: the word is the next field's
            if "optional" in spec[2:]:
                continue
            raise ParseError(f"status field {name}: {w[k]!r}") from None
        k += 1
    w, scheme_fields = _scheme_group(w[k:], fields["scheme"])
    bbl = fields.get("bad_blocks")
    if bbl is not None and len(bbl) != n:
        raise ParseError(f"bad_blocks has {len(bbl)} counts for {n} members")
    for i, (m, c) in enumerate(zip(members, fields["health"])):
        m["health"] = HEALTH.get(c, c)
        m["bad_blocks"] = None if bbl is None else bbl[i]
    return Status(start, length, fields, members, w, scheme_fields)


def _scheme_group(w, scheme):
    """(extra, scheme_fields): the words after the known tail, split at the
    scheme's group "<scheme> <#fields> <fields>..." that ends the line (the
    first place where the scheme's name is followed by the count of the
    words after it); (w, None) when there is none (a module before 1.8)."""
    for j in range(len(w) - 1):
        if w[j] == scheme and w[j + 1].isdigit() and int(w[j + 1]) == len(w) - j - 2:
            return w[:j], w[j + 2:]
    return w, None


# -------------------------------------------------------------- table ---
@dataclass
class Table:
    """One raidlab table line."""
    scheme: str
    devs: list                                   # paths; MISSING for a missing member
    length: int = 0
    start: int = 0
    opts: list = field(default_factory=list)     # [(key, value or None)], in order

    def get(self, key, default=None):
        for k, v in self.opts:
            if k == key:
                return v
        return default

    def get_all(self, key):
        return [v for k, v in self.opts if k == key]

    def set(self, key, value=None):
        """Set (replace) a single-valued option."""
        self.opts = [(k, v) for k, v in self.opts if k != key]
        self.opts.append((key, value))

    def add(self, key, value=None):
        self.opts.append((key, value))

    def opt_words(self):
        words = []
        for k, v in self.opts:
            words.append(k)
            if v is not None:
                words.append(str(v))
        return words

    def line(self):
        ow = self.opt_words()
        return " ".join([str(self.start), str(self.length), TARGET, self.scheme, str(len(ow))]
                        + ow + [str(len(self.devs))] + [str(d) for d in self.devs])


def parse_table(line):
    """Parse a raidlab table line (with start and length), as `dmsetup
    table` prints it. Checks the word counts only; the kernel checks the rest."""
    w = line.split()
    if len(w) < 6 or w[2] != TARGET:
        raise ParseError(f"not a {TARGET} table line: {line.strip()!r}")
    start, length, scheme = int(w[0]), int(w[1]), w[3]
    nopt = int(w[4])
    ow, rest = w[5:5 + nopt], w[5 + nopt:]
    if len(ow) != nopt or not rest:
        raise ParseError("optional argument count does not match")
    opts, i = [], 0
    while i < len(ow):
        k = ow[i]
        if k not in FLAG_OPTS:
            if i + 1 >= len(ow):
                raise ParseError(f"{k} lacks a value")
            opts.append((k, ow[i + 1]))
            i += 2
        else:
            opts.append((k, None))
            i += 1
    ndev = int(rest[0])
    devs = rest[1:]
    if len(devs) != ndev:
        raise ParseError("device count does not match the devices given")
    return Table(scheme=scheme, devs=devs, length=length, start=start, opts=opts)


def copyset_layout(scheme, opts=()):
    """(kind, copies) of a copy-set scheme's line: raid10's layout (near)
    and copies (2) options; chained's fixed ("chained", 2)."""
    if scheme == "chained":
        return "chained", 2
    o = {k.lower(): v for k, v in opts}
    return (o.get("layout") or "near").lower(), int(o.get("copies") or 2)


def copyset_capacity(kind, nr_members, copies, chunk_sectors, member_sectors):
    """The largest length of a copy-set layout over members of
    @member_sectors (rl_copyset_capacity(): each member uses the fewest
    whole chunks that hold the length): near puts copies side by side in
    rows, far and offset keep a band (or row) of each member per copy,
    chained a primary half and a backup half."""
    dev = member_sectors // chunk_sectors
    if kind == "near":
        chunks = dev * nr_members // copies
    elif kind in ("far", "offset"):
        chunks = dev // copies * nr_members
    elif kind == "chained":
        chunks = dev // 2 * nr_members
    else:
        raise ValueError(f"unknown copy layout {kind!r}")
    return chunks * chunk_sectors


def max_length(scheme, nr_members, chunk_sectors, member_sectors, opts=()):
    """The largest valid target length (the kernel's ->capacity): whole rows
    of chunk * data columns, any length for a mirror, whole chunks of the
    copy layout for raid10 and chained (their options in @opts)."""
    if ondisk.SCHEMES[scheme] == "copyset":
        kind, copies = copyset_layout(scheme, opts)
        return copyset_capacity(kind, nr_members, copies, chunk_sectors, member_sectors)
    cols = ondisk.data_columns(scheme, nr_members)
    if cols == 1:
        return member_sectors
    return (member_sectors // chunk_sectors) * chunk_sectors * cols


def check_length(scheme, nr_members, chunk_sectors, member_sectors, length, opts=()):
    """->capacity's verdict: None, or the kernel's message."""
    copyset = ondisk.SCHEMES[scheme] == "copyset"
    cols = ondisk.data_columns(scheme, nr_members)
    row = chunk_sectors if copyset else 1 if cols == 1 else cols * chunk_sectors
    if not length:
        return "Zero target length"
    if copyset and length % row:
        return "Target length is not a multiple of the chunk size"
    if length > max_length(scheme, nr_members, chunk_sectors, member_sectors, opts):
        return "Target length exceeds the members' capacity"
    if length % row:
        return "Target length is not a multiple of the stripe width"
    return None


# ------------------------------------------------------------ dmsetup ---
class DmError(RuntimeError):
    pass


def dmsetup(*args, input=None, check=True):
    """Run dmsetup; returns stdout. Raises DmError with its stderr. The
    environment is the caller's: with udev running, dmsetup waits for its
    rules (the lab's guest has none and exports DM_DISABLE_UDEV=1)."""
    try:
        p = subprocess.run(["dmsetup", *args], input=input, capture_output=True, text=True)
    except FileNotFoundError:
        raise DmError("dmsetup not found") from None
    if check and p.returncode:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        raise DmError(f"dmsetup {' '.join(args)}: " + (msg[-1] if msg else f"exit {p.returncode}"))
    return p.stdout


def kernel_reason(before=None):
    """The last "raidlab: ..." or "table: ..." line of the kernel log (the
    ti->error of a refused table line), or None."""
    try:
        p = subprocess.run(["dmesg"], capture_output=True, text=True)
    except OSError:
        return None
    lines = p.stdout.splitlines()[before or 0:]
    for ln in reversed(lines):
        if "device-mapper: table:" in ln or "device-mapper: raidlab:" in ln:
            return ln.split("] ", 1)[-1].strip()
    return None


UUID_PREFIX = "RAIDLAB-"


def dm_uuid(array_uuid):
    """The device-mapper UUID of an array ("RAIDLAB-<array uuid>"): what
    udev rules and lsblk see (udev/60-raidlab.rules)."""
    return UUID_PREFIX + array_uuid


def _load(verb, name, table, uuid=None):
    try:
        dmsetup(verb, name, *(["-u", dm_uuid(uuid)] if uuid else []),
                input=table.line() + "\n")
    except DmError as e:
        why = kernel_reason()
        raise DmError(f"{e}" + (f" (kernel: {why})" if why else "")) from None


def create(name, table, uuid=None):
    """dmsetup create; with @uuid (the array's), DM UUID RAIDLAB-<uuid>."""
    _load("create", name, table, uuid)


def set_uuid(name, uuid):
    """Give a device created without one the DM UUID of array @uuid."""
    dmsetup("rename", name, "--setuuid", dm_uuid(uuid))


def reload(name, table):
    _load("reload", name, table)


def reload_live(name, table, old=None):
    """Load @table over the running array @name and resume it, I/O going on
    (1.21: with a metadata device, the new table takes the live array over
    at its resume; without one, it is built afresh). If the resume fails,
    the old table is destroyed all the same: @old, the line it had, is
    loaded and resumed again, and DmError raised."""
    reload(name, table)
    try:
        dmsetup("resume", name)
    except DmError as e:
        if old is None:
            raise
        reload(name, old)
        dmsetup("resume", name)
        raise DmError(f"{e}; the array is back as it was") from None


def message(name, *words):
    """dmsetup message; a refused one raises DmError with the kernel's
    reason (the answer of "last_error", 1.20), not only dmsetup's errno."""
    try:
        return dmsetup("message", name, "0", *map(str, words))
    except DmError as e:
        why = None
        try:
            why = dmsetup("message", name, "0", "last_error").strip()
        except DmError:
            pass
        if why and why != "none":
            raise DmError(f"{name}: {' '.join(map(str, words))}: {why}") from None
        raise e from None


PARTS = ("none", "data", "copy", "p", "q", "log")


def parse_locate(text):
    """The "locate" message's answer: "<len> <row> <col> <part>:<member>:<sector>..."."""
    w = text.split()
    if len(w) < 4:
        raise ParseError(f"locate: short answer {text!r}")
    locs = []
    for word in w[3:]:
        part, member, sector = word.split(":")
        if part not in PARTS:
            raise ParseError(f"locate: unknown part {part!r}")
        locs.append({"part": part, "member": int(member), "sector": int(sector)})
    return {"len": int(w[0]), "row": int(w[1]), "col": int(w[2]), "locations": locs}


def parse_owner(text):
    """The "owner" message's answer: "<part> [<logical sector>]"."""
    w = text.split()
    if not w or w[0] not in PARTS or len(w) != (2 if w[0] in ("data", "copy") else 1):
        raise ParseError(f"owner: bad answer {text!r}")
    return {"part": w[0], "sector": int(w[1]) if len(w) == 2 else None}


def locate(name, sector):
    """Every location of logical sector @sector (the kernel's ->locate)."""
    return parse_locate(message(name, "locate", sector))


def owner(name, member, sector):
    """What member sector @sector of member @member holds (->owner)."""
    return parse_owner(message(name, "owner", member, sector))


def status(name):
    out = dmsetup("status", name).strip().splitlines()
    if len(out) != 1:
        raise DmError(f"{name}: expected one target, got {len(out)} lines")
    return parse_status(out[0])


def table(name):
    out = dmsetup("table", name).strip().splitlines()
    if len(out) != 1:
        raise DmError(f"{name}: expected one target, got {len(out)} lines")
    return parse_table(out[0])


def target_version(target=TARGET):
    """The loaded target's version tuple from `dmsetup targets`, or None."""
    for ln in dmsetup("targets", check=False).splitlines():
        w = ln.split()
        if len(w) >= 2 and w[0] == target:
            return tuple(int(x) for x in w[1].lstrip("v").split("."))
    return None


def dev_path(spec):
    """A table's device word (path or major:minor) as a path to open."""
    if ":" in spec and not spec.startswith("/"):
        major, minor = spec.split(":")
        p = f"/dev/block/{major}:{minor}"
        if os.path.exists(p):
            return p
        for d in os.listdir("/sys/dev/block") if os.path.isdir("/sys/dev/block") else ():
            if d == spec:
                name = os.path.basename(os.readlink(f"/sys/dev/block/{d}"))
                return f"/dev/{name}"
        raise DmError(f"no device node for {spec}")
    return spec
