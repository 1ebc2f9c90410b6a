"""The ``"optimal"`` query option over the wire: a real sidecar answers as Polyanya in process."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bridge.client import Client, decode_points
from bridge.wire.errors import BadRequestError, UnsupportedError
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navmesh.polyanya import find_optimal_path

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"


def test_optimal_paths_match_python_core_and_the_optimum(client: Client) -> None:
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
    client.load_navmesh("opt-arena", mesh.vertices, polygons)
    rows = read_mesh_scenarios(DATA / "arena.anyangle.scen")[::16]
    for row in rows:
        remote = client.find("opt-arena", row.start, row.goal, optimal=True)
        local = find_optimal_path(mesh, row.start, row.goal)
        assert remote["status"] == "found"
        np.testing.assert_array_equal(decode_points(remote["points"], 2), local.points.astype(np.float32))
        assert np.frombuffer(remote["nodes"], "<i8").tolist() == local.nodes.tolist()
        assert remote["cost"] == pytest.approx(row.length, abs=1e-4)
        assert remote["expanded"] == local.expanded
        default = client.find("opt-arena", row.start, row.goal)
        assert remote["cost"] <= default["cost"] + 1e-9
    many = client.find_many([client.query("opt-arena", r.start, r.goal, optimal=True) for r in rows])
    assert [m["cost"] for m in many] == pytest.approx([r.length for r in rows], abs=1e-4)


def test_optimal_option_errors(client: Client) -> None:
    client.load_navmesh("opt-square", [[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 1, 2, 3]])
    with pytest.raises(BadRequestError, match="optimal"):
        client.find("opt-square", (0.1, 0.1), (0.9, 0.9), optimal="yes")
    with pytest.raises(BadRequestError, match="heuristic"):
        client.find("opt-square", (0.1, 0.1), (0.9, 0.9), optimal=True, heuristic="octile")
    with pytest.raises((BadRequestError, UnsupportedError)):
        client.find("opt-square", (0.1, 0.1), (0.9, 0.9), optimal=True, hierarchical=True)
    # Grid searches are exact already: the option is accepted and changes nothing.
    client.load_grid("opt-grid", np.ones((4, 4), dtype=bool))
    plain = client.find("opt-grid", (0, 0), (3, 3))
    assert client.find("opt-grid", (0, 0), (3, 3), optimal=True)["cost"] == plain["cost"]
