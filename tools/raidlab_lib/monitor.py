# SPDX-License-Identifier: GPL-2.0
"""raidlab monitor: watch arrays as mdadm --monitor does.

It waits on each array's device-mapper event counter (`dmsetup wait`, the
DM_DEV_WAIT ioctl: the target raises an event at a failure, a spare taking
a role, and the end of every background job), compares the status with the
last one it saw, and reports what changed: to stdout, to syslog (/dev/log,
facility daemon), and to a program run as `PROGRAM <event> <array>
[<device>]`, mdadm's PROGRAM. Events, in mdadm's words where it has one:

    NewArray, DeviceDisappeared           an array appeared / was removed
    DegradedArray                         first seen with a failed member
    Fail <member device>                  a member became failed
    SpareActive <member device>           a rebuilt member is in sync
    RebuildStarted, RebuildFinished       a member's rebuild (recover)
    ResyncStarted, ResyncFinished         copies or parity made consistent
    CheckStarted, CheckFinished           check or repair; "mismatches N"
    TestMessage                           --test: one per array at start

--oneshot checks once (DegradedArray for each degraded array) and exits;
the exit status is 1 if any array is degraded or failed.
"""
import os
import signal
import socket
import subprocess
import sys
import time

from . import dm
from .admin import ToolError

SYNC_EVENTS = {"recover": "Rebuild", "resync": "Resync", "check": "Check", "repair": "Check"}


def devname(word):
    """A table's device word ("8:16") as the kernel names it ("/dev/sdb")."""
    try:
        with open(f"/sys/dev/block/{word}/uevent") as f:
            for ln in f:
                if ln.startswith("DEVNAME="):
                    return "/dev/" + ln.split("=", 1)[1].strip()
    except OSError:
        pass
    return word


def snapshot(name, status=dm.status, table=dm.table):
    """What monitor compares: health, sync action, mismatches, the members'
    devices; None if the array is gone."""
    try:
        st = status(name)
        t = table(name)
    except (dm.DmError, dm.ParseError):
        return None
    return {"health": st.health, "action": st.sync_action, "mismatches": st.mismatches,
            "state": st.array_state, "devs": [devname(d) for d in t.devs]}


def diff(name, old, new):
    """The events between two snapshots of array @name: [(event, device)]."""
    ev = []
    if old is None and new is None:
        return ev
    if new is None:
        return [("DeviceDisappeared", None)]
    if old is None:
        ev.append(("NewArray", None))
        if "D" in new["health"]:
            ev.append(("DegradedArray", None))
        if new["action"] in SYNC_EVENTS:
            ev.append((SYNC_EVENTS[new["action"]] + "Started", None))
        return ev
    if new["action"] == "frozen":
        # a pause, not an end: the job the array was on is still its job
        new["action"] = old["action"]
    for i, (a, b) in enumerate(zip(old["health"], new["health"])):
        dev = new["devs"][i] if i < len(new["devs"]) else str(i)
        was = old["devs"][i] if i < len(old["devs"]) else str(i)
        if a != "D" and (b == "D" or was != dev):
            # failed; or already replaced by a spare when monitor looked
            ev.append(("Fail", was))
        elif a == "a" and b == "A" and old["action"] == "recover":
            ev.append(("SpareActive", dev))
    if old["action"] != new["action"]:
        if old["action"] in SYNC_EVENTS:
            fin = SYNC_EVENTS[old["action"]] + "Finished"
            mm = new["mismatches"]
            ev.append((fin, f"mismatches {mm}" if SYNC_EVENTS[old["action"]] == "Check"
                       else None))
        if new["action"] in SYNC_EVENTS:
            ev.append((SYNC_EVENTS[new["action"]] + "Started", None))
    elif new["mismatches"] != old["mismatches"] and new["action"] not in ("check", "repair"):
        # a check that began and ended between two looks
        ev.append(("CheckFinished", f"mismatches {new['mismatches']}"))
    return ev


class Reporter:
    """Prints, logs to syslog and runs the program for each event."""

    def __init__(self, program=None, use_syslog=True, stream=sys.stdout):
        self.program, self.use_syslog, self.stream = program, use_syslog, stream

    def syslog(self, msg, warn):
        pri = 3 * 8 + (4 if warn else 6)        # daemon.warning / daemon.info
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.connect("/dev/log")
                s.send(f"<{pri}>raidlab-monitor[{os.getpid()}]: {msg}".encode())
        except OSError:
            pass                                # no syslog daemon: stdout only

    def __call__(self, event, name, dev=None):
        msg = f"{event} event detected on array {name}" + (f", {dev}" if dev else "")
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {msg}", file=self.stream, flush=True)
        if self.use_syslog:
            self.syslog(msg, event in ("Fail", "DegradedArray", "DeviceDisappeared")
                        or (dev or "").startswith("mismatches") and dev != "mismatches 0")
        if self.program:
            try:
                subprocess.run([self.program, event, name] + ([dev] if dev else []),
                               timeout=60, check=False)
            except (OSError, subprocess.TimeoutExpired) as e:
                print(f"raidlab monitor: {self.program}: {e}", file=sys.stderr)


def event_nr(name):
    out = dm.dmsetup("info", "-c", "--noheadings", "-o", "events", name, check=False).strip()
    return int(out) if out.isdigit() else None


def arrays(names):
    if names:
        return list(names)
    from .ops import live_arrays
    return sorted(live_arrays())


def oneshot(names, report):
    bad = 0
    for name in arrays(names):
        s = snapshot(name)
        if s is None:
            report("DeviceDisappeared", name)
            bad += 1
        elif "D" in s["health"]:
            report("DegradedArray", name, s["state"])
            bad += 1
    return 1 if bad else 0


def run(names, report, delay=60.0, test=False, rounds=None, waiters=None):
    """Watch until killed (or @rounds passes, for the tests): one `dmsetup
    wait` child per array; a finished one means its event counter moved.
    Every @delay seconds the arrays are looked at anyway (a new one, a
    missed event)."""
    last = {}
    waiters = {} if waiters is None else waiters
    t_scan = 0.0
    n = 0
    while rounds is None or n < rounds:
        n += 1
        now = time.monotonic()
        todo = set()
        if now - t_scan >= delay:
            t_scan = now
            todo |= set(arrays(names)) | set(last)
        for name, p in list(waiters.items()):
            if p.poll() is not None:
                todo.add(name)
                del waiters[name]
        for name in sorted(todo):
            # the event counter before the status: an event after this
            # read ends the wait at once
            nr = event_nr(name)
            new = snapshot(name)
            if name not in last and test and new is not None:
                report("TestMessage", name)
            for ev, dev in diff(name, last.get(name), new):
                report(ev, name, dev)
            if new is None:
                last.pop(name, None)
                continue
            last[name] = new
            if nr is not None and name not in waiters:
                waiters[name] = subprocess.Popen(
                    ["dmsetup", "wait", name, str(nr)], stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL)
        time.sleep(0.2)
    return 0


def cmd_monitor(a):
    program = a.program
    if not program and a.config and os.path.exists(a.config):
        from .ops import read_conf
        program = read_conf(a.config).program
    report = Reporter(program, not a.no_syslog)
    if a.oneshot:
        return oneshot(a.names, report)
    if a.delay <= 0:
        raise ToolError("--delay must be positive")
    waiters = {}

    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    try:
        return run(a.names, report, a.delay, a.test, waiters=waiters)
    except KeyboardInterrupt:
        return 0
    finally:
        for p in waiters.values():       # no dmsetup wait outlives monitor
            p.kill()
            p.wait()


def register(verbs):
    p = verbs.add_parser("monitor", help="report failures, rebuilds and check results "
                         "(syslog, a program), as mdadm --monitor",
                         description=__doc__.split("\n\n", 1)[1],
                         formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("names", nargs="*", help="arrays to watch (default: every raidlab device, "
                   "those that appear later too)")
    p.add_argument("--oneshot", action="store_true",
                   help="check once, report degraded arrays, exit (1 if any)")
    p.add_argument("--program", help="run PROGRAM EVENT ARRAY [DEVICE] for each event "
                   "(default: the config file's PROGRAM)")
    p.add_argument("--config", default="/etc/raidlab.conf", help="config file (PROGRAM)")
    p.add_argument("--delay", type=float, default=60.0,
                   help="seconds between looks at every array besides the events (default 60)")
    p.add_argument("--no-syslog", action="store_true", help="report to stdout only")
    p.add_argument("--test", action="store_true", help="a TestMessage per array at start")
    p.set_defaults(func=cmd_monitor)
