"""path.find_packed on navmeshes through a real sidecar: float32 positions in, one bin of
waypoints out, equal to path.find query by query (found, no path, an end off the mesh, a bad
position, the optimal flag, layers, a radius, a 3D mesh); bad requests are error objects; the
default mode is the measured faster exact one, reported in graph.info, never longer than the funnel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bridge.client import Client, decode_points
from bridge.wire.errors import BridgeError, error_code
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navmesh import NavMesh

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"
CODES = {"found": 0, "partial": 1, "no_path": 2, "budget_exhausted": 3}


def _load(client: Client, graph_id: str, mesh: NavMesh) -> None:
    ptr = mesh.poly_ptr
    sizes = np.diff(ptr).astype("<i4").tobytes()
    client.call("graph.load_navmesh", {
        "id": graph_id, "dim": mesh.dim, "vertices": np.asarray(mesh.vertices, "<f4").tobytes(),
        "indices": np.asarray(mesh.poly_verts, "<i4").tobytes(), "sizes": sizes,
    })  # fmt: skip


def _same_as_find(
    client: Client, graph_id: str, starts: np.ndarray, goals: np.ndarray, options: dict[str, Any]
) -> dict[str, Any]:
    """The packed answer, checked against one path.find per query (positions as float32 sent)."""
    packed = client.find_packed(graph_id, starts, goals, **options)
    dim = starts.shape[1]
    assert "node_offsets" in packed
    assert packed["points"].shape[1] == dim
    errors = dict(packed["errors"])
    for i in range(len(starts)):
        params = {"graph": graph_id, "start": starts[i].astype(np.float32).tolist(),
                  "goal": goals[i].astype(np.float32).tolist(), "options": options}  # fmt: skip
        try:
            one = dict(client.call("path.find", params))
        except BridgeError as exc:  # the packed answer holds the same error for this query
            failed = (packed["status"][i], errors[i]["code"])
            one = {"error": error_code(exc)}
        if "error" in one:
            assert failed == (255, one["error"]), i
            continue
        assert packed["status"][i] == CODES[one["status"]], (i, options)
        lo, hi = packed["offsets"][i], packed["offsets"][i + 1]
        np.testing.assert_array_equal(packed["points"][lo:hi], decode_points(one["points"], dim))
        nlo, nhi = packed["node_offsets"][i], packed["node_offsets"][i + 1]
        np.testing.assert_array_equal(packed["nodes"][nlo:nhi], np.frombuffer(one["nodes"], "<i8"))
        assert (packed["costs"][i], packed["expanded"][i]) == (one["cost"], one["expanded"]), i
    return packed


@pytest.fixture(scope="module")
def arena() -> NavMesh:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
    return NavMesh(mesh.vertices.astype(np.float32).astype(np.float64), polygons)


def test_packed_arena_equals_path_find(client: Client, arena: NavMesh) -> None:
    _load(client, "pkm-arena", arena)
    rows = read_mesh_scenarios(DATA / "arena.scen")[::4]
    starts = np.array([r.start for r in rows] + [[-50.0, -50.0], [np.nan, 1.0], [3.0, 3.0]], np.float32)
    goals = np.array([r.goal for r in rows] + [[20.0, 20.0], [5.0, 5.0], [3.0, 3.0]], np.float32)
    found = _same_as_find(client, "pkm-arena", starts, goals, {})
    assert (found["status"][: len(rows)] == 0).all()
    assert found["status"][-2] == 255
    assert found["errors"][0][0] == len(rows) + 1
    assert found["errors"][0][1]["code"] == "bad_request"
    few = slice(0, len(starts), 3)
    for options in ({"optimal": True}, {"optimal": False}, {"radius": 0.75}, {"navigation_layers": 0},
                    {"navigation_layers": 1, "allow_partial": True}, {"max_expansions": 3}):  # fmt: skip
        _same_as_find(client, "pkm-arena", starts[few], goals[few], options)


def test_packed_3d_mesh(client: Client) -> None:
    verts = [[0, 0, 0], [4, 0, 0], [4, 0, 4], [0, 0, 4], [8, 1, 0], [8, 1, 4], [12, 1, 0], [12, 1, 4]]
    mesh = NavMesh(verts, [[0, 1, 2, 3], [1, 4, 5, 2], [4, 6, 7, 5]])
    _load(client, "pkm-3d", mesh)
    starts = np.array([[0.5, 0.0, 0.5], [1.0, 0.0, 3.0], [11.0, 1.0, 1.0]])
    goals = np.array([[11.5, 1.0, 3.5], [2.0, 0.0, 2.0], [0.5, 5.0, 0.5]])
    packed = _same_as_find(client, "pkm-3d", starts, goals, {})
    assert (packed["status"] == 0).all()


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"graph": "pkm-bad", "starts": b"\x00" * 8, "goals": b"\x00" * 8}, "bad_request"),  # int cells
        (
            {"graph": "pkm-bad", "starts": b"\x00" * 12, "goals": b"\x00" * 12, "cells": False, "dim": 3},
            "bad_request",
        ),
        (
            {"graph": "pkm-bad", "starts": b"\x00" * 8, "goals": b"\x00" * 8, "cells": False, "dim": 4},
            "bad_request",
        ),
        ({"graph": "pkm-bad", "starts": b"\x00" * 8, "goals": b"\x00" * 8, "dim": 3}, "bad_request"),
        (
            {
                "graph": "pkm-bad",
                "starts": b"\x00" * 8,
                "goals": b"\x00" * 8,
                "cells": False,
                "options": {"hierarchical": True},
            },
            "bad_request",
        ),
        (
            {
                "graph": "pkm-bad",
                "starts": b"\x00" * 8,
                "goals": b"\x00" * 8,
                "cells": False,
                "options": {"size": 2},
            },
            "bad_request",
        ),
    ],
)
def test_bad_packed_requests_on_a_navmesh(client: Client, params: dict[str, Any], code: str) -> None:
    _load(client, "pkm-bad", NavMesh([[0, 0], [4, 0], [4, 4], [0, 4]], [[0, 1, 2, 3]]))
    with pytest.raises(BridgeError) as caught:
        client.call("path.find_packed", params)
    assert error_code(caught.value) == code
    one = client.find_packed("pkm-bad", np.array([[1, 1]], np.float32), np.array([[3, 3]], np.float32))
    assert one["status"].tolist() == [0]  # the graph is still loaded and answers


def test_default_mode_is_reported_and_never_longer_than_the_funnel(client: Client, arena: NavMesh) -> None:
    _load(client, "pkm-mode", arena)
    choice = client.info("pkm-mode")["default_mode"]
    assert choice["mode"] in {"optimal", "funnel"}
    assert choice["reason"] == "measured"
    assert choice["funnel_us"] > 0
    assert choice["optimal_us"] > 0
    rows = read_mesh_scenarios(DATA / "arena.scen")
    starts = np.array([r.start for r in rows], np.float32)
    goals = np.array([r.goal for r in rows], np.float32)
    default = client.find_packed("pkm-mode", starts, goals)
    funnel = client.find_packed("pkm-mode", starts, goals, optimal=False)
    exact = client.find_packed("pkm-mode", starts, goals, optimal=True)
    assert (default["status"] == 0).all()
    assert (funnel["status"] == 0).all()
    assert (default["costs"] <= funnel["costs"] + 1e-6).all()
    chosen = exact if choice["mode"] == "optimal" else funnel
    np.testing.assert_array_equal(default["costs"], chosen["costs"])
