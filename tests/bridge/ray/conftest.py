"""Every test under tests/bridge/ray needs Ray: a skip without it, a failure with CI=true
(tests/bridge/ray/ray_env.py). Test modules here import ray only inside tests or not at all (the
sidecars they start import it), so a missing Ray reaches this fixture rather than failing collection."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import numpy as np
import pytest

from bridge.client.sidecar import Sidecar, start_sidecar
from bridge.serving.ray.pool import ReplicaPool
from tests.bridge.ray.ray_env import require_ray


@pytest.fixture(autouse=True)
def _ray_required() -> None:
    require_ray()


RAY_SERVE_ARGS = ("--ray", "local", "--ray-replicas", "2", "--threads", "1")
"""How the Ray tests start a sidecar: a private local Ray instance with two replicas (so requests
and batch pieces really go to different processes), one search thread each (CI has two cores)."""


@pytest.fixture(scope="session")
def sidecar() -> Iterator[Sidecar]:
    """The ``sidecar`` of tests/bridge/conftest.py served by RayServing: every test module under
    tests/bridge/ray that re-runs a module of tests/bridge/methods gets this one (one Ray instance
    for the whole session)."""
    require_ray()
    started = start_sidecar(*RAY_SERVE_ARGS, "--log-level", "WARNING", stderr=subprocess.DEVNULL, timeout=180)
    try:
        warm_replicas(started)
        yield started
    finally:
        started.stop()


def warm_replicas(sidecar: Sidecar, replicas: int = 2) -> None:
    """Wait (patiently) until every replica has its navmesh and hierarchy kernels and the gateway
    its flow-field ones: each process loads them in the background after the grid ones, and a
    test's first such request must not time out meanwhile. Seconds with numba's cache warm (CI
    runs the warm-up first); minutes on a busy machine whose python_core just changed."""
    home = ReplicaPool([None] * replicas)
    ids = [f"warm-{i}" for i in range(64)]
    first = {home.route(graph_id)[0]: graph_id for graph_id in reversed(ids)}  # one id per replica
    vertices = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]])
    with sidecar.connect(timeout=900) as client:
        for graph_id in first.values():
            client.load_navmesh(graph_id, vertices, [[0, 1, 2, 3]])
            assert client.find(graph_id, (0.5, 0.5), (3.5, 3.5))["status"] == "found"
            client.load_grid(graph_id, np.ones((16, 16), bool), hierarchy={"cluster_size": 8})
            assert client.find(graph_id, (0, 0), (15, 15), hierarchical=True)["status"] == "found"
            assert client.request_field(graph_id, [[15, 15]], [[0, 0]])["computed"] >= 1
            client.drop(graph_id)
