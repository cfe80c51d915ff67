# SPDX-License-Identifier: GPL-2.0
"""``raidlab bench --preset cpu-path --profile``: where an I/O's time goes.

IOPS under TCG drift by a fifth from one run to the next, more than the
few percent the I/O path's goals are about. A profile of the guest does
not: fio's one job keeps one vCPU busy and, on brd members, submits and
completes every read itself (brd completes in the submitter's context, and
so do dm's and md's direct read paths over it). So the share of the busy
CPU that the array's code takes is a cost per I/O measured against
everything else the same I/O costs, in the same seconds, and the host's
speed drops out of it. If the rest of an I/O costs the same through two
targets, their IOPS are in the ratio (1 - share_a) / (1 - share_b).

The array path of a run is the inclusive share of its submission entry
(dm_submit_bio; md_handle_request, or md_submit_bio where the compiler
kept it as a frame) plus its completion entry (clone_endio; md's outermost
of raid5_align_endio, raid1_end_read_request, md_end_io_acct), less the
layer above's completion that brd's synchronous end runs inside it
(blkdev_bio_end_io_async), over the busy samples (all but the idle
loop's). Reads only: md raid5's writes go through its raid5d thread, off
fio's CPU.

Host side: the host's perf and the shared libraries it loads are staged
into a folder that vm-run.sh --extra puts in the payload (/rl/extra/perf);
the guest script runs it through the staged loader, samples cpu-clock at
499 Hz with call graphs during each 4 KiB random-read run, and keeps
/proc/kallsyms; the host's `perf report --kallsyms` reads the samples.
"""
import pathlib
import re
import shutil
import subprocess

IDLE = ("native_safe_halt", "default_idle", "acpi_safe_halt", "mwait_idle",
        "intel_idle", "poll_idle")
SUBMIT = {"dm": ("dm_submit_bio",), "md": ("md_handle_request", "md_submit_bio")}
COMPLETE = {"dm": ("clone_endio",),
            "md": ("raid5_align_endio", "raid1_end_read_request", "md_end_io_acct")}
UPPER_END = "blkdev_bio_end_io_async"
WORKLOAD = "4k-randread"
LOADER = "ld-linux-x86-64.so.2"


class ProfileError(RuntimeError):
    pass


def _perf_binary(path=None, bindir="/usr/bin"):
    """The perf ELF: Debian's /usr/bin/perf may be a script that runs
    perf_<version>."""
    p = shutil.which("perf", path=path)
    cands = [pathlib.Path(p)] if p else []
    cands += sorted(pathlib.Path(bindir).glob("perf_*"), reverse=True)
    for c in cands:
        try:
            if c.is_file() and c.read_bytes()[:4] == b"\x7fELF":
                return c
        except OSError:
            continue
    raise ProfileError("--profile needs perf on the host (apt-get install linux-perf; "
                       "scripts/deps.sh installs it)")


def _libraries(binary):
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    libs = []
    for line in out.splitlines():
        m = re.search(r"(/\S+)\s+\(0x", line)
        if m:
            libs.append(pathlib.Path(m.group(1)))
    return libs


def stage(dst, binary=None):
    """Copy perf (@binary, or the host's), its libraries and the loader into
    @dst/perf; returns @dst."""
    dst = pathlib.Path(dst)
    binary = pathlib.Path(binary) if binary else _perf_binary()
    d = dst / "perf"
    if d.exists():
        shutil.rmtree(d)
    (d / "lib").mkdir(parents=True)
    shutil.copy2(binary, d / "perf")
    for lib in _libraries(binary):
        name = LOADER if lib.name.startswith("ld-linux") else lib.name
        shutil.copy2(lib.resolve(), d / "lib" / name)
    if not (d / "lib" / LOADER).exists():
        raise ProfileError(f"perf's loader {LOADER} not found by ldd")
    return dst


def report(data, kallsyms):
    """`perf report` of one run: inclusive (children) and self shares."""
    return subprocess.run(
        ["perf", "report", "-i", str(data), "--kallsyms", str(kallsyms), "--children",
         "--sort", "sym", "-g", "none", "--stdio"],
        capture_output=True, text=True, check=True).stdout


_ROW = re.compile(r"^\s*([\d.]+)%\s+([\d.]+)%\s+\[[^\]]*\]\s+(\S+)\s*$")


def parse(text):
    """{symbol: (children %, self %)} from `perf report --children --stdio`."""
    table = {}
    for line in text.splitlines():
        m = _ROW.match(line)
        if m:
            table.setdefault(m.group(3), (float(m.group(1)), float(m.group(2))))
    return table


def kind(cfg):
    """Which entries a configuration's I/O goes through: md or dm."""
    return "md" if cfg.startswith("md-") else "dm"


def array_share(table, cfg):
    """The array path's share of the busy CPU, or None if the run has none
    (raw brd, or no samples)."""
    k = kind(cfg)
    busy = 100.0 - sum(table.get(s, (0, 0))[1] for s in IDLE)
    sub = max((table.get(s, (0, 0))[0] for s in SUBMIT[k]), default=0)
    end = max((table.get(s, (0, 0))[0] for s in COMPLETE[k]), default=0)
    if busy <= 0 or not sub:
        return None
    return (sub + end - table.get(UPPER_END, (0, 0))[0]) / busy


def predicted(share, other):
    """IOPS of a path with @share over one with @other, if the rest of an I/O
    costs the same."""
    return (1 - share) / (1 - other)
