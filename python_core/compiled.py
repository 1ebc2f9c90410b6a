"""Optional machine-code compilation of the search kernels with numba, and their warm-up.

Quick start::

    from python_core.compiled import JIT_ENABLED, jit, warm_up
    square = jit(lambda_free_function)   # numba.njit(cache=True, nogil=True), or the function itself
    seconds = warm_up()                  # compile (or load from the disk cache) every kernel once

Every kernel is ONE plain-Python function over numbers and numpy arrays. :func:`jit` hands it to
``numba.njit`` when numba is importable and ``ASTAR_BRIDGE_NO_JIT`` is unset (or ``0``); otherwise
it returns the function unchanged, so the same code runs, only slower. Compiled code is cached on
disk (``cache=True``) in ``python_core/__pycache__/numba-<sources hash>`` (or under
``NUMBA_CACHE_DIR``, same sub-folder). numba checks only a kernel's own file before reusing its
cached machine code, not the helpers it inlined from other files (the heap, the heuristics), so
the folder is keyed by a hash of every python_core source: any edit or upgrade compiles afresh
instead of running stale code. A process that wants its first query to be fast calls
:func:`warm_up` once at start.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

__all__ = [
    "DISABLE_ENV",
    "FIRST_WARM_UP_MODULES",
    "JIT_ENABLED",
    "WARM_UP_MODULES",
    "jit",
    "record",
    "register_warm_up",
    "warm_up",
]

DISABLE_ENV = "ASTAR_BRIDGE_NO_JIT"
"""Set this environment variable to ``1`` to run every kernel as plain Python."""

FIRST_WARM_UP_MODULES = (
    "python_core.grid.graph",
    "python_core.grid.clearance",
    "python_core.grid.search",
    "python_core.csr.kernel",
)
"""The kernels of grids and waypoint graphs, the graphs most games load first."""

WARM_UP_MODULES = (
    "python_core.grid.graph",
    "python_core.grid.clearance",
    "python_core.grid.search",
    "python_core.grid.layouts",
    "python_core.csr.kernel",
    "python_core.navmesh.mesh",
    "python_core.navmesh.batch",
    "python_core.navmesh.polyanya_kernel",
    "python_core.navmesh.optimal_batch",
    "python_core.flowfield",
)
"""Modules whose kernels :func:`warm_up` compiles; each registers its own warm-up on import."""

F = TypeVar("F", bound=Callable[..., Any])


def _load_numba() -> Any:
    """The numba module, or None when disabled by :data:`DISABLE_ENV` or not installed."""
    if os.environ.get(DISABLE_ENV, "").strip() not in ("", "0"):
        return None
    try:
        import numba  # noqa: PLC0415 (optional dependency, imported once here)
    except ImportError:  # pragma: no cover - numba is a runtime dependency, but stay usable without
        return None
    base = os.environ.get("NUMBA_CACHE_DIR") or str(Path(__file__).parent / "__pycache__")
    config: Any = numba.config  # untyped module attributes
    config.CACHE_DIR = os.path.join(base, f"numba-{_sources_hash(numba.__version__)}")
    return numba


def _sources_hash(numba_version: str) -> str:
    """A short hash of every python_core source file and the numba version (the cache key)."""
    digest = hashlib.sha256(numba_version.encode())
    package = Path(__file__).parent
    sources: list[Path] = []
    for folder, subfolders, files in os.walk(package):
        # never into the caches: thousands of files, and another process may be deleting an old one
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        sources.extend(Path(folder, name) for name in files if name.endswith(".py"))
    for path in sorted(sources):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


_NUMBA = _load_numba()

JIT_ENABLED: bool = _NUMBA is not None
"""True when :func:`jit` compiles; False when kernels run as plain Python."""

_WARM_UPS: list[Callable[[], None]] = []


def jit(function: F) -> F:
    """Compile ``function`` with ``numba.njit(cache=True, nogil=True)``, or return it unchanged.

    The function must be numba-compilable *and* correct as plain Python (it is both, one source).
    Compilation is lazy: numba compiles (or loads from its disk cache) on the first call for each
    combination of argument types, so callers pass consistent dtypes (see :func:`warm_up`).

    Args:
        function: a module-level function over numbers and numpy arrays.

    Returns:
        The compiled dispatcher (callable like the function) or ``function`` itself.

    Example (in a module's source: numba's disk cache keys a function by its file)::

        @jit
        def add(a, b):
            return a + b

        add(2, 3)  # 5, compiled on this first call
    """
    if _NUMBA is None:
        return function
    return cast(F, _NUMBA.njit(cache=True, nogil=True)(function))


def record(name: str, fields: tuple[str, ...], module: str) -> type:
    """A class of named fields, given positionally, that kernels read as attributes.

    It carries what a kernel takes unchanged from call to call in ONE argument: numba types and
    unboxes every argument of every call (about 0.1 us per array), a record once. With numba it is
    a StructRef (``numba.experimental.structref``): build it in a compiled function, whose machine
    code is cached (its constructor called from Python would be compiled again in every process),
    and its field types are those of the values it was built from. Without numba, a plain class.

    Args:
        name: the class name; with numba its type class is ``name + "Type"``, set on ``module``
            (numba's disk cache refers to it by module and name).
        fields: field names, in constructor order.
        module: the ``__name__`` of the module that assigns the class to ``name``.

    Returns:
        The class.

    Kernels read the fields (``pair.b``); Python code does not (a StructRef shows it none).

    Example:
        >>> Pair = record("Pair", ("a", "b"), __name__)
        >>> Pair.__name__
        'Pair'
    """
    if _NUMBA is None:

        def fill(self: Any, *values: Any) -> None:
            if len(values) != len(fields):
                raise TypeError(f"{name} takes {len(fields)} values, got {len(values)}")
            for field, value in zip(fields, values, strict=True):
                setattr(self, field, value)

        return type(name, (), {"__slots__": fields, "__init__": fill, "__module__": module})
    types: Any = importlib.import_module("numba.core.types")  # untyped optional dependency
    structref: Any = importlib.import_module("numba.experimental.structref")

    def preprocess_fields(self: Any, pairs: Any) -> tuple[Any, ...]:
        return tuple((field, types.unliteral(kind)) for field, kind in pairs)

    kind = type(
        name + "Type", (types.StructRef,),
        {"preprocess_fields": preprocess_fields, "__module__": module, "__qualname__": name + "Type"},
    )  # fmt: skip
    structref.register(kind)
    setattr(sys.modules[module], name + "Type", kind)
    proxy = type(name, (structref.StructRefProxy,), {"__module__": module, "__qualname__": name})
    structref.define_proxy(proxy, kind, list(fields))
    return proxy


def register_warm_up(routine: Callable[[], None]) -> Callable[[], None]:
    """Record a routine that calls a module's kernels once on tiny inputs of the real dtypes.

    Usable as a decorator; returns ``routine``.
    """
    _WARM_UPS.append(routine)
    return routine


def warm_up(modules: Sequence[str] | None = None) -> float:
    """Compile (or load from the disk cache) every search kernel; return the seconds it took.

    ``modules`` limits it to the kernels of those modules (and their submodules), e.g.
    :data:`FIRST_WARM_UP_MODULES`, so a server can be ready for the common graphs first.

    Call it once when a process that will answer queries starts (each bridge worker process), so
    the first real query does not pay for compilation. Harmless and quick without numba.

    Returns:
        Wall-clock seconds spent, ``>= 0``.

    Example:
        >>> warm_up() >= 0.0
        True
    """
    began = time.perf_counter()
    for name in WARM_UP_MODULES if modules is None else modules:
        importlib.import_module(name)
    for routine in _WARM_UPS:
        if modules is None or any(_within(routine.__module__, name) for name in modules):
            routine()
    return time.perf_counter() - began


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")
