# SPDX-License-Identifier: GPL-2.0
"""The crash-consistency harness (runs in the VM guest): `raidlab crash-test`.

    base disk --(dm-log-writes, log on another disk)--> lw
    lw --(dm-linear slices)--> <p>-md, <p>-m0 .. <p>-m<n-1>
    raidlab <scheme> ... metadata <p>-md ... <p>-m0 .. <p>-m<n-1>

Every write of every member and of the metadata device goes through the one
log-writes device, so the log holds them all in one completion order, and
each prefix of it is a state the disks could have been in at a crash
(dm-log-writes logs a write once a later flush, or its own FUA, made it
durable; see crash.py). The metadata is on a block device (dm-bufio): DAX
writes to pmem bypass the block layer and cannot be logged.

Replay: the replay disk starts as the base disk did (both zeroed over the
used range) and is moved forward, point after point, by the log's entries
([previous point, point)). Each point is checked on a throw-away
dm-snapshot of the replay disk (transient, COW on a ramdisk), so that the
array's own writes while it is assembled (superblock commits, the resync of
dirty regions, journal recovery) do not reach later points. At each point:
the same slices over the snapshot, the array with the same table line,
wait for the sync action to be idle, verify the workload's flushed state,
`check` and wait: no mismatch; ext4: mount, verify, umount, e2fsck -fn.
"""
import json
import os
import subprocess
import sys
import threading
import time

from . import crash, dm, dmioctl, logwrites, ondisk, srlayout

MiB = 1 << 20


class HarnessError(RuntimeError):
    pass


def log(msg):
    print(f"crash: {msg}", flush=True)


def run(*cmd, check=True, input=None):
    p = subprocess.run(cmd, capture_output=True, text=True, input=input)
    if check and p.returncode:
        raise HarnessError(f"{' '.join(cmd)}: exit {p.returncode}: "
                           + (p.stderr.strip() or p.stdout.strip())[-400:])
    return p


_CTL = None


def ctl():
    """The device-mapper control (ioctls: a dmsetup process per call costs
    a few hundred milliseconds under TCG)."""
    global _CTL
    if _CTL is None:
        _CTL = dmioctl.Control()
    return _CTL


def dm_create(name, line):
    try:
        ctl().create(name, [line])
    except OSError as e:
        raise dm.DmError(f"create {name} ({line}): {e.strerror}") from None


def dm_remove(name):
    try:
        ctl().remove(name)
    except OSError as e:
        raise dm.DmError(f"remove {name}: {e.strerror}") from None


def dm_status(name):
    out = ctl().status(name)
    if len(out) != 1:
        raise dm.DmError(f"{name}: expected one target, got {len(out)}")
    return dm.parse_status(out[0])


def dm_message(name, *words):
    try:
        return ctl().message(name, " ".join(map(str, words)))
    except OSError as e:
        raise dm.DmError(f"message {name} {' '.join(map(str, words))}: {e.strerror}") \
            from None


def zero_range(path, nbytes, chunk=MiB):
    """Zero [0, nbytes) of @path (O_DIRECT, page-aligned buffer)."""
    import mmap
    fd = os.open(path, os.O_WRONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, chunk)
    try:
        off = 0
        while off < nbytes:
            n = min(chunk, nbytes - off)
            os.pwritev(fd, [memoryview(buf)[:n]], off)
            off += n
        os.fsync(fd)
    finally:
        buf.close()
        os.close(fd)


def size_sectors(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_END) >> 9
    finally:
        os.close(fd)


# ------------------------------------------------------------------ rig ---
# plog (parity logging, paper 000): a parity scheme whose capacity is its
# own (regions, sublogs). The harness knows it only through its table and
# its status; PLOG_OPTS are its default extra table words for a crash run:
# short log segments (16 KiB, for 8 KiB chunks) and few log buffers, so
# that a small array's regions fill, wait for buffers and are reintegrated
# within a few generations.
PLOG_OPTS = "log_disks 1 log_ratio 0.25 track_sectors 32 log_buffers 4 regions 8"
PLOG_CHUNK = 16     # a log segment must hold a chunk's record and its header
# --rebuild: FLUSH and FUA points kept after the mark "spare"
WINDOW_AFTER = 12
# sr: the geometry unless --opts names one (dm-hddsim's st39133, paper
# 002's disk); dr 2 unless given
SR_GEOM = "st39133"


def kind(scheme):
    """stripe, mirror, copyset or parity (ondisk.SCHEMES; plog: parity,
    sr: copyset)."""
    return {"plog": "parity", "sr": "copyset"}.get(scheme) or ondisk.SCHEMES[scheme]


def sr_words(opts):
    """sr's table words from --opts words: dr, dm and geom (a disk model's
    name resolved to its line; default dr 2 over st39133), then the rest
    as given."""
    pairs = list(zip(opts[::2], opts[1::2]))
    if not any(k == "geom" for k, _ in pairs):
        pairs.append(("geom", SR_GEOM))
    if not any(k == "dr" for k, _ in pairs):
        pairs.append(("dr", "2"))
    dr, dmc, line = srlayout.options(pairs)
    rest = [w for k, v in pairs if k not in srlayout.LAYOUT_OPTS for w in (k, v)]
    return ["dr", str(dr), "dm", str(dmc), "geom", line] + rest


def plog_fields(line):
    """The plog group of a status line (dm.parse_status()'s scheme_fields:
    L A K B S G seg_sectors capacity_sectors durability log_bytes
    pool_total pool_free pool_min_free pool_waits reintegrations
    regions_with_log max_region_fill_segs cache_hits cache_misses faults), as
    a dict; {} for another scheme's line."""
    names = dm.SCHEME_FIELDS["plog"]
    try:
        st = dm.parse_status(line)
    except dm.ParseError:
        return {}
    if st.scheme != "plog" or not st.scheme_fields:
        return {}
    out = {}
    for k, v in zip(names, st.scheme_fields):
        out[k] = int(v) if v.isdigit() else v
    return out


class Rig:
    """Geometry and names of one array over slices of one device."""

    def __init__(self, scheme, nmembers, chunk=32, data_mib=4, md_mib=4, region=None,
                 prefix="rlc", metadata=True, stripe_cache=None, opts=None, spares=0,
                 missing=None):
        self.scheme, self.n, self.chunk = scheme, nmembers, chunk
        # extra table words (plog: PLOG_OPTS unless given)
        self.opts = (opts if opts is not None else
                     PLOG_OPTS if scheme == "plog" else "").split()
        if scheme == "sr":
            self.opts = sr_words(self.opts)
        # spare slices <p>-s0.. after the members; a member given as "-"
        self.nspares = spares
        self.missing = missing
        self.metadata = metadata
        self.offset = ondisk.MD_DATA_OFFSET if metadata else 0
        self.data_sectors = data_mib * MiB // 512
        self.member_sectors = self.offset + self.data_sectors
        self.md_sectors = md_mib * MiB // 512 if metadata else 0
        self.region = region
        self.prefix = prefix
        self.stripe_cache = stripe_cache
        # plog: found by discover() (its capacity is in its status)
        pairs = list(zip(self.opts[::2], self.opts[1::2]))
        if scheme == "sr":      # sized by its geometry (srlayout.py)
            d = dict(pairs)
            self.length = srlayout.max_length(nmembers, chunk, self.data_sectors,
                                              int(d["dr"]), int(d["dm"]), d["geom"],
                                              self.offset)
        else:
            self.length = None if scheme == "plog" else \
                dm.max_length(scheme, nmembers, chunk, self.data_sectors, pairs)
        self.used = self.md_sectors + (nmembers + spares) * self.member_sectors

    def first_data_sector(self):
        """A member's first sector of data: the data offset; sr's first
        used cylinder after it (srlayout.first_sector())."""
        if self.scheme != "sr":
            return self.offset
        d = dict(zip(self.opts[::2], self.opts[1::2]))
        return srlayout.first_sector(srlayout.parse_geom(d["geom"]), self.offset)

    @property
    def log_disks(self):
        w = self.opts
        return int(w[w.index("log_disks") + 1]) if "log_disks" in w else 1

    @property
    def faults(self):
        w = self.opts
        return int(w[w.index("faults") + 1]) if "faults" in w else 1

    def discover(self, dev):
        """plog: create the array at one chunk's length over the slices of
        @dev, read capacity_sectors from its status, remove it; the length
        is the capacity rounded down to a chunk."""
        for name, line in self.slices(dev):
            dm_create(name, line)
        try:
            self.length = self.chunk
            dm_create(self.name, self.table().line())
            try:
                cap = plog_fields(ctl().status(self.name)[0]).get("capacity_sectors")
            finally:
                dm_remove(self.name)
        finally:
            for name in self.slice_names():
                dm_remove(name)
        if not isinstance(cap, int) or cap < self.chunk:
            self.length = None
            raise HarnessError(f"plog: no usable capacity_sectors in the status ({cap!r})")
        self.length = cap // self.chunk * self.chunk
        return self.length

    @property
    def name(self):
        return self.prefix

    def slice_names(self):
        return ([f"{self.prefix}-md"] if self.metadata else []) + \
            [f"{self.prefix}-m{i}" for i in range(self.n)] + \
            [f"{self.prefix}-s{j}" for j in range(self.nspares)]

    def slices(self, dev):
        """[(name, table line)] of the slices over @dev."""
        out = []
        if self.metadata:
            out.append((f"{self.prefix}-md", f"0 {self.md_sectors} linear {dev} 0"))
        for i in range(self.n):
            start = self.md_sectors + i * self.member_sectors
            out.append((f"{self.prefix}-m{i}",
                        f"0 {self.member_sectors} linear {dev} {start}"))
        for j in range(self.nspares):
            start = self.member_start(self.n + j)
            out.append((f"{self.prefix}-s{j}",
                        f"0 {self.member_sectors} linear {dev} {start}"))
        return out

    @property
    def journal(self):
        w = self.opts
        return "journal" in w and w[w.index("journal") + 1] == "on"

    def dirty_degraded_refused(self):
        """1.6.0: a raid4/raid5/raid6 that is dirty and degraded, with no
        write-hole journal, is refused without start_dirty_degraded."""
        return self.metadata and self.scheme in ("raid4", "raid5", "raid6") and \
            not self.journal

    def member_start(self, i):
        """Sector of member @i's first sector on the underlying device."""
        return self.md_sectors + i * self.member_sectors

    def table(self, assume_clean=True, missing=(), roles=None, spares=True, flags=()):
        """The table line: members given as "-" for the indexes in
        @missing (and self.missing), @roles {index: slice name} in place
        of a member (a spare that took its role), the spare slices unless
        @spares is false, @flags extra words (start_dirty_degraded)."""
        gone = set(missing) | ({self.missing} if self.missing is not None else set())
        roles = roles or {}
        t = dm.Table(scheme=self.scheme, length=self.length,
                     devs=[dm.MISSING if i in gone else
                           f"/dev/mapper/{roles.get(i, f'{self.prefix}-m{i}')}"
                           for i in range(self.n)])
        t.add("chunk_size", self.chunk)
        for f in flags:
            t.add(f)
        if assume_clean and kind(self.scheme) == "parity":
            t.add("assume_clean")
        if self.stripe_cache and kind(self.scheme) == "parity":
            t.add("stripe_cache", self.stripe_cache)
        for i in range(0, len(self.opts) - 1, 2):
            t.add(self.opts[i], self.opts[i + 1])
        if self.metadata:
            t.add("metadata", f"/dev/mapper/{self.prefix}-md")
            if self.region:
                t.add("region_size", self.region)
            taken = set(roles.values())
            for j in range(self.nspares if spares else 0):
                if f"{self.prefix}-s{j}" not in taken:
                    t.add("spare", f"/dev/mapper/{self.prefix}-s{j}")
        return t

    def row_blocks(self):
        if kind(self.scheme) == "copyset":     # no row: chunks copied whole
            return 0
        if self.scheme == "plog":      # a row: N - f * L - f data chunks
            cols = self.n - self.faults * (self.log_disks + 1)
        else:
            cols = ondisk.data_columns(self.scheme, self.n)
        return 0 if cols == 1 else self.chunk * cols // 8

    def up(self, dev, table):
        for name, line in self.slices(dev):
            dm_create(name, line)
        dm_create(self.name, table.line())

    def down(self):
        for name in [self.name] + self.slice_names():
            dm_remove(name)

    def to_json(self):
        return {"scheme": self.scheme, "members": self.n, "chunk": self.chunk,
                "opts": " ".join(self.opts),
                "metadata": "bufio (slice)" if self.metadata else None,
                "data_sectors": self.data_sectors, "md_sectors": self.md_sectors,
                "region_size": self.region, "length": self.length, "used_sectors": self.used,
                "spares": self.nspares, "missing": self.missing}


def mismatch_cnt(line):
    """<mismatch_cnt> of a raidlab status line: dm-raid's sixth field
    (Documentation/dm-raidlab.rst, "Status output"), or None."""
    return dm.parse_status(line).mismatches


def sync_state(name):
    st = dm_status(name)
    return st.sync_action, st.mismatches, st


def wait_propagated(name, timeout=120, interval=0.1):
    """sr: wait until no write's other replicas wait (its status group's
    <pending>), so that the removal after a workload is a clean shutdown:
    a suspend leaves waiting propagations, their regions dirty. Returns
    the seconds waited, or None if they still waited at @timeout."""
    t0 = time.monotonic()
    while True:
        st = dm_status(name)
        if st.scheme != "sr" or len(st.scheme_fields) < 6 or st.scheme_fields[5] == "0":
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            return None
        time.sleep(interval)


def wait_idle(name, timeout=300, interval=0.1, degraded=False):
    """Wait until the array's sync action is idle; returns seconds waited.
    @degraded: a failed member is expected, and frozen (work left that
    needs the missing member) ends the wait as idle does."""
    t0 = time.monotonic()
    while True:
        action, _, st = sync_state(name)
        if action == "idle" or (degraded and action == "frozen"):
            return time.monotonic() - t0
        if action == "frozen" or ("D" in st.health and not degraded):
            raise HarnessError(f"{name}: sync {action}, health {st.health}")
        if time.monotonic() - t0 > timeout:
            raise HarnessError(f"{name}: still {action} after {timeout} s")
        time.sleep(interval)


def sync_words(name):
    """'<sync_action> <synced>/<total>' of the array's status."""
    st = dm_status(name)
    return f"{st.sync_action} {st.sync_progress}"


def run_check(name, timeout=300):
    """Message check, wait until idle; returns (mismatches, seconds)."""
    t0 = time.monotonic()
    dm_message(name, "check")
    wait_idle(name, timeout)
    _, mm, _ = sync_state(name)
    return mm, time.monotonic() - t0


# --------------------------------------------------------- block I/O ---
class DirectDev:
    """O_DIRECT block I/O on a device, page-aligned buffers."""

    def __init__(self, path, write=False, bufsize=MiB):
        import mmap
        self.fd = os.open(path, (os.O_RDWR if write else os.O_RDONLY) | os.O_DIRECT)
        self.mmap = mmap
        self.local = threading.local()
        self.bufsize = bufsize

    def _buf(self):
        b = getattr(self.local, "buf", None)
        if b is None:
            b = self.local.buf = self.mmap.mmap(-1, self.bufsize)
        return b

    def write_blocks(self, first, data):
        buf = self._buf()
        off, pos = first * crash.BLOCK, 0
        while pos < len(data):
            n = min(self.bufsize, len(data) - pos)
            buf[:n] = data[pos:pos + n]
            if os.pwritev(self.fd, [memoryview(buf)[:n]], off + pos) != n:
                raise HarnessError("short write")
            pos += n

    def read_blocks(self, first, count):
        buf = self._buf()
        out = []
        off, left = first * crash.BLOCK, count * crash.BLOCK
        while left:
            n = min(self.bufsize, left)
            if os.preadv(self.fd, [memoryview(buf)[:n]], off) != n:
                raise HarnessError("short read")
            out.append(bytes(buf[:n]))
            off += n
            left -= n
        return b"".join(out)

    def flush(self):
        os.fsync(self.fd)

    def close(self):
        os.close(self.fd)


def run_block_gen(dev, wl, g, threads):
    """Generation @g's writes from @threads threads (runs dealt round-robin)."""
    runs = wl.gen_runs(g)
    errors = []

    def worker(mine):
        try:
            for start, n in mine:
                dev.write_blocks(start, b"".join(crash.block_content(wl.seed, g, b)
                                                 for b in range(start, start + n)))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    ts = [threading.Thread(target=worker, args=(runs[i::threads],)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise HarnessError(f"generation {g}: {errors[0]}")
    return sum(n for _, n in runs)


# ---------------------------------------------------- file-system I/O ---
MNT = "/mnt/crash"


def fs_apply_gen(fw, g, before, mnt=MNT):
    ops = fw.gen_ops(g, before)
    dfd = os.open(mnt, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for op, name, ver in ops:
            path = os.path.join(mnt, name)
            if op == "delete":
                os.unlink(path)
            else:
                tmp = path + ".tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                try:
                    data = fw.content(name, ver)
                    pos = 0
                    while pos < len(data):
                        pos += os.write(fd, data[pos:])
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.rename(tmp, path)
            os.fsync(dfd)
    finally:
        os.close(dfd)
    return len(ops)


def fs_verify(fw, n, mnt=MNT):
    def read(name):
        with open(os.path.join(mnt, name), "rb") as f:
            return f.read()
    names = [x for x in os.listdir(mnt) if x != "lost+found"]
    return crash.verify_files(fw, n, names, read)


def mount(dev, mnt=MNT):
    os.makedirs(mnt, exist_ok=True)
    run("mount", "-t", "ext4", dev, mnt)


def umount(mnt=MNT):
    run("umount", mnt)


# ------------------------------------------------------------- the run ---
class CrashTest:
    def __init__(self, a):
        self.a = a
        opts = getattr(a, "plog_opts", None)
        if getattr(a, "opts", None):
            opts = ((opts if opts is not None else
                     PLOG_OPTS if a.scheme == "plog" else "") + " " + a.opts).strip()
        self.missing = getattr(a, "missing", None)
        self.fail = getattr(a, "fail", None)
        self.rebuild = getattr(a, "rebuild", None)
        self.rig = Rig(a.scheme, a.members, a.chunk, a.data_mib, a.md_mib, a.region_size,
                       prefix=a.prefix, metadata=not a.no_metadata, opts=opts,
                       spares=1 if self.rebuild is not None else 0, missing=self.missing)
        # a member failed (given as "-", or by message) before the workload:
        # the array runs degraded, and is assembled with "-" in its place
        self.degraded = self.missing is not None or self.fail is not None
        # a rebuilding member is not in sync either: a dirty point of a
        # rebuild is dirty and degraded too
        self.sdd = (self.degraded or self.rebuild is not None) and \
            self.rig.dirty_degraded_refused()
        self.fs = a.workload == "ext4"
        self.check_supported = None
        self.result = {"scheme": a.scheme, "workload": a.workload, "rig": self.rig.to_json(),
                       "seed": a.seed, "devices": {"base": a.base, "log": a.log,
                                                   "replay": a.replay, "cow": a.cow},
                       "degraded": {"missing": self.missing, "fail": self.fail},
                       "rebuild": self.rebuild, "start_dirty_degraded": self.sdd,
                       "variant": a.scheme + self.variant()}
        self.wl = None
        if self.rig.length is not None:     # plog: after discover(), in record()
            self.make_workload()

    def variant(self):
        """'+fail1', '+missing2', '+rebuild1' or ''."""
        for v in ("missing", "fail", "rebuild"):
            if getattr(self, v) is not None:
                return f"+{v}{getattr(self, v)}"
        return ""

    def make_workload(self):
        a = self.a
        if self.fs:
            self.wl = crash.FsWorkload(a.seed, a.generations, ops=a.ops)
        else:
            self.wl = crash.BlockWorkload(a.seed, self.rig.length // 8, a.generations,
                                          ops=a.ops, max_run=a.max_run,
                                          row_blocks=self.rig.row_blocks())
        self.result["rig"] = self.rig.to_json()
        self.result["workload_params"] = self.wl.to_json()

    # --------------------------------------------------------- record ---
    def record(self):
        a, rig = self.a, self.rig
        t0 = time.monotonic()
        used = rig.used * 512
        for d in (a.base, a.replay):
            if size_sectors(d) < rig.used:
                raise HarnessError(f"{d}: smaller than the {rig.used} sectors used")
            zero_range(d, used)
        if rig.length is None:
            # plog: its capacity from a one-chunk array over the base
            # disk's slices (not logged), which is zeroed again after
            log(f"plog: capacity {rig.discover(a.base)} sectors ({' '.join(rig.opts)})")
            zero_range(a.base, used)
            self.make_workload()
        zero_range(a.log, MiB)
        dm_create("lw", f"0 {rig.used} log-writes {a.base} {a.log}")
        rig.up("/dev/mapper/lw", rig.table())
        wait_idle(rig.name, degraded=self.missing is not None)
        dev = f"/dev/mapper/{rig.name}"
        stats = {"generations": a.generations}
        self.before_workload(stats)
        if self.fs:
            run("mkfs.ext4", "-F", "-q", "-b", "4096", "-E",
                "lazy_itable_init=0,lazy_journal_init=0,nodiscard", dev)
            mount(dev)
            os.sync()
            dm_message("lw", "mark", "g0")
            state, files = {}, 0
            for g in range(1, a.generations + 1):
                files += fs_apply_gen(self.wl, g, state)
                state = self.wl.states(g)[g]
                dm_message("lw", "mark", f"g{g}")
                log(f"record {a.scheme} ext4 generation {g}: {len(state)} files")
            umount()
            stats["file_ops"] = files
        else:
            d = DirectDev(dev, write=True)
            try:
                d.flush()
                dm_message("lw", "mark", "g0")
                blocks = 0
                for g in range(1, a.generations + 1):
                    blocks += run_block_gen(d, self.wl, g, a.threads)
                    d.flush()
                    dm_message("lw", "mark", f"g{g}")
                    if self.rebuild is not None:
                        stats.setdefault("sync_after_gen", []).append(sync_words(rig.name))
                    if g % max(1, a.generations // 5) == 0 or g == a.generations:
                        log(f"record {a.scheme} generation {g}/{a.generations}")
            finally:
                d.close()
            stats["blocks_written"] = blocks
        st = dm_status(rig.name)
        stats["array_writes"] = st.logical_writes
        stats["health_at_end"] = st.health
        if self.rebuild is not None:
            # the rebuild still ran when the workload ended: every point
            # after g0 is a crash in the middle of it
            stats["sync_at_end"] = sync_words(rig.name)
            stats["rebuild_interrupted"] = stats["sync_at_end"].startswith("recover ")
            log(f"rebuild onto the spare at the end of the workload: {stats['sync_at_end']}")
        if rig.scheme == "plog":
            # what the recorded run exercised: pool waits, reintegrations
            stats["plog"] = plog_fields(ctl().status(rig.name)[0])
        if rig.scheme == "sr":
            # the end point a clean shutdown: the waiting replicas written
            # first (the corrupt control checks the replicas there)
            stats["propagated_s"] = wait_propagated(rig.name)
        rig.down()
        dm_remove("lw")
        stats["seconds"] = round(time.monotonic() - t0, 2)
        self.result["record"] = stats
        log(f"recorded {a.scheme} {a.workload}: {stats}")

    # --------------------------------------------------------- replay ---
    def points(self, lg):
        ents = lg.entries()
        pairs = [(e.flags, e.mark) for e in ents]
        g0 = next((e.index for e in ents if e.mark == "g0"), None)
        if g0 is None:
            raise HarnessError("no mark g0 in the log")
        # with --rebuild, every FLUSH and FUA point from the failure to
        # the mark "spare" (the rebuild seen running), and WINDOW_AFTER
        # after it: the commits of the failure and of the spare's role
        # (the role's commit ends before the rebuild's first I/O; one
        # commit is a handful of FLUSH/FUA writes)
        spare = next((e.index for e in ents if e.mark == "spare"), None)
        window = 0
        if spare is not None:
            window = WINDOW_AFTER + sum(1 for f, _ in pairs[g0 + 1:spare]
                                        if f & (crash.FLUSH | crash.FUA))
        pts = crash.select_points(pairs, self.a.random, self.a.seed, start=g0 + 1,
                                  max_flush=self.a.max_flush, total=self.a.total_points,
                                  keep_first=window)
        self.result["log"] = {"entries": len(ents), "lifecycle_window": window,
                              "flush": sum(1 for f, _ in pairs if f & crash.FLUSH),
                              "fua": sum(1 for f, _ in pairs if f & crash.FUA
                                         and not f & crash.FLUSH),
                              "marks": sum(1 for f, _ in pairs if f & crash.MARK),
                              "g0": g0}
        return pts, pairs

    def before_workload(self, stats):
        """--fail: member I failed by message; --rebuild: member I failed
        with a spare present and a low sync_rate, so that the rebuild onto
        the spare runs through the workload. Then a flush: the failure is
        committed before the mark g0 (1.6.0 commits it before any flush
        that ends after it), and every crash point sees it."""
        a, rig = self.a, self.rig
        if self.fail is not None:
            dm_message(rig.name, "fail", self.fail)
            log(f"member {self.fail} failed by message before the workload: "
                f"{dm_status(rig.name).health}")
        if self.rebuild is not None:
            dm_message(rig.name, "sync_rate", a.sync_rate)
            if not self.fs:
                # the points start before the failure: its record and the
                # commit that gives the role to the spare are crash
                # windows too (the data is generation 0 throughout)
                dm_message("lw", "mark", "g0")
            dm_message(rig.name, "fail", self.rebuild)
            t0 = time.monotonic()
            while not sync_words(rig.name).startswith("recover "):
                if time.monotonic() - t0 > 30:
                    raise HarnessError(f"no rebuild after fail {self.rebuild}: "
                                       f"{sync_words(rig.name)}")
                time.sleep(0.05)
            stats["sync_at_g0"] = sync_words(rig.name)
            log(f"member {self.rebuild} failed, rebuilding onto the spare at sync_rate "
                f"{a.sync_rate} KiB/s: {dm_status(rig.name).health} {stats['sync_at_g0']}")
        if self.sdd:
            log(f"{rig.scheme} degraded or rebuilding without a write-hole journal: each point is "
                "assembled without start_dirty_degraded first (refused when dirty), then "
                "with it")
        fd = os.open(f"/dev/mapper/{rig.name}", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        if self.rebuild is not None and not self.fs:
            dm_message("lw", "mark", "spare")

    def replay_tables(self, sdd):
        """The lines a point may be assembled with, in the order a user
        tries them: a failed member as "-"; with --rebuild, the spare in
        the failed role ("spare in role"), then the array as created
        ("as created"), for a crash before the commit that gave the spare
        the role (the kernel refuses the line that does not match)."""
        rig = self.rig
        missing = [self.fail] if self.fail is not None else []
        flags = ["start_dirty_degraded"] if sdd else []
        if self.rebuild is None:
            return [("as created", rig.table(missing=missing, flags=flags))]
        return [("spare in role", rig.table(missing=missing, flags=flags, spares=False,
                                            roles={self.rebuild: f"{rig.prefix}-s0"})),
                ("as created", rig.table(missing=missing, flags=flags))]

    def assemble(self, r):
        """Create the array of a point with the first line the kernel
        takes (replay_tables()), each without start_dirty_degraded first
        when that may be needed (refused when dirty), as a user would.
        Records which in @r; raises the first refusal if none is taken."""
        first = None
        for (name, line), (_, forced) in zip(self.replay_tables(False), self.replay_tables(True)):
            tries = [(line, "not needed")] + ([(forced, "refused without it")] if self.sdd else [])
            for t, sdd in tries:
                try:
                    dm_create(self.rig.name, t.line())
                except dm.DmError as e:
                    first = first or e
                    continue
                r["table"] = name
                if self.sdd:
                    r["start_dirty_degraded"] = sdd
                return
        raise first

    def snap_up(self):
        a = self.a
        dm_create("rlc-snap", f"0 {self.rig.used} snapshot {a.replay} {a.cow} N 8")

    def corrupt(self):
        """Negative control: different garbage in the first data block of
        every member (raid4/raid5: data and parity of row 0; mirror: every
        copy of block 0; sr: replica 0 of each member's first block)."""
        rig = self.rig
        for i in range(rig.n):
            junk = os.urandom(crash.BLOCK)
            path = f"/dev/mapper/{rig.prefix}-m{i}"
            fd = os.open(path, os.O_WRONLY)
            try:
                os.pwrite(fd, junk, rig.first_data_sector() * 512)
                os.fsync(fd)
            finally:
                os.close(fd)

    def durable(self):
        """What the replayed disks say before assembly, for the point's
        JSON: the newest metadata slot's events and member states, and
        each member and spare slice's superblock (role, events), or why
        one does not decode. Without a metadata device: None."""
        rig = self.rig
        if not rig.metadata:
            return None

        def block(name, nr):
            fd = os.open(f"/dev/mapper/{rig.prefix}-{name}", os.O_RDONLY)
            try:
                return os.pread(fd, ondisk.BLOCK, nr * ondisk.BLOCK)
            finally:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)   # the kernel writes next
                os.close(fd)
        _, st, errors = ondisk.newest_sb([block("md", s) for s in ondisk.SB_SLOTS])
        out = {"events": st.events if st else None,
               "members": [f"{ondisk.MEMBER_STATES.get(m.state, m.state)}"
                           + (f"@{m.cursor}" if m.state == ondisk.MS_REBUILDING else "")
                           for m in st.members] if st else [str(e) for e in errors],
               "msb": {}}
        for name in [f"m{i}" for i in range(rig.n)] + [f"s{j}" for j in range(rig.nspares)]:
            try:
                m = ondisk.decode_msb(block(name, 0))
                out["msb"][name] = f"{'spare' if m.is_spare else m.role}@{m.events}"
            except ondisk.FormatError as e:
                out["msb"][name] = "blank" if isinstance(e, ondisk.BlankError) else str(e)
        return out

    def check_point(self, p, against=None, corrupt=False):
        """Assemble over a snapshot of the replay disk and check point @p.
        Returns a dict (ok: no failure)."""
        rig = self.rig
        n = p.gen if against is None else against
        r = {"k": p.k, "kind": p.kind, "gen": p.gen, "against_gen": n}
        t0 = time.monotonic()
        self.snap_up()
        try:
            for name, line in rig.slices("/dev/mapper/rlc-snap"):
                dm_create(name, line)
            if corrupt:
                self.corrupt()
            if self.rebuild is not None or self.fail is not None:
                r["durable"] = self.durable()
            try:
                self.assemble(r)
            except dm.DmError as e:
                r.update(ok=False, error=f"assemble: {e}")
                return r
            t1 = time.monotonic()
            r["assemble_s"] = round(t1 - t0, 3)
            r["sync_at_load"] = sync_words(rig.name)
            r["health_at_load"] = dm_status(rig.name).health
            try:
                r["resync_s"] = round(wait_idle(rig.name, self.a.timeout,
                                                degraded=self.degraded), 3)
            except HarnessError as e:
                r.update(ok=False, error=str(e))
                return r
            t2 = time.monotonic()
            dev = f"/dev/mapper/{rig.name}"
            if self.fs:
                try:
                    mount(dev)
                except HarnessError as e:
                    r.update(ok=False, error=f"mount: {e}")
                    return r
                try:
                    v = fs_verify(self.wl, n)
                finally:
                    umount()
                fsck = run("e2fsck", "-fn", dev, check=False)
                r["fsck_rc"] = fsck.returncode
                if fsck.returncode:
                    r["fsck"] = (fsck.stdout + fsck.stderr)[-1500:]
                r["verify"] = {k: (v[k] if not isinstance(v[k], list) else len(v[k]))
                               for k in v}
                r["verify"]["examples"] = {k: v[k][:10] for k in ("lost", "corrupt",
                                                                    "unexpected")}
                vfail = v["failures"]
            else:
                d = DirectDev(dev)
                try:
                    v = crash.verify_blocks(self.wl, n, d.read_blocks)
                finally:
                    d.close()
                r["verify"] = v.to_json()
                vfail = v.failures
            t3 = time.monotonic()
            r["verify_s"] = round(t3 - t2, 3)
            mm = None
            if rig.scheme == "plog":
                r["plog"] = plog_fields(ctl().status(rig.name)[0])
            if self.degraded:
                r["check"] = "not run: refused while a member is failed"
            elif kind(rig.scheme) != "stripe" and not self.a.no_check \
                    and self.check_supported is not False:
                try:
                    mm, r["check_s"] = run_check(rig.name, self.a.timeout)
                    r["check_s"] = round(r["check_s"], 3)
                    self.check_supported = True
                except (HarnessError, dm.DmError) as e:
                    if self.check_supported is None and "Invalid argument" in str(e):
                        # this module has no check for the scheme (the
                        # kernel log says why): verify only, and say so
                        self.check_supported = False
                        self.result["check_supported"] = False
                        log(f"{rig.scheme}: check refused ({e}): points are checked "
                            "without scrub")
                    else:
                        r.update(ok=False, error=f"check: {e}")
                        return r
            r["mismatches"] = mm
            r["ok"] = vfail == 0 and not mm and r.get("fsck_rc", 0) == 0
            return r
        finally:
            t4 = time.monotonic()
            try:
                rig.down()
            except dm.DmError:
                pass
            dm_remove("rlc-snap")
            r["teardown_s"] = round(time.monotonic() - t4, 3)
            r["seconds"] = round(time.monotonic() - t0, 3)

    def replay(self):
        a = self.a
        lg = logwrites.Log(a.log)
        pts, pairs = self.points(lg)
        counts = crash.count_kinds(pts)
        self.result["points_selected"] = counts
        log(f"{a.scheme} {a.workload}: {len(pts)} points ({counts}) of "
            f"{self.result['log']['entries']} entries")
        late = crash.late_control_point(pairs) if a.controls else None
        if a.controls and late is None:
            self.result.setdefault("controls", {})["late"] = {
                "detected": False, "error": "no point for it (needs 2 generations or more)"}
        results, fails = [], 0
        fd = os.open(a.replay, os.O_WRONLY)
        t0 = time.monotonic()
        done = 0
        replay_s = 0.0
        try:
            for i, p in enumerate(pts):
                if late and done <= late[0] <= p.k:
                    lg.replay(open_fd(fd), done, late[0])
                    done = late[0]
                    self.late_control(late)
                    late = None
                tr = time.monotonic()
                lg.replay(open_fd(fd), done, p.k)
                done = p.k
                dt = time.monotonic() - tr
                replay_s += dt
                r = self.check_point(p)
                r["replay_s"] = round(dt, 3)
                results.append(r)
                if not r["ok"]:
                    fails += 1
                self.progress(i + 1, len(pts), r, t0)
            if a.controls:
                if done < len(pairs):
                    lg.replay(open_fd(fd), done, len(pairs))
                    done = len(pairs)
                self.corrupt_control(crash.Point(len(pairs), "end",
                                                 pts[-1].gen if pts else a.generations))
        finally:
            os.close(fd)
            lg.close()
        self.result["points"] = results
        self.result["checked"] = crash.count_kinds(
            [crash.Point(r["k"], r["kind"], r["gen"]) for r in results])
        self.result["failures"] = [{"index": i, "k": r["k"], "kind": r["kind"],
                                    "error": r.get("error"), "verify": r.get("verify"),
                                    "mismatches": r.get("mismatches"),
                                    "fsck_rc": r.get("fsck_rc")}
                                   for i, r in enumerate(results) if not r["ok"]]
        self.result["replay_seconds"] = round(time.monotonic() - t0, 2)
        self.result["replay_write_seconds"] = round(replay_s, 2)
        return fails

    def progress(self, i, n, r, t0):
        what = "ok" if r["ok"] else "FAIL " + (r.get("error") or json.dumps(
            {k: r.get(k) for k in ("verify", "mismatches", "fsck_rc")})[:300])
        el = time.monotonic() - t0
        print(f"crash: {self.a.scheme} point {i}/{n} k={r['k']} {r['kind']} g{r['gen']} "
              f"{r.get('seconds', 0):.1f}s elapsed {el:.0f}s {what}", flush=True)

    def late_control(self, late):
        k, against = late
        r = self.check_point(crash.Point(k, "control", against - 1), against=against)
        v = r.get("verify") or {}
        lost = v.get("lost", 0)
        detected = bool(lost) and not r.get("error")
        self.result.setdefault("controls", {})["late"] = {
            "k": k, "last_mark": against - 1, "checked_against": against, "lost": lost,
            "detected": detected, "verify": v}
        log(f"control: point {k} (last mark g{against - 1}) checked against g{against}: "
            f"{lost} lost -> {'detected' if detected else 'NOT DETECTED'}")

    def corrupt_control(self, p):
        r = self.check_point(p, corrupt=True)
        v = r.get("verify") or {}
        bad = (v.get("corrupt", 0) + v.get("lost", 0) + v.get("misplaced", 0)) if not self.fs \
            else None
        mm = r.get("mismatches")
        if self.fs:
            detected = not r.get("ok")
        else:
            detected = bool(bad) and (bool(mm) or self.a.no_check or self.degraded
                                      or self.check_supported is False)
        self.result.setdefault("controls", {})["corrupt"] = {
            "k": p.k, "bad_blocks": bad, "mismatches": mm, "detected": detected,
            "error": r.get("error"), "fsck_rc": r.get("fsck_rc")}
        log(f"control: garbage in the first data block of every member at the end: "
            f"{bad} bad blocks, {mm} mismatched sectors -> "
            f"{'detected' if detected else 'NOT DETECTED'}")

    def main(self):
        a = self.a
        t0 = time.monotonic()
        self.result["started"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        try:
            self.record()
            fails = self.replay()
        except Exception:
            cleanup(self.rig)
            raise
        self.result["seconds"] = round(time.monotonic() - t0, 2)
        self.result.setdefault("check_supported", None if a.no_check else self.check_supported)
        ctl = self.result.get("controls", {})
        self.result["controls_ok"] = all(c.get("detected") for c in ctl.values()) \
            if a.controls else None
        self.result["ok"] = fails == 0 and (self.result["controls_ok"] is not False)
        write_out(self.result, a.out,
                  f"crash-{a.scheme}{self.variant().replace('+', '-')}-{a.workload}")
        c = self.result["checked"]
        log(f"RESULT {a.scheme}{self.variant()} {a.workload}: {sum(c.values())} points "
            f"(flush {c['flush']}, fua {c['fua']}, write {c['write']}, random {c['random']}, "
            f"end {c['end']}), "
            f"{fails} failed, controls "
            f"{'-' if not a.controls else ('ok' if self.result['controls_ok'] else 'FAILED')}, "
            f"{self.result['seconds']:.0f} s")
        return 0 if self.result["ok"] else 1


class open_fd:
    """A file-like wrapper so Log.replay writes to an open descriptor."""

    def __init__(self, fd):
        self.fd = fd

    def fileno(self):
        return self.fd


def cleanup(rig):
    subprocess.run(["umount", MNT], capture_output=True)
    for name in [rig.name] + rig.slice_names() + ["rlc-snap", "lw"]:
        subprocess.run(["dmsetup", "remove", name], capture_output=True)


def write_out(result, out, stem):
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, stem + ".json"), "w") as f:
        json.dump(result, f, indent=1)
    cols = ("k", "kind", "gen", "ok", "assemble_s", "resync_s", "verify_s", "check_s",
            "teardown_s", "replay_s", "seconds", "mismatches")
    with open(os.path.join(out, stem + ".csv"), "w") as f:
        f.write(",".join(cols) + ",failures\n")
        for r in result.get("points", []):
            v = r.get("verify") or {}
            fl = v.get("failures", (v.get("lost", 0) or 0) + (v.get("corrupt", 0) or 0)
                       + (v.get("misplaced", 0) or 0))
            f.write(",".join("" if r.get(c) is None else str(r.get(c)) for c in cols)
                    + f",{fl}\n")


# ------------------------------------------------------------ the verb ---
def register(verbs):
    p = verbs.add_parser(
        "crash-test", help="record a workload through dm-log-writes, replay it to crash "
        "points and check each (in the VM guest)",
        description="Crash-consistency test of one scheme (Documentation/raidlab-tools.rst, "
        "'Crash consistency'): one dm-log-writes device over BASE logs the members' and "
        "the metadata slice's writes to LOG; the log is replayed point by point onto "
        "REPLAY, and every point is assembled on a throw-away snapshot (COW) and checked.")
    p.add_argument("--scheme", required=True,
                   choices=("raid5", "raid4", "raid6", "mirror", "plog", "raid10",
                            "chained", "sr"),
                   help="the scheme under test")
    p.add_argument("--members", type=int,
                   help="default: 4 for raid4/raid5/raid6/plog/raid10/sr, 5 for chained, "
                   "2 for mirror")
    p.add_argument("--opts", default=None, metavar="WORDS",
                   help="extra table words (e.g. 'journal on'), after plog's; sr: its "
                   "own (dr 2 and geom st39133 unless given; a disk model's name for geom)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--missing", type=int, metavar="I",
                   help="member I given as '-' from the start (a degraded array)")
    g.add_argument("--fail", type=int, metavar="I",
                   help="member I failed by message before the workload (degraded); "
                   "points are assembled with it as '-'")
    g.add_argument("--rebuild", type=int, metavar="I",
                   help="a spare slice; member I failed before the workload, so that the "
                   "rebuild onto the spare (slowed by --sync-rate) runs through it: every "
                   "point interrupts the rebuild, which must resume and end with check 0")
    p.add_argument("--sync-rate", type=int, default=256, metavar="KIBS",
                   help="sync_rate during the recorded rebuild (default 256 KiB/s)")
    p.add_argument("--plog-opts", default=None, metavar="WORDS",
                   help=f"plog's extra table words (default '{PLOG_OPTS}')")
    p.add_argument("--workload", choices=("block", "ext4"), default="block",
                   help="block writes, or files on ext4 (default block)")
    p.add_argument("--seed", type=int, default=1, help="random seed of the workload")
    p.add_argument("--generations", type=int, default=4,
                   help="rounds of writes, each verified (default 4)")
    p.add_argument("--ops", type=int, default=24, help="writes (block) or file operations "
                   "(ext4) per generation")
    p.add_argument("--max-run", type=int, default=8, help="longest write in blocks")
    p.add_argument("--threads", type=int, default=4, help="writers in flight (block)")
    p.add_argument("--points", "--random", dest="random", type=int, default=10,
                   help="random crash points besides every FLUSH and FUA (default 10)")
    p.add_argument("--total-points", type=int, metavar="N",
                   help="instead of --points: random points until N points in all")
    p.add_argument("--max-flush", type=int, help="at most this many FLUSH/FUA points "
                   "(evenly spread; default all)")
    p.add_argument("--chunk", type=int, default=None,
                   help=f"chunk in sectors (default 32; plog {PLOG_CHUNK})")
    p.add_argument("--data-mib", type=int, default=4, help="data MiB per member (default 4)")
    p.add_argument("--md-mib", type=int, default=4, help="metadata slice MiB (default 4)")
    p.add_argument("--region-size", type=int, help="write-intent region in sectors")
    p.add_argument("--no-metadata", action="store_true",
                   help="no metadata device (expect failures: no write-intent bitmap)")
    p.add_argument("--base", default="/dev/rl/m0", help="disk the rig's slices are cut from")
    p.add_argument("--log", default="/dev/rl/m1", help="dm-log-writes log device")
    p.add_argument("--replay", default="/dev/rl/m2", help="disk the crash images are replayed to")
    p.add_argument("--cow", default="/dev/ram0", help="snapshot COW device (default "
                   "/dev/ram0: modprobe brd first)")
    p.add_argument("--prefix", default="rlc", help="dm names' prefix (default rlc)")
    p.add_argument("--timeout", type=float, default=300, help="per wait, seconds")
    p.add_argument("--no-check", action="store_true",
                   help="do not scrub (check) at each point (modules without check)")
    p.add_argument("--controls", action="store_true",
                   help="negative controls: a point checked one generation too late, "
                   "and garbage in a block at the end: both must be detected")
    p.add_argument("--out", default="/out", help="JSON and CSV here (default /out)")
    p.set_defaults(func=cmd_crash_test)


def cmd_crash_test(a):
    if a.members is None:
        a.members = {"mirror": 2, "chained": 5}.get(a.scheme, 4)
    if a.chunk is None:
        a.chunk = PLOG_CHUNK if a.scheme == "plog" else 32
    try:
        return CrashTest(a).main()
    except HarnessError as e:
        print(f"raidlab crash-test: {e}", file=sys.stderr)
        return 1
