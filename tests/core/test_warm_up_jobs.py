"""Every kernel warm-up a module registers runs in one of the warm-up jobs.

A job runs the routines of its modules and their submodules only; a routine registered in another
module (``python_core.grid.clearance`` once was) never ran in the parallel or frozen warm-up, so
its kernels compiled at a game's first query, and the frozen sidecar's check caught it.
"""

from __future__ import annotations

import importlib

from python_core import compiled
from python_core.compiled import WARM_UP_MODULES
from python_core.warm_up_jobs import HIERARCHY_JOB, jobs


def test_every_registered_warm_up_belongs_to_a_job() -> None:
    for name in WARM_UP_MODULES:
        importlib.import_module(name)
    covered = [module for job in jobs() if job.name != HIERARCHY_JOB for module in job.modules]
    routines = {routine.__module__ for routine in compiled._WARM_UPS}
    assert routines, "no module registered a warm-up"
    missing = sorted(r for r in routines if not any(compiled._within(r, m) for m in covered))
    assert not missing, f"warm-ups no job runs: {missing} (add them to a job in warm_up_jobs.py)"


def test_the_first_warm_up_covers_what_a_grid_load_compiles() -> None:
    assert "python_core.grid.clearance" in compiled.FIRST_WARM_UP_MODULES
