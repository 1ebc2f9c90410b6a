"""A real sidecar subprocess answers every graph type as python_core does in-process."""

from __future__ import annotations

import numpy as np
import pytest

from bridge.client import Client, decode_points
from bridge.client.sidecar import Sidecar
from bridge.wire.errors import (
    BadRequestError,
    BridgeError,
    GraphRejectedError,
    OutOfBoundsError,
    UnknownGraphError,
    from_wire,
)
from bridge.wire.protocol import METHODS, PROTOCOL_VERSION
from python_core import PathResult, QueryOptions
from python_core import errors as core_errors
from python_core.csr.waypoints import WaypointGraph
from python_core.formats.records import from_record, to_record
from python_core.grid import GridGraph
from python_core.grid.search import dispatch
from python_core.navmesh import NavMesh

MAZE = [
    "..........",
    ".@@@@@@@@.",
    ".@......@.",
    ".@.@@@@.@.",
    ".@.@..@.@.",
    "...@..@...",
    "@@@@..@@@@",
    "..........",
]


def _maze() -> GridGraph:
    return GridGraph.from_strings(MAZE, diagonal="only_if_no_obstacles")


def _grid_path(
    grid: GridGraph, start: tuple[int, int], goal: tuple[int, int], options: QueryOptions | None = None
) -> PathResult:
    """What the sidecar runs for a grid (the compiled dispatch), checked against the reference cost."""
    fast = dispatch.find_path(grid, start, goal, options=options)
    reference = grid.find_path(start, goal, options=options)
    assert fast.status is reference.status
    if fast.found:
        assert fast.cost == pytest.approx(reference.cost)
    return fast


def _assert_same(remote: dict[str, object], local: object, dim: int = 2) -> None:
    assert remote["status"] == local.status.value  # type: ignore[attr-defined]
    expected = np.asarray(local.points, dtype=np.float32).reshape(-1, dim)  # type: ignore[attr-defined]
    np.testing.assert_array_equal(decode_points(remote["points"], dim), expected)  # type: ignore[arg-type]
    assert remote["cost"] == pytest.approx(local.cost)  # type: ignore[attr-defined]
    assert remote["expanded"] == local.expanded  # type: ignore[attr-defined]


def test_hello_reports_the_protocol(sidecar: Sidecar) -> None:
    assert sidecar.protocol == PROTOCOL_VERSION
    with Client.connect(sidecar.host, sidecar.port) as client:
        hello = client.hello(sidecar.token, "pytest")
    assert hello["protocol"] == PROTOCOL_VERSION
    assert hello["methods"] == list(METHODS)


def test_grid_paths_match_python_core(client: Client) -> None:
    local = _maze()
    _kind, record = to_record(local)
    assert client.call("graph.load_grid", {"id": "e2e-maze", **record}) == {"id": "e2e-maze", "nodes": 80}
    for start, goal in [((0, 0), (9, 7)), ((2, 2), (4, 4)), ((0, 7), (9, 0)), ((4, 4), (4, 4))]:
        _assert_same(client.find("e2e-maze", start, goal), _grid_path(local, start, goal))
    options = QueryOptions(heuristic="zero", max_expansions=5, allow_partial=True)
    remote = client.find("e2e-maze", (0, 0), (9, 7), heuristic="zero", max_expansions=5, allow_partial=True)
    _assert_same(remote, _grid_path(local, (0, 0), (9, 7), options=options))


def test_grid_world_units_with_cell_size_and_origin(client: Client) -> None:
    walkable = np.ones((4, 6), dtype=bool)
    walkable[1:3, 2] = False
    client.load_grid("e2e-world", walkable, diagonal="never", cell_size=(2.0, 0.5), origin=(10.0, -1.0))
    local = GridGraph(walkable, diagonal="never", cell_size=(2.0, 0.5), origin=(10.0, -1.0))
    remote = client.find("e2e-world", (10.2, -0.9), (20.0, 0.5))  # world points near cells (0,0) and (5,3)
    _assert_same(remote, _grid_path(local, (0, 0), (5, 3)))
    assert decode_points(remote["points"])[-1].tolist() == [20.0, 0.5]


def test_waypoint_paths_by_id_and_by_position(client: Client) -> None:
    ids = [10, 20, 30, 40, 50]
    positions = [[0, 0, 0], [1, 0, 0], [1, 0, 1], [2, 0, 1], [5, 5, 5]]
    edges = [[10, 20], [20, 30], [30, 40], [10, 40]]
    both = [True, True, True, False]
    weights = [1.0, 1.0, 2.0, 1.0, 1.0]
    client.load_waypoints("e2e-wp", ids, positions, edges, bidirectional=both, weights=weights)
    local = WaypointGraph.from_arrays(ids, positions, weights, edges, bidirectional=both)
    _assert_same(client.find("e2e-wp", 10, 40), local.find_path(10, 40), dim=3)
    _assert_same(client.find("e2e-wp", 40, 10), local.find_path(40, 10), dim=3)
    _assert_same(client.find("e2e-wp", 10, 50), local.find_path(10, 50), dim=3)  # no_path
    by_position = client.find("e2e-wp", [0.1, 0.0, 0.0], [2.1, 0.0, 0.9])
    _assert_same(by_position, local.find_path(10, 40), dim=3)
    assert np.frombuffer(by_position["nodes"], "<i8").tolist() == local.find_path(10, 40).nodes.tolist()


def test_navmesh_paths_match_python_core(client: Client) -> None:
    vertices = [[0, 0], [2, 0], [2, 2], [0, 2], [4, 0], [4, 2], [4, 4], [2, 4]]
    polygons = [[0, 1, 2, 3], [1, 4, 5, 2], [2, 5, 6, 7]]
    assert client.load_navmesh("e2e-nav", vertices, polygons)["nodes"] == 3
    local = NavMesh(vertices, polygons)
    for start, goal in [((0.5, 0.5), (3.5, 3.5)), ((0.5, 1.5), (2.5, 3.9)), ((-1.0, 0.5), (3.0, 1.0))]:
        _assert_same(client.find("e2e-nav", start, goal), local.find_path(start, goal))


def test_navmesh_3d_with_up_axis(client: Client) -> None:
    vertices = [[0, 0, 0], [2, 0, 0], [2, 0, 2], [0, 0, 2], [4, 1, 0], [4, 1, 2]]
    polygons = [[0, 1, 2, 3], [1, 4, 5, 2]]
    client.load_navmesh("e2e-nav3", vertices, polygons, up_axis="y")
    local = NavMesh(vertices, polygons, up_axis=1)
    _assert_same(
        client.find("e2e-nav3", (0.5, 0, 0.5), (3.5, 0.75, 1.5)),
        local.find_path((0.5, 0, 0.5), (3.5, 0.75, 1.5)),
        dim=3,
    )


def test_find_many_keeps_order_and_reports_errors_per_query(client: Client) -> None:
    local = _maze()
    client.call("graph.load_grid", {"id": "e2e-many", **to_record(local)[1]})
    pairs = [((0, 0), (9, 7)), ((9, 7), (0, 0)), ((2, 2), (5, 5)), ((0, 5), (9, 5))] * 10
    queries = [Client.query("e2e-many", s, g) for s, g in pairs]
    queries.insert(3, Client.query("e2e-missing", (0, 0), (1, 1)))
    queries.insert(5, Client.query("e2e-many", (0, 0), (99, 99)))
    queries.insert(7, {"graph": "e2e-many", "start": "nowhere", "goal": [0, 0]})
    results = client.find_many(queries)
    assert len(results) == len(queries)
    assert results[3]["status"] == "error"
    assert results[3]["error"]["code"] == "unknown_graph"
    assert results[5]["error"]["code"] == "out_of_bounds"
    assert results[7]["error"]["code"] == "bad_request"
    rest = [r for i, r in enumerate(results) if i not in (3, 5, 7)]
    for (start, goal), remote in zip(pairs, rest, strict=True):
        _assert_same(remote, _grid_path(local, start, goal))


def test_updates_cells_weights_agents_and_ordering(client: Client) -> None:
    local = GridGraph(np.ones((3, 5), dtype=bool), diagonal="never")
    client.load_grid("e2e-upd", np.ones((3, 5), dtype=bool), diagonal="never")
    wall = np.array([[2, 0], [2, 1]], dtype="<i4")
    # pipelined: the query sent after the update must see it, whichever worker answers
    update_id = client.send("graph.update", {"id": "e2e-upd", "cells": wall.tobytes(), "walkable": False})
    find_id = client.send("path.find", Client.query("e2e-upd", (0, 0), (4, 0)))
    assert client.receive(update_id) == {"id": "e2e-upd", "version": 2}
    local.set_walkable(wall, False)
    _assert_same(client.receive(find_id), _grid_path(local, (0, 0), (4, 0)))
    weights = np.full((3, 5), 2.0, dtype=np.float32)
    client.update("e2e-upd", weights=weights.tobytes())
    local.set_weights(np.argwhere(np.ones((3, 5)))[:, ::-1], weights.ravel())
    _assert_same(client.find("e2e-upd", (0, 0), (4, 0)), _grid_path(local, (0, 0), (4, 0)))
    client.update("e2e-upd", agents=[{"op": "place", "agent": 7, "cell": [2, 2]}])
    assert client.find("e2e-upd", (0, 0), (4, 0))["status"] == "no_path"
    assert client.find("e2e-upd", (0, 0), (4, 0), ignore_agents=True)["status"] == "found"
    client.update(
        "e2e-upd", agents=[{"op": "move", "agent": 7, "cell": [0, 1]}, {"op": "remove", "agent": 7}]
    )
    assert client.info("e2e-upd")["agents"] == 0
    assert client.info("e2e-upd")["version"] == 5


def test_waypoint_disable_update(client: Client) -> None:
    client.load_waypoints("e2e-dis", [1, 2, 3], [[0, 0], [1, 0], [2, 0]], [[1, 2], [2, 3]])
    client.update("e2e-dis", points=np.array([2], "<i8").tobytes(), disabled=True)
    assert client.find("e2e-dis", 1, 3)["status"] == "no_path"
    client.update("e2e-dis", points=np.array([2], "<i8").tobytes(), disabled=b"\x00")
    assert client.find("e2e-dis", 1, 3)["status"] == "found"


def test_failed_update_and_failed_replace_leave_the_old_graph(client: Client) -> None:
    client.load_grid("e2e-keep", np.ones((2, 3), dtype=bool))
    bad = np.array([[0, 0], [9, 9]], dtype="<i4").tobytes()  # second cell out of bounds
    with pytest.raises(OutOfBoundsError):
        client.update("e2e-keep", cells=bad, walkable=False)
    with pytest.raises(GraphRejectedError):
        client.call(
            "graph.load_grid",
            {"id": "e2e-keep", "width": 3, "height": 2, "cells": b"\x01", "diagonal": "never"},
        )
    assert client.info("e2e-keep")["version"] == 1
    assert client.info("e2e-keep")["width"] == 3
    assert client.find("e2e-keep", (0, 0), (2, 1))["status"] == "found"


def test_an_update_failing_half_way_leaves_the_grid_as_it_was(client: Client) -> None:
    """A grid changes in place (no copy), so the walls and the agent the update had applied
    before its bad operation are undone: the agent can be placed again, the count is 0."""
    client.load_grid("e2e-half", np.ones((3, 5), dtype=bool), diagonal="never")
    wall = np.array([[2, 0], [2, 1], [2, 2]], dtype="<i4").tobytes()
    with pytest.raises(BridgeError, match="no agent with id 99"):
        client.update(
            "e2e-half",
            cells=wall,
            walkable=False,
            agents=[{"op": "place", "agent": 3, "cell": [0, 0]}, {"op": "move", "agent": 99, "cell": [1, 1]}],
        )
    assert client.info("e2e-half")["agents"] == 0
    assert client.info("e2e-half")["version"] == 1
    client.update("e2e-half", agents=[{"op": "place", "agent": 3, "cell": [1, 1]}])
    assert client.find("e2e-half", (0, 0), (4, 0), agent=3)["status"] == "found"


def test_drop_info_and_unknown_graphs(client: Client) -> None:
    client.load_grid("e2e-drop", [[1, 1]])
    assert client.info("e2e-drop")["kind"] == "grid"
    assert "e2e-drop" in [g["id"] for g in client.call("graph.list")["graphs"]]
    assert client.drop("e2e-drop") == {"id": "e2e-drop"}
    with pytest.raises(UnknownGraphError):
        client.find("e2e-drop", (0, 0), (1, 0))
    with pytest.raises(UnknownGraphError):
        client.drop("e2e-drop")
    with pytest.raises(BadRequestError):
        client.call("graph.info", {})


def test_records_from_the_wire_rebuild_the_same_graph(client: Client) -> None:
    record = to_record(_maze())[1]
    client.call("graph.load_grid", {"id": "e2e-rec", **record})
    info = client.info("e2e-rec")
    assert (info["width"], info["height"], info["diagonal"]) == (10, 8, "only_if_no_obstacles")
    assert to_record(from_record("grid", record))[1] == record


def test_out_of_bounds_is_python_cores_out_of_bounds_error_too(client: Client) -> None:
    client.load_grid("e2e-oob", np.ones((2, 3), dtype=bool))
    with pytest.raises(core_errors.OutOfBoundsError) as caught:  # one except for both sides
        client.find("e2e-oob", (0, 0), (9, 9))
    assert isinstance(caught.value, BridgeError)
    assert caught.value.code == "out_of_bounds"
    with pytest.raises(core_errors.OutOfBoundsError) as local:  # the core's own, as before
        GridGraph.from_strings(["..."]).find_path((0, 0), (9, 9))
    assert not isinstance(local.value, BridgeError)
    assert from_wire({"code": "out_of_bounds", "message": "m", "data": {}}).to_wire() == {
        "code": "out_of_bounds",
        "message": "m",
        "data": {},
    }
