# SPDX-License-Identifier: GPL-2.0
"""The VM tests' fio verify state (tests/vm/lib.sh, _rl_fio): fio_verify
checks what the last fio_write to the same target saved in the same
FIO_STATE_DIR, and as many blocks as that pass wrote. A verify whose size
or offset differs from that write's checks other blocks than its own
(49-plog-fail read a block its writes never reached). This lint reads
every tests/vm/NN-*.sh in order, helpers that write included, and fails
on such a verify."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
CALL = re.compile(r"\b(fio_write_then_verify|fio_write|fio_verify)\s+(\S+)\s+(\S+)(.*)")
# helpers of tests/vm/raidlab.sh that end with a fio_write: name -> (size, offset arg index)
WRITERS = {"rl_plog_fail_fixups": ("8M", 2)}


def offset(words):
    return next((w for w in words if w.startswith("--offset=")), "")


def state_dir(line):
    sd = re.search(r"FIO_STATE_DIR=(\S+)", line)
    return sd.group(1) if sd else "/tmp/fio.state"


def local_writers(lines):
    """The test's own functions that write: name -> {(target, state dir):
    (size, offset)}, the last write of each."""
    out, name = {}, None
    for line in lines:
        m = re.match(r"^(\w+)\(\) *\{", line)
        if m:
            name = m.group(1)
        elif line.startswith("}"):
            name = None
        elif name and not line.lstrip().startswith("#"):
            c = CALL.search(line)
            if c and c.group(1) != "fio_verify":
                out.setdefault(name, {})[(c.group(2), state_dir(line))] = \
                    (c.group(3), offset(c.group(4).split()))
    return out


def mismatches(text):
    """[(line, what)] of the verifies that follow another write's state."""
    last, out = {}, []
    lines = text.replace("\\\n", " ").split("\n")
    mine_fns = local_writers(lines)
    body = None
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith("#"):
            continue
        if re.match(r"^\w+\(\) *\{", line):
            body = True
        if body:
            body = not line.startswith("}")
            continue
        sd = state_dir(line)
        words = line.split()
        for name, (size, at) in WRITERS.items():
            if name in words and f"{name}()" not in line:
                args = words[words.index(name) + 1:]
                last[(f"/dev/mapper/{args[0]}", sd)] = (size, f"--offset={args[at]}", n)
        for name, writes in mine_fns.items():
            if re.match(rf"^\s*{name}\b", line):
                last.update({key: (size, off, n) for key, (size, off) in writes.items()})
        m = CALL.search(line)
        if not m:
            continue
        kind, target, size, rest = m.groups()
        key, mine = (target, sd), (size, offset(rest.split()))
        if kind != "fio_verify":
            last[key] = mine + (n,)
        elif key in last and last[key][:2] != mine:
            out.append((n, f"verify {target} {size} {mine[1]} after the write "
                           f"{last[key][0]} {last[key][1]} of line {last[key][2]}"))
    return out


def test_lint_finds_a_verify_after_another_write():
    text = ("FIO_RUNTIME=8 check x fio_write_then_verify /dev/mapper/arr 16M\n"
            "FIO_RW=write check y \\\n\tfio_write_then_verify /dev/mapper/arr 8M --offset=32M\n"
            "check z fio_verify /dev/mapper/arr 16M\n")
    assert [n for n, _ in mismatches(text)] == [3]
    # its own state directory keeps the first write's state
    kept = text.replace("check x", "FIO_STATE_DIR=/tmp/a check x").replace(
        "check z", "FIO_STATE_DIR=/tmp/a check z")
    assert mismatches(kept) == []
    # a helper that writes counts as a write
    helper = ("check x fio_write_then_verify /dev/mapper/arr 16M\n"
              "rl_plog_fail_fixups arr 1 56M\n"
              "check z fio_verify /dev/mapper/arr 16M\n")
    assert [n for n, _ in mismatches(helper)] == [3]
    # and so does a function of the test's own that writes
    local = ("layout() {\n\tdm_create arr x\n\tfio_write /dev/mapper/arr 8M || die w\n}\n"
             "check x fio_write /dev/mapper/arr 16M\n"
             "layout raid10\n"
             "check z fio_verify /dev/mapper/arr 8M\n"
             "check y fio_verify /dev/mapper/arr 16M\n")
    assert [n for n, _ in mismatches(local)] == [8]


def test_vm_tests_verify_their_own_writes():
    bad = []
    for f in sorted((ROOT / "tests" / "vm").glob("[0-9][0-9]-*.sh")):
        bad += [f"{f.name}:{n}: {what}" for n, what in mismatches(f.read_text())]
    assert bad == []
