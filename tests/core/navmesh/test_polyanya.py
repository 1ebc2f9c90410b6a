"""Polyanya (``"optimal"``): exact lengths on the benchmark meshes, valid paths, hand-made answers."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from python_core import QueryOptions
from python_core.errors import InvalidQueryError, UnsupportedOperationError
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navigation import NavMeshNavigator
from python_core.navmesh import NavMesh
from python_core.navmesh.funnel import funnel_points
from python_core.navmesh.links import NavLink
from python_core.navmesh.polyanya import find_optimal_path
from python_core.result import PathStatus
from tests.core.navmesh.mesh_oracle import MeshOracle, VisibilityOptimum

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"


@pytest.fixture(scope="module")
def arena() -> NavMesh:
    return load_polyanya_mesh(DATA / "arena.mesh")


@pytest.fixture(scope="module")
def aurora() -> NavMesh:
    return load_polyanya_mesh(DATA / "aurora.mesh")


def _printed_lengths(path: Path) -> list[tuple[float, float]]:
    """Column 9 of a scenario file and half a unit of its last printed digit."""
    out = []
    for line in path.read_text().splitlines()[1:]:
        text = line.split("\t")[8]
        decimals = len(text.split(".")[1]) if "." in text else 0
        out.append((float(text), 0.5 * 10.0**-decimals))
    return out


def _corridor_length(mesh: NavMesh, start: np.ndarray, goal: np.ndarray, corridor: np.ndarray) -> float:
    """The funnel's taut length inside a corridor of polygons (exact for that corridor)."""
    left, right = [], []
    for p, q in itertools.pairwise(corridor):
        corners = np.flatnonzero(mesh.neighbours[mesh.poly_ptr[p] : mesh.poly_ptr[p + 1]] == q)
        assert corners.size >= 1, f"polygons {p} and {q} of the corridor are not neighbours"
        poly = mesh.polygon(p)
        i = int(corners[0])
        right.append(mesh.vertices[poly[i]])
        left.append(mesh.vertices[poly[(i + 1) % len(poly)]])
    pts = funnel_points(start, goal, np.reshape(left, (-1, 2)), np.reshape(right, (-1, 2)))
    return float(np.linalg.norm(np.diff(pts, axis=0), axis=1).sum())


# ---- the benchmark meshes -------------------------------------------------------------------------
def test_arena_every_scenario_has_the_anyangle_optimum(arena: NavMesh) -> None:
    """All 160 queries: the exact optimum of the visibility graph (relative error below 1e-9), and
    the file's any-angle length to its printed precision; every path inside the mesh."""
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")
    printed = _printed_lengths(DATA / "arena.anyangle.scen")
    oracle = MeshOracle(arena)
    exact = VisibilityOptimum(oracle)
    worst = 0.0
    for row, (length, half_unit) in zip(rows, printed, strict=True):
        res = find_optimal_path(arena, row.start, row.goal)
        assert res.found, row
        assert abs(res.cost - length) <= half_unit + 1e-12, (row, res.cost)
        best = exact.length(np.array(row.start), np.array(row.goal))
        worst = max(worst, abs(res.cost - best) / max(best, 1.0))
        assert res.cost >= best * (1 - 1e-9), (row, res.cost, best)  # never shorter than the optimum
        assert oracle.path_inside(res.points), (row, res.points)
        np.testing.assert_allclose(res.points[0], row.start)
        np.testing.assert_allclose(res.points[-1], row.goal)
    assert worst < 1e-9


def test_aurora_sample_is_valid_and_no_longer_than_the_funnel(aurora: NavMesh) -> None:
    every = read_mesh_scenarios(DATA / "aurora.scen")
    rows = [every[i] for i in np.linspace(0, len(every) - 1, 40).astype(int)]
    oracle = MeshOracle(aurora)
    for row in rows:
        res = find_optimal_path(aurora, row.start, row.goal)
        default = aurora.find_path(row.start, row.goal)
        assert res.found, row
        assert default.found, row
        assert res.cost <= default.cost + 1e-9, (row, res.cost, default.cost)
        assert res.cost <= row.length + 1e-6  # the grid's octile length bounds the any-angle one
        assert res.cost >= math.dist(row.start, row.goal) - 1e-9
        assert oracle.path_inside(res.points), row
        # Its corridor's taut path is the path itself; where the funnel's corridor is the optimal
        # one, the funnel finds the same length.
        assert _corridor_length(aurora, res.points[0], res.points[-1], res.nodes) == pytest.approx(res.cost)
        if _corridor_length(aurora, default.points[0], default.points[-1], default.nodes) <= res.cost + 1e-9:
            assert default.cost == pytest.approx(res.cost, rel=1e-9)


# ---- hand-made meshes -----------------------------------------------------------------------------
NOTCH = NavMesh([[0, 0], [2, 0], [2, 2], [1, 1], [0, 2]], [[0, 1, 3], [1, 2, 3], [0, 3, 4]])


def _u_shape() -> NavMesh:
    """A U: two 1 x 3 arms joined by a 3 x 1 bottom, the gap between the arms from x=1 to x=2."""
    verts = [[0, 0], [1, 0], [2, 0], [3, 0], [0, 1], [1, 1], [2, 1], [3, 1], [0, 3], [1, 3], [2, 3], [3, 3]]
    polys = [[0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [4, 5, 9, 8], [6, 7, 11, 10]]
    return NavMesh(verts, polys)


def test_turns_at_the_notch() -> None:
    res = find_optimal_path(NOTCH, (1.8, 1.5), (0.2, 1.5))
    assert res.points.tolist() == [[1.8, 1.5], [1.0, 1.0], [0.2, 1.5]]
    assert res.cost == pytest.approx(2 * math.hypot(0.8, 0.5))
    assert res.nodes.tolist() == [1, 0, 2]


def test_u_shape_turns_at_both_inner_corners() -> None:
    res = find_optimal_path(_u_shape(), (0.5, 2.5), (2.5, 2.5))
    assert res.points.tolist() == [[0.5, 2.5], [1, 1], [2, 1], [2.5, 2.5]]
    assert res.cost == pytest.approx(2 * math.hypot(0.5, 1.5) + 1)
    assert res.nodes.tolist() == [3, 0, 1, 2, 4]


def test_straight_line_when_visible_across_polygons() -> None:
    res = find_optimal_path(_u_shape(), (0.1, 0.5), (2.9, 0.5))
    assert res.points.tolist() == [[0.1, 0.5], [2.9, 0.5]]
    assert res.cost == pytest.approx(2.8)


def test_same_polygon_and_same_point() -> None:
    mesh = _u_shape()
    res = find_optimal_path(mesh, (0.2, 0.2), (0.8, 0.7))
    assert res.found
    assert res.points.tolist() == [[0.2, 0.2], [0.8, 0.7]]
    assert res.nodes.tolist() == [0]
    same = find_optimal_path(mesh, (0.5, 2.0), (0.5, 2.0))
    assert same.found
    assert same.points.tolist() == [[0.5, 2.0]]
    assert same.cost == 0.0


def test_start_on_an_edge_or_a_vertex_searches_every_polygon_around_it() -> None:
    mesh = _u_shape()
    on_edge = find_optimal_path(mesh, (0.5, 1.0), (2.5, 2.5))  # on the edge between polygons 0 and 3
    assert on_edge.cost == pytest.approx(math.hypot(1.5, 0.0) + math.hypot(0.5, 1.5))
    on_vertex = find_optimal_path(mesh, (1.0, 1.0), (2.5, 2.5))  # the corner of three polygons
    assert on_vertex.points.tolist() == [[1, 1], [2, 1], [2.5, 2.5]]
    assert on_vertex.cost == pytest.approx(1 + math.hypot(0.5, 1.5))


def test_start_in_line_with_the_only_way_out() -> None:
    # A 2 x 1 block (a vertex mid-way along its long sides) over one unit square at its left end:
    # from the block's bottom-right corner, the way down is the edge in line with the start.
    verts = [[0, 1], [1, 1], [2, 1], [2, 2], [1, 2], [0, 2], [0, 0], [1, 0]]
    mesh = NavMesh(verts, [[0, 1, 2, 3, 4, 5], [6, 7, 1, 0]])
    res = find_optimal_path(mesh, (2.0, 1.0), (0.5, 0.2))
    assert res.points.tolist() == [[2, 1], [1, 1], [0.5, 0.2]]
    assert res.cost == pytest.approx(1 + math.hypot(0.5, 0.8))


def test_endpoints_off_the_mesh_are_snapped_as_in_the_default_mode() -> None:
    mesh = _u_shape()
    res = find_optimal_path(mesh, (0.5, 5.0), (2.5, 5.0))
    default = mesh.find_path((0.5, 5.0), (2.5, 5.0))
    assert res.points[0].tolist() == default.points[0].tolist() == [0.5, 3.0]
    assert res.points[-1].tolist() == default.points[-1].tolist() == [2.5, 3.0]
    assert res.cost <= default.cost + 1e-12


def test_unreachable_goal_and_partial_paths() -> None:
    mesh = NavMesh(
        [[0, 0], [1, 0], [1, 1], [0, 1], [3, 0], [4, 0], [4, 1], [3, 1]], [[0, 1, 2, 3], [4, 5, 6, 7]]
    )
    res = find_optimal_path(mesh, (0.5, 0.5), (3.5, 0.5))
    assert res.status is PathStatus.NO_PATH
    assert len(res) == 0
    assert res.cost == math.inf
    part = find_optimal_path(mesh, (0.5, 0.5), (3.5, 0.5), options=QueryOptions(allow_partial=True))
    assert part.status is PathStatus.PARTIAL
    assert part.points.tolist() == [[0.5, 0.5], [1.0, 0.5]]


def test_partial_path_is_shortest_to_the_nearest_reachable_point() -> None:
    mesh = _u_shape()
    blocked = np.array([True, False, True, True, True])  # the bottom middle cut: two separate arms
    part = find_optimal_path(
        mesh, (0.5, 2.5), (2.5, 2.5), options=QueryOptions(allow_partial=True), traversable=blocked
    )
    assert part.status is PathStatus.PARTIAL
    assert part.points.tolist() == [[0.5, 2.5], [1.0, 2.5]]


def test_mask_turns_polygons_into_obstacles() -> None:
    # Two rows of three unit squares; masking the top middle one forces the way down and round.
    verts = [[x, y] for y in range(3) for x in range(4)]
    polys = [[i, i + 1, i + 5, i + 4] for i in (0, 1, 2, 4, 5, 6)]
    mesh = NavMesh(verts, polys)
    direct = find_optimal_path(mesh, (0.5, 1.5), (2.5, 1.5))
    assert direct.points.shape[0] == 2
    assert direct.cost == pytest.approx(2.0)
    mask = np.array([True, True, True, True, False, True])
    around = find_optimal_path(mesh, (0.5, 1.5), (2.5, 1.5), traversable=mask)
    assert around.found
    assert around.points.tolist() == [[0.5, 1.5], [1, 1], [2, 1], [2.5, 1.5]]
    assert around.cost == pytest.approx(1 + 2 * math.hypot(0.5, 0.5))
    assert around.nodes.tolist() == [3, 0, 1, 2, 5]
    mask[5] = False
    assert find_optimal_path(mesh, (0.5, 1.5), (2.5, 1.5), traversable=mask).status is PathStatus.NO_PATH
    partial = find_optimal_path(
        mesh, (0.5, 1.5), (2.5, 1.5), options=QueryOptions(allow_partial=True), traversable=mask
    )
    assert partial.status is PathStatus.PARTIAL
    assert partial.points.tolist() == [[0.5, 1.5], [1, 1], [2.5, 1]]  # to the nearest point left
    assert partial.cost == pytest.approx(math.hypot(0.5, 0.5) + 1.5)
    mask[3] = False  # the start's own polygon
    assert find_optimal_path(mesh, (0.5, 1.5), (2.5, 1.5), traversable=mask).status is PathStatus.NO_PATH


def test_path_through_a_vertex_where_polygons_only_touch() -> None:
    # Top-left to bottom-right of a 2 x 2 block with the bottom-left square masked: the straight
    # line grazes the centre vertex; with the top-right one masked too, the squares only touch.
    verts = [[x, y] for y in range(3) for x in range(3)]
    polys = [[0, 1, 4, 3], [1, 2, 5, 4], [3, 4, 7, 6], [4, 5, 8, 7]]
    mesh = NavMesh(verts, polys)
    mask = np.array([False, True, True, True])
    res = find_optimal_path(mesh, (0.5, 1.5), (1.5, 0.5), traversable=mask)
    assert res.found
    assert res.cost == pytest.approx(math.sqrt(2))
    mask[3] = False
    assert find_optimal_path(mesh, (0.5, 1.5), (1.5, 0.5), traversable=mask).status is PathStatus.NO_PATH


def test_zero_heuristic_gives_the_same_length_with_more_work() -> None:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    for row in read_mesh_scenarios(DATA / "arena.anyangle.scen")[::20]:
        h = find_optimal_path(mesh, row.start, row.goal)
        zero = find_optimal_path(mesh, row.start, row.goal, options=QueryOptions(heuristic="zero"))
        assert zero.cost == pytest.approx(h.cost, rel=1e-12)
        assert zero.expanded >= h.expanded


def test_budget() -> None:
    mesh = _u_shape()
    res = find_optimal_path(mesh, (0.5, 2.5), (2.5, 2.5), options=QueryOptions(max_expansions=0))
    assert res.status is PathStatus.BUDGET_EXHAUSTED
    assert len(res) == 0
    assert find_optimal_path(mesh, (0.5, 2.5), (2.5, 2.5), options=QueryOptions(max_expansions=50)).found


def test_3d_mesh_path_turns_at_mesh_vertices_and_costs_its_3d_length() -> None:
    # The U lying in the XZ plane (Y up), the right arm raised along its length.
    flat = _u_shape()
    heights = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1]
    verts = [[x, h, z] for (x, z), h in zip(flat.vertices.tolist(), heights, strict=True)]
    mesh = NavMesh(verts, [flat.polygon(p).tolist() for p in range(flat.polygon_count)], up_axis=1)
    res = find_optimal_path(mesh, (0.5, 0.0, 2.5), (2.5, 1.0, 3.0))
    assert res.found
    assert res.points.shape[1] == 3
    assert res.points[1:3].tolist() == [[1, 0, 1], [2, 0, 1]]
    assert res.cost == pytest.approx(float(np.linalg.norm(np.diff(res.points, axis=0), axis=1).sum()))


def test_navigator_option_optimal() -> None:
    nav = NavMeshNavigator(load_polyanya_mesh(DATA / "arena.mesh"))
    row = read_mesh_scenarios(DATA / "arena.anyangle.scen")[-1]
    start, goal = nav.resolve(row.start), nav.resolve(row.goal)
    optimal = nav.find_path(start, goal, QueryOptions(optimal=True))
    assert optimal.cost == pytest.approx(row.length, abs=1e-4)
    assert optimal.cost <= nav.find_path(start, goal).cost + 1e-9


# ---- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "traversable", "match"),
    [
        (QueryOptions(heuristic="octile"), None, "heuristic"),
        (QueryOptions(max_expansions=-1), None, "max_expansions"),
        (None, np.ones(4, dtype=bool), "traversable"),
        (None, np.ones(5, dtype=np.int64), "traversable"),
    ],
)
def test_bad_queries_raise(options: QueryOptions | None, traversable: np.ndarray | None, match: str) -> None:
    with pytest.raises(InvalidQueryError, match=match):
        find_optimal_path(_u_shape(), (0.5, 0.5), (2.5, 2.5), options=options, traversable=traversable)


def test_bad_points_raise() -> None:
    with pytest.raises(InvalidQueryError, match="finite"):
        find_optimal_path(_u_shape(), (math.nan, 0.5), (2.5, 2.5))
    with pytest.raises(InvalidQueryError):
        find_optimal_path(_u_shape(), (0.5, 0.5, 0.5), (2.5, 2.5))


def _polygons(mesh: NavMesh) -> list[list[int]]:
    return [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]


def test_meshes_with_links_are_refused() -> None:
    flat = _u_shape()
    link = NavLink(np.array([0.5, 0.5]), np.array([2.5, 2.5]))
    mesh = NavMesh(flat.vertices, _polygons(flat), links=[link])
    with pytest.raises(UnsupportedOperationError, match="links"):
        find_optimal_path(mesh, (0.5, 0.5), (2.5, 2.5))


def test_meshes_with_uneven_region_costs_are_refused() -> None:
    flat = _u_shape()
    costs = np.ones(flat.polygon_count)
    costs[0] = 3.0
    mesh = NavMesh(flat.vertices, _polygons(flat), travel_costs=costs)
    with pytest.raises(UnsupportedOperationError, match="costs"):
        find_optimal_path(mesh, (0.5, 0.5), (2.5, 2.5))
