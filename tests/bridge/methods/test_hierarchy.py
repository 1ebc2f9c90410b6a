"""HPA* through a real sidecar: loads with a hierarchy, progress notifications, queries, updates."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from bridge.client import Client
from bridge.client.sidecar import Sidecar
from bridge.wire.errors import BadRequestError, GraphRejectedError, UnsupportedError
from python_core import QueryOptions
from python_core.formats.records import to_record
from python_core.grid import GridGraph
from python_core.grid.search import dispatch
from python_core.hpa import HierarchicalGrid

MAP = Path(__file__).resolve().parents[2] / "data" / "movingai" / "den312d.map"


def _grid() -> GridGraph:
    return GridGraph.from_movingai(MAP)


def _pairs(grid: GridGraph, count: int, seed: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    rng = np.random.default_rng(seed)
    cells = np.argwhere(grid.walkable)
    picks = rng.integers(0, len(cells), (count, 2))
    return [(tuple(cells[a][::-1].tolist()), tuple(cells[b][::-1].tolist())) for a, b in picks]


def _load(client: Client, graph_id: str, grid: GridGraph, **hierarchy: object) -> dict[str, object]:
    _kind, record = to_record(grid)
    return dict(client.call("graph.load_grid", {"id": graph_id, **record, "hierarchy": hierarchy}))


def _assert_valid(
    grid: GridGraph, result: dict[str, object], start: tuple[int, int], goal: tuple[int, int]
) -> None:
    nodes = np.frombuffer(result["nodes"], dtype="<i8")  # type: ignore[arg-type]
    cells = [(int(n) % grid.width, int(n) // grid.width) for n in nodes]
    assert cells[0] == start
    assert cells[-1] == goal
    walk = grid.walkable
    for (x0, y0), (x1, y1) in itertools.pairwise(cells):
        assert max(abs(x1 - x0), abs(y1 - y0)) == 1
        assert walk[y1, x1]


def _assert_near_exact(
    client: Client, graph_id: str, grid: GridGraph, pairs: list[tuple[tuple[int, int], tuple[int, int]]]
) -> None:
    """Hierarchical answers over the wire: found iff the exact search finds a path, valid, and
    within 10% of its cost."""
    for start, goal in pairs:
        exact = grid.find_path(start, goal)
        got = client.find(graph_id, start, goal, hierarchical=True)
        assert got["status"] == exact.status.value
        if exact.found:
            _assert_valid(grid, got, start, goal)
            assert exact.cost - 1e-6 <= got["cost"] <= 1.10 * exact.cost + 1e-6


@pytest.fixture(scope="module")
def loaded(sidecar: Sidecar) -> tuple[Client, GridGraph, dict[str, object]]:
    client = sidecar.connect()
    grid = _grid()
    answer = _load(client, "hpa-den", grid, cluster_size=16)
    yield client, grid, answer
    client.close()


def test_a_load_with_hierarchy_reports_progress_rising_to_total(
    loaded: tuple[Client, GridGraph, dict],
) -> None:
    client, _, answer = loaded
    hierarchy = answer["hierarchy"]
    assert hierarchy["cluster_size"] == 16
    assert hierarchy["built"]
    assert hierarchy["bytes"] > 0
    reports = [p for m, p in client.notifications if m == "graph.progress" and p["id"] == "hpa-den"]
    assert reports, "no graph.progress notification arrived"
    done = [p["done"] for p in reports]
    assert done == sorted(done)
    assert reports[-1]["done"] == reports[-1]["total"] > 0
    info = client.info("hpa-den")
    assert info["hierarchy"]["build_seconds"] == hierarchy["build_seconds"]


def test_hierarchical_paths_are_valid_and_within_ten_percent(loaded: tuple[Client, GridGraph, dict]) -> None:
    client, grid, _ = loaded
    for start, goal in _pairs(grid, 25, seed=3):
        exact = grid.find_path(start, goal)
        for corridor in (False, True):
            got = client.find("hpa-den", start, goal, hierarchical=True, corridor=corridor)
            assert got["status"] == exact.status.value
            if exact.found:
                _assert_valid(grid, got, start, goal)
                assert exact.cost - 1e-6 <= got["cost"] <= 1.10 * exact.cost + 1e-6
        assert client.reachable("hpa-den", start, goal) == exact.found
    start, goal = _pairs(grid, 1, seed=4)[0]
    plain = client.find("hpa-den", start, goal)  # the default stays the exact search
    assert plain["expanded"] == dispatch.find_path(grid, start, goal).expanded


def test_exact_check_travels_over_the_wire(sidecar: Sidecar) -> None:
    """lak303d scenario 33 (optimal 15.0711): 16-cell clusters refine an 18.49 detour, which the
    default check replaces by the exact path; ``exact_check: 0`` keeps it."""
    grid = GridGraph.from_movingai(MAP.with_name("lak303d.map"))
    start, goal = (100, 103), (106, 91)
    with sidecar.connect() as client:
        checked = _load(client, "hpa-lak", grid, cluster_size=16)
        raw = _load(client, "hpa-lak-raw", grid, cluster_size=16, exact_check=0)
        assert (checked["hierarchy"]["exact_check"], raw["hierarchy"]["exact_check"]) == (4.0, 0.0)
        got = client.find("hpa-lak", start, goal, hierarchical=True)
        _assert_valid(grid, got, start, goal)
        assert got["cost"] == pytest.approx(15.0711, abs=1e-3)
        assert client.find("hpa-lak-raw", start, goal, hierarchical=True)["cost"] > 1.10 * 15.0711


def test_long_entrance_travels_over_the_wire(sidecar: Sidecar) -> None:
    """``long_entrance`` shapes the entrances of weighted ground (one transition per piece of at
    most that many pairs): the sidecar's hierarchical costs must be the core's for the value
    sent, and the two values must give different costs somewhere (else the test proves nothing)."""
    rng = np.random.default_rng(21)
    walk = rng.random((64, 64)) > 0.15
    grid = GridGraph(walk, diagonal="only_if_no_obstacles", weights=rng.choice([1.0, 1.0, 3.0], (64, 64)))
    pairs = _pairs(grid, 40, seed=5)
    costs = {}
    with sidecar.connect() as client:
        for entrance in (2, 16):
            answer = _load(client, f"hpa-w{entrance}", grid, cluster_size=16, long_entrance=entrance)
            assert answer["hierarchy"]["long_entrance"] == entrance  # type: ignore[index]
            core = HierarchicalGrid(grid, cluster_size=16, long_entrance=entrance).build()
            wire = [client.find(f"hpa-w{entrance}", s, g, hierarchical=True)["cost"] for s, g in pairs]
            costs[entrance] = [core.find_path(s, g).cost for s, g in pairs]
            assert wire == pytest.approx(costs[entrance], rel=1e-9)
    assert costs[2] != pytest.approx(costs[16], rel=1e-9)


def test_two_levels_over_the_wire_answer_like_one(sidecar: Sidecar) -> None:
    grid = _grid()
    with sidecar.connect() as client:
        answer = _load(client, "hpa-two", grid, cluster_size=8, levels=2, region_clusters=2)
        assert (answer["hierarchy"]["levels"], answer["hierarchy"]["region_clusters"]) == (2, 2)
        wall = np.array([(x, 20) for x in range(grid.width)], dtype="<i4")  # an update reaches level 2
        client.update("hpa-two", cells=wall.tobytes(), walkable=False)
        grid.set_walkable(wall, False)
        _assert_near_exact(client, "hpa-two", grid, _pairs(grid, 25, seed=8))


def test_updates_go_through_the_hierarchy(sidecar: Sidecar) -> None:
    grid = GridGraph.from_strings(["." * 24] * 12, diagonal="never")
    with sidecar.connect() as client:
        _load(client, "hpa-wall", grid, cluster_size=8)
        assert client.reachable("hpa-wall", (0, 0), (23, 0))
        wall = np.array([(12, y) for y in range(12)], dtype="<i4")
        client.update("hpa-wall", cells=wall.tobytes(), walkable=False)
        assert not client.reachable("hpa-wall", (0, 0), (23, 0))
        assert client.find("hpa-wall", (0, 0), (23, 0), hierarchical=True)["status"] == "no_path"
        gap = np.array([(12, 11)], dtype="<i4")
        client.update("hpa-wall", cells=gap.tobytes(), walkable=True)
        weights = np.array([(5, 0)], dtype="<i4")
        client.update("hpa-wall", weight_cells=weights.tobytes(), weights=np.array([3.0], "<f4").tobytes())
        grid.set_walkable(wall, False)
        grid.set_walkable([(12, 11)], True)
        grid.set_weights([(5, 0)], 3.0)
        got = client.find("hpa-wall", (0, 0), (23, 0), hierarchical=True)
        assert got["status"] == "found"
        _assert_valid(grid, got, (0, 0), (23, 0))
        assert got["cost"] <= 1.10 * grid.find_path((0, 0), (23, 0)).cost


def test_agents_on_a_hierarchical_path_fall_back_to_the_exact_search(sidecar: Sidecar) -> None:
    grid = GridGraph.from_strings(["." * 16, "@" * 15 + ".", "." * 16], diagonal="never")
    with sidecar.connect() as client:
        _load(client, "hpa-agents", grid, cluster_size=8)
        client.update("hpa-agents", agents=[{"op": "place", "agent": 7, "cell": [15, 1]}])
        assert client.find("hpa-agents", (0, 0), (0, 2), hierarchical=True)["status"] == "no_path"
        assert client.find("hpa-agents", (0, 0), (0, 2), hierarchical=True, agent=7)["status"] == "found"
        ignored = client.find("hpa-agents", (0, 0), (0, 2), hierarchical=True, ignore_agents=True)
        assert ignored["status"] == "found"
        assert client.reachable("hpa-agents", (0, 0), (0, 2))  # reachability ignores agents
        local = GridGraph.from_strings(["." * 16, "@" * 15 + ".", "." * 16], diagonal="never")
        local.place_agent(7, (15, 1))
        assert local.find_path((0, 0), (0, 2), options=QueryOptions()).status.value == "no_path"


def test_build_hierarchy_on_demand_with_a_progress_callback(sidecar: Sidecar) -> None:
    grid = _grid()
    with sidecar.connect() as client:
        client.load_grid("hpa-later", grid.walkable, diagonal=grid.diagonal.value)
        start, goal = _pairs(grid, 1, seed=5)[0]
        with pytest.raises(UnsupportedError):
            client.reachable("hpa-later", start, goal)
        with pytest.raises(BadRequestError):
            client.find("hpa-later", start, goal, hierarchical=True)
        seen: list[tuple[int, int]] = []
        answer = client.build_hierarchy("hpa-later", lambda d, t: seen.append((d, t)), cluster_size=32)
        assert answer["hierarchy"]["cluster_size"] == 32
        assert seen
        assert seen[-1][0] == seen[-1][1]
        assert client.reachable("hpa-later", start, goal) == grid.find_path(start, goal).found


@pytest.mark.parametrize(
    ("hierarchy", "error"),
    [
        ({"cluster_size": 4}, BadRequestError),
        ({"cluster_size": "big"}, BadRequestError),
        ({"cluster_size": 16, "typo": 1}, BadRequestError),
        ({"smooth": 1}, BadRequestError),
        ({"exact_check": -1}, BadRequestError),
        ({"exact_check": "on"}, BadRequestError),
        ({"exact_check": float("inf")}, BadRequestError),
        ({"long_entrance": 0}, BadRequestError),
        ({"long_entrance": 2.5}, BadRequestError),
        ({"long_entrance": True}, BadRequestError),
        ({"levels": 3}, BadRequestError),
        ({"levels": 2, "region_clusters": 1}, BadRequestError),
        ({"cluster_size": 200}, GraphRejectedError),
    ],
)
def test_invalid_hierarchy_options_leave_the_old_graph(
    client: Client, hierarchy: dict[str, object], error: type[Exception]
) -> None:
    client.load_grid("hpa-keep", np.ones((4, 6), dtype=bool))
    with pytest.raises(error):
        client.load_grid("hpa-keep", np.ones((8, 8), dtype=bool), hierarchy=hierarchy)
    with pytest.raises(error):
        client.build_hierarchy("hpa-keep", **hierarchy)
    info = client.info("hpa-keep")
    assert (info["width"], info["height"], info["hierarchy"]) == (6, 4, None)


def test_hierarchy_on_other_graph_types_is_refused(client: Client) -> None:
    client.load_waypoints("hpa-wp", [1, 2], [[0, 0], [1, 0]], [[1, 2]])
    with pytest.raises(UnsupportedError):
        client.build_hierarchy("hpa-wp")
    with pytest.raises(UnsupportedError):
        client.reachable("hpa-wp", 1, 2)


def test_repair_ms_travels_and_updates_keep_wire_paths_valid(sidecar: Sidecar) -> None:
    """``repair_ms`` is echoed (default 1.0); bad values are ``bad_request`` and leave the graph;
    after a 100-cell update with no time for the table, hierarchical answers are valid, found iff
    the exact search finds a path, and within 10% of it (while the worker refills the table)."""
    grid = _grid()
    with sidecar.connect() as client:
        default = _load(client, "hpa-r-default", grid, cluster_size=16)
        assert default["hierarchy"]["repair_ms"] == 1.0  # type: ignore[index]
        answer = _load(client, "hpa-r0", grid, cluster_size=16, repair_ms=0)
        assert answer["hierarchy"]["repair_ms"] == 0.0  # type: ignore[index]
        for bad in (-1, "1", True):
            with pytest.raises(BadRequestError):
                _load(client, "hpa-r0", grid, cluster_size=16, repair_ms=bad)
        assert client.info("hpa-r0")["hierarchy"]["repair_ms"] == 0.0
        rng = np.random.default_rng(12)
        cells = np.stack((rng.integers(0, grid.width, 100), rng.integers(0, grid.height, 100)), axis=1)
        flipped = ~grid.walkable[cells[:, 1], cells[:, 0]]
        cells, first = np.unique(cells, axis=0, return_index=True)  # one value per cell
        flipped = flipped[first]
        client.update(
            "hpa-r0", cells=cells.astype("<i4").tobytes(), walkable=flipped.astype(np.uint8).tobytes()
        )
        grid.set_walkable(cells, flipped)
        _assert_near_exact(client, "hpa-r0", grid, _pairs(grid, 30, seed=6))


def test_memory_budgets_travel_and_shape_what_the_hierarchy_keeps(sidecar: Sidecar) -> None:
    """``tree_mb`` / ``table_mb`` are echoed (defaults 64 / 32) and reach the core: with both 0
    the hierarchy keeps neither trees nor a table and holds fewer bytes, and its paths are still
    valid and near-exact; bad values are ``bad_request`` and leave the loaded graph."""
    grid = _grid()
    with sidecar.connect() as client:
        kept = _load(client, "hpa-budget", grid, cluster_size=16)
        assert (kept["hierarchy"]["tree_mb"], kept["hierarchy"]["table_mb"]) == (64, 32)  # type: ignore[index]
        lean = _load(client, "hpa-lean", grid, cluster_size=16, tree_mb=0, table_mb=0)
        assert (lean["hierarchy"]["tree_mb"], lean["hierarchy"]["table_mb"]) == (0, 0)  # type: ignore[index]
        assert lean["hierarchy"]["bytes"] < kept["hierarchy"]["bytes"]  # type: ignore[index]
        for bad in (-1, "8", True, 1.5, 16_385):
            with pytest.raises(BadRequestError):
                _load(client, "hpa-lean", grid, cluster_size=16, table_mb=bad)
        assert client.info("hpa-lean")["hierarchy"]["table_mb"] == 0
        _assert_near_exact(client, "hpa-lean", grid, _pairs(grid, 20, seed=9))
