# SPDX-License-Identifier: GPL-2.0
"""The status line read by libdevmapper's own dm-raid parser (the one LVM
and dmeventd use), beside dm.parse_status()."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
from raidlab_lib import dm, libdm  # noqa: E402

LINE = ("0 6291456 raidlab raid5 4 AAaA 1000/6291456 recover 17 8192 A degraded 128 "
        "0 0 0 0 0 0 0:0:0:0 0:0:0:0 0:0:0:0 0:0:0:0 satf 8 1 2 dax ok 3 1 "
        "dax 5 4096 0 0:2:0:1 raid5 0")


def lib_or_skip():
    try:
        libdm._lib()
    except libdm.LibdmError as e:       # the project's deps install it (dmsetup)
        pytest.fail(str(e))


def test_libdm_reads_what_we_read():
    lib_or_skip()
    d = libdm.status_line_raid(LINE)
    st = dm.parse_status(LINE)
    assert d == {"raid_type": st.scheme, "dev_count": st.nr_devs, "dev_health": st.health,
                 "insync_regions": st.synced, "total_regions": st.total,
                 "sync_action": st.sync_action, "mismatch_count": st.mismatches,
                 "data_offset": st.data_offset}
    assert d["dev_health"] == "AAaA" and d["sync_action"] == "recover"


def test_libdm_refuses_the_old_head():
    lib_or_skip()
    old = "0 100 raidlab raid5 2 AA optimal 128 idle 0/100 0 0 0 0 0 0 0:0:0:0 0:0:0:0"
    with pytest.raises(libdm.LibdmError):
        libdm.status_line_raid(old)
