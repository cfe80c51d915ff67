# SPDX-License-Identifier: GPL-2.0
"""Parse and analyse blkparse text output.

The guest (tools/bench/guest.sh) runs blkparse with the format
``%D %2c %8s %5T.%9t %5p %2a %3d %S %n``, one line per event:

    8,16   1       42     0.012345678   211  D   W 123456 128

device (major,minor), cpu, sequence, time (s), pid, action, RWBS, sector,
sectors. ``members.txt`` holds one block per member, each after a line
``# member m<i> <path>``. Blkparse's default format (``8,16 1 42 0.0123 211
D W 123456 + 128 [fio]``) is accepted too.

Analysis of one member trace (``analyse``):
  * issued I/Os (action D; Q on a bio-based member, e.g. a dm-hddsim
    device, which has no dispatch) by kind: read, write, discard
    (flush-only and RWBS "N" events are not counted);
  * seek distance: for consecutive issues on a member, |start - end of the
    previous issue| in sectors, bucketed in powers of two (``SEEK_EDGES``);
  * utilisation: the union of [issue, completion] intervals (D matched to C
    by sector and length, first in first out) over the trace span.
"""
import bisect
import re
from collections import defaultdict, deque

# seek-distance histogram: bucket i holds distances d with
# SEEK_EDGES[i-1] < d <= SEEK_EDGES[i] (bucket 0: d == 0, sequential)
SEEK_EDGES = [0, 8, 64, 512, 4096, 32768, 262144, 2097152, float("inf")]
SEEK_LABELS = ["0", "<=4K", "<=32K", "<=256K", "<=2M", "<=16M", "<=128M", "<=1G", ">1G"]

_LINE = re.compile(
    r"^\s*(?P<dev>\d+,\d+)\s+(?P<cpu>\d+)\s+(?P<seq>\d+)\s+(?P<time>\d+\.\d+)\s+"
    r"(?P<pid>\d+)\s+(?P<act>[A-Za-z]{1,2})\s+(?P<rwbs>[A-Z]+)\s+(?P<sector>\d+)"
    r"(?:\s+\+)?\s+(?P<n>\d+)")


class Event:
    __slots__ = ("dev", "time", "act", "rwbs", "sector", "n")

    def __init__(self, dev, time, act, rwbs, sector, n):
        self.dev, self.time, self.act, self.rwbs = dev, time, act, rwbs
        self.sector, self.n = sector, n

    @property
    def kind(self):
        if "D" in self.rwbs:
            return "discard"
        if "W" in self.rwbs:
            return "write"
        if "R" in self.rwbs:
            return "read"
        return None


def parse_line(line):
    m = _LINE.match(line)
    if not m:
        return None
    return Event(m["dev"], float(m["time"]), m["act"], m["rwbs"], int(m["sector"]), int(m["n"]))


def parse(text):
    """{name: [Event]}: members.txt blocks by their '# member' name; lines
    outside a block are grouped by device number."""
    out = defaultdict(list)
    name = None
    for line in text.splitlines():
        if line.startswith("# member "):
            name = line.split()[2]
            out.setdefault(name, [])
            continue
        ev = parse_line(line)
        if ev is not None:
            out[name or ev.dev].append(ev)
    return dict(out)


def seek_bucket(d):
    return bisect.bisect_left(SEEK_EDGES, d)


def busy_time(intervals):
    """Length of the union of [start, end] intervals."""
    total = 0.0
    cur_s = cur_e = None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def analyse(events, span=None):
    """Counts, seek histogram and utilisation of one member's events.

    span: the run's duration in seconds (default: this member's first to
    last event)."""
    counts = {"read": 0, "write": 0, "discard": 0}
    sectors = {"read": 0, "write": 0, "discard": 0}
    hist = [0] * len(SEEK_LABELS)
    seeks = []
    pending = defaultdict(deque)
    intervals = []
    prev_end = None
    # request-based members show dispatches (D); bio-based ones (dm devices
    # such as dm-hddsim members) only queue (Q) and complete (C)
    issue = "D" if any(ev.act == "D" for ev in events) else "Q"
    for ev in events:
        k = ev.kind
        if ev.act == issue and k and ev.n > 0:
            counts[k] += 1
            sectors[k] += ev.n
            if prev_end is not None:
                d = abs(ev.sector - prev_end)
                hist[seek_bucket(d)] += 1
                seeks.append(d)
            prev_end = ev.sector + ev.n
            pending[(ev.sector, ev.n)].append(ev.time)
        elif ev.act == "C" and k and ev.n > 0:
            q = pending.get((ev.sector, ev.n))
            if q:
                intervals.append((q.popleft(), ev.time))
    times = [ev.time for ev in events]
    if span is None:
        span = (max(times) - min(times)) if times else 0.0
    busy = busy_time(intervals)
    return {
        "reads": counts["read"], "writes": counts["write"], "discards": counts["discard"],
        "read_sectors": sectors["read"], "write_sectors": sectors["write"],
        "seek_hist": hist, "mean_seek_sectors": sum(seeks) / len(seeks) if seeks else 0.0,
        "busy_s": busy, "span_s": span, "util": busy / span if span > 0 else 0.0,
        "completed": len(intervals), "issue_action": issue,
    }


def span_of(traces):
    """First to last event over every member (seconds)."""
    ts = [ev.time for evs in traces.values() for ev in evs]
    return (max(ts) - min(ts)) if ts else 0.0


def logical_requests(events):
    """Logical requests seen on the array device: queue (Q) events by kind."""
    c = {"read": 0, "write": 0}
    for ev in events:
        if ev.act == "Q" and ev.kind in c and ev.n > 0:
            c[ev.kind] += 1
    return c
