#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interactive shell in the lab VM: disks at /dev/rl/m0.., pmem at /dev/rl/pmem,
# dm-raidlab loaded (if built: make), tests/vm and tools/ under /rl,
# `. $RL_TESTS/lib.sh` for the test helpers. Files left in /out land in
# build/vm/out/shell/. `exit` powers off; Ctrl-A x kills QEMU.
#
#   scripts/lab/shell.sh [vm-run.sh options]     e.g. --disks 8 --disk-dir build/vm/disks
exec "$(dirname "${BASH_SOURCE[0]}")/vm-run.sh" --shell "$@"
