# SPDX-License-Identifier: GPL-2.0
"""What `make install-tools` and DKMS get: the files, their versions, and
the commands the systemd units and udev rules run (the VM run of them is
tests/install/run.sh)."""
import pathlib
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from raidlab_lib import cli  # noqa: E402


def module_version():
    h = (ROOT / "dm-raidlab" / "raidlab.h").read_text()
    return ".".join(re.search(rf"#define RL_VERSION_{k}\s+(\d+)", h).group(1)
                    for k in ("MAJOR", "MINOR", "PATCH"))


def test_dkms_conf_matches_the_module():
    conf = (ROOT / "dkms.conf").read_text()
    assert f'PACKAGE_VERSION="{module_version()}"' in conf
    assert 'BUILT_MODULE_NAME[0]="dm-raidlab"' in conf and "updates/dkms" in conf
    # the documentation's version history names it
    assert f"\n{module_version()}\n" in (ROOT / "Documentation" / "dm-raidlab.rst").read_text()


def test_install_tools(tmp_path):
    subprocess.run(["make", "-s", "-C", str(ROOT), "install-tools", f"DESTDIR={tmp_path}"],
                   check=True)
    tool = tmp_path / "usr/sbin/raidlab"
    for f in ("usr/lib/udev/rules.d/60-raidlab.rules",
              "usr/lib/systemd/system/raidlab-assemble.service",
              "usr/lib/systemd/system/raidlab-monitor.service",
              "usr/share/doc/dm-raidlab/raidlab.conf.example",
              "usr/share/doc/dm-raidlab/raidlab-ops.rst",
              "usr/share/initramfs-tools/hooks/raidlab",
              "usr/share/initramfs-tools/scripts/local-top/raidlab"):
        assert (tmp_path / f).is_file(), f
    # the hook reads the tool where PREFIX put it; both are executable
    hook = tmp_path / "usr/share/initramfs-tools/hooks/raidlab"
    assert "\nTOOLDIR=$ROOT/usr/lib/raidlab\n" in hook.read_text()
    assert os.access(hook, os.X_OK)
    assert os.access(tmp_path / "usr/share/initramfs-tools/scripts/local-top/raidlab", os.X_OK)
    # the installed tool runs from its symlink
    r = subprocess.run([sys.executable, str(tool), "size", "--scheme", "mirror",
                        "--member-sectors", "4096", "a", "b"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "2048", r.stderr


def unit_commands(name):
    text = (ROOT / "dist" / "systemd" / name).read_text()
    return [shlex.split(v) for k, v in re.findall(r"^(ExecStart\w*)=(.*)$", text, re.M)]


@pytest.mark.parametrize("unit", ["raidlab-assemble.service", "raidlab-monitor.service"])
def test_unit_commands_parse(unit):
    """Every raidlab command of the units is a valid command line."""
    cmds = [c for c in unit_commands(unit) if c[0] == "/usr/sbin/raidlab"]
    assert cmds
    parser = cli.build_parser(lab=False)
    for c in cmds:
        args = parser.parse_args(c[1:])
        assert args.func


def test_udev_rule_command_parses():
    rules = (ROOT / "dist" / "udev" / "60-raidlab.rules").read_text()
    cmd = re.search(r'IMPORT\{program\}="([^"]*)"', rules).group(1).split()
    assert cmd[0] == "/usr/sbin/raidlab"
    args = cli.build_parser(lab=False).parse_args(
        [w.replace("$devnode", "/dev/sdx") for w in cmd[1:]])
    assert args.export and args.devices == ["/dev/sdx"]


def test_example_conf_parses():
    from raidlab_lib import ops
    text = (ROOT / "dist" / "raidlab.conf.example").read_text()
    # the commented lines, uncommented, are valid too
    ops.parse_conf(text)
    c = ops.parse_conf("\n".join(ln.lstrip("#") for ln in text.splitlines()
                                 if ln.startswith("#") and ln[1:2].isupper()))
    assert c.arrays[0].name == "data" and c.program and c.devices


def test_every_option_has_help():
    """Issue 18: every verb's every argument says what it is."""
    import argparse
    missing = []

    def walk(parser, path):
        for act in parser._actions:
            if isinstance(act, argparse._SubParsersAction):
                for name, sub in act.choices.items():
                    walk(sub, path + [name])
            elif not isinstance(act, argparse._HelpAction) and not act.help:
                missing.append((" ".join(path), act.option_strings or act.dest))
    walk(cli.build_parser(lab=True), [])
    assert missing == []
