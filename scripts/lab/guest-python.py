#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The guest's python3 for tools/raidlab: only the standard-library modules
the tool loads, byte-compiled into one zip.

    scripts/lab/guest-python.py --list                 modules the tool loads
    scripts/lab/guest-python.py --stage DIR            write DIR/usr/lib/python311.zip,
                                                       the landmark os.py and lib-dynload/*.so
                                                       the tool needs; print the .so paths

Run it with the python3 whose binary the guest gets (/usr/bin/python3): the
module set is measured by importing tools/raidlab_lib.cli and running the
array verbs, the log replayer and the fuzz generator in-process on scratch
files (no device, no dmsetup), then reading sys.modules. Lazy imports the
run does not reach are listed in EXTRA.
"""
import contextlib
import io
import os
import pathlib
import py_compile
import sys
import sysconfig
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
STDLIB = pathlib.Path(sysconfig.get_paths()["stdlib"])
DYNLOAD = STDLIB / "lib-dynload"
# startup and error paths the exercise does not load
EXTRA = ("encodings.utf_8", "encodings.ascii", "encodings.latin_1", "encodings.aliases",
         "traceback", "linecache", "tokenize", "token", "site", "_sitebuiltins", "_collections_abc",
         "codecs", "io", "abc", "stat", "genericpath", "posixpath", "os", "ctypes",
         "ctypes._endian")


def exercise():
    """Import the tool and run what the guest runs, on scratch files."""
    sys.path.insert(0, str(ROOT / "tools"))
    from raidlab_lib import admin, cli, logwrites
    with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
        imgs = []
        for i in range(4):
            p = os.path.join(d, f"m{i}")
            with open(p, "wb") as f:
                f.truncate(4 << 20)
            imgs.append(p)
        md = os.path.join(d, "md")
        with open(md, "wb") as f:
            f.truncate(1 << 20)
        cli.main(["create", "x", "--scheme", "raid5", "--metadata", md, "--dry-run", "--json",
                  *imgs])
        cli.main(["create", "x", "--scheme", "raid5", "--metadata", md, "--dry-run", *imgs])
        cli.main(["detail", "--metadata", md, "--json", imgs[0]])
        cli.main(["detail", "--metadata", md, imgs[0]])
        cli.main(["assemble", "x", "--metadata", md, "--dry-run", *imgs])
        cli.main(["fuzz-lines", "--count", "50"])
        lp = os.path.join(d, "log")
        w = logwrites.Writer(lp)
        w.write(0, bytes(512))
        w.flush()
        w.mark("m")
        w.close()
        cli.main(["replay-log", lp, "--list-points", "--random", "3", "--json"])
        cli.main(["replay-log", lp, "--list"])
        cli.main(["replay-log", lp, "--to", "2", "--dest", imgs[0]])
        cli.main(["replay-log", lp, lp, "--list-points"])
        from raidlab_lib import dm
        line = ("0 8 raidlab raid5 3 AAA 8/8 idle 0 2048 - optimal 8 0 0 0 0 0 0 0:0:0:0 "
                "0:0:0:0 0:0:0:0 fifo 32 0 0")
        dm.parse_status(line)
        # the operations verbs: status --libdm (ctypes), monitor, the config
        from raidlab_lib import libdm, monitor, ops
        with contextlib.suppress(libdm.LibdmError):
            libdm.status_line_raid(line)
        monitor.diff("x", None, {"health": "AAA", "action": "idle", "mismatches": 0,
                                 "state": "optimal", "devs": []})
        ops.parse_conf("DEVICE /dev/sd*\nARRAY x uuid=00\nPROGRAM /bin/true\n")
        cli.main(["size", "--scheme", "plog", "--member-sectors", "1048576", *imgs, imgs[0]])
        cli.main(["examine", "--export", imgs[0]])
        try:
            dm.dmsetup("version")
        except dm.DmError:
            pass
        admin.scan_devices()
        # crash-test (crashlab.py): the workloads and verifiers in memory
        from raidlab_lib import crash, crashlab  # noqa: F401
        wl = crash.BlockWorkload(1, 64, 2, ops=4, row_blocks=12)
        mem = crash.MemDevice(64)
        crash.run_generation(wl, 1, mem.write)
        mem.flush()
        crash.verify_blocks(wl, 1, mem.read_blocks)
        crash.verify_files(crash.FsWorkload(1, 2), 1, [], lambda n: b"")
        crashlab.Rig("raid5", 4).table().line()
        try:
            cli.main(["detail", "--metadata", "/nonexistent"])
        except Exception:
            pass
        # `raidlab --help` lists the lab verbs too, and imports their modules
        with contextlib.suppress(SystemExit):
            cli.main(["--help"])
    for m in EXTRA:
        __import__(m)


def stdlib_modules():
    """(name, source path) of pure-Python stdlib modules loaded, and the
    extension modules (.so) from lib-dynload."""
    py, so = {}, set()
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if not f:
            continue
        f = pathlib.Path(f)
        try:
            rel = f.relative_to(STDLIB)
        except ValueError:
            continue
        if rel.parts[0] == "lib-dynload":
            so.add(f)
        elif f.suffix == ".py" and "site-packages" not in rel.parts \
                and "dist-packages" not in rel.parts:
            py[str(rel)] = f
    return py, so


def stage(out):
    out = pathlib.Path(out)
    py, so = stdlib_modules()
    lib = out / "usr" / "lib"
    zdir = lib / f"python{sys.version_info.major}.{sys.version_info.minor}"
    (zdir / "lib-dynload").mkdir(parents=True, exist_ok=True)
    zpath = lib / f"python{sys.version_info.major}{sys.version_info.minor}.zip"
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(zpath, "w",
                                                               zipfile.ZIP_DEFLATED) as z:
        for rel in sorted(py):
            pyc = pathlib.Path(tmp) / (rel + "c")
            pyc.parent.mkdir(parents=True, exist_ok=True)
            py_compile.compile(str(py[rel]), cfile=str(pyc), dfile=rel, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            z.write(pyc, rel + "c")
    # getpath's landmark for the prefix (else a warning on every start)
    (zdir / "os.py").write_bytes((STDLIB / "os.py").read_bytes())
    for f in sorted(so):
        (zdir / "lib-dynload" / f.name).write_bytes(f.read_bytes())
        print(zdir / "lib-dynload" / f.name)
    return zpath


def main(argv):
    exercise()
    if argv[:1] == ["--list"]:
        py, so = stdlib_modules()
        print("\n".join(sorted(py) + sorted(str(f.name) for f in so)))
        return 0
    if len(argv) == 2 and argv[0] == "--stage":
        stage(argv[1])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
