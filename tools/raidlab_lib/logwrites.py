# SPDX-License-Identifier: GPL-2.0
"""dm-log-writes logs: read, find crash points, replay.

Format (drivers/md/dm-log-writes.c, Documentation/admin-guide/device-mapper/
log-writes.rst), in units of the log's sector size S (the logged device's
logical block size, from the super block):

    sector 0        struct log_write_super: magic, version, nr_entries,
                    sectorsize (le64 le64 le64 le32)
    then, per entry:
      1 sector      struct log_write_entry: sector, nr_sectors, flags,
                    data_len (le64 x 4), then for a MARK its name (data_len
                    bytes), zero padded to S
      nr_sectors    the data written (none for a DISCARD)

entry.sector and entry.nr_sectors count S-byte sectors of the logged
device. Writes are logged in completion order; an empty FLUSH entry follows
the writes it made durable.

Crash points are counts k of entries: the device as it would be after
replaying entries [0, k). The points of a FLUSH or FUA entry at index i are
i + 1 (just after it completed).
"""
import os
import random
import struct
from dataclasses import dataclass

MAGIC = 0x6A736677736872
VERSION = 1
FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16
FLAG_NAMES = ((FLUSH, "FLUSH"), (FUA, "FUA"), (DISCARD, "DISCARD"), (MARK, "MARK"),
              (METADATA, "METADATA"))
_SUPER = struct.Struct("<QQQI")
_ENTRY = struct.Struct("<QQQQ")


class LogError(ValueError):
    pass


def flag_str(flags):
    names = [n for f, n in FLAG_NAMES if flags & f]
    return "|".join(names) or "-"


@dataclass
class Entry:
    index: int
    sector: int          # in log sectors (sectorsize bytes)
    nr_sectors: int
    flags: int
    data_len: int
    offset: int          # byte offset of the entry header in the log
    mark: str = None

    def to_json(self):
        d = {"index": self.index, "sector": self.sector, "nr_sectors": self.nr_sectors,
             "flags": flag_str(self.flags), "data_len": self.data_len}
        if self.mark is not None:
            d["mark"] = self.mark
        return d


class Log:
    """A dm-log-writes log on a device or in a file."""

    def __init__(self, path):
        self.path = path
        self.f = open(path, "rb")
        raw = self.f.read(_SUPER.size)
        if len(raw) < _SUPER.size:
            raise LogError(f"{path}: too short for a log super block")
        magic, version, self.nr_entries, self.sectorsize = _SUPER.unpack(raw)
        if magic != MAGIC:
            raise LogError(f"{path}: bad log magic {magic:#x}")
        if version != VERSION:
            raise LogError(f"{path}: unsupported log version {version}")
        if self.sectorsize < 512 or self.sectorsize & (self.sectorsize - 1):
            raise LogError(f"{path}: bad sector size {self.sectorsize}")
        self._entries = None

    def close(self):
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def entries(self):
        """Every entry (headers only), read once."""
        if self._entries is not None:
            return self._entries
        out, S, off = [], self.sectorsize, self.sectorsize
        for i in range(self.nr_entries):
            self.f.seek(off)
            hdr = self.f.read(S)
            if len(hdr) < _ENTRY.size:
                raise LogError(f"{self.path}: log ends inside entry {i} (of {self.nr_entries})")
            sector, nr, flags, data_len = _ENTRY.unpack_from(hdr)
            e = Entry(i, sector, nr, flags, data_len, off)
            if flags & MARK:
                if data_len > S - _ENTRY.size:
                    raise LogError(f"{self.path}: entry {i}: mark longer than a sector")
                e.mark = hdr[_ENTRY.size:_ENTRY.size + data_len].decode("utf-8", "replace")
            out.append(e)
            off += S
            if not flags & DISCARD:
                off += nr * S
        self._entries = out
        return out

    def data(self, e):
        """The bytes entry @e wrote (b"" for discards, marks and flushes)."""
        if e.flags & (DISCARD | MARK) or not e.nr_sectors:
            return b""
        self.f.seek(e.offset + self.sectorsize)
        n = e.nr_sectors * self.sectorsize
        d = self.f.read(n)
        if len(d) != n:
            raise LogError(f"{self.path}: entry {e.index}: data cut short")
        return d

    def mark_index(self, name):
        """Index of the (first) MARK entry called @name, or None."""
        for e in self.entries():
            if e.mark == name:
                return e.index
        return None

    def flush_points(self):
        """Crash points after every FLUSH and FUA entry (counts of entries)."""
        return [e.index + 1 for e in self.entries() if e.flags & (FLUSH | FUA)]

    def crash_points(self, random_n=0, seed=0, lo=0, hi=None):
        """Sorted unique crash points: 0, the flush/FUA points, the end, and
        @random_n random points in [lo, hi] (deterministic for a seed)."""
        n = len(self.entries())
        hi = n if hi is None else min(hi, n)
        pts = {p for p in [0, n] + self.flush_points() if lo <= p <= hi}
        return sorted(pts | set(random_points(random_n, seed, lo, hi)))

    def replay(self, dest, start=0, end=None, discard="zero", progress=None):
        """Write entries [start, end) onto @dest (a path or a writable file
        object), at entry.sector * sectorsize. Discards write zeroes
        (discard="zero") or are skipped ("skip"). Returns the entries done."""
        ents = self.entries()
        end = len(ents) if end is None else end
        if not 0 <= start <= end <= len(ents):
            raise LogError(f"replay range [{start}, {end}) outside [0, {len(ents)}]")
        own = isinstance(dest, (str, bytes, os.PathLike))
        fd = os.open(dest, os.O_WRONLY) if own else dest.fileno()
        S = self.sectorsize
        try:
            for e in ents[start:end]:
                if e.flags & MARK:
                    pass
                elif e.flags & DISCARD:
                    if discard == "zero" and e.nr_sectors:
                        _write_zero(fd, e.sector * S, e.nr_sectors * S)
                elif e.nr_sectors:
                    _write_all(fd, e.sector * S, self.data(e))
                if progress:
                    progress(e.index + 1)
            os.fsync(fd)
        finally:
            if own:
                os.close(fd)
        return end - start


def _write_all(fd, off, data):
    done = 0
    while done < len(data):
        done += os.pwrite(fd, data[done:], off + done)


def _write_zero(fd, off, n, chunk=1 << 20):
    z = bytes(min(n, chunk))
    while n:
        k = min(n, chunk)
        _write_all(fd, off, z[:k])
        off += k
        n -= k


def random_points(n, seed, lo, hi):
    """@n random crash points in [lo, hi], the same for the same seed."""
    if n <= 0 or hi < lo:
        return []
    rng = random.Random(seed)
    return [rng.randint(lo, hi) for _ in range(n)]


# ---------------------------------------------------- several members ---
def aligned_points(logs, mark_prefix=None, random_n=0, seed=0):
    """Crash points common to the logs of an array's members.

    Two kinds of alignment (Documentation/raidlab-tools.rst):
      - marks: a MARK of the same name on every log (inserted while the
        array was suspended, so every member's log is at the same cut);
      - flush ordinals: the k-th FLUSH entry of every log, when every log
        has the same number of FLUSH entries (the array sent each flush to
        every member and no member flushed on its own).
    Between two consecutive aligned points, @random_n random points pick an
    independent prefix per member (a crash while members had persisted
    different amounts of unflushed writes).

    Returns a list of {"name": str, "points": [k per log]}, in order."""
    ents = [lg.entries() for lg in logs]
    out = []
    names = None
    for es in ents:
        ms = [e.mark for e in es if e.mark is not None
              and (mark_prefix is None or e.mark.startswith(mark_prefix))]
        names = ms if names is None else [m for m in names if m in ms]
    for m in names or []:
        out.append({"name": f"mark:{m}", "points": [lg.mark_index(m) + 1 for lg in logs]})
    flushes = [[e.index + 1 for e in es if e.flags & FLUSH] for es in ents]
    if flushes and all(len(f) == len(flushes[0]) for f in flushes):
        for k in range(len(flushes[0])):
            out.append({"name": f"flush:{k}", "points": [f[k] for f in flushes]})
    out.sort(key=lambda p: p["points"])
    anchors = [[0] * len(logs)] + [p["points"] for p in out] + [[len(es) for es in ents]]
    rng = random.Random(seed)
    rnd = []
    for i in range(random_n):
        j = rng.randrange(len(anchors) - 1)
        a, b = anchors[j], anchors[j + 1]
        if any(y < x for x, y in zip(a, b)):
            continue
        rnd.append({"name": f"random:{i}",
                    "points": [rng.randint(x, y) for x, y in zip(a, b)]})
    return out + rnd


# --------------------------------------------------------- build (tests) ---
class Writer:
    """Build a log in a file (tests, and synthetic logs)."""

    def __init__(self, path, sectorsize=512):
        self.path, self.S = path, sectorsize
        self.f = open(path, "wb")
        self.n = 0
        self.f.write(bytes(self.S))

    def _entry(self, sector, nr, flags, payload=b"", data=b""):
        hdr = _ENTRY.pack(sector, nr, flags, len(payload)) + payload
        self.f.write(hdr.ljust(self.S, b"\0"))
        self.f.write(data)
        self.n += 1

    def write(self, sector, data, flags=0):
        if len(data) % self.S:
            raise ValueError("data must be whole sectors")
        self._entry(sector, len(data) // self.S, flags, data=data)

    def flush(self):
        self._entry(0, 0, FLUSH)

    def discard(self, sector, nr):
        self._entry(sector, nr, DISCARD)

    def mark(self, name):
        self._entry(0, 0, MARK, payload=name.encode())

    def close(self):
        self.f.seek(0)
        self.f.write(_SUPER.pack(MAGIC, VERSION, self.n, self.S))
        self.f.close()


# ------------------------------------------------------------------ verb ---
def register(verbs):
    p = verbs.add_parser(
        "replay-log", help="list, find crash points in, and replay dm-log-writes logs",
        description="Read a dm-log-writes log: list its entries, its crash points (every "
                    "FLUSH and FUA, random ones), or replay entries [FROM, TO) onto a device.")
    p.add_argument("logs", nargs="+", metavar="LOGDEV",
                   help="the log device or file (several: one per member, see --aligned)")
    p.add_argument("--list", action="store_true", help="print the entries")
    p.add_argument("--list-points", action="store_true", help="print the crash points")
    p.add_argument("--aligned", action="store_true",
                   help="with several logs: points common to them all (marks, flush ordinals)")
    p.add_argument("--mark-prefix", help="--aligned: only marks starting with this")
    p.add_argument("--random", type=int, default=0, metavar="N", help="N random points too")
    p.add_argument("--seed", type=int, default=0, help="seed of --random (default 0)")
    p.add_argument("--mark", help="print the crash point just after MARK (entries to replay)")
    p.add_argument("--to", type=int, metavar="K", help="replay entries [FROM, K)")
    p.add_argument("--from", dest="start", type=int, default=0, metavar="J",
                   help="first entry to replay (the device holds [0, J) already)")
    p.add_argument("--dest", action="append", metavar="DEV", help="replay target")
    p.add_argument("--discard", choices=("zero", "skip"), default="zero",
                   help="replay discards as zeroes (default) or skip them")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_replay_log)


def cmd_replay_log(a):
    import json
    import sys
    logs = [Log(p) for p in a.logs]
    try:
        if a.list:
            for lg in logs:
                ents = lg.entries()
                if a.json:
                    json.dump({"log": lg.path, "sectorsize": lg.sectorsize,
                               "entries": [e.to_json() for e in ents]}, sys.stdout)
                    print()
                    continue
                print(f"# {lg.path}: {len(ents)} entries, sector size {lg.sectorsize}")
                for e in ents:
                    print(f"{e.index:8d} {flag_str(e.flags):<14} sector {e.sector} "
                          f"+{e.nr_sectors}" + (f" mark {e.mark}" if e.mark is not None else ""))
            return 0
        if a.mark is not None:
            pts = [lg.mark_index(a.mark) for lg in logs]
            if None in pts:
                print(f"raidlab: mark {a.mark!r} not in " + ", ".join(
                    lg.path for lg, p in zip(logs, pts) if p is None), file=sys.stderr)
                return 1
            print(" ".join(str(p + 1) for p in pts))
            return 0
        if a.list_points:
            if a.aligned or len(logs) > 1:
                pts = aligned_points(logs, a.mark_prefix, a.random, a.seed)
                if a.json:
                    json.dump({"logs": a.logs, "points": pts}, sys.stdout)
                    print()
                else:
                    for p in pts:
                        print(p["name"], " ".join(map(str, p["points"])))
                return 0
            pts = logs[0].crash_points(a.random, a.seed)
            if a.json:
                json.dump({"log": a.logs[0], "entries": len(logs[0].entries()),
                           "flush_points": logs[0].flush_points(), "points": pts}, sys.stdout)
                print()
            else:
                print("\n".join(map(str, pts)))
            return 0
        if a.to is not None:
            if len(logs) != 1 or len(a.dest or []) != 1:
                print("raidlab: --to replays one log onto one --dest (call it per member)",
                      file=sys.stderr)
                return 2
            n = logs[0].replay(a.dest[0], a.start, a.to, a.discard)
            print(f"{a.logs[0]}: replayed entries [{a.start}, {a.to}) ({n}) onto {a.dest[0]}")
            return 0
        print("raidlab: nothing to do (--list, --list-points, --mark or --to)", file=sys.stderr)
        return 2
    finally:
        for lg in logs:
            lg.close()
