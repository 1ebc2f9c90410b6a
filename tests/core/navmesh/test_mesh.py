"""NavMesh: validation, adjacency, point location, snapping, A* + funnel, 3D."""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core.errors import InvalidGraphError, InvalidQueryError
from python_core.navmesh import NavMesh
from python_core.result import PathStatus, QueryOptions

# A U-shaped room: the wall x in [1, 2], y in [0, 2] separates left and right halves.
U_VERTS = [[0, 0], [1, 0], [1, 2], [0, 2], [2, 0], [3, 0], [3, 2], [2, 2], [0, 3], [3, 3]]
U_POLYS = [[0, 1, 2, 3], [4, 5, 6, 7], [3, 2, 7, 6, 9, 8]]


def test_path_around_the_wall_bends_at_its_corners() -> None:
    mesh = NavMesh(U_VERTS, U_POLYS)
    res = mesh.find_path((0.5, 0.5), (2.5, 0.5))
    assert res.status is PathStatus.FOUND
    assert res.nodes.tolist() == [0, 2, 1]
    assert res.points.tolist() == [[0.5, 0.5], [1, 2], [2, 2], [2.5, 0.5]]
    assert res.cost == pytest.approx(2 * math.hypot(0.5, 1.5) + 1.0)


def test_same_polygon_is_a_straight_line() -> None:
    res = NavMesh(U_VERTS, U_POLYS).find_path((0.1, 0.1), (0.9, 1.9))
    assert res.nodes.tolist() == [0]
    assert res.cost == pytest.approx(math.hypot(0.8, 1.8))


def test_either_winding_and_flat_layout_are_accepted() -> None:
    flat = [i for p in U_POLYS for i in reversed(p)]
    mesh = NavMesh(U_VERTS, flat, sizes=[4, 4, 6])
    assert mesh.find_path((0.5, 0.5), (2.5, 0.5)).cost == pytest.approx(
        NavMesh(U_VERTS, U_POLYS).find_path((0.5, 0.5), (2.5, 0.5)).cost
    )


def test_adjacency_from_shared_and_near_shared_edges() -> None:
    verts = [[0, 0], [1, 0], [1, 1], [0, 1], [1 + 1e-8, 0], [2, 0], [2, 1], [1, 1 - 1e-8]]
    mesh = NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert sorted(set(mesh.neighbours.tolist())) == [-1, 0, 1]
    assert mesh.find_path((0.5, 0.5), (1.5, 0.5)).found
    apart = NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]], merge_margin=1e-12)
    assert apart.find_path((0.5, 0.5), (1.5, 0.5)).status is PathStatus.NO_PATH


def test_locate_and_closest_point() -> None:
    mesh = NavMesh(U_VERTS, U_POLYS)
    assert mesh.locate((0.5, 0.5)) == 0
    assert mesh.locate((2.5, 2.5)) == 2
    assert mesh.locate((1.5, 1.0)) == -1  # inside the wall
    pt, poly = mesh.closest_point((1.4, 1.0))
    assert pt.tolist() == [1.0, 1.0]
    assert poly == 0
    pt, _ = mesh.closest_point((5.0, 5.0))
    assert pt.tolist() == [3.0, 3.0]


def test_points_outside_are_snapped_onto_the_mesh() -> None:
    res = NavMesh(U_VERTS, U_POLYS).find_path((-1.0, 0.5), (1.6, 0.5))
    assert res.points[0].tolist() == [0.0, 0.5]
    assert res.points[-1].tolist() == [2.0, 0.5]


def test_disconnected_islands_no_path_and_partial() -> None:
    verts = [[0, 0], [1, 0], [1, 1], [0, 1], [5, 0], [6, 0], [6, 1], [5, 1], [2, 0], [2, 1]]
    mesh = NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7], [1, 8, 9, 2]])
    assert mesh.find_path((0.5, 0.5), (5.5, 0.5)).status is PathStatus.NO_PATH
    part = mesh.find_path((0.5, 0.5), (5.5, 0.5), options=QueryOptions(allow_partial=True))
    assert part.status is PathStatus.PARTIAL
    assert part.nodes.tolist() == [0, 2]
    assert part.points[-1].tolist() == [2.0, 0.5]


def test_budget_and_bad_queries() -> None:
    mesh = NavMesh(U_VERTS, U_POLYS)
    res = mesh.find_path((0.5, 0.5), (2.5, 0.5), options=QueryOptions(max_expansions=0))
    assert res.status is PathStatus.BUDGET_EXHAUSTED
    with pytest.raises(InvalidQueryError):
        mesh.find_path((math.nan, 0.5), (2.5, 0.5))
    with pytest.raises(InvalidQueryError):
        mesh.find_path((0.5, 0.5, 0.0), (2.5, 0.5))
    with pytest.raises(InvalidQueryError):
        mesh.find_path((0.5, 0.5), (2.5, 0.5), options=QueryOptions(heuristic="bogus"))


def test_midpoint_only_search_still_finds_paths() -> None:
    mesh = NavMesh(U_VERTS, U_POLYS, portal_samples=1)
    assert mesh.find_path((0.5, 0.5), (2.5, 0.5)).cost == pytest.approx(2 * math.hypot(0.5, 1.5) + 1.0)


def test_3d_mesh_with_y_up_interpolates_heights() -> None:
    # a ramp: x, z in the plane, y rises with x
    verts = [[0, 0, 0], [2, 2, 0], [2, 2, 1], [0, 0, 1], [4, 2, 0], [4, 2, 1]]
    mesh = NavMesh(verts, [[0, 1, 2, 3], [1, 4, 5, 2]], up_axis=1)
    res = mesh.find_path((0.5, 0.5, 0.5), (3.0, 2.0, 0.5))
    assert res.found
    assert res.points.shape[1] == 3
    assert res.points[0].tolist() == pytest.approx([0.5, 0.5, 0.5])
    assert res.nodes.tolist() == [0, 1]
    # waypoints are start, goal and corners only (as Godot's): the cost is the 3D polyline length
    assert res.points.ravel().tolist() == pytest.approx([0.5, 0.5, 0.5, 3.0, 2.0, 0.5])
    assert res.cost == pytest.approx(math.hypot(2.5, 1.5))
    start_on_ramp = mesh.find_path((1.0, 7.0, 0.5), (1.5, 0.0, 0.5)).points
    assert start_on_ramp[0][1] == pytest.approx(1.0)  # the height comes from the ramp's plane


def test_3d_stacked_floors_pick_the_nearest_height() -> None:
    verts = [[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1], [0, 5, 0], [1, 5, 0], [1, 5, 1], [0, 5, 1]]
    mesh = NavMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert mesh.locate((0.5, 0.2, 0.5)) == 0
    assert mesh.locate((0.5, 4.0, 0.5)) == 1
    assert (
        NavMesh(np.array(verts)[:, [0, 2, 1]], [[0, 1, 2, 3], [4, 5, 6, 7]], up_axis=2).locate(
            (0.5, 0.5, 4.5)
        )
        == 1
    )


@pytest.mark.parametrize(
    ("verts", "polys", "needle"),
    [
        ([[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]], [[0, 1, 2, 3, 4]], "polygon 0 is not convex"),
        ([[0, 0], [1, 0], [2, 0]], [[0, 1, 2]], "polygon 0 is degenerate"),
        ([[0, 0], [1, 0], [1, 1]], [[0, 1, 2], [0, 1, 7]], "polygon 1 has a vertex index"),
        ([[0, 0], [1, 0], [1, 1]], [[0, 1, 2], [0, -1, 2]], "polygon 1 has a vertex index"),
        ([[0, 0], [1, 0], [1, 1]], [[0, 1, 2], [0, 1]], "polygon 1 has 2 vertices"),
        ([[0, 0], [1, math.nan], [1, 1]], [[0, 1, 2]], "finite"),
        ([[0, 0], [1, 0], [1, 1]], [[0, 1, 2, 1]], "polygon 0"),
        # a pentagram turns the same way at every corner but winds twice
        (
            [[math.cos(a), math.sin(a)] for a in np.arange(5) * 4 * math.pi / 5],
            [[0, 1, 2, 3, 4]],
            "polygon 0",
        ),
        ([[0, 0], [1, 0], [1, 1]], [], "at least one polygon"),
    ],
)
def test_bad_meshes_raise_invalid_graph(
    verts: list[list[float]], polys: list[list[int]], needle: str
) -> None:
    with pytest.raises(InvalidGraphError, match=needle):
        NavMesh(verts, polys)


def test_bad_construction_arguments() -> None:
    with pytest.raises(InvalidGraphError):
        NavMesh([[0, 0, 0], [1, 0, 0], [1, 0, 1]], [[0, 1, 2]], up_axis=3)
    with pytest.raises(InvalidGraphError):
        NavMesh(U_VERTS, [0, 1, 2, 3], sizes=[5])
    with pytest.raises(InvalidGraphError):
        NavMesh(U_VERTS, U_POLYS, portal_samples=0)
