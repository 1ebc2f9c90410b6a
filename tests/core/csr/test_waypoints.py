"""WaypointGraph: Godot AStar2D/AStar3D semantics (costs, one-way edges, disabled points, errors)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from python_core.csr.waypoints import WaypointGraph
from python_core.errors import InvalidGraphError, InvalidQueryError, UnknownPointError
from python_core.result import PathStatus, QueryOptions


def line_graph(weights: tuple[float, ...] = (1.0, 1.0, 1.0)) -> WaypointGraph:
    g = WaypointGraph()
    for i, w in enumerate(weights):
        g.add_point(i, (float(i), 0.0), w)
    for i in range(len(weights) - 1):
        g.connect_points(i, i + 1)
    return g


def test_cost_is_distance_times_weight_of_entered_point() -> None:
    g = line_graph((5.0, 2.0, 3.0))
    assert g.find_path(0, 2).cost == pytest.approx(1 * 2.0 + 1 * 3.0)
    assert g.find_path(2, 0).cost == pytest.approx(1 * 2.0 + 1 * 5.0)


def test_path_points_and_nodes() -> None:
    g = line_graph()
    res = g.find_path(0, 2)
    assert res.status is PathStatus.FOUND
    assert res.nodes.tolist() == [0, 1, 2]
    assert res.points.tolist() == [[0, 0], [1, 0], [2, 0]]


def test_weights_steer_around_expensive_point() -> None:
    g = WaypointGraph()
    g.add_point(0, (0, 0))
    g.add_point(1, (1, 0), weight_scale=10.0)
    g.add_point(2, (2, 0))
    g.add_point(3, (1, 1))
    for a, b in ((0, 1), (1, 2), (0, 3), (3, 2)):
        g.connect_points(a, b)
    res = g.find_path(0, 2)
    assert res.nodes.tolist() == [0, 3, 2]
    assert res.cost == pytest.approx(2 * math.sqrt(2))


def test_weight_below_one_still_optimal() -> None:
    g = WaypointGraph()
    g.add_point(0, (0, 0))
    g.add_point(1, (5, 0))
    g.add_point(2, (0, 3), weight_scale=0.1)
    g.add_point(3, (5, 3), weight_scale=0.1)
    for a, b in ((0, 1), (0, 2), (2, 3), (3, 1)):
        g.connect_points(a, b)
    # direct 5 vs 0.3 + 0.5 + 3 = 3.8
    assert g.find_path(0, 1).nodes.tolist() == [0, 2, 3, 1]
    assert g.find_path(0, 1).cost == pytest.approx(3.8)


def test_one_way_edges() -> None:
    g = line_graph()
    g.disconnect_points(1, 2)
    g.connect_points(1, 2, bidirectional=False)
    assert g.find_path(0, 2).found
    assert g.find_path(2, 0).status is PathStatus.NO_PATH
    assert g.are_points_connected(1, 2, bidirectional=False)
    assert not g.are_points_connected(2, 1, bidirectional=False)
    assert g.are_points_connected(2, 1)
    g.connect_points(2, 1, bidirectional=False)
    assert g.find_path(2, 0).found


def test_disconnect_one_direction() -> None:
    g = line_graph()
    g.disconnect_points(2, 1, bidirectional=False)
    assert g.find_path(0, 2).found
    assert not g.find_path(2, 0).found
    assert g.get_point_connections(1).tolist() == [0, 2]
    assert g.get_point_connections(2).tolist() == []


def test_disabled_point_is_not_entered() -> None:
    g = line_graph()
    g.set_point_disabled(1)
    assert g.is_point_disabled(1)
    assert g.find_path(0, 2).status is PathStatus.NO_PATH
    g.set_point_disabled(1, False)
    assert g.find_path(0, 2).found


def test_disabled_start_or_goal_gives_no_path() -> None:
    g = line_graph()
    g.set_point_disabled(0)
    assert g.find_path(0, 2).status is PathStatus.NO_PATH
    assert g.find_path(0, 2, options=QueryOptions(allow_partial=True)).status is PathStatus.NO_PATH
    g.set_point_disabled(0, False)
    g.set_point_disabled(2)
    assert g.find_path(0, 2).status is PathStatus.NO_PATH
    partial = g.find_path(0, 2, options=QueryOptions(allow_partial=True))
    assert partial.status is PathStatus.PARTIAL
    assert partial.nodes.tolist() == [0, 1]


def test_same_start_and_goal_returns_that_point() -> None:
    g = line_graph()
    res = g.find_path(1, 1)
    assert res.found
    assert res.nodes.tolist() == [1]
    assert res.cost == 0.0


def test_partial_path_goes_to_closest_reachable() -> None:
    g = line_graph()
    g.add_point(9, (10, 0))
    res = g.find_path(0, 9, options=QueryOptions(allow_partial=True))
    assert res.status is PathStatus.PARTIAL
    assert res.nodes.tolist() == [0, 1, 2]
    assert g.find_path(0, 9).status is PathStatus.NO_PATH


def test_budget_exhausted() -> None:
    g = line_graph((1.0,) * 10)
    res = g.find_path(0, 9, options=QueryOptions(max_expansions=3))
    assert res.status is PathStatus.BUDGET_EXHAUSTED
    assert len(res) == 0
    with pytest.raises(InvalidQueryError):
        g.find_path(0, 9, options=QueryOptions(max_expansions=-1))


def test_heuristics_accepted_and_unknown_rejected() -> None:
    g = line_graph()
    for name in ("euclidean", "zero", "manhattan", "chebyshev", "octile"):
        assert g.find_path(0, 2, options=QueryOptions(heuristic=name)).cost == pytest.approx(2.0)
    with pytest.raises(InvalidQueryError):
        g.find_path(0, 2, options=QueryOptions(heuristic="nope"))


def test_add_existing_id_updates_point() -> None:
    g = line_graph()
    g.add_point(2, (4.0, 0.0), 2.0)
    assert g.get_point_position(2).tolist() == [4.0, 0.0]
    assert g.get_point_weight_scale(2) == 2.0
    assert len(g) == 3
    assert g.find_path(0, 2).cost == pytest.approx(1.0 + 3.0 * 2.0)


def test_remove_point_drops_its_segments() -> None:
    g = line_graph()
    g.remove_point(1)
    assert not g.has_point(1)
    assert g.find_path(0, 2).status is PathStatus.NO_PATH
    g.add_point(1, (1, 0))
    assert g.find_path(0, 2).status is PathStatus.NO_PATH  # segments are not resurrected
    assert sorted(g.get_point_ids().tolist()) == [0, 1, 2]


def test_closest_point_ties_pick_smaller_id_and_skip_disabled() -> None:
    g = WaypointGraph()
    g.add_point(5, (1, 0))
    g.add_point(2, (-1, 0))
    g.add_point(8, (0, 0.5))
    assert g.get_closest_point((0, 0)) == 8
    g.set_point_disabled(8)
    assert g.get_closest_point((0, 0)) == 2
    assert g.get_closest_point((0, 0), include_disabled=True) == 8
    assert WaypointGraph().get_closest_point((0, 0)) == -1


def test_closest_position_in_segment() -> None:
    g = line_graph()
    assert g.get_closest_position_in_segment((1.5, 2.0)).tolist() == [1.5, 0.0]
    assert g.get_closest_position_in_segment((-3.0, 1.0)).tolist() == [0.0, 0.0]


def test_3d_graph() -> None:
    g = WaypointGraph(dim=3)
    g.add_point(0, (0, 0, 0))
    g.add_point(1, (0, 3, 4))
    g.connect_points(0, 1)
    res = g.find_path(0, 1)
    assert res.cost == pytest.approx(5.0)
    assert res.points.shape == (2, 3)


def test_from_arrays_matches_incremental_build() -> None:
    g = WaypointGraph.from_arrays(
        [10, 20, 30], [[0, 0], [1, 0], [2, 0]], [1.0, 2.0, 1.0], [[10, 20], [20, 30]],
        bidirectional=[True, False], disabled=[False, False, False],
    )  # fmt: skip
    assert g.find_path(10, 30).cost == pytest.approx(3.0)
    assert g.find_path(30, 10).status is PathStatus.NO_PATH


def test_unknown_ids_raise_with_the_id() -> None:
    g = line_graph()
    with pytest.raises(UnknownPointError) as info:
        g.find_path(0, 42)
    assert "42" in str(info.value)
    for call in (lambda: g.remove_point(7), lambda: g.connect_points(0, 7),
                 lambda: g.set_point_disabled(7), lambda: g.get_point_position(7)):  # fmt: skip
        with pytest.raises(UnknownPointError):
            call()


@pytest.mark.parametrize(
    ("position", "weight"),
    [
        ((math.nan, 0.0), 1.0),
        ((math.inf, 0.0), 1.0),
        ((0.0, 0.0), -1.0),
        ((0.0, 0.0), math.nan),
        ((0.0,), 1.0),
    ],
)
def test_bad_points_raise_invalid_graph(position: tuple[float, ...], weight: float) -> None:
    with pytest.raises(InvalidGraphError):
        WaypointGraph().add_point(0, position, weight)


def test_bad_graph_arguments() -> None:
    with pytest.raises(InvalidGraphError):
        WaypointGraph(dim=4)
    with pytest.raises(InvalidGraphError):
        WaypointGraph().add_point(-1, (0, 0))
    with pytest.raises(InvalidGraphError):
        line_graph().connect_points(1, 1)
    with pytest.raises(InvalidGraphError):
        WaypointGraph.from_arrays([1, 1], [[0, 0], [1, 1]])
    with pytest.raises(InvalidGraphError):
        WaypointGraph.from_arrays([1, 2], np.zeros((3, 2)))


def test_deterministic_tie_break() -> None:
    g = WaypointGraph()
    g.add_point(0, (0, 0))
    g.add_point(1, (1, 1))
    g.add_point(2, (1, -1))
    g.add_point(3, (2, 0))
    for a, b in ((0, 1), (0, 2), (1, 3), (2, 3)):
        g.connect_points(a, b)
    first = g.find_path(0, 3).nodes.tolist()
    assert all(g.find_path(0, 3).nodes.tolist() == first for _ in range(5))
