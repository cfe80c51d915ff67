# SPDX-License-Identifier: GPL-2.0
"""scripts/lab/vm-times.py: the time of each VM check, from checks.txt."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
_spec = importlib.util.spec_from_file_location("vm_times", ROOT / "scripts/lab/vm-times.py")
vm_times = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vm_times)

CHECKS = """4.50 1 ok create
10.00 2 ok fio write + verify
10.25 3 not_ok status optimal (rc=1: test a = b)
garbage line
40.25 4 ok rebuild finishes
"""


def test_costs_are_the_time_since_the_check_before(tmp_path):
    (tmp_path / "checks.txt").write_text(CHECKS)
    rows = vm_times.read_checks(tmp_path / "checks.txt")
    assert [r[1] for r in rows] == ["1", "2", "3", "4"]
    c = vm_times.costs(rows)
    assert [round(x[0], 2) for x in c] == [4.5, 5.5, 0.25, 30.0]
    assert c[2][2] == "not_ok" and c[2][3].startswith("status optimal")


def test_main_prints_the_slowest_first(tmp_path, capsys):
    d = tmp_path / "20-degraded"
    d.mkdir()
    (d / "checks.txt").write_text(CHECKS)
    assert vm_times.main(["--top", "2", str(d)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "20-degraded: 4 checks, last at 40 s"
    assert "#4 ok rebuild finishes" in out[1] and out[1].split()[0] == "30.0"
    assert "#2 ok fio write + verify" in out[2]
    assert out[-1].startswith("vm-times: 1 test(s), 40 s")


def test_main_fails_without_checks(tmp_path):
    assert vm_times.main([str(tmp_path)]) == 1
