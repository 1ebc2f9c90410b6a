"""find_optimal_batch (issue 40): a packed batch of Polyanya queries equals find_optimal_path query
by query (masks, budgets, partial paths, 3D, a cut mesh through the navigator), also when the batch
is split over two threads running at once (as the sidecar's search threads run its pieces)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from python_core import QueryOptions
from python_core.errors import InvalidQueryError, UnsupportedOperationError
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navigation import NavMeshNavigator
from python_core.navmesh import NavMesh
from python_core.navmesh.batch import MeshBatch
from python_core.navmesh.links import NavLink
from python_core.navmesh.optimal_batch import find_optimal_batch
from python_core.navmesh.polyanya import find_optimal_path
from python_core.obstacles import ObstacleShape

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"
FIELDS = ("status", "costs", "expanded", "offsets", "points", "node_offsets", "nodes")


def _same(a: MeshBatch, b: MeshBatch) -> None:
    for name in FIELDS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def _one_by_one(mesh: NavMesh, s: np.ndarray, g: np.ndarray, **kw: Any) -> MeshBatch:
    alone = [find_optimal_path(mesh, a, b, **kw) for a, b in zip(s, g, strict=True)]
    return MeshBatch.from_results(alone, mesh.dim)


@pytest.fixture(scope="module")
def arena() -> tuple[NavMesh, np.ndarray, np.ndarray]:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")
    starts = np.array([r.start for r in rows] + [[-50.0, 3.0]])  # the last one off the mesh: snapped
    goals = np.array([r.goal for r in rows] + [[2.0, 2.0]])
    return mesh, starts, goals


def test_the_batch_equals_each_query_and_a_split_over_two_threads(
    arena: tuple[NavMesh, np.ndarray, np.ndarray],
) -> None:
    mesh, starts, goals = arena
    whole = find_optimal_batch(mesh, starts, goals)
    _same(whole, _one_by_one(mesh, starts, goals))
    halves = [slice(0, len(starts) // 2), slice(len(starts) // 2, None)]
    with ThreadPoolExecutor(2) as pool:  # both halves at once, on the same prepared arrays
        parts = list(pool.map(lambda part: find_optimal_batch(mesh, starts[part], goals[part]), halves * 4))
    for part, found in zip(halves * 4, parts, strict=True):
        _same(found, _one_by_one(mesh, starts[part], goals[part]))


def test_masks_budgets_and_partial_paths_as_find_optimal_path(
    arena: tuple[NavMesh, np.ndarray, np.ndarray],
) -> None:
    mesh, starts, goals = arena
    s, g = starts[::8], goals[::8]
    rng = np.random.default_rng(4)
    mask = rng.random(mesh.polygon_count) > 0.2  # some polygons closed: unreachable goals, bad starts
    for opts in (
        QueryOptions(max_expansions=5),
        QueryOptions(heuristic="zero"),
        QueryOptions(allow_partial=True),
    ):
        _same(find_optimal_batch(mesh, s, g, options=opts, traversable=mask),
              _one_by_one(mesh, s, g, options=opts, traversable=mask))  # fmt: skip
    statuses = {st.value for st in find_optimal_batch(mesh, s, g, traversable=mask).statuses()}
    assert {"found", "no_path"} <= statuses
    partial = find_optimal_batch(mesh, s, g, options=QueryOptions(allow_partial=True), traversable=mask)
    assert "partial" in {st.value for st in partial.statuses()}


def test_3d_and_a_cut_mesh_through_the_navigator() -> None:
    up = NavMesh([[0, 0, 0], [2, 0, 0], [2, 1, 2], [1, 1, 1], [0, 0, 2]], [[0, 1, 3], [1, 2, 3], [0, 3, 4]])
    s, g = np.array([[1.8, 0.5, 1.5], [0.1, 0, 0.1]]), np.array([[0.2, 0.5, 1.5], [1.9, 0, 0.1]])
    _same(find_optimal_batch(up, s, g), _one_by_one(up, s, g))
    square = NavMesh([[0, 0], [10, 0], [10, 10], [0, 10]], [[0, 1, 2, 3]])
    nav = NavMeshNavigator(square)
    nav.update_obstacles({1: ObstacleShape.polygon([[4, 2], [6, 2], [6, 8], [4, 8]])})
    a, b = np.array([[1.0, 5.0], [5.0, 1.0]]), np.array([[9.0, 5.0], [5.0, 9.0]])
    batch = nav.find_batch(a, b, QueryOptions(optimal=True))
    for i in range(2):
        alone = nav.find_path(a[i], b[i], QueryOptions(optimal=True))
        assert batch.result(i).points.tolist() == alone.points.tolist()
        assert batch.result(i).nodes.tolist() == alone.nodes.tolist() == [0]  # the loaded polygon
    assert batch.result(0).cost > 8.0  # around the obstacle


def test_bad_input_is_the_batchs_error() -> None:
    mesh = NavMesh([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 1, 2, 3]])
    with pytest.raises(InvalidQueryError, match="starts"):
        find_optimal_batch(mesh, [[0, np.nan]], [[1, 1]])
    with pytest.raises(InvalidQueryError, match="goals"):
        find_optimal_batch(mesh, [[0, 0]], [[1, 1], [0, 0]])
    with pytest.raises(InvalidQueryError, match="heuristic"):
        find_optimal_batch(mesh, [[0, 0]], [[1, 1]], options=QueryOptions(heuristic="manhattan"))
    with pytest.raises(InvalidQueryError, match="max_expansions"):
        find_optimal_batch(mesh, [[0, 0]], [[1, 1]], options=QueryOptions(max_expansions=-1))
    linked = NavMesh(
        [[0, 0], [1, 0], [1, 1], [0, 1]],
        [[0, 1, 2, 3]],
        links=[NavLink(np.array([0.1, 0.1]), np.array([0.9, 0.9]))],
    )
    with pytest.raises(UnsupportedOperationError, match="links"):
        find_optimal_batch(linked, [[0, 0]], [[1, 1]])
    assert len(find_optimal_batch(mesh, np.zeros((0, 2)), np.zeros((0, 2)))) == 0


def test_without_corridors_only_the_polygons_are_left_out(
    arena: tuple[NavMesh, np.ndarray, np.ndarray],
) -> None:
    """corridors=False (a frame's batch the addon sends): the same statuses, points, costs and
    expansions, no polygons; through the navigator in both modes and on a cut mesh too."""
    mesh, starts, goals = arena
    whole = find_optimal_batch(mesh, starts, goals)
    bare = find_optimal_batch(mesh, starts, goals, corridors=False)
    assert whole.nodes.size > 0
    assert bare.nodes.size == 0
    assert not bare.node_offsets.any()
    _same(bare, whole.without_nodes())
    nav = NavMeshNavigator(NavMesh(mesh.vertices, [mesh.polygon(p) for p in range(mesh.polygon_count)]))
    for options in (QueryOptions(optimal=True), QueryOptions(optimal=False), QueryOptions(radius=0.5)):
        _same(
            nav.find_batch(starts, goals, options, corridors=False),
            nav.find_batch(starts, goals, options).without_nodes(),
        )
    nav.update_obstacles({1: ObstacleShape.polygon([[8.0, 8.0], [12.0, 8.0], [12.0, 12.0], [8.0, 12.0]])})
    _same(nav.find_batch(starts, goals, corridors=False), nav.find_batch(starts, goals).without_nodes())
