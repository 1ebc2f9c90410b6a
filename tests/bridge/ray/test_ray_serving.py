"""RayServing through real sockets (``serve --ray local``, two replicas) against the local sidecar:
the same answers; an update seen by the replica that did not apply it; a replica killed in the
middle of a batch (every query still answered, the same); replicas restarted empty rebuild their
graphs from snapshot and log; ``--ray`` without Ray says how to install it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.client.sidecar import Sidecar, start_sidecar
from bridge.serving.ray.faults import replica_pids_of, replica_titles_of
from bridge.serving.ray.pool import ReplicaPool
from bridge.serving.ray.spread import pieces
from tests.bridge.ray.conftest import RAY_SERVE_ARGS, warm_replicas

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def local() -> Iterator[Sidecar]:
    """A plain sidecar (LocalServing): what the Ray one must answer alike."""
    started = start_sidecar("--threads", "1", "--log-level", "WARNING", stderr=subprocess.DEVNULL)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def killable() -> Iterator[Sidecar]:
    """A Ray sidecar of this module's own for the tests that kill replicas: the session's shared
    one (the re-run method suites) must never meet a replica that is still restarting."""
    started = start_sidecar(*RAY_SERVE_ARGS, "--log-level", "WARNING", stderr=subprocess.DEVNULL, timeout=180)
    try:
        warm_replicas(started)
        yield started
    finally:
        started.stop()


def _maze(size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    walk = rng.random((size, size)) > 0.28
    walk[0, :] = walk[:, 0] = True  # a frame of open cells keeps most pairs connected
    return walk


def _pairs(walk: np.ndarray, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    cells = np.argwhere(walk)[:, ::-1].astype(np.int32)
    return cells[rng.choice(len(cells), count)], cells[rng.choice(len(cells), count)]


def _same_packed(a: dict[str, Any], b: dict[str, Any]) -> None:
    for key in ("status", "costs", "expanded", "offsets", "points", "nodes"):
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert a["errors"] == b["errors"]


def _both(clients: list[Client], method: str, *args: Any, **kwargs: Any) -> list[Any]:
    return [getattr(client, method)(*args, **kwargs) for client in clients]


def test_answers_equal_the_local_sidecars(sidecar: Sidecar, local: Sidecar) -> None:
    walk = _maze(64, seed=1)
    starts, goals = _pairs(walk, 300, seed=2)
    with sidecar.connect() as ray_client, local.connect() as local_client:
        clients = [ray_client, local_client]
        loads = _both(clients, "load_grid", "same", walk, diagonal="never", hierarchy={"cluster_size": 16})
        assert loads[0]["nodes"] == loads[1]["nodes"]
        _both(clients, "load_grid", "same-b", walk.T.copy(), diagonal="always")
        for options in ({}, {"hierarchical": True}, {"hierarchical": True, "corridor": True}):
            ray_answer, local_answer = _both(clients, "find_packed", "same", starts, goals, **options)
            _same_packed(ray_answer, local_answer)
        queries = [
            Client.query("same" if i % 3 else "same-b", start, goal)
            for i, (start, goal) in enumerate(zip(starts[:90].tolist(), goals[:90].tolist(), strict=True))
        ]
        queries += [{"graph": "nowhere", "start": [0, 0], "goal": [1, 1]}, {"graph": "same", "start": "x"}]
        ray_many, local_many = _both(clients, "find_many", queries)
        assert ray_many == local_many
        assert ray_many[-2]["error"]["code"] == "unknown_graph"
        wall = np.argwhere(~_maze(64, seed=9))[:400, ::-1].astype("<i4")
        for client in clients:
            client.update("same", cells=wall.tobytes(), walkable=False)
            client.update("same", agents=[{"op": "place", "agent": 4, "cell": starts[7].tolist(), "size": 1}])
        ray_answer, local_answer = _both(clients, "find_packed", "same", starts, goals, hierarchical=True)
        _same_packed(ray_answer, local_answer)
        ray_info, local_info = _both(clients, "info", "same")
        for info in (ray_info, local_info):
            info["hierarchy"].pop("build_seconds")
        assert ray_info == local_info
        assert ray_info["version"] == 3
        assert _both(clients, "reachable", "same", starts[0].tolist(), goals[0].tolist())[0] in (True, False)
        _both(clients, "drop", "same")
        _both(clients, "drop", "same-b")


def test_an_update_sent_before_a_batch_is_seen_on_the_replica_that_did_not_apply_it(sidecar: Sidecar) -> None:
    walk = np.ones((8, 24), dtype=bool)
    route = ReplicaPool([None, None])
    assert route.route("ordered", 0)[0] != route.route("ordered", 1)[0]  # pieces on both replicas
    count = 64
    assert pieces(count, 2) >= 2
    starts = np.tile(np.array([[0, 3]], np.int32), (count, 1))
    goals = np.tile(np.array([[23, 3]], np.int32), (count, 1))
    with sidecar.connect() as client:
        client.load_grid("ordered", walk, diagonal="never")
        for gap in (1, 6, 2, 5, 3):  # a wall across the grid but for one cell: the path bends through it
            column = np.array([[12, y] for y in range(8)], "<i4")
            cells = np.array([[12, y] for y in range(8) if y != gap], "<i4")
            # sent back to back, no answer waited for: the order of arrival is the order of effect
            opened = {"id": "ordered", "cells": column.tobytes(), "walkable": True}
            closed = {"id": "ordered", "cells": cells.tobytes(), "walkable": False}
            reopen, close = client.send("graph.update", opened), client.send("graph.update", closed)
            params = {"graph": "ordered", "starts": starts.tobytes(), "goals": goals.tobytes(), "cells": True}
            batch = client.send("path.find_packed", params)
            client.receive(reopen)
            assert client.receive(close)["id"] == "ordered"
            answer = client.receive(batch)
            costs = np.frombuffer(answer["costs"], "<f8")
            assert np.all(costs == 23 + 2 * abs(gap - 3)), (gap, costs)  # every piece saw the update
        assert client.info("ordered")["version"] == 11
        client.drop("ordered")


def _wait_for(condition: Any, seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.002)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_replica_killed_mid_batch_still_answers_every_query(killable: Sidecar, local: Sidecar) -> None:
    sidecar = killable
    walk = _maze(128, seed=3)
    starts, goals = _pairs(walk, 6000, seed=4)
    params = {"graph": "killed", "starts": starts.tobytes(), "goals": goals.tobytes(), "cells": True}
    with sidecar.connect(timeout=300) as client, local.connect() as local_client:
        client.load_grid("killed", walk, diagonal="always")
        local_client.load_grid("killed", walk, diagonal="always")
        expected = local_client.find_packed("killed", starts, goals)
        before = replica_pids_of(sidecar.process.pid)
        msgid = client.send("path.find_packed", params)

        def busy_replicas() -> list[int]:
            titles = replica_titles_of(sidecar.process.pid)
            return [pid for pid, title in titles.items() if title.endswith(".find_packed")]

        busy = _wait_for(busy_replicas, 60, "a replica busy with the batch")
        os.kill(busy[0], 9)
        answer = client.receive(msgid)
        got = {
            "status": np.frombuffer(answer["status"], np.uint8),
            "costs": np.frombuffer(answer["costs"], "<f8"),
            "expanded": np.frombuffer(answer["expanded"], "<i8"),
            "offsets": np.frombuffer(answer["offsets"], "<i8"),
            "points": np.frombuffer(answer["points"], "<f4").reshape(-1, 2),
            "nodes": np.frombuffer(answer["nodes"], "<i8"),
            "errors": answer["errors"],
        }
        _same_packed(got, expected)

        def restarted() -> list[int]:
            pids = replica_pids_of(sidecar.process.pid)
            return pids if len(pids) == 2 else []

        after = _wait_for(restarted, 60, "the killed replica's restart")
        assert busy[0] not in after
        assert len(set(after) - set(before)) == 1
        _same_packed(client.find_packed("killed", starts[:200], goals[:200]), _sliced(expected, 200))
        client.drop("killed")


def _sliced(answer: dict[str, Any], count: int) -> dict[str, Any]:
    end = int(answer["offsets"][count])
    return {
        "status": answer["status"][:count],
        "costs": answer["costs"][:count],
        "expanded": answer["expanded"][:count],
        "offsets": answer["offsets"][: count + 1],
        "points": answer["points"][:end],
        "nodes": answer["nodes"][:end],
        "errors": [e for e in answer["errors"] if e[0] < count],
    }


def test_replicas_restarted_empty_rebuild_graphs_from_snapshot_and_log(killable: Sidecar) -> None:
    sidecar = killable
    walk = np.ones((6, 10), dtype=bool)
    with sidecar.connect(timeout=120) as client:
        client.load_grid("rebuilt", walk, diagonal="never")
        client.update("rebuilt", cells=np.array([[5, y] for y in range(5)], "<i4").tobytes(), walkable=False)
        client.place_agent("rebuilt", 1, (5, 5))  # placing it twice would fail: applied once only
        client.update("rebuilt", agents=[{"op": "move", "agent": 1, "cell": [9, 0]}])
        before = client.find("rebuilt", (0, 0), (9, 1))
        assert before["status"] == "found"
        assert before["cost"] == 9 + 5 + 4  # under the wall and back up
        for pid in replica_pids_of(sidecar.process.pid):
            os.kill(pid, 9)
        _wait_for(lambda: len(replica_pids_of(sidecar.process.pid)) == 2, 60, "both replicas restarted")
        assert client.find("rebuilt", (0, 0), (9, 1)) == before
        assert client.find("rebuilt", (0, 0), (9, 0))["status"] == "no_path"  # the agent is there
        assert client.info("rebuilt")["version"] == 4
        assert client.info("rebuilt")["agents"] == 1
        client.drop("rebuilt")


def test_ray_flag_without_ray_says_how_to_install_it(tmp_path: Path) -> None:
    fake = tmp_path / "ray"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('No module named ray (test stand-in)')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    done = subprocess.run(
        [sys.executable, "-m", "bridge", "serve", "--ray", "local", "--no-stdin-watch"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "install the 'ray' extra" in done.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "bridge", "serve", "--ray", "local", "--ray-replicas", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert "--ray-replicas must be at least 1" in bad.stderr
