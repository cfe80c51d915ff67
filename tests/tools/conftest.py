# SPDX-License-Identifier: GPL-2.0
"""pytest setup for the host-side tools: make tools/ importable."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
