"""The compiled twin of :func:`csr_search.astar_kernel` (waypoint graphs, navmesh portal graphs).

Quick start::

    from python_core.fast_csr import astar_kernel
    status, best, expanded, parent, g = astar_kernel(indptr, indices, costs, coords, ...)

There is one A* over CSR adjacency, the plain Python in :mod:`python_core.csr_search`; this module
hands that same code to :func:`compiled.jit`, with its heuristic helper compiled too, so the
compiled kernel and the reference can never drift apart. Without numba (or with
``ASTAR_BRIDGE_NO_JIT=1``) :func:`astar_kernel` *is* the reference function.
"""

from __future__ import annotations

import logging
import types
from typing import Any

import numpy as np

from python_core import csr_search
from python_core.compiled import JIT_ENABLED, jit, register_warm_up

__all__ = ["COMPILED", "astar_kernel"]

log = logging.getLogger("python_core.fast_csr")


def _tiny_query(kernel: Any) -> None:
    """Run ``kernel`` once with the dtypes :func:`csr_search.find_csr_path` passes."""
    indptr, indices = np.array([0, 1, 1], dtype=np.int64), np.array([1], dtype=np.int64)
    coords = np.zeros((2, 2))
    one, zero = np.array([0], dtype=np.int64), np.zeros(1)
    kernel(indptr, indices, np.ones(1), coords, one, zero, one + 1, zero, coords[1], 1, 1.0, -1)


def _compiled_twin() -> tuple[Any, bool]:
    """``csr_search.astar_kernel`` compiled (with a compiled ``_estimate``), and whether it compiled.

    numba needs every variable's type to be inferable; if the reference kernel stops being
    compilable, searches keep working on the reference and :data:`COMPILED` says so.
    """
    if not JIT_ENABLED:
        return csr_search.astar_kernel, False
    namespace = dict(vars(csr_search))
    namespace["_estimate"] = jit(csr_search._estimate)
    source = csr_search.astar_kernel
    twin = types.FunctionType(source.__code__, namespace, source.__name__, source.__defaults__)
    twin.__qualname__ = source.__qualname__
    twin.__module__ = source.__module__
    compiled = jit(twin)
    try:
        _tiny_query(compiled)
    except Exception as exc:  # numba's TypingError and friends: not compilable as it stands
        log.warning("csr_search.astar_kernel is not numba-compilable, using it uncompiled: %s",
                    str(exc).splitlines()[0])  # fmt: skip
        return csr_search.astar_kernel, False
    return compiled, True


astar_kernel, COMPILED = _compiled_twin()
"""The kernel (same signature and results as :func:`csr_search.astar_kernel`), and whether
it is compiled."""


@register_warm_up
def _warm_up() -> None:
    """Compile (or load) the kernel; already done on import, so this only checks it runs."""
    _tiny_query(astar_kernel)
