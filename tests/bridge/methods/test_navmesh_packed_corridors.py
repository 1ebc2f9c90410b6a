"""path.find_packed's ``corridors: false`` through a real sidecar: a navmesh's answer leaves out
each path's polygons (``nodes`` empty, ``node_offsets`` all 0) and keeps everything else as the
answer with them has it (statuses, points, costs, expansions, errors), in the default mode
(Polyanya on a merged view of aurora's part), the funnel mode, with a radius and a cut mesh; a
grid ignores the flag; a flag that is not a bool is a bad request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.wire.errors import BridgeError, error_code
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navmesh import NavMesh

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"


def _load(client: Client, graph_id: str, mesh: NavMesh) -> None:
    sizes = np.diff(mesh.poly_ptr).astype("<i4").tobytes()
    client.call("graph.load_navmesh", {
        "id": graph_id, "dim": mesh.dim, "vertices": np.asarray(mesh.vertices, "<f4").tobytes(),
        "indices": np.asarray(mesh.poly_verts, "<i4").tobytes(), "sizes": sizes,
    })  # fmt: skip


def _packed(
    client: Client, graph_id: str, starts: np.ndarray, goals: np.ndarray, **extra: Any
) -> dict[str, Any]:
    ends = {"starts": starts.astype("<f4").tobytes(), "goals": goals.astype("<f4").tobytes()}
    params = {"graph": graph_id, **ends, "cells": False, **extra}
    return dict(client.call("path.find_packed", params))


def _same_but_nodes(
    client: Client, graph_id: str, starts: np.ndarray, goals: np.ndarray, **extra: Any
) -> None:
    """The answer with ``corridors: false`` equals the full one but for its polygons."""
    full = _packed(client, graph_id, starts, goals, **extra)
    bare = _packed(client, graph_id, starts, goals, corridors=False, **extra)
    assert len(full["nodes"]) > 0, "the full answer has polygons"
    assert bare["nodes"] == b""
    assert not np.frombuffer(bare["node_offsets"], "<i8").any()
    assert len(bare["node_offsets"]) == len(full["node_offsets"])
    for key in ("status", "costs", "expanded", "offsets", "points", "errors"):
        assert bare[key] == full[key], (key, extra)


@pytest.fixture(scope="module")
def arena() -> NavMesh:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
    return NavMesh(mesh.vertices.astype(np.float32).astype(np.float64), polygons)


def test_corridors_off_leaves_only_the_polygons_out(client: Client, arena: NavMesh) -> None:
    _load(client, "pkc-arena", arena)
    rows = read_mesh_scenarios(DATA / "arena.scen")[::4]
    starts = np.array([r.start for r in rows] + [[-50.0, -50.0], [np.nan, 1.0]], np.float64)
    goals = np.array([r.goal for r in rows] + [[20.0, 20.0], [5.0, 5.0]], np.float64)
    for options in ({}, {"optimal": True}, {"optimal": False}, {"radius": 0.75}, {"max_expansions": 3}):
        _same_but_nodes(client, "pkc-arena", starts, goals, options=options)
    box = np.array([[8.0, 8.0], [12.0, 8.0], [12.0, 12.0], [8.0, 12.0]])
    client.update_obstacles("pkc-arena", [{"op": "set", "id": 1, "polygon": box}])  # a cut mesh
    _same_but_nodes(client, "pkc-arena", starts, goals, options={"optimal": True})
    _same_but_nodes(client, "pkc-arena", starts, goals)


def test_corridors_off_on_a_merged_view(client: Client) -> None:
    """Aurora's part around its first scenarios: the default mode searches the merged view, whose
    corridors are mapped back to the mesh's polygons only when asked."""
    mesh = load_polyanya_mesh(DATA / "aurora.mesh")
    polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
    _load(client, "pkc-aurora", NavMesh(mesh.vertices.astype(np.float32).astype(np.float64), polygons))
    rows = read_mesh_scenarios(DATA / "aurora.scen")[::50]
    starts = np.array([r.start for r in rows], np.float64)
    goals = np.array([r.goal for r in rows], np.float64)
    _same_but_nodes(client, "pkc-aurora", starts, goals)
    client.drop("pkc-aurora")


def test_a_grid_ignores_it_and_a_bad_flag_is_refused(client: Client, arena: NavMesh) -> None:
    client.load_grid("pkc-grid", np.ones((8, 8), dtype=bool))
    cells = {"graph": "pkc-grid", "starts": np.array([0, 0, 1, 1], "<i4").tobytes(),
             "goals": np.array([7, 7, 6, 2], "<i4").tobytes()}  # fmt: skip
    full = dict(client.call("path.find_packed", cells))
    assert dict(client.call("path.find_packed", {**cells, "corridors": False})) == full
    assert len(full["nodes"]) > 0
    _load(client, "pkc-bad", arena)
    with pytest.raises(BridgeError) as caught:
        _packed(client, "pkc-bad", np.zeros((2, 2)), np.ones((2, 2)), corridors=1)
    assert error_code(caught.value) == "bad_request"
