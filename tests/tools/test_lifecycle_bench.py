# SPDX-License-Identifier: GPL-2.0
"""raidlab lifecycle-bench: rows, ratios and files from the guest's output."""
import json

from raidlab_lib.bench import lifecycle


def _fio(path, r_iops, r_p90_ms, w_iops, w_p90_ms):
    def side(iops, p90):
        return {"iops": iops, "clat_ns": {"percentile": {"90.000000": p90 * 1e6}}}
    path.write_text(json.dumps({"jobs": [{"read": side(r_iops, r_p90_ms),
                                          "write": side(w_iops, w_p90_ms)}]}))


def _guest_dir(tmp_path):
    d = tmp_path / "vm" / "lifecycle"
    d.mkdir(parents=True)
    (d / "events.txt").write_text(
        "rebuild raid5 busy 40.00 524288 3\ncheck raid5 busy 0\n"
        "rebuild raid5 idle 20.00 524288 0\ncheck raid5 idle 0\n"
        "replace raid5 busy 20.00 524288 2\nrcheck raid5 busy 0\n"
        "replace raid5 idle 5.00 524288 0\nrcheck raid5 idle 0\n")
    _fio(d / "raid5-normal-1.json", 100, 2.0, 40, 4.0)
    _fio(d / "raid5-normal-2.json", 100, 4.0, 40, 6.0)
    _fio(d / "raid5-rebuild-1.json", 50, 9.0, 20, 10.0)
    _fio(d / "raid5-rnormal-1.json", 100, 2.0, 40, 4.0)
    _fio(d / "raid5-replace-1.json", 80, 5.0, 30, 6.0)
    _fio(d / "raid5-replace-2.json", 80, 3.0, 30, 6.0)
    _fio(d / "raid5-intent-none.json", 0, 0, 1000, 1.0)
    _fio(d / "raid5-intent-dax.json", 0, 0, 900, 1.1)
    _fio(d / "raid5-intent-bufio.json", 0, 0, 500, 2.0)
    return tmp_path


def test_rebuild_rows(tmp_path):
    rows = lifecycle.collect(_guest_dir(tmp_path))
    busy = next(r for r in rows if r["experiment"] == "rebuild" and r["config"] == "busy")
    idle = next(r for r in rows if r["experiment"] == "rebuild" and r["config"] == "idle")
    # 524288 sectors = 256 MiB in 40 s and 20 s
    assert abs(busy["rate_mib_s"] - 6.4) < 1e-9
    assert abs(idle["rate_mib_s"] - 12.8) < 1e-9
    assert busy["normal_read_p90_ms"] == 3.0
    assert busy["rebuild_read_p90_ms"] == 9.0
    assert busy["p90_ratio_read"] == 3.0
    assert busy["mismatches"] == 0


def test_replace_rows(tmp_path):
    """1.22: a replace's row, its time against the rebuild of the same scheme
    and load, its slices apart from the rebuild's."""
    rows = lifecycle.collect(_guest_dir(tmp_path))
    busy = next(r for r in rows if r["experiment"] == "replace" and r["config"] == "busy")
    idle = next(r for r in rows if r["experiment"] == "replace" and r["config"] == "idle")
    assert busy["vs_rebuild"] == 0.5 and idle["vs_rebuild"] == 0.25
    assert busy["normal_read_p90_ms"] == 2.0 and busy["replace_read_p90_ms"] == 4.0
    assert busy["p90_ratio_read"] == 2.0 and busy["mismatches"] == 0
    reb = next(r for r in rows if r["experiment"] == "rebuild" and r["config"] == "busy")
    assert reb["normal_read_p90_ms"] == 3.0     # the replace's slices are not the rebuild's
    text = lifecycle.summary(rows, 1.0, "cmd")
    assert "| raid5 | busy | 20.0 | 40.0 | 0.50 | 2.00 / 4.00 | 4.00 / 6.00 | 0 |" in text


def test_intent_ratios(tmp_path):
    rows = lifecycle.collect(_guest_dir(tmp_path))
    by = {r["config"]: r for r in rows if r["experiment"] == "intent"}
    assert set(by) == {"none", "dax", "bufio"}
    assert by["none"]["iops_vs_none"] == 1.0
    assert abs(by["dax"]["iops_vs_none"] - 0.9) < 1e-9
    assert abs(by["bufio"]["iops_vs_none"] - 0.5) < 1e-9


def test_finish_writes_files_and_flags_mismatches(tmp_path):
    out = _guest_dir(tmp_path)
    assert lifecycle.finish(out, 12.0, "cmd") == 0
    for f in ("lifecycle.csv", "lifecycle.json", "summary.md"):
        assert (out / f).exists()
    assert "| raid5 | busy | 40.0 | 6.4 |" in (out / "summary.md").read_text()
    ev = out / "vm" / "lifecycle" / "events.txt"
    ev.write_text(ev.read_text().replace("\ncheck raid5 idle 0", "\ncheck raid5 idle 7"))
    assert lifecycle.finish(out, 12.0, "cmd") == 1
    # and a replace's
    ev.write_text(ev.read_text().replace("\ncheck raid5 idle 7", "\ncheck raid5 idle 0")
                  .replace("rcheck raid5 busy 0", "rcheck raid5 busy 3"))
    assert lifecycle.finish(out, 12.0, "cmd") == 1


def test_runner_follow_yields_prefixed_lines(tmp_path):
    """runner.follow: the console's lines with the prefixes, logged, until exit."""
    import io
    from raidlab_lib.bench import runner

    console = tmp_path / "console.log"
    console.write_text("noise\nbench: point 1 a\r\nFAIL: x\nbench: partial")

    class Proc:
        polls = 0

        def poll(self):
            self.polls += 1
            return 0

    log = io.StringIO()
    got = list(runner.follow(Proc(), console, ("bench:", "FAIL"), log))
    assert got == ["bench: point 1 a", "FAIL: x"]
    assert log.getvalue() == "bench: point 1 a\nFAIL: x\n"
