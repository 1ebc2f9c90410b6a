"""Refused updates, evictions and restarts against a ``serve --ray local`` sidecar whose replicas hold
almost nothing (``--ray-memory-mb 1``): every replica that answers a graph afterwards sees every
change that was logged and none that was refused, and a request sent while both replicas restart
waits for them instead of failing."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.client.sidecar import Sidecar, start_sidecar
from bridge.serving.ray.faults import replica_pids_of
from bridge.wire.errors import BridgeError
from tests.bridge.ray.conftest import RAY_SERVE_ARGS

GRAPH = "refused"
BIG = "evicts"

REFUSED = [
    ({"op": "place", "agent": 2, "cell": [0, 3], "size": 0}, "bad_request"),
    ({"op": "move", "agent": 1, "cell": [0, 3], "size": 2}, "bad_request"),
    ({"op": "place", "agent": 2, "cell": [11, 4], "size": 2}, "out_of_bounds"),  # refused by the grid
    ({"op": "move", "agent": 1, "cell": [11, 4]}, "out_of_bounds"),  # agent 1 would leave the grid
]


@pytest.fixture(scope="module")
def sidecar() -> Iterator[Sidecar]:
    """Two replicas with a 1 MiB budget each: touching the big grid evicts the small one."""
    args = (*RAY_SERVE_ARGS, "--ray-memory-mb", "1", "--log-level", "WARNING")
    started = start_sidecar(*args, stderr=subprocess.DEVNULL, timeout=180)
    try:
        yield started
    finally:
        started.stop()


def _corridor(client: Client) -> None:
    """Agent 1 (size 2) ends at (9, 3), shutting the two-row corridor: (0, 3) -> (10, 4) has no path."""
    walk = np.ones((6, 12), dtype=bool)
    walk[2, :] = walk[5, :] = False
    client.load_grid(GRAPH, walk, diagonal="never")
    client.place_agent(GRAPH, 1, (5, 3))
    client.update(GRAPH, agents=[{"op": "remove", "agent": 1}])
    client.place_agent(GRAPH, 1, (5, 3), size=2)
    client.update(GRAPH, agents=[{"op": "move", "agent": 1, "cell": [9, 3]}])


def _everywhere(client: Client) -> list[str]:
    """The corridor query on the home replica (``path.find``) and on both replicas (a batch of four
    is cut into four pieces, sent to the replicas in turn)."""
    one = client.find(GRAPH, (0, 3), (10, 4))["status"]
    many = client.find_many([{"graph": GRAPH, "start": [0, 3], "goal": [10, 4]}] * 4)
    return [one, *(r["status"] for r in many)]


def _evict(client: Client) -> None:
    """Touch the big grid on both replicas: past the budget, the small one goes."""
    client.find_many([{"graph": BIG, "start": [0, 0], "goal": [9, 9]}] * 4)


def _code(change: dict[str, Any], client: Client) -> str:
    try:
        client.update(GRAPH, agents=[change])
    except BridgeError as exc:
        return exc.code
    return "accepted"


def test_refused_updates_leave_every_logged_change_on_every_replica(sidecar: Sidecar) -> None:
    with sidecar.connect(timeout=300) as client:
        client.load_grid(BIG, np.ones((1024, 1024), dtype=bool))
        _corridor(client)
        assert _everywhere(client) == ["no_path"] * 5
        for change, want in REFUSED:
            assert _code(change, client) == want
            assert _everywhere(client) == ["no_path"] * 5, change  # held, no rebuild
            _evict(client)
            assert _everywhere(client) == ["no_path"] * 5, change  # rebuilt from the log
        assert client.info(GRAPH)["agents"] == 1
        client.update(GRAPH, agents=[{"op": "remove", "agent": 1}])  # a change after the refusals
        _evict(client)
        assert _everywhere(client) == ["found"] * 5
        client.drop(GRAPH)
        client.drop(BIG)


def test_a_request_sent_while_both_replicas_restart_waits_for_them(sidecar: Sidecar) -> None:
    with sidecar.connect(timeout=300) as client:
        _corridor(client)
        assert _code(REFUSED[2][0], client) == "out_of_bounds"
        pids = replica_pids_of(sidecar.process.pid)
        assert len(pids) == 2
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        # both restart empty: the query waits for one, which rebuilds the graph from its log
        assert client.find(GRAPH, (0, 3), (10, 4))["status"] == "no_path"
        assert _everywhere(client) == ["no_path"] * 5
        client.drop(GRAPH)
