"""path.find_many on a navmesh through a real sidecar (issue 40): a group of queries sharing options
runs as one batch call, and every answer is the map path.find gives for the same query, key by key
and byte by byte (found, unreachable, budget, partial, layers, radius, the optimal mode, an end off
the mesh, a cut mesh's corridors), whatever the options' order in the batch; a bad point or option
is that query's error object and the others are answered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bridge.client import Client
from bridge.wire.errors import BridgeError
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"
ISLAND = [[60.0, 60.0], [62.0, 60.0], [62.0, 62.0], [60.0, 62.0]]
"""A square apart from arena: no path reaches it from the arena."""
OPTIONS: list[dict[str, Any]] = [
    {}, {"optimal": True}, {"max_expansions": 3}, {"allow_partial": True, "max_expansions": 3},
    {"navigation_layers": 0}, {"radius": 0.75}, {"size": 2},
]  # fmt: skip


def _load_arena_and_island(client: Client, graph_id: str) -> None:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    base = len(mesh.vertices)
    vertices = np.vstack([mesh.vertices, ISLAND]).astype("<f4")
    polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
    polygons.append([base, base + 1, base + 2, base + 3])
    sizes = np.array([len(p) for p in polygons], "<i4")
    indices = np.array([v for p in polygons for v in p], "<i4")
    client.call("graph.load_navmesh", {
        "id": graph_id, "dim": 2, "vertices": vertices.tobytes(), "indices": indices.tobytes(),
        "sizes": sizes.tobytes(),
    })  # fmt: skip


def _ends() -> list[tuple[Any, Any]]:
    rows = read_mesh_scenarios(DATA / "arena.scen")[::8]
    ends: list[tuple[Any, Any]] = [(list(r.start), list(r.goal)) for r in rows]
    ends += [
        ([5.0, 5.0], [61.0, 61.0]),  # unreachable: the island
        ([-50.0, -50.0], [20.0, 20.0]),  # a start off the mesh snaps onto it
        ([3, 3], [3, 3]),  # integers, start = goal
        ([float("nan"), 1.0], [5.0, 5.0]),  # not a point
        ([1.0, 2.0, 3.0], [5.0, 5.0]),  # a 3D point on a 2D mesh
    ]
    return ends


def _same_as_find(client: Client, queries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The path.find_many answers, each checked against path.find of the same query."""
    results: list[dict[str, Any]] = client.call("path.find_many", {"queries": queries})["results"]
    assert len(results) == len(queries)
    for i, (query, many) in enumerate(zip(queries, results, strict=True)):
        try:
            one = dict(client.call("path.find", query))
        except BridgeError as exc:  # the batch answers this query with the same error
            wire = exc.to_wire()
            assert many["status"] == "error", (i, query)
            assert (many["error"]["code"], many["error"]["data"]) == (wire["code"], wire["data"]), i
            continue
        assert list(many) == list(one), (i, query)  # the same keys, in the same order
        assert many == one, (i, query)
    return results


def test_find_many_equals_path_find_on_arena(client: Client) -> None:
    _load_arena_and_island(client, "fm-arena")
    ends = _ends()
    # options interleaved: each group is one batch call, its answers go back to their own slots
    queries = [
        {"graph": "fm-arena", "start": s, "goal": g, "options": OPTIONS[i % len(OPTIONS)]}
        for i, (s, g) in enumerate(ends * 2)
    ]
    results = _same_as_find(client, queries)
    statuses = {r["status"] for r in results}
    assert statuses >= {"found", "no_path", "budget_exhausted", "error"}
    plain = _same_as_find(client, [{"graph": "fm-arena", "start": s, "goal": g} for s, g in ends])
    assert [r["status"] for r in plain[-5:]] == ["no_path", "found", "found", "error", "error"]
    assert [r["error"]["code"] for r in plain[-2:]] == ["bad_request", "bad_request"]


def test_find_many_on_a_cut_mesh_names_the_loaded_polygons(client: Client) -> None:
    _load_arena_and_island(client, "fm-cut")
    queries = [{"graph": "fm-cut", "start": s, "goal": g} for s, g in _ends()]
    before = client.call("path.find_many", {"queries": queries})["results"]
    client.update_obstacles("fm-cut", [{"op": "set", "id": 1, "center": [24.0, 24.0], "radius": 3.0}])
    found = _same_as_find(client, queries)
    assert any(a.get("cost") != b.get("cost") for a, b in zip(before, found, strict=True))  # paths go round
    nodes = np.concatenate([np.frombuffer(r["nodes"], "<i8") for r in found if r["status"] == "found"])
    assert nodes.max() <= 120  # arena's 120 polygons and the island, never a cut piece's id
