"""HPA* warm-up (python_core.hpa.warm_up): after it, a real workload loads no kernel it missed.

A fresh process runs the sidecar worker's warm-ups (``compiled.warm_up`` at start, then
``warm_up_hierarchy``), records every compiled kernel's signatures, and then builds, queries and
updates hierarchies on a 96 x 96 random map as a game would (one weight and mixed weights, the
table, level 2, no trees; 100-cell updates boxed and unboxed, doors, weights, refills). Any
kernel that gains a signature there is one whose first call a game would still wait for.
"""

from __future__ import annotations

import json
import os

import pytest

from python_core.compiled import DISABLE_ENV, JIT_ENABLED
from python_core.hpa.warm_up import warm_up_hierarchy
from tests.python_snippet import run_snippet

PROBE = """
import importlib, json, pkgutil
import numpy as np
import python_core
from python_core.compiled import warm_up
from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.warm_up import warm_up_hierarchy

def signatures():
    found = {}
    for info in pkgutil.walk_packages(python_core.__path__, "python_core."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if hasattr(value, "py_func") and hasattr(value, "signatures"):
                key = value.py_func.__module__ + "." + value.py_func.__qualname__
                found[key] = {str(s) for s in value.signatures}
    return found

warm_up()
warm_up_hierarchy()
before = signatures()
rng = np.random.default_rng(4)
walk = rng.random((96, 96)) > 0.3
for weights in (None, rng.uniform(1.0, 3.0, (96, 96))):
    grid = GridGraph(walk.copy(), diagonal=DiagonalMode.ONLY_IF_NO_OBSTACLES, weights=weights)
    for options in ({}, {"levels": 2, "region_clusters": 2}, {"tree_budget": 0, "table_budget": 0}):
        hpa = HierarchicalGrid(grid, cluster_size=16, repair_seconds=0.001, **options).build()
        open_cells = np.argwhere(grid.walkable)[:, ::-1]
        for i in range(20):
            a, b = open_cells[rng.integers(0, len(open_cells), 2)]
            hpa.find_path((int(a[0]), int(a[1])), (int(b[0]), int(b[1])))
        for box in (0.001, None):
            hpa.repair_seconds = box
            cells = rng.integers(0, 96, (100, 2))
            state = grid.walkable[cells[:, 1], cells[:, 0]].copy()
            hpa.set_walkable(cells, ~state)
            a, b = open_cells[rng.integers(0, len(open_cells), 2)]
            hpa.find_path((int(a[0]), int(a[1])), (int(b[0]), int(b[1])))
            hpa.set_walkable(cells, state)
        door = (int(open_cells[7][0]), int(open_cells[7][1]))
        hpa.set_walkable([door], False)
        hpa.set_walkable([door], True)
        hpa.set_weights(cells[:10], 2.5)
        hpa.refill_table()
after = signatures()
print(json.dumps(sorted(k for k in after if after[k] - before.get(k, set()))))
"""


@pytest.mark.slow  # a fresh interpreter: the warm-up, then a game's workload on a 96 x 96 map
@pytest.mark.skipif(not JIT_ENABLED, reason="nothing is compiled without numba")
def test_a_workload_after_the_warm_up_loads_no_new_kernel() -> None:
    env = {k: v for k, v in os.environ.items() if k != DISABLE_ENV}
    missed = json.loads(run_snippet(PROBE, env, timeout=900).strip().splitlines()[-1])
    assert missed == [], f"kernels the warm-up did not load: {missed}"


def test_warm_up_hierarchy_reports_its_time() -> None:
    assert warm_up_hierarchy() >= 0.0
