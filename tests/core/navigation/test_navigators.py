"""python_core.navigation: one interface over every graph kind, and the grid's hierarchy rules
(which changes reach the hierarchy, the agent fallback of hierarchical queries)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from python_core import NavMesh, QueryOptions, WaypointGraph
from python_core.errors import (
    InvalidGraphError,
    InvalidQueryError,
    UnknownPointError,
    UnsupportedOperationError,
)
from python_core.grid import GridGraph
from python_core.grid.search import dispatch
from python_core.hpa import HierarchicalGrid
from python_core.navigation import (
    GridNavigator,
    HierarchyOptions,
    MoveAgent,
    Navigator,
    NavMeshNavigator,
    PlaceAgent,
    RemoveAgent,
    SetDisabled,
    SetWalkable,
    SetWeights,
    WaypointNavigator,
)

OPEN = HierarchyOptions(cluster_size=8)


def _built(width: int = 24, height: int = 12) -> GridNavigator:
    nav = GridNavigator(GridGraph(np.ones((height, width), dtype=bool), diagonal="never"))
    nav.build_hierarchy(OPEN)
    return nav


def _wall(x: int, height: int, walkable: bool = False) -> SetWalkable:
    cells = np.array([(x, y) for y in range(height)], dtype=np.int64)
    return SetWalkable(cells, np.full(len(cells), walkable))


class _Spy:
    """Counts the calls of one method of one object and passes them on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, target: object, name: str) -> None:
        self.calls = 0
        real = getattr(target, name)

        def spy(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(target, name, spy)


def _navigators() -> list[Navigator[Any]]:
    waypoints = WaypointGraph()
    waypoints.add_point(1, (0, 0))
    mesh = NavMesh([[0, 0], [1, 0], [1, 1]], [[0, 1, 2]])
    return [_built(), WaypointNavigator(waypoints), NavMeshNavigator(mesh)]


@pytest.mark.parametrize("nav", _navigators(), ids=lambda n: type(n).__name__)
def test_every_adapter_has_every_member_of_the_interface(nav: Navigator[Any]) -> None:
    members = [name for name in vars(Navigator) if not name.startswith("_")]
    assert "find_path" in members
    assert "apply" in members
    for name in members:
        assert hasattr(nav, name), name


# -- which changes reach the hierarchy -----------------------------------------------------------


def test_a_wall_change_reaches_the_grid_and_the_hierarchy(monkeypatch: pytest.MonkeyPatch) -> None:
    nav = _built()
    assert nav.hierarchy is not None
    walls = _Spy(monkeypatch, nav.hierarchy, "set_walkable")
    assert nav.is_reachable((0, 0), (23, 0))
    nav.apply([_wall(12, 12)])
    assert walls.calls == 1
    assert not nav.grid.walkable[:, 12].any()
    assert not nav.is_reachable((0, 0), (23, 0))
    assert nav.find_path((0, 0), (23, 0), hierarchical=True).status.value == "no_path"


def test_a_weight_change_reaches_the_hierarchy_and_every_cell_when_none_are_listed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nav = _built()
    assert nav.hierarchy is not None
    weights = _Spy(monkeypatch, nav.hierarchy, "set_weights")
    nav.apply([SetWeights(np.array([(5, 0)], dtype=np.int64), np.array([3.0]))])
    assert nav.grid.weights[0, 5] == 3.0
    everywhere = np.full(nav.node_count, 2.0)
    nav.apply([SetWeights(None, everywhere)])
    assert weights.calls == 2
    assert np.all(nav.grid.weights == 2.0)
    assert nav.find_path((0, 0), (3, 0), hierarchical=True).cost == 6.0


def test_an_agent_move_reaches_only_the_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    nav = _built()
    hpa = nav.hierarchy
    assert hpa is not None
    walls = _Spy(monkeypatch, hpa, "set_walkable")
    weights = _Spy(monkeypatch, hpa, "set_weights")
    version = nav.grid.version
    nav.apply([PlaceAgent(7, (3, 3)), MoveAgent(7, (4, 3)), PlaceAgent(8, (5, 5)), RemoveAgent(8)])
    assert dict(nav.grid.agents) == {7: (4, 3)}
    assert (walls.calls, weights.calls) == (0, 0)
    assert nav.grid.version == version  # the hierarchy is still in step with the grid
    assert 3 * 24 + 4 in hpa.find_path((0, 3), (23, 3)).nodes.tolist()  # it does not see agents


def test_a_failed_batch_leaves_grid_and_hierarchy_as_before() -> None:
    nav = _built()
    before = nav.grid.walkable.copy()
    with pytest.raises(UnknownPointError):
        nav.apply([_wall(12, 12), MoveAgent(99, (1, 1))])  # no agent 99: the wall goes again
    assert np.array_equal(nav.grid.walkable, before)
    assert nav.is_reachable((0, 0), (23, 0))
    assert nav.find_path((0, 0), (23, 0), hierarchical=True).cost == 23.0


def test_a_grid_refuses_a_waypoint_change_and_keeps_the_rest_of_the_batch_out() -> None:
    nav = GridNavigator(GridGraph(np.ones((2, 2), dtype=bool)))
    with pytest.raises(UnsupportedOperationError):
        nav.apply([_wall(0, 2), SetDisabled(np.array([1]), np.array([True]))])
    assert nav.grid.walkable.all()


# -- the agent fallback of hierarchical queries --------------------------------------------------


def test_a_blocked_hierarchical_path_falls_back_to_the_compiled_exact_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fallback runs the compiled search that exact queries run (a spy passes the calls on to
    it), not the pure-Python one, which made a blocked query on a 257 x 257 demo map cost tens of
    milliseconds; unblocked paths never call it and are the hierarchy's own."""
    grid = GridGraph(np.ones((16, 16), dtype=bool), diagonal="never")
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    nav = GridNavigator(grid, hierarchy=hpa)
    real, calls = dispatch.find_path, []

    def spy(*args: object, **kwargs: object) -> object:
        calls.append(args[1:3])
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(dispatch, "find_path", spy)
    start, goal, options = (0, 5), (15, 9), QueryOptions()
    free = nav.find_path(start, goal, options, hierarchical=True)
    assert free.found
    assert not calls
    assert free.nodes.tolist() == hpa.find_path(start, goal, options=options).nodes.tolist()
    middle = int(free.nodes[len(free.nodes) // 2])
    grid.place_agent(3, (middle % 16, middle // 16))
    blocked = nav.find_path(start, goal, options, hierarchical=True)
    assert calls == [(start, goal)]
    assert middle not in blocked.nodes.tolist()
    assert blocked.nodes.tolist() == real(grid, start, goal, options=options).nodes.tolist()


def test_a_batch_falls_back_for_the_blocked_paths_only() -> None:
    """find_batch keeps the kernel's arrays for the free paths and answers a path another agent
    stands on by the exact search, as find_path does, query by query."""
    grid = GridGraph(np.ones((16, 16), dtype=bool), diagonal="never")
    nav = GridNavigator(grid, hierarchy=HierarchicalGrid(grid, cluster_size=8).build())
    starts, goals = (
        np.array([(0, 5), (0, 0), (3, 3), (15, 15)]),
        np.array([(15, 9), (15, 0), (3, 3), (0, 15)]),
    )
    free = nav.find_path((0, 5), (15, 9), hierarchical=True)
    middle = int(free.nodes[len(free.nodes) // 2])
    grid.place_agent(3, (middle % 16, middle // 16))
    batch = nav.find_batch(starts, goals, hierarchical=True)
    for i, (s, g) in enumerate(zip(starts.tolist(), goals.tolist(), strict=True)):
        alone = nav.find_path(tuple(s), tuple(g), hierarchical=True)
        assert batch.result(i).nodes.tolist() == alone.nodes.tolist()
        assert batch.result(i).cost == alone.cost
    assert middle not in batch.result(0).nodes.tolist()
    exact = nav.find_batch(starts, goals)  # not hierarchical: the exact search's answers
    assert [exact.result(i).cost for i in range(4)] == [
        nav.find_path(tuple(s), tuple(g)).cost for s, g in zip(starts.tolist(), goals.tolist(), strict=True)
    ]
    with pytest.raises(InvalidQueryError):
        nav.find_batch(starts, goals, corridor=True)


def test_work_estimates_follow_the_path_not_the_distance_and_never_raise() -> None:
    """Across a wall with one far gap the hierarchy's estimate is the detour, the ends' distance is
    not; bad endpoints are estimated (clamped), never refused: the search reports them."""
    rows = ["." * 32] * 9 + ["@" * 31 + "."] + ["." * 32] * 22
    nav = GridNavigator(GridGraph.from_strings(rows, diagonal="never"))
    nav.build_hierarchy(OPEN)
    starts, goals = np.array([(0, 0), (0, 0)]), np.array([(0, 17), (31, 0)])
    around, along = nav.work_estimates(starts, goals, hierarchical=True).tolist()
    assert around > 50
    assert along < 40
    assert nav.work_estimates(starts, goals, hierarchical=False).tolist() == [17.0, 31.0]
    odd = nav.work_estimates(np.array([(-5, 99), (1e9, 0)]), np.array([(3, 3), (0, -1e9)]), hierarchical=True)
    assert np.isfinite(odd).all()
    assert (odd >= 0).all()


def test_the_asking_agent_and_ignore_agents_keep_the_hierarchys_path() -> None:
    nav = GridNavigator(GridGraph.from_strings(["." * 16, "@" * 15 + ".", "." * 16], diagonal="never"))
    nav.build_hierarchy(OPEN)
    nav.apply([PlaceAgent(7, (15, 1))])  # on the one gap
    assert nav.find_path((0, 0), (0, 2), hierarchical=True).status.value == "no_path"
    own = nav.find_path((0, 0), (0, 2), QueryOptions(agent=7), hierarchical=True)
    ignored = nav.find_path((0, 0), (0, 2), QueryOptions(ignore_agents=True), hierarchical=True)
    assert own.found
    assert ignored.nodes.tolist() == own.nodes.tolist()
    assert nav.is_reachable((0, 0), (0, 2))  # reachability ignores agents


# -- the hierarchy's life ------------------------------------------------------------------------


def test_hierarchical_requests_without_a_hierarchy_are_invalid_graph() -> None:
    nav = GridNavigator(GridGraph(np.ones((8, 8), dtype=bool)))
    assert not nav.has_hierarchy
    with pytest.raises(InvalidGraphError):
        nav.find_path((0, 0), (7, 7), hierarchical=True)
    with pytest.raises(InvalidGraphError):
        nav.is_reachable((0, 0), (7, 7))
    with pytest.raises(InvalidQueryError):
        nav.find_path((0, 0), (7, 7), corridor=True)


def test_check_hierarchy_refuses_bad_options_without_building() -> None:
    nav = GridNavigator(GridGraph(np.ones((8, 8), dtype=bool)))
    nav.check_hierarchy(OPEN)
    with pytest.raises(InvalidGraphError, match="cluster_size"):
        nav.check_hierarchy(HierarchyOptions(cluster_size=200))
    with pytest.raises(InvalidGraphError, match="levels"):
        nav.build_hierarchy(HierarchyOptions(levels=3))
    assert not nav.has_hierarchy


def test_a_rebuild_replaces_the_hierarchy_and_reports_its_cost() -> None:
    nav = _built()
    first = nav.hierarchy
    report = nav.build_hierarchy(HierarchyOptions(cluster_size=12, smooth=False))
    assert nav.hierarchy is not first
    assert report.nbytes > 0
    assert report.seconds >= 0.0
    with pytest.raises(InvalidGraphError):
        nav.build_hierarchy(HierarchyOptions(cluster_size=1))
    assert not nav.has_hierarchy  # a failed build leaves none, never a stale one


def test_repair_pending_refills_what_a_time_boxed_update_left() -> None:
    grid = GridGraph(np.ones((32, 32), dtype=bool))
    nav = GridNavigator(grid)
    nav.build_hierarchy(HierarchyOptions(cluster_size=8, repair_seconds=0.0))
    assert not nav.repair_pending(1.0)
    nav.apply([_wall(15, 30)])
    assert nav.hierarchy is not None
    assert nav.hierarchy.pending_rows > 0
    while nav.repair_pending(1e-9):
        pass
    assert nav.hierarchy.pending_rows == 0


def test_a_hierarchy_over_another_grid_is_refused() -> None:
    hpa = HierarchicalGrid(GridGraph(np.ones((8, 8), dtype=bool)), cluster_size=4)
    with pytest.raises(InvalidGraphError):
        GridNavigator(GridGraph(np.ones((8, 8), dtype=bool)), hierarchy=hpa)


# -- endpoints and descriptions ------------------------------------------------------------------


def test_grid_endpoints_are_cells_or_world_positions() -> None:
    grid = GridGraph(np.ones((4, 4), dtype=bool), cell_size=2.0)
    cells, world = GridNavigator(grid), GridNavigator(grid, world=True)
    assert (cells.endpoints.cells, world.endpoints.cells) == (True, False)
    assert cells.resolve((3.0, 1)) == (3, 1)
    assert world.resolve((2.9, 0.2)) == (1, 0)
    for bad in ((1.5, 0), 3, (1, 2, 3), (float("nan"), 0)):
        with pytest.raises(InvalidQueryError):
            cells.resolve(bad)  # type: ignore[arg-type]
    info = world.describe()
    assert info == {
        "width": 4,
        "height": 4,
        "diagonal": grid.diagonal.value,
        "cell_size": [2.0, 2.0],
        "origin": [0.0, 0.0],
        "world": True,
        "agents": 0,
        "obstacles": 0,
    }


def _waypoints() -> WaypointNavigator:
    graph = WaypointGraph()
    for point, x in ((1, 0), (2, 4), (3, 8)):
        graph.add_point(point, (x, 0))
    graph.connect_points(1, 2)
    graph.connect_points(2, 3)
    return WaypointNavigator(graph)


def test_waypoint_endpoints_are_ids_or_positions_and_disabling_is_all_or_nothing() -> None:
    nav = _waypoints()
    assert (nav.endpoints.ids, nav.endpoints.size, nav.node_count, nav.dim) == (True, 2, 3, 2)
    assert (nav.resolve(3), nav.resolve((5.0, 1.0))) == (3, 2)
    with pytest.raises(UnknownPointError):
        nav.apply([SetDisabled(np.array([2, 9]), np.array([True, True]))])
    assert not nav.graph.is_point_disabled(2)
    nav.apply([SetDisabled(np.array([2]), np.array([True]))])
    assert nav.find_path(1, 3).status.value == "no_path"
    assert nav.describe() == {}


def test_kinds_without_a_hierarchy_refuse_every_hierarchy_request() -> None:
    mesh = NavMeshNavigator(NavMesh([[0, 0], [2, 0], [2, 2], [0, 2]], [[0, 1, 2, 3]]))
    for nav in (_waypoints(), mesh):
        assert not nav.has_hierarchy
        assert not nav.repair_pending(1.0)
        with pytest.raises(UnsupportedOperationError, match="only grids do"):
            nav.build_hierarchy(OPEN)
        with pytest.raises(UnsupportedOperationError):
            nav.check_hierarchy(OPEN)
        with pytest.raises(UnsupportedOperationError):
            nav.is_reachable(nav.resolve((0, 0)), nav.resolve((1, 0)))
        with pytest.raises(UnsupportedOperationError):
            nav.find_path(nav.resolve((0, 0)), nav.resolve((1, 0)), hierarchical=True)


def test_a_navmesh_takes_no_change() -> None:
    nav = NavMeshNavigator(NavMesh([[0, 0], [2, 0], [2, 2], [0, 2]], [[0, 1, 2, 3]]))
    nav.apply([])
    with pytest.raises(UnsupportedOperationError):
        nav.apply([SetDisabled(np.array([0]), np.array([True]))])
    path = nav.find_path(nav.resolve((0, 0)), nav.resolve((2, 2)))
    assert path.found
    assert path.points.tolist() == [[0.0, 0.0], [2.0, 2.0]]
    assert (nav.node_count, nav.dim, nav.endpoints.ids) == (1, 2, False)
