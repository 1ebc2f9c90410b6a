"""A runaway Polyanya search ends (issue 40): on aurora as 4 x 4 regions cut by 100 obstacles, a
query's chain of lone successors ping-ponged between two polygons joined twice (a shared edge and
a margin join) and made nodes until the process held 19 GB. The search now stops at
``ROOM_PER_CORNER`` nodes per mesh corner and answers ``budget_exhausted``; run in a process with
2 GB of address space, which the old search exceeded (MemoryError or killed). The default mode
(Polyanya where measured faster) then answers with the funnel's path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

_SCRIPT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))
import numpy as np
sys.path.insert(0, {repo!r})
import bench.navmesh_obstacles as bench
from python_core.formats.polyanya import load_polyanya_mesh
from python_core.navigation import NavMeshNavigator
from python_core.navigation import navmesh as navigator_module
from python_core.navmesh import mode_choice, polyanya
from python_core.obstacles import ObstacleShape
mode_choice.build_landmarks = lambda mesh, count=0: 0  # plain Polyanya, as N6's repro
# The default mode as a big mesh measures it (Polyanya), without timing probes:
navigator_module.choose_mode = lambda mesh: mode_choice.ModeChoice("optimal")
nav = NavMeshNavigator(bench._regions(load_polyanya_mesh({mesh!r}), 4))
centres = bench._on_mesh(nav.mesh, 100, np.random.default_rng(40))
nav.update_obstacles({{i: ObstacleShape.circle(centres[i], 3.0) for i in range(100)}})
resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 6 * 2**30))
start, goal = (387.1109175706124, 717.6248012414314), (685.2732638757899, 144.40753480522358)
print(polyanya.find_optimal_path(nav.mesh, start, goal).status.value)
batch = nav.find_batch([start, start], [goal, start])
print(nav.find_path(start, goal).status.value, batch.statuses()[0].value)
print(nav.find_path(start, goal, polyanya.QueryOptions(optimal=True)).status.value)
"""


def test_a_search_that_runs_away_ends_within_bounded_memory() -> None:
    script = _SCRIPT.format(repo=str(REPO), mesh=str(REPO / "tests" / "data" / "mesh" / "aurora.mesh"))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    plain, default, default_batch, asked = done.stdout.split()[-4:]
    assert plain == "budget_exhausted"
    # The default mode answers with the funnel's path where its Polyanya hit the cap; a query
    # that asks for optimal keeps the honest status.
    assert (default, default_batch, asked) == ("found", "found", "budget_exhausted")
