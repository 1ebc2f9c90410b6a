"""A navmesh agent radius through a real sidecar: ``agent_radius`` on graph.load_navmesh and
``radius`` in a query's options answer as python_core does in process, keep the radius from every
wall, and bad values are errors that leave the loaded graph as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bridge.client import Client, decode_points
from bridge.wire.errors import BadRequestError, GraphRejectedError, UnsupportedError
from python_core import QueryOptions
from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
from python_core.navigation import NavMeshNavigator
from python_core.navmesh import NavMesh
from tests.core.navmesh.shrink_oracle import segments, walkable_area

DATA = Path(__file__).resolve().parents[2] / "data" / "mesh"


def _load(client: Client, graph_id: str, mesh: NavMesh, **extra: Any) -> dict[str, Any]:
    """graph.load_navmesh of a mesh as one piece, with extra load fields (``agent_radius``)."""
    ptr = mesh.poly_ptr
    params = {
        "id": graph_id,
        "dim": mesh.dim,
        "vertices": np.asarray(mesh.vertices, "<f4").tobytes(),
        "indices": np.asarray(mesh.poly_verts, "<i4").tobytes(),
        "sizes": np.diff(ptr).astype("<i4").tobytes(),
        **extra,
    }
    return dict(client.call("graph.load_navmesh", params))


@pytest.fixture(scope="module")
def arena() -> NavMesh:
    # through float32 once, as the wire carries it, so both sides shrink the same mesh
    mesh = load_polyanya_mesh(DATA / "arena.mesh")
    polygons = [mesh.polygon(p).tolist() for p in range(mesh.polygon_count)]
    return NavMesh(mesh.vertices.astype(np.float32).astype(np.float64), polygons)


def folded() -> NavMesh:
    """A floor, a ramp up, a landing and a deck back over the floor: one part over itself."""
    verts = [[0, 0, 0], [6, 0, 0], [6, 0, 6], [0, 0, 6], [10, 2, 0], [10, 2, 2], [6, 0, 2], [12, 2, 0],
             [12, 2, 6], [10, 2, 6], [10, 2, 4], [2, 2, 4], [2, 2, 6]]  # fmt: skip
    return NavMesh(verts, [[0, 1, 2, 3], [1, 4, 5, 6], [4, 7, 8, 9], [11, 10, 9, 12]])


def test_radius_paths_match_python_core_and_keep_off_the_walls(client: Client, arena: NavMesh) -> None:
    _load(client, "radius-arena", arena, agent_radius=1.0)
    assert client.info("radius-arena")["agent_radius"] == 1.0
    local = NavMeshNavigator(arena, agent_radius=1.0)
    boundary = walkable_area(arena).boundary
    rows = read_mesh_scenarios(DATA / "arena.scen")[::20]
    for row in rows:
        for options in ({}, {"radius": 0.5}, {"optimal": True}, {"radius": 0.5, "optimal": True}):
            remote = client.find("radius-arena", row.start, row.goal, **options)
            here = local.find_path(row.start, row.goal, QueryOptions(**options))
            assert remote["status"] == here.status.value
            points = decode_points(remote["points"], 2)
            np.testing.assert_array_equal(points, here.points.astype(np.float32))
            assert np.frombuffer(remote["nodes"], "<i8").tolist() == here.nodes.tolist()
            radius = float(options.get("radius", 1.0))  # type: ignore[arg-type]
            for seg in segments(points.astype(np.float64)):
                assert seg.distance(boundary) >= radius - 1e-4  # float32 points
    assert client.info("radius-arena")["shrunk_radii"] == [1.0, 0.5]
    many = client.find_many([client.query("radius-arena", r.start, r.goal, radius=0.5) for r in rows])
    single = [client.find("radius-arena", r.start, r.goal, radius=0.5) for r in rows]
    assert [m["points"] for m in many] == [s["points"] for s in single]


def test_a_radius_on_a_map_of_regions_survives_updates(client: Client) -> None:
    square = [[0, 0], [10, 0], [10, 10], [0, 10]]
    regions = [client.region(1, square, [[0, 1, 2, 3]]),
               client.region(2, square, [[0, 1, 2, 3]], transform=[1, 0, 0, 1, 10, 0])]  # fmt: skip
    params = {"id": "radius-map", "dim": 2, "regions": regions, "links": [], "agent_radius": 2.0}
    client.call("graph.load_navmesh", params)
    wide = client.find("radius-map", (1, 1), (19, 1))
    assert decode_points(wide["points"], 2).tolist() == [[2.0, 2.0], [18.0, 2.0]]
    client.update("radius-map", regions=[{"op": "move", "id": 2, "transform": [1, 0, 0, 1, 10, 5]}])
    moved = decode_points(client.find("radius-map", (1, 1), (19, 1))["points"], 2)
    assert moved[-1].tolist() == pytest.approx([18.0, 7.0], abs=1e-3)  # region 2 now starts at y = 5
    tiny = [{"op": "move", "id": 1, "transform": [0.1, 0, 0, 0.1, 0, 0]},
            {"op": "move", "id": 2, "transform": [0.1, 0, 0, 0.1, 50, 0]}]  # fmt: skip
    with pytest.raises(GraphRejectedError, match="leaves no room"):
        client.update("radius-map", regions=tiny)
    assert decode_points(client.find("radius-map", (1, 1), (19, 1))["points"], 2).tolist() == moved.tolist()


def test_bad_radii_are_errors_and_the_graph_stays(client: Client, arena: NavMesh) -> None:
    _load(client, "radius-bad", arena)
    plain = client.find("radius-bad", (2, 2), (20, 20))
    for bad in (0, -1.0, float("nan"), "1", True):
        with pytest.raises(BadRequestError):
            client.find("radius-bad", (2, 2), (20, 20), radius=bad)
    with pytest.raises(BadRequestError, match="size"):
        client.find("radius-bad", (2, 2), (20, 20), size=2)
    for bad in (0, -1.0, "1", True, [1.0]):
        with pytest.raises(GraphRejectedError, match="agent_radius"):
            _load(client, "radius-bad", arena, agent_radius=bad)
    with pytest.raises(GraphRejectedError, match="leaves no room"):
        _load(client, "radius-bad", arena, agent_radius=500.0)
    assert client.find("radius-bad", (2, 2), (20, 20)) == plain  # the loaded graph is untouched
    assert client.find("radius-bad", (2, 2), (20, 20), radius=1000.0)["status"] == "no_path"
    up = NavMesh([[0, 0, 0], [4, 0, 0], [4, 0, 4], [0, 0, 4]], [[0, 1, 2, 3]])
    _load(client, "radius-3d", up, agent_radius=0.5, up_axis="y")
    corner = decode_points(client.find("radius-3d", (0, 0, 0), (4, 0, 4))["points"], 3)
    assert corner[0] == pytest.approx([0.51, 0.0, 0.51], abs=0.01)  # 0.5 from both walls (+2 %)
    bridge = folded()
    _load(client, "radius-bridge", bridge, up_axis="y")
    with pytest.raises(UnsupportedError, match="over itself"):
        client.find("radius-bridge", (1, 0, 1), (4, 2, 5), radius=0.5)
    assert client.find("radius-bridge", (1, 0, 1), (4, 2, 5))["status"] == "found"
