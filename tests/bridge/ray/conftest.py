"""Every test under tests/bridge/ray needs Ray: a skip without it, a failure with CI=true
(tests/bridge/ray/ray_env.py). Test modules here import ray only inside tests or not at all (the
sidecars they start import it), so a missing Ray reaches this fixture rather than failing collection."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

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


SIDECAR_LOG = Path(tempfile.gettempdir()) / f"astar-bridge-ray-sidecar-{os.getpid()}.log"
"""The session sidecar's log (its warnings: a replica that died, a retry), shown beside a failing
Ray test: a hang on CI is otherwise silent."""

LOG_TAIL_BYTES = 8000


@pytest.fixture(scope="session")
def sidecar() -> Iterator[Sidecar]:
    """The ``sidecar`` of tests/bridge/conftest.py served by RayServing: every test module under
    tests/bridge/ray that re-runs a module of tests/bridge/methods gets this one (one Ray instance
    for the whole session)."""
    require_ray()
    with SIDECAR_LOG.open("wb") as log_file:
        started = start_sidecar(*RAY_SERVE_ARGS, "--log-level", "INFO", stderr=log_file, timeout=180)
    try:
        warm_replicas(started)
        yield started
    finally:
        started.stop()
        SIDECAR_LOG.unlink(missing_ok=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """A failing test here gets the tail of the session sidecar's log in its report."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.failed and SIDECAR_LOG.exists():
        with SIDECAR_LOG.open("rb") as log_file:
            log_file.seek(max(0, SIDECAR_LOG.stat().st_size - LOG_TAIL_BYTES))
            tail = log_file.read().decode("utf-8", "replace")
        report.sections.append(("ray sidecar log (tail)", tail))


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
