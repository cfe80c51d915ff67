# SPDX-License-Identifier: GPL-2.0
"""Library behind tools/raidlab."""
