# SPDX-License-Identifier: GPL-2.0
"""The papers' analytic models, one module per paper.

Every module in this package that defines ``register(subparsers)`` is found
by ``register()`` below and adds its own subcommands under
``raidlab model``; each subcommand sets ``func`` to a callable taking the
parsed arguments. Modules keep the model maths in plain functions (tested
in tests/tools/) and the printing in their ``register`` handlers.
"""
import importlib
import pkgutil


def register(subparsers):
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(mod, "register"):
            mod.register(subparsers)
