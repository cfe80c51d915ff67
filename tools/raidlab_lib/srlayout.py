# SPDX-License-Identifier: GPL-2.0
"""The sr scheme (SR-Array / SR-Mirror, paper 002) for the array verbs: its
geometry option (a geom line, or a disk model's name), its options, and its
capacity as dm-raidlab/svc/rrep.c and schemes/sr.c compute it, so that
``raidlab create --scheme sr`` writes a line of the largest length the
members hold (tests/vm/87-tools-schemes.sh loads it, and that plus one
chunk is refused).

A member of Ds x Dr x Dm holds, from the first whole cylinder at or after
the data offset to the last whole one before its end, K = heads // Dr
logical tracks a cylinder (the Dr replicas of each on the other heads),
each of its zone's sectors per track rounded down to a multiple of 8
(whole 4 KiB blocks, dm-raidlab 1.16.0): its column sectors. The columns are raid10's near layout with Dm copies.
"""
from .bench import geom as geommod

OPTS = ("dr", "dm", "geom", "propagate", "table_entries", "reads")
LAYOUT_OPTS = ("dr", "dm", "geom")     # the layout record's words
MAX_DR = 6                      # RL_RREP_MAX_DR
ALIGN = 8                       # RL_RREP_ALIGN: a logical track holds whole 4 KiB
MAX_WORDS = 2048 - 32           # sr.c's SR_GEOM_MAX


class SrError(ValueError):
    pass


def parse_geom(line):
    """A geometry line (Documentation/raidlab-sched.rst) as a dict: the
    numbers, and zones as [(first_cyl, spt)]. Checks what the layout
    needs (the kernel checks the rest)."""
    g = {}
    for item in line.split(","):
        key, eq, value = item.partition("=")
        if not eq or key in g:
            raise SrError(f"geom: {item!r}: want KEY=VALUE, each key once")
        g[key] = value
    try:
        if "zones" in g:
            zones = [tuple(int(x) for x in z.split(":")) for z in g["zones"].split("/")]
        else:
            zones = [(0, int(g["spt"]))]
        out = {k: int(v) for k, v in g.items() if k not in ("zones", "spt")}
        out["zones"] = zones
        cyls, heads = out["cylinders"], out["heads"]
    except (KeyError, ValueError):
        raise SrError("geom: need cylinders, heads, and spt or zones "
                      "(first_cyl:spt/...), numbers") from None
    if cyls < 1 or heads < 1 or zones[0][0] != 0 or \
            any(b[0] <= a[0] for a, b in zip(zones, zones[1:])) or zones[-1][0] >= cyls or \
            any(spt < 1 for _, spt in zones):
        raise SrError("geom: zones must start at cylinder 0 and increase, within the "
                      "cylinders, with sectors per track")
    return out


def resolve_geom(word):
    """The geom option's value: a geometry line as given, or the line of a
    disk model (bench/geom.py's presets, dm-hddsim's), optionally at a
    time scale: ``st39133`` or ``st39133@1/10``."""
    if "=" in word:
        parse_geom(word)
        return word
    model, _, ts = word.partition("@")
    try:
        return geommod.geom_line(model, ts or "1")
    except ValueError as e:
        raise SrError(f"geom {word!r}: {e}") from None


def zone_spans(g):
    """Each zone's (cylinders, sectors per track, first LBA), as
    rl_disk_geom_check() fills them; and the disk's sectors after them."""
    zones, lba, out = g["zones"], 0, []
    for i, (first_cyl, spt) in enumerate(zones):
        ncyl = (zones[i + 1][0] if i + 1 < len(zones) else g["cylinders"]) - first_cyl
        out.append((ncyl, spt, lba))
        lba += ncyl * g["heads"] * spt
    return out, lba


def disk_sectors(g):
    """The geometry's capacity in sectors."""
    return zone_spans(g)[1]


def zone_cyls(g, i, start, end):
    """Zone @i's used cylinders (rl_rrep_zone_cyls()): (first, count) of the
    whole ones at or after sector @start that end at or before @end."""
    ncyl, spt, first_lba = zone_spans(g)[0][i]
    cyl = g["heads"] * spt
    first = -(-(start - first_lba) // cyl) if start > first_lba else 0
    last = (end - first_lba) // cyl if end > first_lba else 0
    first, last = min(first, ncyl), min(last, ncyl)
    return first, max(last - first, 0)


def first_sector(g, start):
    """The member sector of column sector 0's replica 0 (the first used
    cylinder's first sector: its logical track 0 on head 0) with the data
    from member sector @start."""
    end = disk_sectors(g)
    for i, (ncyl, spt, first_lba) in enumerate(zone_spans(g)[0]):
        first, count = zone_cyls(g, i, start, end)
        if count:
            return first_lba + first * g["heads"] * spt
    raise SrError("no whole cylinder of the geometry past the data offset")


def column_sectors(g, dr, start, end):
    """A member's column sectors (rl_rrep_init()'s capacity) between member
    sectors @start and @end, @dr replicas."""
    if not 1 <= dr <= min(MAX_DR, g["heads"]):
        raise SrError(f"dr {dr}: 1 to {min(MAX_DR, g['heads'])} (at most the heads)")
    if any(spt < ALIGN for _, spt in g["zones"]):
        raise SrError("a track of fewer than 8 sectors (4 KiB) in the geometry")
    capacity = sum(zones_cyls * (g["heads"] // dr) * (spt // ALIGN * ALIGN)
                   for i, (_, spt) in enumerate(g["zones"])
                   for _, zones_cyls in [zone_cyls(g, i, start, end)])
    if not capacity:
        raise SrError("no whole cylinder of the geometry past the data offset")
    return capacity


def options(opts):
    """(dr, dm, geom line) from --opt pairs; SrError for anything else."""
    d = {}
    for k, v in opts:
        k = k.lower()
        if k not in OPTS:
            raise SrError(f"--opt: sr has no option {k!r} (its own: {', '.join(OPTS)})")
        d[k] = v
    if "geom" not in d:
        raise SrError("sr needs --opt geom=LINE or a disk model (" +
                      ", ".join(sorted(geommod.PRESETS)) + ")")
    try:
        dr, dm = int(d.get("dr", 1)), int(d.get("dm", 1))
    except ValueError:
        raise SrError("--opt dr and dm: numbers") from None
    line = resolve_geom(d["geom"])
    if len(line) > MAX_WORDS:
        raise SrError(f"geom is too long (at most {MAX_WORDS} characters)")
    return dr, dm, line


def max_length(nr, chunk, member_sectors, dr, dm, line, start):
    """The largest target length (sr_capacity()): whole chunks of the
    columns over @nr members with @dm copies, each member's column
    sectors from @start to @start + @member_sectors."""
    if dm < 1 or nr % (dr * dm):
        raise SrError(f"sr: the members must be a multiple of dr times dm ({nr} members, "
                      f"dr {dr}, dm {dm})")
    cols = column_sectors(parse_geom(line), dr, start, start + member_sectors)
    return (cols // chunk) * nr // dm * chunk


def words_to_opts(words):
    """The layout record's words ("dr 2 dm 1 geom LINE") as (name, value)
    pairs."""
    w = words.split()
    if len(w) % 2 or any(k not in LAYOUT_OPTS for k in w[::2]):
        raise SrError(f"sr layout record: unexpected words {words!r}")
    return list(zip(w[::2], w[1::2]))
