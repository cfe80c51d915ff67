# SPDX-License-Identifier: GPL-2.0
"""An array's length before its table exists, for every scheme: the
kernel's ->capacity (dm.max_length() for the striped, mirrored and
copy-set schemes, srlayout for sr, plogsize for plog). `raidlab create`
and `raidlab size` use it; Documentation/raidlab-ops.rst gives the
formulas for dmsetup users.
"""
from . import dm, ondisk, plogsize, srlayout


class SizeError(ValueError):
    pass


def array_sectors(scheme, n, chunk, member_sectors, opts=(), metadata=True):
    """The largest length of an array over @n members of @member_sectors
    sectors each (the smallest member's whole size): the kernel's
    ->capacity, for every scheme (Documentation/raidlab-ops.rst, "Sizes")."""
    data = member_sectors - (ondisk.MD_DATA_OFFSET if metadata else 0)
    if data <= 0:
        raise SizeError("member device too small")
    if scheme == "plog":
        try:
            return plogsize.capacity(n, chunk, data, opts)
        except plogsize.PlogSizeError as e:
            raise SizeError(str(e)) from None
    if scheme == "altmirror":
        if n != 2:
            raise SizeError("altmirror needs two members")
        return data // 8 * 8
    if scheme == "sr":
        d = {k.lower(): v for k, v in opts}   # admin.sr_opts() resolved the geom
        try:
            return srlayout.max_length(n, chunk, data, int(d["dr"]), int(d["dm"]), d["geom"],
                                       ondisk.MD_DATA_OFFSET if metadata else 0)
        except srlayout.SrError as e:
            raise SizeError(str(e)) from None
    if scheme not in ondisk.SCHEMES:
        raise SizeError(f"unknown scheme {scheme!r}")
    return dm.max_length(scheme, n, chunk, data, opts)
