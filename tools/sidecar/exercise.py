"""Ask a running sidecar one of every kind of query; the build's check that a pruned bundle works.

A grid (exact search, HPA* built by the sidecar, ``find_many``, ``reachable``, a cell, weight and
agent update), a waypoint graph (by id and by position, a disabled point), a 2-D and a 3-D
navigation mesh. ``exercise`` raises ``AssertionError`` naming the first answer that is wrong;
tools/bundle.py runs it against a moved copy of the bundle with an empty environment, so a module
or library cut from the bundle that any of these needs fails the build, not a player's game.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np

from bridge.client import Client

SIDE = 64


def _found(answer: dict[str, object], what: str) -> None:
    assert answer.get("status") == "found", f"{what}: {answer}"


def queries(client: Client) -> int:
    """Every kind of query; returns how many were answered."""
    walkable = np.ones((SIDE, SIDE), dtype=np.uint8)
    walkable[10:54, 32] = 0
    client.load_grid("grid", walkable, hierarchy={"cluster_size": 16})
    _found(client.find("grid", (0, 0), (SIDE - 1, SIDE - 1), hierarchical=True), "grid, HPA*")
    _found(client.find("grid", (0, 0), (SIDE - 1, 0)), "grid, exact")
    rows = [client.query("grid", (0, i), (SIDE - 1, i), hierarchical=True) for i in range(8)]
    many = client.find_many(rows)
    for index, answer in enumerate(many):
        _found(answer, f"find_many #{index}")
    assert client.reachable("grid", (0, 0), (SIDE - 1, SIDE - 1)), "reachable"
    client.update("grid", weights=np.full((SIDE, SIDE), 2.0, dtype=np.float32).tobytes())
    client.update("grid", agents=[{"op": "place", "agent": 1, "cell": [5, 5]}])
    _found(client.find("grid", (0, 0), (SIDE - 1, SIDE - 1)), "grid after updates")
    positions = [[0, 0], [1, 0], [2, 0], [1, 1]]
    client.load_waypoints("waypoints", [1, 2, 3, 4], positions, [[1, 2], [2, 3], [1, 4]])
    _found(client.find("waypoints", 1, 3), "waypoints by id")
    _found(client.find("waypoints", [0.1, 0.0], [1.9, 0.1]), "waypoints by position")
    client.update("waypoints", points=np.array([2], "<i8").tobytes(), disabled=True)
    assert client.find("waypoints", 1, 3)["status"] == "no_path", "disabled waypoint"
    vertices = [[0, 0], [2, 0], [2, 2], [0, 2], [4, 0], [4, 2], [4, 4], [2, 4]]
    client.load_navmesh("mesh", vertices, [[0, 1, 2, 3], [1, 4, 5, 2], [2, 5, 6, 7]])
    _found(client.find("mesh", (0.5, 0.5), (3.5, 3.5)), "navmesh 2-D")
    _found(client.find("mesh", (0.5, 0.5), (3.5, 3.5), radius=0.25), "navmesh 2-D, radius (shapely)")
    vertices3 = [[0, 0, 0], [2, 0, 0], [2, 0, 2], [0, 0, 2], [4, 1, 0], [4, 1, 2]]
    client.load_navmesh("mesh3", vertices3, [[0, 1, 2, 3], [1, 4, 5, 2]], up_axis="y")
    _found(client.find("mesh3", (0.5, 0, 0.5), (3.5, 0.75, 1.5)), "navmesh 3-D")
    for graph in ("grid", "waypoints", "mesh", "mesh3"):
        client.info(graph)
        client.drop(graph)
    return 20


def exercise(command: list[str], env: dict[str, str] | None, cwd: Path) -> int:
    """Start ``command serve``, run :func:`queries` against it, stop it; returns the count."""
    process = subprocess.Popen(
        [*command, "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, f"the sidecar exited before announcing: {process.communicate(timeout=30)[1]}"
        announcement = json.loads(line)
        with Client.connect(announcement["host"], announcement["port"]) as client:
            client.hello(announcement["token"])
            answered = queries(client)
    finally:
        _, err = process.communicate(timeout=30)  # closes stdin: the sidecar stops
    assert process.returncode == 0, f"the sidecar exited {process.returncode}: {err}"
    return answered
