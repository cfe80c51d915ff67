# SPDX-License-Identifier: GPL-2.0
"""Crash consistency: the workloads and what a crash point must show.

Pure parts (no device, no kernel), tested by tests/tools/test_crash.py;
the guest harness that records, replays and checks is crashlab.py
(Documentation/raidlab-tools.rst, "Crash consistency").

Block workload
    The array is an array of 4 KiB blocks. Generation g (1, 2, ...) writes
    a deterministic pseudo-random set of runs of blocks (each block at most
    once per generation), then flushes; once the flush has returned, the
    harness puts the MARK "g<g>" into the dm-log-writes log. Every block
    carries its own description: magic, block number, generation, seed and
    a crc32 of the rest, and a body derived from the three.

    A crash point whose last mark is g<N> (0 before the first generation)
    must read, for every block b:
      - its last value of a generation <= N (zeroes if none wrote it), or
      - its value of generation N + 1 if N + 1 wrote it: that write may
        have been in flight at the crash. Generation N + 2 cannot have
        started before the mark g<N+1>, which the point precedes.
    Anything else is a failure: "lost" (an older generation's value or
    zeroes where a flushed write must be: an acknowledged and flushed write
    is gone), "corrupt" (not a valid block: torn, garbage, bad crc) or
    "misplaced" (a valid block of another block number, seed or an
    impossible generation).

File-system workload (ext4 over the array)
    Generation g creates, replaces (write a temporary file, fsync it,
    rename over the name, fsync the directory) and deletes files, at most
    one operation per name and generation, then marks g<g>. A point with
    last mark g<N> must show, for every name, its content of generation N
    (or absent), or its content (or absence) of generation N + 1 if
    generation N + 1 touched the name; temporary files are ignored. The
    file system must mount (journal recovery) and e2fsck -fn must find
    nothing after it is unmounted.
"""
import random
import struct
import zlib
from dataclasses import dataclass, field

BLOCK = 4096
MAGIC = 0x4b434c4241524352      # "RCRABLCK" little endian: b"RCRABLCK"[::-1]
# magic, block, generation, seed, crc32 of bytes [HDR_CRC_END:] ... see below
_HDR = struct.Struct("<QQIIII")  # magic block gen seed crc reserved
HDR_SIZE = _HDR.size             # 32


# ---------------------------------------------------------- block content ---
def body(seed, gen, block, n=BLOCK - HDR_SIZE):
    """The deterministic body of block @block written by generation @gen."""
    return random.Random((seed << 48) ^ (gen << 32) ^ block).randbytes(n)


def block_content(seed, gen, block):
    """The 4 KiB a generation writes to a block."""
    b = body(seed, gen, block)
    crc = zlib.crc32(struct.pack("<QQII", MAGIC, block, gen, seed) + b)
    return _HDR.pack(MAGIC, block, gen, seed, crc, 0) + b


ZERO = bytes(BLOCK)


@dataclass
class BlockInfo:
    kind: str                    # "zero", "valid", "corrupt"
    block: int = None
    gen: int = None
    seed: int = None


def decode_block(buf):
    """What a 4 KiB block holds: zeroes, a valid workload block (its
    number, generation and seed) or something corrupt."""
    if buf == ZERO:
        return BlockInfo("zero")
    magic, block, gen, seed, crc, _ = _HDR.unpack_from(buf)
    if magic != MAGIC:
        return BlockInfo("corrupt")
    if zlib.crc32(struct.pack("<QQII", magic, block, gen, seed) + buf[HDR_SIZE:]) != crc:
        return BlockInfo("corrupt", block, gen, seed)
    return BlockInfo("valid", block, gen, seed)


# ------------------------------------------------------- block workload ---
@dataclass
class BlockWorkload:
    """Which runs of blocks each generation writes: pure, from the seed.

    nblocks      the array's size in blocks (all of them are checked)
    generations  how many generations
    ops          write operations (runs) per generation
    max_run      the longest run in blocks (a run never crosses the end)
    row_blocks   a full stripe row in blocks (raid4/raid5; 0: none): one op
                 in four is a whole aligned row (reconstruct-write), the
                 others are runs anywhere (read-modify-write, partial rows)
    """
    seed: int
    nblocks: int
    generations: int
    ops: int = 24
    max_run: int = 8
    row_blocks: int = 0

    def gen_runs(self, g):
        """Generation @g's writes: a list of (first block, count), no block
        twice, in issue order."""
        rng = random.Random(f"raidlab-crash:{self.seed}:{g}")
        taken = set()
        runs = []
        tries = 0
        while len(runs) < self.ops and tries < self.ops * 20:
            tries += 1
            if self.row_blocks and rng.random() < 0.25 and self.nblocks >= self.row_blocks:
                rows = self.nblocks // self.row_blocks
                start = rng.randrange(rows) * self.row_blocks
                n = self.row_blocks
            else:
                n = rng.randint(1, max(1, min(self.max_run, self.nblocks)))
                start = rng.randrange(self.nblocks - n + 1)
            blocks = range(start, start + n)
            if any(b in taken for b in blocks):
                continue
            taken.update(blocks)
            runs.append((start, n))
        return runs

    def history(self, upto=None):
        """{block: [generations that wrote it, ascending]} for 1..upto."""
        upto = self.generations if upto is None else upto
        h = {}
        for g in range(1, upto + 1):
            for start, n in self.gen_runs(g):
                for b in range(start, start + n):
                    h.setdefault(b, []).append(g)
        return h

    def allowed(self, n, hist=None):
        """For a point whose last mark is g<n>: {block: set of allowed
        generations} (0 = zeroes) for every block any generation <= n + 1
        wrote; blocks missing from the map must read as zeroes."""
        hist = self.history(min(n + 1, self.generations)) if hist is None else hist
        out = {}
        for b, gens in hist.items():
            flushed = [g for g in gens if g <= n]
            ok = {flushed[-1] if flushed else 0}
            if n + 1 in gens:
                ok.add(n + 1)
            out[b] = ok
        return out

    def to_json(self):
        return {"seed": self.seed, "nblocks": self.nblocks, "generations": self.generations,
                "ops": self.ops, "max_run": self.max_run, "row_blocks": self.row_blocks}


@dataclass
class VerifyResult:
    n: int                      # the last mark's generation the point was checked against
    blocks: int = 0
    ok: int = 0
    in_flight: int = 0          # blocks holding generation n + 1's value
    lost: list = field(default_factory=list)       # (block, found gen, expected gens)
    corrupt: list = field(default_factory=list)    # block
    misplaced: list = field(default_factory=list)  # (block, found block, gen, seed)

    @property
    def failures(self):
        return len(self.lost) + len(self.corrupt) + len(self.misplaced)

    def to_json(self, limit=20):
        return {"against_gen": self.n, "blocks": self.blocks, "ok": self.ok,
                "in_flight": self.in_flight, "lost": len(self.lost),
                "corrupt": len(self.corrupt), "misplaced": len(self.misplaced),
                "examples": {"lost": self.lost[:limit], "corrupt": self.corrupt[:limit],
                             "misplaced": self.misplaced[:limit]}}


def verify_blocks(wl, n, read_blocks, chunk_blocks=256):
    """Check a device against @wl at a point whose last mark is g<n>.
    @read_blocks(first, count) returns count * BLOCK bytes."""
    allowed = wl.allowed(n)
    res = VerifyResult(n)
    for first in range(0, wl.nblocks, chunk_blocks):
        cnt = min(chunk_blocks, wl.nblocks - first)
        data = read_blocks(first, cnt)
        for i in range(cnt):
            b = first + i
            buf = data[i * BLOCK:(i + 1) * BLOCK]
            ok = allowed.get(b, {0})
            info = decode_block(buf)
            res.blocks += 1
            if info.kind == "zero":
                found = 0
            elif info.kind == "corrupt":
                res.corrupt.append(b)
                continue
            elif info.block != b or info.seed != wl.seed or not 1 <= info.gen <= wl.generations:
                res.misplaced.append((b, info.block, info.gen, info.seed))
                continue
            else:
                found = info.gen
            if found in ok:
                res.ok += 1
                if found == n + 1 and len(ok) > 1:
                    res.in_flight += 1
            elif found < max(ok):
                res.lost.append((b, found, sorted(ok)))
            else:
                # a valid block of this seed and block number, but of a
                # generation the point cannot hold
                res.misplaced.append((b, b, found, wl.seed))
    return res


class MemDevice:
    """An in-memory block device for the tests: writes go to a pending
    list until flush() makes them durable; crash(keep) keeps a chosen
    subset of the pending writes (a crash after some of them landed)."""

    def __init__(self, nblocks):
        self.durable = bytearray(nblocks * BLOCK)
        self.pending = []

    def write(self, block, data):
        self.pending.append((block, bytes(data)))

    def flush(self):
        for b, d in self.pending:
            self.durable[b * BLOCK:b * BLOCK + len(d)] = d
        self.pending = []

    def crash(self, keep=lambda i, b: False):
        for i, (b, d) in enumerate(self.pending):
            if keep(i, b):
                self.durable[b * BLOCK:b * BLOCK + len(d)] = d
        self.pending = []

    def read_blocks(self, first, count):
        return bytes(self.durable[first * BLOCK:(first + count) * BLOCK])


def run_generation(wl, g, write):
    """Issue generation @g's writes through @write(first block, bytes)."""
    for start, n in wl.gen_runs(g):
        write(start, b"".join(block_content(wl.seed, g, b) for b in range(start, start + n)))


# ------------------------------------------------- file-system workload ---
@dataclass
class FsWorkload:
    """Files in one directory: per generation, create / replace / delete
    (at most one operation per name), each made durable (fsync of the file,
    rename, fsync of the directory) before the generation's mark."""
    seed: int
    generations: int
    ops: int = 8
    max_size: int = 48 << 10
    names: int = 24

    def gen_ops(self, g, before):
        """Generation @g's operations given the state @before ({name:
        version}): a list of (op, name, version) with op in create,
        replace, delete; version = the generation (its content's seed)."""
        rng = random.Random(f"raidlab-crash-fs:{self.seed}:{g}")
        out, used = [], set()
        for _ in range(self.ops):
            name = f"f{rng.randrange(self.names):03d}"
            if name in used:
                continue
            used.add(name)
            if name not in before:
                out.append(("create", name, g))
            elif rng.random() < 0.25:
                out.append(("delete", name, None))
            else:
                out.append(("replace", name, g))
        return out

    def states(self, upto=None):
        """[state after generation 0, 1, ..., upto]; state = {name: version}."""
        upto = self.generations if upto is None else upto
        st = [{}]
        for g in range(1, upto + 1):
            cur = dict(st[-1])
            for op, name, ver in self.gen_ops(g, st[-1]):
                if op == "delete":
                    cur.pop(name, None)
                else:
                    cur[name] = ver
            st.append(cur)
        return st

    def content(self, name, version):
        rng = random.Random(f"raidlab-crash-file:{self.seed}:{name}:{version}")
        size = rng.randint(1, self.max_size)
        head = f"{name} v{version} seed {self.seed} size {size}\n".encode()
        return (head + rng.randbytes(max(0, size - len(head))))[:size]

    def allowed(self, n):
        """{name: set of allowed versions (None = absent)} at a point whose
        last mark is g<n>; names outside the map must be absent."""
        st = self.states(min(n + 1, self.generations))
        now = st[n]
        nxt = st[n + 1] if n + 1 < len(st) else now
        out = {}
        for name in set(now) | set(nxt):
            out[name] = {now.get(name), nxt.get(name)}
        return out

    def to_json(self):
        return {"seed": self.seed, "generations": self.generations, "ops": self.ops,
                "max_size": self.max_size, "names": self.names}


def verify_files(fw, n, listing, read):
    """Check a directory: @listing is its names, @read(name) a file's bytes.
    Returns {"files", "ok", "in_flight", "lost", "corrupt", "unexpected"}."""
    allowed = fw.allowed(n)
    res = {"against_gen": n, "files": 0, "ok": 0, "in_flight": 0, "lost": [], "corrupt": [],
           "unexpected": []}
    present = {x for x in listing if not x.endswith(".tmp")}
    for name in sorted(set(allowed) | present):
        ok = allowed.get(name, {None})
        res["files"] += 1
        if name not in present:
            if None in ok:
                res["ok"] += 1
            else:
                res["lost"].append(name)
            continue
        data = read(name)
        match = [v for v in ok if v is not None and fw.content(name, v) == data]
        if match:
            res["ok"] += 1
            if len(ok) > 1 and match[0] == max((v for v in ok if v is not None), default=0) \
                    and match[0] == n + 1:
                res["in_flight"] += 1
        elif ok == {None}:
            res["unexpected"].append(name)
        else:
            res["corrupt"].append(name)
    res["failures"] = len(res["lost"]) + len(res["corrupt"]) + len(res["unexpected"])
    return res


# -------------------------------------------------------- crash points ---
FLUSH, FUA, MARK = 1, 2, 8     # dm-log-writes entry flags (logwrites.py)


def mark_gen(name, prefix="g"):
    """The generation of a mark "g<N>", else None."""
    if name and name.startswith(prefix) and name[len(prefix):].isdigit():
        return int(name[len(prefix):])
    return None


@dataclass
class Point:
    k: int              # entries replayed: the state after entries [0, k)
    kind: str           # flush, fua, random, end
    gen: int            # the last mark g<N> before it


def select_points(entries, random_n=0, seed=0, start=0, max_flush=None, total=None,
                  keep_first=0):
    """The crash points of a log: just after every FLUSH and FUA entry,
    just after the first write after @start ("write": for an array without
    a write-intent bitmap, a row whose data or parity alone has landed),
    @random_n random points (or, with @total, random points until there
    are @total in all, as far as the log has distinct ones), and the end,
    all >= @start (the mark g0: the array created and flushed), sorted,
    each once. Every point gets the generation of its last mark. @entries
    are (flags, mark name) pairs in log order. @max_flush keeps an evenly
    spread subset of the flush and FUA points (None: all), and every one
    of the first @keep_first of them (a window that must be covered
    whole, such as the commits that give a failed role to a spare)."""
    n = len(entries)
    gen_at = []             # gen_at[k]: last mark generation among entries [0, k)
    cur = None
    gen_at.append(cur)
    for flags, name in entries:
        if flags & MARK:
            g = mark_gen(name)
            if g is not None:
                cur = g
        gen_at.append(cur)
    kinds = {}
    for i, (flags, _) in enumerate(entries):
        k = i + 1
        if k < start:
            continue
        if flags & FLUSH:
            kinds[k] = "flush"
        elif flags & FUA:
            kinds[k] = "fua"
    if max_flush is not None and len(kinds) > max_flush:
        ks = sorted(kinds)
        keep = {ks[round(i * (len(ks) - 1) / max(max_flush - 1, 1))] for i in range(max_flush)} \
            if max_flush > 0 else set()
        keep.update(ks[:keep_first])
        kinds = {k: v for k, v in kinds.items() if k in keep}
    first = next((i + 1 for i in range(max(start - 1, 0), n)
                  if not entries[i][0] & (MARK | FLUSH)), None)
    if first is not None:
        kinds.setdefault(first, "write")
    rng = random.Random(f"raidlab-crash-points:{seed}")
    if n >= start:
        if total is not None:
            tries, want = 0, min(total, n - start + 1)
            while len(kinds) < want - (n not in kinds) and tries < 20 * want:
                tries += 1
                kinds.setdefault(rng.randint(start, n), "random")
        else:
            for _ in range(random_n):
                kinds.setdefault(rng.randint(start, n), "random")
    if kinds.get(n) in (None, "random"):
        kinds[n] = "end"
    return [Point(k, kinds[k], gen_at[k]) for k in sorted(kinds) if gen_at[k] is not None]


def count_kinds(points):
    out = {"flush": 0, "fua": 0, "write": 0, "random": 0, "end": 0}
    for p in points:
        out[p.kind] = out.get(p.kind, 0) + 1
    return out


def late_control_point(entries):
    """A point just after a mark g<N> with N + 1 a generation that wrote
    something after it: checked against N + 1 it must show lost writes.
    Returns (k, N + 1) or None."""
    marks = [(i, mark_gen(name)) for i, (flags, name) in enumerate(entries)
             if flags & MARK and mark_gen(name) is not None]
    for (i, g), (j, g2) in zip(marks, marks[1:]):
        if g >= 1 and g2 == g + 1 and any(not f & MARK for f, _ in entries[i + 1:j]):
            return i + 1, g + 1
    return None
