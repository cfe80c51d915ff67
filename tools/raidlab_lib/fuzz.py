# SPDX-License-Identifier: GPL-2.0
"""raidlab fuzz-lines: random and mutated raidlab table lines and messages
for a VM test to feed to dmsetup (Documentation/raidlab-tools.rst).

Output, one per line:
    valid <start> <len> raidlab <args...>     a valid table line (--valid N: N per
                                              scheme, first): the kernel must accept it
                                              over blank members and metadata
    table <start> <len> raidlab <args...>     a table line for dmsetup create
    message <words...>                        a target message (dmsetup message NAME 0 ...)
The schemes are raid0, mirror, raid10, chained, raid4, raid5, raid6 and plog. The same seed
and options give the same lines (random.Random(seed)).
"""
import random

from . import dm, ondisk

SCHEMES = tuple(ondisk.SCHEMES) + ("plog",)
PLOG_MIN_MEMBERS = 3
POLICIES = ("fifo", "look", "rlook", "satf", "rsatf")
MESSAGES = ("fail", "reset_counters", "sched", "geom", "tracker", "check", "repair", "idle",
            "sync_rate", "rebuild_rate", "re_add")
NUMS = ("0", "-1", "1", "7", "8", "9", "4096", "2049", "2048", "4294967295", "4294967296",
        "18446744073709551615", "18446744073709551616", "99999999999999999999999", "0x10",
        "1e3", "+5", " ", "08", "-0", "1.5", "nan")
WORDS = ("bogus", "chunk_size", "metadata", "spare", "region_size", "assume_clean", "sched",
         "queue_depth", "stripe_cache", "-", "--", "", "raidlab", "mirror", "raid6", "%s%n",
         "\\x00", "/dev/null", "/dev/nonexistent", "0:0", "999:999", "/dev/rl/m0",
         "plog", "log_disks", "log_ratio", "log_tracks", "track_sectors", "regions",
         "log_buffers", "data_cache", "faults", "journal", "start_dirty_degraded")


# linux/dm-ioctl.h: a target type name, its NUL included
DM_MAX_TYPE_NAME = 16


class Gen:
    def __init__(self, seed, devs, metadata, spares, member_sectors):
        self.r = random.Random(seed)
        self.devs = list(devs)
        self.metadata = metadata
        self.spares = list(spares)
        self.member_sectors = member_sectors

    # ------------------------------------------------------- valid lines ---
    def valid_table(self, scheme=None):
        r = self.r
        scheme = scheme or r.choice(SCHEMES)
        if scheme == "plog":
            return self.valid_plog()
        lo = ondisk.MIN_MEMBERS[scheme]
        copyset = ondisk.SCHEMES[scheme] == "copyset"
        hi = max(lo, len(self.devs))
        if copyset:     # no "-": missing members could hold one chunk's every copy
            hi = max(lo, min(hi, len(self.devs)))
        n = r.randint(lo, hi)
        devs = self.devs[:n] if n <= len(self.devs) else self.devs + ["-"] * (n - len(self.devs))
        parity = ondisk.SCHEMES[scheme] == "parity"
        # a copy layout needs a few chunks a member: none of a GiB
        chunk = r.choice((8, 16, 64, 128, 256, 1024, 2048) +
                         (() if parity or copyset else (4096, 1 << 21)))
        t = dm.Table(scheme=scheme, devs=list(devs))
        t.add("chunk_size", chunk)
        if scheme == "raid10" and r.random() < 0.7:
            t.add("layout", r.choice(("near", "far", "offset")))
            t.add("copies", r.randint(2, n))
        if copyset and r.random() < 0.3:
            t.add("reads", r.choice(("balance", "dup")))
        use_md = self.metadata and r.random() < 0.5
        if parity and r.random() < 0.3:
            t.add("assume_clean")
        if parity and r.random() < 0.2:
            t.add("stripe_cache", r.choice((4, 16, 64)))
        if r.random() < 0.3:
            t.add("sched", r.choice(POLICIES))
        if r.random() < 0.2:
            t.add("queue_depth", r.choice((1, 8, 32, 1024)))
        if use_md:
            t.add("metadata", self.metadata)
            for s in self.spares[:r.randint(0, len(self.spares))]:
                t.add("spare", s)
            if r.random() < 0.3:
                # a power of two no smaller than the chunk (args.c)
                t.add("region_size", r.choice([x for x in (8, 1024, 2048, 65536)
                                               if x >= chunk] or [chunk]))
        off = ondisk.MD_DATA_OFFSET if use_md else 0
        ms = max(self.member_sectors - off, 0)
        t.length = dm.max_length(scheme, n, chunk, ms, t.opts)
        if r.random() < 0.3 and t.length > chunk * n:
            t.length -= chunk * (1 if copyset else ondisk.data_columns(scheme, n))
        return t.line().split()

    def valid_plog(self):
        """A plog line its layout surely takes: faults 1, one log disk or
        the default, segments of the default 256 sectors (a chunk's record
        fits: chunk at most 128), a length of a few chunks (the capacity,
        B * S * (g - 1) chunks, is found only by the kernel)."""
        r = self.r
        n = r.randint(PLOG_MIN_MEMBERS, max(PLOG_MIN_MEMBERS, len(self.devs)))
        devs = self.devs[:n] if n <= len(self.devs) else \
            self.devs + ["-"] * (n - len(self.devs))
        chunk = r.choice((8, 16, 64, 128))
        t = dm.Table(scheme="plog", devs=list(devs))
        t.add("chunk_size", chunk)
        if r.random() < 0.3:
            t.add("log_disks", 1)
        if r.random() < 0.3:
            t.add("log_ratio", r.choice(("0.5", "1", "2.25")))
        if r.random() < 0.3:
            t.add("log_buffers", r.choice((2, 16, 64)))
        if r.random() < 0.3:
            t.add("data_cache", r.choice((0, 16, 256)))
        if r.random() < 0.3:
            t.add("assume_clean")
        if r.random() < 0.2:
            t.add("sched", r.choice(POLICIES))
        if self.metadata and r.random() < 0.5:
            t.add("metadata", self.metadata)
            for sp in self.spares[:r.randint(0, len(self.spares))]:
                t.add("spare", sp)
        t.length = chunk * r.randint(1, 16)
        return t.line().split()

    def valid_message(self):
        r = self.r
        m = r.choice(MESSAGES)
        if m == "fail":
            return [m, str(r.randint(0, 7))]
        if m == "re_add":
            return [m, str(r.randint(0, 7))] + r.choice(([], ["full"], ["whole"]))
        if m == "sched":
            return [m, r.choice(POLICIES)]
        if m == "tracker":
            return [m, str(r.randint(0, 7))]
        if m == "geom":
            return [m, str(r.randint(0, 7)), "sectors=1000,rpm=7200"]
        if m in ("sync_rate", "rebuild_rate"):
            return [m, str(r.choice((0, 1, 1024, 100000)))]
        return [m]

    # ----------------------------------------------------------- mutate ---
    def mutate(self, w):
        r = self.r
        w = list(w)
        for _ in range(r.randint(1, 3)):
            op = r.randrange(9)
            i = r.randrange(len(w)) if w else 0
            if not w:
                w.append(r.choice(WORDS))
            elif op == 0:                                   # drop a word
                del w[i]
            elif op == 1:                                   # duplicate a word
                w.insert(i, w[i])
            elif op == 2 and len(w) > 1:                    # swap two words
                j = r.randrange(len(w))
                w[i], w[j] = w[j], w[i]
            elif op == 3:                                   # a number goes bad
                nums = [k for k, x in enumerate(w) if x.lstrip("-").isdigit()]
                w[r.choice(nums) if nums else i] = r.choice(NUMS)
            elif op == 4:                                   # unknown or misplaced word
                w.insert(i, r.choice(WORDS))
            elif op == 5:                                   # a bad device
                w[i] = r.choice(("/dev/nonexistent", "0:0", "1:3", "/dev/null", "-",
                                 "/dev/mapper/control", "/dev/rl/m0"))
            elif op == 6:                                   # a very long word
                w[i] = r.choice("a0/-") * r.randint(256, 5000)
            elif op == 7:                                   # truncate
                del w[r.randrange(1, len(w) + 1):]
            else:                                           # wrong counts
                # (not a very long word of digits: int() refuses those)
                nums = [k for k, x in enumerate(w) if x.isdigit() and len(x) < 64]
                if nums:
                    k = r.choice(nums)
                    w[k] = str(max(int(w[k]) + r.choice((-2, -1, 1, 2, 100)), 0))
        return [x for x in w if x.strip()] or ["bogus"]

    def random_words(self):
        r = self.r
        pool = WORDS + NUMS + SCHEMES + tuple(self.devs)
        return [r.choice(pool) for _ in range(r.randint(0, 20))] or ["x"]

    def line(self):
        r = self.r
        x = r.random()
        if x < 0.65:
            w = self.valid_table()
            if r.random() < 0.9:
                # keep "<start> <len> raidlab" mostly, mutate the arguments
                head, rest = (w[:3], w[3:]) if r.random() < 0.8 else ([], w)
                w = head + self.mutate(rest)
                if len(w) > 2 and len(w[2]) >= DM_MAX_TYPE_NAME:
                    # dmsetup copies the target type into a 16-byte field
                    # and aborts (a libdevmapper bug) on a longer one: such
                    # a line tests dmsetup, never reaches the kernel
                    w[2] = w[2][:DM_MAX_TYPE_NAME - 1]
            return "table " + " ".join(w)
        if x < 0.75:
            return "table 0 " + str(r.choice((1, 8, 1 << 20))) + " raidlab " + \
                " ".join(self.random_words())
        if x < 0.95:
            m = self.valid_message()
            if r.random() < 0.8:
                m = self.mutate(m)
            return "message " + " ".join(m)
        return "message " + " ".join(self.random_words())


def generate(seed, count, devs, metadata=None, spares=(), member_sectors=4194304, valid=0):
    """@valid unmutated lines of each scheme ("valid ..."), then @count
    fuzzed ones."""
    g = Gen(seed, devs, metadata, spares, member_sectors)
    out = ["valid " + " ".join(g.valid_table(s)) for s in SCHEMES for _ in range(valid)]
    return out + [g.line() for _ in range(count)]


def register(verbs):
    p = verbs.add_parser("fuzz-lines", help="random and mutated table lines and messages",
                         description="Print COUNT lines 'table <line>' or 'message <words>': "
                         "valid raidlab lines mutated (dropped, duplicated, swapped words, bad "
                         "numbers, unknown options, wrong counts, bad devices, long words) and "
                         "random ones, over raid0, mirror, raid10, chained, raid4, raid5, raid6 and plog; "
                         "with --valid, unmutated lines first. Deterministic for a seed.")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--count", type=int, default=100, help="lines to print (default 100)")
    p.add_argument("--devs", default="/dev/rl/m0,/dev/rl/m1,/dev/rl/m2,/dev/rl/m3",
                   help="comma list of member devices for the valid lines")
    p.add_argument("--metadata", default="/dev/rl/pmem", help="metadata device ('' for none)")
    p.add_argument("--spares", default="", help="comma list of spare devices")
    p.add_argument("--member-sectors", type=int, default=4194304,
                   help="size of the member devices, for valid lengths")
    p.add_argument("--valid", type=int, default=0, metavar="N",
                   help="first N unmutated lines of each scheme, as 'valid <line>'")
    p.set_defaults(func=cmd_fuzz)


def cmd_fuzz(a):
    devs = [d for d in a.devs.split(",") if d]
    spares = [d for d in a.spares.split(",") if d]
    for ln in generate(a.seed, a.count, devs, a.metadata or None, spares, a.member_sectors,
                       a.valid):
        print(ln)
    return 0
