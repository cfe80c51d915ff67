# SPDX-License-Identifier: GPL-2.0
"""raidlab monitor's event logic and the config file, without a kernel
(the VM tests 31-dmraid-status and tests/install run it for real)."""
import io
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
from raidlab_lib import admin, monitor, ops  # noqa: E402


def snap(health, action="idle", mm=0, devs=("/dev/sda", "/dev/sdb", "/dev/sdc")):
    return {"health": health, "action": action, "mismatches": mm, "state": "x",
            "devs": list(devs)}


def test_diff_events():
    assert monitor.diff("a", None, snap("AAA")) == [("NewArray", None)]
    assert monitor.diff("a", None, snap("ADA", "frozen")) == [("NewArray", None),
                                                              ("DegradedArray", None)]
    assert monitor.diff("a", snap("AAA"), None) == [("DeviceDisappeared", None)]
    assert monitor.diff("a", snap("AAA"), snap("ADA")) == [("Fail", "/dev/sdb")]
    # the spare already took the role when monitor looked: still a Fail
    ev = monitor.diff("a", snap("AAA"), snap("AaA", "recover",
                                             devs=("/dev/sda", "/dev/sdf", "/dev/sdc")))
    assert ev == [("Fail", "/dev/sdb"), ("RebuildStarted", None)]
    ev = monitor.diff("a", snap("AaA", "recover"), snap("AAA"))
    assert ev == [("SpareActive", "/dev/sdb"), ("RebuildFinished", None)]
    assert monitor.diff("a", snap("AAA", "check"), snap("AAA", mm=16)) == \
        [("CheckFinished", "mismatches 16")]
    assert monitor.diff("a", snap("aaa", "resync"), snap("AAA")) == [("ResyncFinished", None)]
    assert monitor.diff("a", snap("AAA"), snap("AAA")) == []
    # frozen is a pause: no Finished, and no Started when it goes on
    assert monitor.diff("a", snap("AaA", "recover"), snap("AaA", "frozen")) == []
    assert monitor.diff("a", snap("AaA", "recover"), snap("AaA", "recover")) == []
    # a check that began and ended between two looks: its count changed
    assert monitor.diff("a", snap("AAA", mm=0), snap("AAA", mm=8)) == \
        [("CheckFinished", "mismatches 8")]
    # a new check resets the count: not an end
    assert monitor.diff("a", snap("AAA", mm=8), snap("AAA", "check", mm=0)) == \
        [("CheckStarted", None)]


def test_reporter_runs_program(tmp_path):
    log = tmp_path / "log"
    prog = tmp_path / "prog"
    prog.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\n")
    prog.chmod(0o755)
    out = io.StringIO()
    r = monitor.Reporter(str(prog), use_syslog=False, stream=out)
    r("Fail", "arr", "/dev/sdb")
    assert "Fail event detected on array arr, /dev/sdb" in out.getvalue()
    assert log.read_text() == "Fail arr /dev/sdb\n"


def test_parse_conf():
    c = ops.parse_conf("# c\nDEVICE /dev/sd* /dev/nvme*n*\nARRAY r5 uuid=AB-CD metadata=/dev/x "
                       "sched=satf\nARRAY m uuid=01\nPROGRAM /bin/alert\nHOMEHOST h1\n")
    assert c.devices == ["/dev/sd*", "/dev/nvme*n*"] and c.program == "/bin/alert"
    assert c.arrays[0] == ops.ConfArray("r5", "ab-cd", "/dev/x", "satf")
    assert c.homehost == "h1"
    for bad in ("ARRAY r5", "ARRAY r5 uuid=1 color=red", "ARRAY r5 metadata=/dev/x",
                "FROB x", "ARRAY a uuid=1\nARRAY a uuid=2"):
        with pytest.raises(admin.ToolError):
            ops.parse_conf(bad)


def test_find_metadata():
    class Md:
        uuid = bytes(range(16))

        def __init__(self, events):
            self.events = events
    u = "00010203-0405-0607-0809-0a0b0c0d0e0f"
    got = ops.find_metadata(u, ["/a", "/b"],
                            read_md=lambda p: (0, Md(5) if p == "/b" else None, []))
    assert got == "/b"
    # a stale copy loses to the newest; two newest are refused
    ev = {"/a": 4, "/b": 9, "/c": 7}
    assert ops.find_metadata(u, list(ev), read_md=lambda p: (0, Md(ev[p]), [])) == "/b"
    ev["/c"] = 9
    with pytest.raises(admin.ToolError, match="both hold its metadata"):
        ops.find_metadata(u, list(ev), read_md=lambda p: (0, Md(ev[p]), []))


def test_plan_remove():
    from raidlab_lib import dm
    t = dm.parse_table("0 8 raidlab raid5 6 chunk_size 8 spare /s1 spare /s2 3 /a /b /c")
    ids = {"/a": 1, "/b": 2, "/c": 3, "/s1": 4, "/s2": 5, "/x": 9}
    kw = dict(dev_id=ids.get, path=lambda p: p)
    new, what = ops.plan_remove(t, "AAA", "/s1", **kw)
    assert what == "spare" and new.get_all("spare") == ["/s2"] and t.get_all("spare") == \
        ["/s1", "/s2"]
    new, what = ops.plan_remove(t, "ADA", "/b", **kw)
    assert what == "failed member 1" and new.devs == ["/a", "-", "/c"]
    with pytest.raises(admin.ToolError, match="in use"):
        ops.plan_remove(t, "AAA", "/b", **kw)
    with pytest.raises(admin.ToolError, match="neither"):
        ops.plan_remove(t, "AAA", "/x", **kw)
