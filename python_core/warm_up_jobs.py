"""The kernel warm-up as named jobs, so that several processes can fill numba's disk cache at once.

Quick start::

    from python_core.warm_up_jobs import KERNEL_SIGNATURES, jobs, run_job
    for job in jobs():              # longest first
        seconds = run_job(job.name)  # compile (or load from the disk cache) that job's kernels

Together the jobs do what :func:`python_core.compiled.warm_up` and
:func:`python_core.hpa.warm_up.warm_up_hierarchy` do. A job names the jobs whose kernels it calls
too (``after``): run after them, it loads those from the cache instead of compiling them again.
"""

from __future__ import annotations

from dataclasses import dataclass

from python_core.compiled import WARM_UP_MODULES, warm_up
from python_core.errors import InvalidQueryError

__all__ = ["HIERARCHY_JOB", "KERNEL_SIGNATURES", "WarmUpJob", "jobs", "run_job"]

KERNEL_SIGNATURES = 337
"""Compiled kernel signatures a warm-up writes into an empty cache (one data file each; numba 0.68,
x86-64). A progress total, known before the first compile; tests/addon/test_warm_up_parallel.py
fails, naming the new figure, when a kernel is added or removed."""

HIERARCHY_JOB = "hpa"
"""The job of :func:`python_core.hpa.warm_up.warm_up_hierarchy` (it takes modules no list)."""


@dataclass(frozen=True, slots=True)
class WarmUpJob:
    """One share of the warm-up.

    Attributes:
        name: the job's key (``run_job(name)``).
        title: what it compiles, in plain words.
        modules: the modules whose registered warm-ups it runs (empty for the HPA* job).
        after: jobs whose kernels it also calls (better run first, so they load from the cache).
    """

    name: str
    title: str
    modules: tuple[str, ...]
    after: tuple[str, ...] = ()


_JOBS = (
    # The HPA* job is half the compile time on its own: it goes first, beside all the others.
    WarmUpJob(HIERARCHY_JOB, "HPA* hierarchies", ()),
    WarmUpJob(
        "grid",
        "grid searches",
        ("python_core.grid.graph", "python_core.grid.clearance", "python_core.grid.search"),
    ),
    WarmUpJob("waypoints", "waypoint graphs", ("python_core.csr.kernel",)),
    WarmUpJob(
        "navmesh",
        "navigation meshes",
        ("python_core.navmesh.mesh", "python_core.navmesh.batch"),
        after=("waypoints",),
    ),
    WarmUpJob(
        "polyanya",
        "exact navmesh paths",
        ("python_core.navmesh.polyanya_kernel", "python_core.navmesh.optimal_batch"),
    ),
    WarmUpJob("flowfield", "flow fields", ("python_core.flowfield",), after=("grid",)),
    WarmUpJob("layouts", "hexagonal and isometric grids", ("python_core.grid.layouts",), after=("grid",)),
)


def jobs() -> tuple[WarmUpJob, ...]:
    """Every warm-up job, longest first; a warm-up module no job names gets a job of its own, so
    a module added to :data:`python_core.compiled.WARM_UP_MODULES` is never left out.

    Example:
        >>> [job.name for job in jobs()][:2]
        ['hpa', 'grid']
    """
    named = {module for job in _JOBS for module in job.modules}
    rest = tuple(module for module in WARM_UP_MODULES if module not in named)
    return _JOBS + ((WarmUpJob("more", "more kernels", rest),) if rest else ())


def run_job(name: str) -> float:
    """Compile (or load from the disk cache) one job's kernels; return the seconds it took.

    Args:
        name: a :class:`WarmUpJob` name from :func:`jobs`.

    Returns:
        Wall-clock seconds, ``>= 0``.

    Raises:
        InvalidQueryError: for a name no job has.

    Example:
        >>> run_job("waypoints") >= 0.0
        True
        >>> run_job("everything")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidQueryError: unknown warm-up job 'everything' (known: hpa, grid, ...)
    """
    by_name = {job.name: job for job in jobs()}
    job = by_name.get(name)
    if job is None:
        raise InvalidQueryError(f"unknown warm-up job {name!r} (known: {', '.join(by_name)})")
    if job.name == HIERARCHY_JOB:
        # Imported here: the HPA* package is heavy, and most jobs never need it.
        from python_core.hpa.warm_up import warm_up_hierarchy  # noqa: PLC0415

        return warm_up_hierarchy()
    return warm_up(job.modules)
