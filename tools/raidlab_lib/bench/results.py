# SPDX-License-Identifier: GPL-2.0
"""From the guest's fio JSON to the benchmark's numbers and files.

Layout read (written by tools/bench/guest.sh under /out/bench):
``<config id>/<workload>/d<depth>.json`` (fio, unified "mixed" section),
``d<depth>.mstat`` (member /sys/block/*/stat before and after the run) and
``target`` (the p90 target in ns the guest searched for).

Numbers:
  * per point: IOPS, MB/s (10^6 bytes), p50/p90/p99 and mean completion
    latency, the reads' and the writes' mean apart (fio's "read" and
    "write" sections, which the guest asks for since paper 003's Fig. 8;
    empty for older runs), member reads and writes per logical request;
  * per configuration x workload: the operating point at the p90 target
    (search.operating_point), throughput per disk (divided by the
    configuration's member count) and relative to the raid0 baseline's
    throughput per disk in MB/s (equal to the IOPS ratio when the request
    sizes are equal), with Chen et al.'s simple and adjusted models
    (models/p001_chen.py) beside it where they apply.
"""
import csv
import json
import pathlib

from .. import crashlab
from . import plan as planmod
from . import search
from . import workloads as wlmod
from ..models import p001_chen as chen

POINT_FIELDS = ["config", "workload", "depth", "iops", "mb_s", "p50_ms", "p90_ms", "p99_ms",
                "iops_per_disk", "mb_s_per_disk", "member_reads_per_req",
                "member_writes_per_req", "member_bios_per_req", "hdd_late_pct", "mean_ms",
                "read_mean_ms", "write_mean_ms", "read_sd_ms"]
RESULT_FIELDS = ["config", "workload", "disks", "req_kib", "read_pct", "target_ms", "how",
                 "depth", "p90_ms", "iops", "mb_s", "iops_per_disk", "mb_s_per_disk",
                 "relative", "model_simple", "model_adjusted", "member_ios_per_req",
                 "member_bios_per_req", "points", "search_ok"]


def load_fio(path):
    """fio's JSON (fio may print warnings before it); the first job."""
    text = pathlib.Path(path).read_text()
    start = text.find("{")
    if start < 0:
        raise ValueError(f"{path}: no JSON")
    return json.loads(text[start:])["jobs"][0]


def fio_side(job):
    """The unified section, or reads+writes summed (older runs, traces)."""
    if "mixed" in job:
        return job["mixed"]
    r, w = job["read"], job["write"]
    side = r if r["total_ios"] >= w["total_ios"] else w
    out = dict(side)
    out["iops"] = r["iops"] + w["iops"]
    out["bw_bytes"] = r["bw_bytes"] + w["bw_bytes"]
    out["total_ios"] = r["total_ios"] + w["total_ios"]
    return out


def mean_ms(side):
    """The mean completion latency (fio's clat, else lat) in ms; 0 if none."""
    lat = side.get("clat_ns") or side.get("lat_ns") or {}
    return lat.get("mean", 0) / 1e6


def direction_mean_ms(job, direction):
    """The mean completion latency (ms) of @direction ("read" or "write")
    alone, or "" when fio did not report it apart (unified_rw_reporting
    mixed) or it had no requests."""
    side = job.get(direction) or {}
    return mean_ms(side) if side.get("total_ios") else ""


def direction_sd_ms(job, direction):
    """The standard deviation (ms) of @direction's completion latency, or
    "" as direction_mean_ms()."""
    side = job.get(direction) or {}
    lat = side.get("clat_ns") or side.get("lat_ns") or {}
    return lat.get("stddev", 0) / 1e6 if side.get("total_ios") else ""


def percentile(side, p):
    pct = side.get("clat_ns", {}).get("percentile") or side.get("lat_ns", {}).get("percentile")
    if not pct:
        return 0.0
    return pct.get(f"{p:.6f}", 0) / 1e6


def parse_mstat(text, sectors=False):
    """{'before'|'after': {path: (reads, writes)}} from a .mstat file (the
    block layer's stat fields: I/Os completed; with @sectors, the sectors
    they moved)."""
    out = {"before": {}, "after": {}}
    r, w = (4, 8) if sectors else (2, 6)
    for line in text.splitlines():
        f = line.split()
        if len(f) < 9 or f[0] not in out:
            continue
        out[f[0]][f[1]] = (int(f[r]), int(f[w]))
    return out


def hdd_late(text):
    """(timed requests, late ones) of the dm-hddsim members during the run,
    from the "before-hdd"/"after-hdd" status lines; None without them."""
    st = {"before-hdd": {}, "after-hdd": {}}
    for line in text.splitlines():
        f = line.split()
        # label path start len hddsim preset capacity requests ... late (16)
        if len(f) >= 17 and f[0] in st and f[4] == "hddsim":
            st[f[0]][f[1]] = (int(f[7]), int(f[16]))
    if not st["after-hdd"]:
        return None
    req = late = 0
    for path, (r1, l1) in st["after-hdd"].items():
        r0, l0 = st["before-hdd"].get(path, (0, 0))
        req += r1 - r0
        late += l1 - l0
    return req, late


def member_deltas(text, sectors=False):
    """Summed (member reads, member writes) completed during the run: I/Os
    (bios, as the member's queue completed them), or with @sectors the
    sectors they moved."""
    m = parse_mstat(text, sectors)
    reads = writes = 0
    for path, (r1, w1) in m["after"].items():
        r0, w0 = m["before"].get(path, (r1, w1))
        reads += r1 - r0
        writes += w1 - w0
    return reads, writes


def chunk_accesses(cfg, workload):
    """Sectors of one member access when every access of @workload is one
    whole chunk (Chen's ind and fs: aligned, a chunk or a full stripe), else
    0.

    Member I/Os are counted as accesses, Chen's unit: one transfer on one
    member. The block layer counts bios, and md raid5 sends its members
    one bio per 4 KiB page of its stripe cache (STRIPE_SIZE = PAGE_SIZE,
    drivers/md/raid5.c ops_run_io()), which a bio-based member such as
    dm-hddsim does not merge: a 64 KiB write is 64 bios for its 4
    accesses (2 reads, 2 writes). For these workloads an access is the
    chunk's sectors; member_bios_per_req keeps the bio count beside it."""
    try:
        size = wlmod.parse(workload).size
    except ValueError:
        return 0
    if size not in ("ind", "fs") or not cfg.get("chunk_kib"):
        return 0
    return cfg["chunk_kib"] * 2


def point_row(cfg, workload, depth, job, mstat_text=None):
    side = fio_side(job)
    ios = side.get("total_ios", 0)
    row = {
        "config": cfg["name"], "workload": workload, "depth": depth,
        "iops": side["iops"], "mb_s": side["bw_bytes"] / 1e6,
        "p50_ms": percentile(side, 50), "p90_ms": percentile(side, 90),
        "p99_ms": percentile(side, 99), "mean_ms": mean_ms(side),
        "read_mean_ms": direction_mean_ms(job, "read"),
        "write_mean_ms": direction_mean_ms(job, "write"),
        "read_sd_ms": direction_sd_ms(job, "read"),
        "iops_per_disk": side["iops"] / cfg["disks"],
        "mb_s_per_disk": side["bw_bytes"] / 1e6 / cfg["disks"],
        "member_reads_per_req": "", "member_writes_per_req": "", "member_bios_per_req": "",
        "hdd_late_pct": "",
    }
    if mstat_text is not None and ios:
        r, w = member_deltas(mstat_text)
        row["member_bios_per_req"] = (r + w) / ios
        chunk = chunk_accesses(cfg, workload)
        if chunk:
            r, w = (x / chunk for x in member_deltas(mstat_text, sectors=True))
        row["member_reads_per_req"] = r / ios
        row["member_writes_per_req"] = w / ios
    hl = hdd_late(mstat_text) if mstat_text is not None else None
    if hl and hl[0]:
        row["hdd_late_pct"] = 100.0 * hl[1] / hl[0]
    return row


def model(cfg, w):
    """(simple, adjusted) relative throughput of Chen's models, or ('', '')."""
    if w["size"] not in ("ind", "fs") or w["read_pct"] not in (0, 100):
        return "", ""
    op = "read" if w["read_pct"] == 100 else "write"
    lvl = {"raid0": 0, "mirror": 1, "raid1": 1, "raid10": 1, "raid4": 5, "raid5": 5}.get(
        cfg["level"])
    if lvl is None:          # plog: paper 000's model instead (plogcmp.py)
        return "", ""
    n = cfg["disks"]
    if lvl == 1 and cfg["level"] == "mirror" and n > 2 and op == "write":
        return 1.0 / n, 1.0 / n          # an n-way mirror writes n copies
    if lvl == 5:
        d = 1 if w["size"] == "ind" else n - 1
        if n < 3:
            return "", ""
        return (chen.simple_relative_throughput(5, op, d, n),
                chen.adjusted_relative_throughput(5, op, d, n))
    return (chen.simple_relative_throughput(lvl, op, 1, max(n, 4)),
            chen.adjusted_relative_throughput(lvl, op, 1, max(n, 4)))


def collect(src, desc):
    """Parse a guest output dir (…/bench) against the plan description.

    Returns (points, results): lists of dicts with POINT_FIELDS and
    RESULT_FIELDS."""
    src = pathlib.Path(src)
    wls = {w["name"]: w for w in desc["workloads"]}
    points, results = [], []
    for cfg in desc["configs"]:
        for w in desc["workloads"]:
            d = src / cfg["id"] / w["name"]
            if not d.is_dir():
                continue
            pts = []
            order = []
            for js in d.glob("d*.json"):
                depth = int(js.stem[1:])
                ms = js.with_suffix(".mstat")
                row = point_row(cfg, w["name"], depth, load_fio(js),
                                ms.read_text() if ms.exists() else None)
                pts.append(row)
                order.append(depth)
            if not pts:
                continue
            pts.sort(key=lambda r: r["depth"])
            points += pts
            if desc.get("procs"):
                results.append(procs_result(cfg, w, wls, pts[-1], d))
                continue
            tfile = d / "target"
            target_ms = int(tfile.read_text().split()[0]) / 1e6 if tfile.exists() else None
            if target_ms is None:
                t = desc["p90_target_ms"]
                target_ms = float(t) if t != "auto" else max(p["p90_ms"] for p in pts)
            op = search.operating_point(
                [dict(depth=p["depth"], p90=p["p90_ms"], tput=p["mb_s"], iops=p["iops"],
                      mb_s=p["mb_s"]) for p in pts], target_ms)
            # the guest's search must have run the depths search_depths picks
            by_depth = {p["depth"]: p["p90_ms"] for p in pts}
            depths, k = planmod.job_ladder(desc["ladder"], desc["refine"], w["name"],
                                           wls[w["name"]].get("rate_iops", 0),
                                           desc.get("ladders"))
            expect = search.search_depths(lambda x: by_depth.get(x, float("inf")),
                                          target_ms, depths, k)
            geo = wlmod.Geometry(cfg["chunk_kib"], cfg["data_cols"])
            simple, adjusted = model(cfg, w)
            mr = [p for p in pts if p["member_reads_per_req"] != ""]
            near = min(mr, key=lambda p: abs(p["depth"] - op["depth"])) if mr else None
            results.append({
                "config": cfg["name"], "workload": w["name"], "disks": cfg["disks"],
                "req_kib": wlmod.request_kib(wlmod.parse(w["name"]), geo),
                "read_pct": wls[w["name"]]["read_pct"], "target_ms": target_ms,
                "how": op["how"], "depth": op["depth"], "p90_ms": op["p90"],
                "iops": op["iops"], "mb_s": op["mb_s"],
                "iops_per_disk": op["iops"] / cfg["disks"],
                "mb_s_per_disk": op["mb_s"] / cfg["disks"],
                "relative": "", "model_simple": simple, "model_adjusted": adjusted,
                "member_ios_per_req": (near["member_reads_per_req"]
                                       + near["member_writes_per_req"]) if near else "",
                "member_bios_per_req": near["member_bios_per_req"] if near else "",
                "points": len(pts), "search_ok": sorted(expect) == sorted(by_depth),
            })
    relative(results, desc)
    return points, results


def plog_status(text):
    """The plog fields of the last plog status line in @text (a
    dPROCS.status file: the status before and after the run), as
    crashlab.plog_fields() reads them, with numbers as numbers ("1.000" ->
    1.0); {} if none."""
    out = {}
    for line in text.splitlines():
        f = crashlab.plog_fields(line)
        if f:
            out = {k: _number(v) for k, v in f.items()}
    return out


def _number(v):
    """An int stays one; a decimal word becomes a float; any other word stays."""
    if not isinstance(v, str) or "." not in v:
        return v
    try:
        return float(v)
    except ValueError:
        return v


def procs_result(cfg, w, wls, pt, d):
    """One saturation run (plan procs > 0): the point itself, how = procs."""
    geo = wlmod.Geometry(cfg["chunk_kib"], cfg["data_cols"])
    st = d / f"d{pt['depth']}.status"
    before = after = {}
    if st.exists():
        lines = st.read_text().splitlines()
        half = [ln for ln in lines if ln.strip()]
        before = plog_status(half[0]) if half else {}
        after = plog_status(half[-1]) if half else {}
    mio = ""
    if pt["member_reads_per_req"] != "":
        mio = pt["member_reads_per_req"] + pt["member_writes_per_req"]
    return {
        "config": cfg["name"], "workload": w["name"], "disks": cfg["disks"],
        "req_kib": wlmod.request_kib(wlmod.parse(w["name"]), geo),
        "read_pct": wls[w["name"]]["read_pct"], "target_ms": "", "how": "procs",
        "depth": pt["depth"], "p90_ms": pt["p90_ms"], "iops": pt["iops"], "mb_s": pt["mb_s"],
        "iops_per_disk": pt["iops_per_disk"], "mb_s_per_disk": pt["mb_s_per_disk"],
        "relative": "", "model_simple": "", "model_adjusted": "", "member_ios_per_req": mio,
        "member_bios_per_req": pt["member_bios_per_req"],
        "points": 1, "search_ok": True, "p50_ms": pt["p50_ms"], "p99_ms": pt["p99_ms"],
        "hdd_late_pct": pt["hdd_late_pct"],
        "plog": after,
        "plog_delta": {k: after[k] - before.get(k, 0) for k in
                       ("pool_waits", "reintegrations", "cache_hits", "cache_misses")
                       if isinstance(after.get(k), int)},
    }


def relative(results, desc):
    """Fill 'relative': per-disk MB/s over the raid0 baseline's, same workload."""
    base = next((c["name"] for c in desc["configs"] if c["level"] == "raid0"), None)
    if base is None:
        return
    ref = {r["workload"]: r["mb_s_per_disk"] for r in results if r["config"] == base}
    for r in results:
        b = ref.get(r["workload"])
        if b:
            r["relative"] = r["mb_s_per_disk"] / b


def write_csv(path, rows, fields):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                        for k, v in r.items() if k in fields})


def md_table(header, rows):
    """A Markdown table's lines: @header's cells, the rule, each row's."""
    def line(cells):
        return "| " + " | ".join(str(c) for c in cells) + " |"
    return [line(header), "|" + "---|" * len(header)] + [line(r) for r in rows]


def fmt(v, spec):
    """v formatted by spec, or "-" padded to the spec's width (no value)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return format(v, spec)
    width = spec.split(".")[0]
    return "-".rjust(int(width)) if width.isdigit() else "-"


def table(results):
    """The comparison table (text)."""
    cw = max([12] + [len(r["config"]) + 2 for r in results])
    head = (f"{'workload':<18}{'config':<{cw}}{'p90 ms':>8}{'depth':>7}{'IOPS/disk':>11}"
            f"{'MB/s/disk':>11}{'rel':>7}{'simple':>8}{'adj':>7}{'mem I/O':>9}{'bios':>8}  how")
    lines = [head, "-" * len(head)]
    for r in results:
        lines.append(f"{r['workload']:<18}{r['config']:<{cw}}{fmt(r['p90_ms'], '8.2f')}"
                     f"{fmt(r['depth'], '7.1f')}{fmt(r['iops_per_disk'], '11.1f')}"
                     f"{fmt(r['mb_s_per_disk'], '11.2f')}{fmt(r['relative'], '7.2f')}"
                     f"{fmt(r['model_simple'], '8.2f')}{fmt(r['model_adjusted'], '7.2f')}"
                     f"{fmt(r['member_ios_per_req'], '9.2f')}"
                     f"{fmt(r.get('member_bios_per_req', ''), '8.2f')}  {r['how']}")
    return "\n".join(lines)


def summary_md(results, desc, wall_s, command):
    """summary.md: the command, the method in two lines and the table."""
    t = desc["p90_target_ms"]
    tdesc = (f"{desc['auto_factor']:g} x the idle (depth 1) p90 of the raid0 baseline, per workload"
             if t == "auto" else f"{t} ms")
    out = ["# raidlab bench", "", f"Command: `{command}`", "",
           *([f"Saturation runs: {desc['procs']} closed-loop fio processes, one request"
              f" outstanding each, {desc.get('ramp_s', 0)} s ramp then"
              f" {desc['runtime_s']} s measured; members: the first"
              f" {desc.get('member_mb') or 'all'} MiB.", ""] if desc.get("procs") else []),
           f"Wall time: {wall_s:.0f} s. Disk model: {desc['disk_model']}"
           f" (time_scale {desc['time_scale']}). Lab members: {desc['lab_disks']}.",
           *([] if desc.get("procs") else [
               f"p90 target: {tdesc}. Load search: depths {desc['ladder']},"
               f" {desc['refine']} bisection step(s), {desc['runtime_s']} s per fio run"
               + (f" after a {desc['ramp_s']} s ramp." if desc.get("ramp_s") else ".")]), "",
           ("Throughput per disk of the saturation run (*depth*: processes)"
            if desc.get("procs") else "Throughput per disk at the p90 target") +
           "; *rel* is relative to raid0 per disk"
           " (MB/s); *simple*/*adj* are Chen et al.'s models (p001) where they apply;"
           " *mem I/O* is member accesses per logical request (for ind and fs, the"
           " member sectors moved over the chunk's; else bios), *bios* the member"
           " bios per request (md raid5 sends one per 4 KiB page).", "",
           "| workload | config | p90 ms | depth | IOPS/disk | MB/s/disk | rel | simple | adj"
           " | mem I/O | bios | how |", "|" + "---|" * 12]
    for r in results:
        out.append(f"| {r['workload']} | {r['config']} | {fmt(r['p90_ms'], '.2f')} | "
                   f"{fmt(r['depth'], '.1f')} | {fmt(r['iops_per_disk'], '.1f')} | "
                   f"{fmt(r['mb_s_per_disk'], '.2f')} | {fmt(r['relative'], '.2f')} | "
                   f"{fmt(r['model_simple'], '.2f')} | {fmt(r['model_adjusted'], '.2f')} | "
                   f"{fmt(r['member_ios_per_req'], '.2f')} | "
                   f"{fmt(r.get('member_bios_per_req', ''), '.2f')} | {r['how']} |")
    bad = [f"{r['config']}/{r['workload']}" for r in results if not r["search_ok"]]
    if bad:
        out += ["", "Search check: the guest ran other depths than search.py expects for: "
                + ", ".join(bad)]
    return "\n".join(out) + "\n"


def write_all(dst, points, results, desc, wall_s, command):
    dst = pathlib.Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    write_csv(dst / "points.csv", points, POINT_FIELDS)
    write_csv(dst / "results.csv", results, RESULT_FIELDS)
    (dst / "results.json").write_text(json.dumps(
        {"plan": desc, "wall_s": wall_s, "command": command,
         "points": points, "results": results}, indent=1))
    (dst / "summary.md").write_text(summary_md(results, desc, wall_s, command))
