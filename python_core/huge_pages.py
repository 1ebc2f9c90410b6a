"""Big long-lived arrays in fresh memory advised for 2 MiB pages, so a query reading them cold
misses the TLB rarely.

Quick start::

    from python_core.huge_pages import huge_empty
    table = huge_empty((2848, 2848), np.float32)   # 31 MiB: about 16 huge pages, not 7,900 small ones

Why: a hierarchical query touches a few hundred scattered cache lines of the all-pairs tables and
cluster trees (tens of MiB on a 512 x 512 map). In 4 KiB pages nearly every one of those reads also
misses the TLB and walks cold page tables: in the sidecar, a query the first time it was asked took
about 190 us (random512-10-0, 64-cell clusters) where the same query asked again took 55 us. numpy
advises huge pages for its own big allocations, but a compiled kernel's arrays and memory that
malloc hands back after an earlier free are already faulted in small pages. A fresh anonymous map,
advised before it is first touched, is faulted in huge pages wherever the system allows them
(transparent huge pages ``always`` or ``madvise``); elsewhere (no ``MADV_HUGEPAGE``: Windows,
macOS, THP off) it is ordinary memory and the arrays behave the same.
"""

from __future__ import annotations

import contextlib
import mmap
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["HUGE_FROM", "huge_empty"]

HUGE_PAGE = 2 << 20
"""Bytes of one transparent huge page on x86-64 and (with 4 KiB base pages) arm64."""
HUGE_FROM = HUGE_PAGE
"""Arrays of fewer bytes come from numpy as usual (a smaller one would round up to a whole huge page)."""
_ADVICE: int | None = getattr(mmap, "MADV_HUGEPAGE", None)


def huge_empty(shape: int | tuple[int, ...], dtype: Any) -> npt.NDArray[Any]:
    """An uninitialised C-contiguous array of ``shape`` and ``dtype`` for the caller to fill whole:
    in huge pages when it is :data:`HUGE_FROM` bytes or more and the system has them, else
    ``np.empty``'s.

    Example:
        >>> a = huge_empty((600, 1000), np.int32); a[:] = 7; int(a[599, 999])
        7
        >>> a.shape, a.dtype.name, a.flags.c_contiguous, a.flags.writeable
        ((600, 1000), 'int32', True, True)
        >>> huge_empty(3, np.int64).base is None  # small: numpy's own
        True
    """
    array = _mapped(shape, dtype)
    return np.empty(shape, dtype) if array is None else array


def _mapped(shape: int | tuple[int, ...], dtype: Any) -> npt.NDArray[Any] | None:
    """The array in a fresh anonymous map advised for huge pages and aligned to one, or None when
    it is small or the system has no such advice. The array keeps the map alive (its base)."""
    kind = np.dtype(dtype)
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    nbytes = int(np.prod(dims, dtype=np.int64)) * kind.itemsize
    if _ADVICE is None or nbytes < HUGE_FROM:
        return None
    length = -(-nbytes // HUGE_PAGE) * HUGE_PAGE + HUGE_PAGE  # room to start on a huge page
    # private: a shared anonymous map is shmem, which has huge pages of its own setting (often off)
    region = mmap.mmap(-1, length, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    with contextlib.suppress(OSError):  # a kernel without transparent huge pages: ordinary memory
        region.madvise(_ADVICE)
    raw = np.frombuffer(region, dtype=np.uint8)
    skip = -raw.ctypes.data % HUGE_PAGE
    array: npt.NDArray[Any] = raw[skip : skip + nbytes].view(kind).reshape(dims)
    return array
