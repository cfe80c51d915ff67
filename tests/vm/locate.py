# SPDX-License-Identifier: GPL-2.0
"""Check the kernel's layout methods against the bytes on the members
(tests/vm/44-locate.sh): for logical sectors of the first AREA sectors of
array NAME, "locate" names where each sector lives; the data and every
copy must hold the sector's bytes read through the array, "owner" must
name each location back, and each P (Q) must be the XOR (the raid6
syndrome) of the data sectors that name it. Prints one line per finding,
"# good: ..." or "# BAD: ...", and exits 1 on any BAD. Each data and copy
location must hold the array's bytes for the whole run "locate" gives
(its <len>, within the area).

usage: locate.py NAME AREA CHUNK [OFFSET...]
AREA: sectors from the start of the array, or START+SECTORS (START a
multiple of CHUNK)
"""
import mmap
import os
import sys

sys.path.insert(0, os.environ["RL_TOOLS"])
from raidlab_lib import dm  # noqa: E402

fails = 0


def say(good, what):
    global fails
    print(("# good: " if good else "# BAD: ") + what)
    fails += not good


def pread(dev, sector, count=1):
    buf = mmap.mmap(-1, count * 512)
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    try:
        n = os.preadv(fd, [buf], sector * 512)
    finally:
        os.close(fd)
    assert n == count * 512, (dev, sector, n)
    return bytes(buf)


def gf_mul2(b):
    """Each byte times the generator {02} in GF(2^8), lib/raid6's field."""
    return bytes(((x << 1) ^ (0x1d if x & 0x80 else 0)) & 0xff for x in b)


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def syndromes(cols):
    """P and Q of {column: sector bytes}, Q by Horner over the columns."""
    p = q = bytes(512)
    for k in range(max(cols), -1, -1):
        d = cols.get(k, bytes(512))
        p = xor(p, d)
        q = xor(gf_mul2(q), d)
    return p, q


def main():
    name, chunk = sys.argv[1], int(sys.argv[3])
    start, _, area = sys.argv[2].rpartition("+")
    start, area = int(start or 0), int(area)
    offs = [int(x) for x in sys.argv[4:]] or [0]
    t = dm.table(name)
    devs = [dm.dev_path(d) for d in t.devs]
    arr = pread(f"/dev/mapper/{name}", start, area)
    groups = {}      # (part, member, sector) -> {column: data}
    checked = {"data": 0, "copy": 0}
    for lchunk in range(area // chunk):
        for off in offs:
            ls = start + lchunk * chunk + off
            at = (ls - start) * 512
            want = arr[at:at + 512]
            d = dm.locate(name, ls)
            # sr: to the end of the chunk or of the logical track
            if (d["len"] != chunk - off and t.scheme not in ("mirror", "sr")
                    or not 0 < d["len"] <= chunk - off):
                say(False, f"sector {ls}: placement holds {d['len']} sectors, "
                    f"not to the end of its chunk ({chunk - off})")
            data = None
            for loc in d["locations"]:
                m, ms, part = loc["member"], loc["sector"], loc["part"]
                back = dm.owner(name, m, ms)
                if back["part"] != part or back["sector"] not in (None, ls):
                    say(False, f"sector {ls}: {part} at {m}:{ms}, owner says {back}")
                if part in ("data", "copy"):
                    got = pread(devs[m], ms)
                    if got != want:
                        say(False, f"sector {ls}: {part} at {m}:{ms} differs from the array")
                    # the whole run the placement holds for, within the area
                    n = max(min(d["len"], start + area - ls), 1)
                    if pread(devs[m], ms, n) != arr[at:at + n * 512]:
                        say(False, f"sector {ls}: {part} at {m}:{ms} does not hold the "
                            f"array's {n} sectors from there")
                    checked[part] += 1
                    data = data or got
                else:
                    groups.setdefault((part, m, ms), {})[d["col"]] = data
    say(checked["data"] == len(offs) * (area // chunk),
        f"{t.scheme}: {checked['data']} data and {checked['copy']} copy locations "
        "hold the array's bytes and are owned back")
    full = max((len(g) for g in groups.values()), default=0)
    nr = 0
    for (part, m, ms), cols in sorted(groups.items()):
        if len(cols) != full:
            continue        # a row the area covers in part
        p, q = syndromes(cols)
        got = pread(devs[m], ms)
        if got != (p if part == "p" else q):
            say(False, f"{part} at {m}:{ms} is not the syndrome of columns {sorted(cols)}")
        nr += 1
    if groups:
        say(nr > 0, f"{t.scheme}: {nr} parity locations of whole rows ({full} columns) "
            "match their data")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
