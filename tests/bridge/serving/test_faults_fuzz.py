"""10,000 fuzzed messages (nested hundreds of levels, huge and non-finite numbers, headers declaring
4 GB) against a real sidecar: no ``internal`` answer, no crash, no stall, and loaded graphs answer
as before."""

from __future__ import annotations

import numpy as np

from bridge.client.sidecar import Sidecar
from tests.bridge.conftest import SpawnSidecar
from tests.bridge.faults import run_fuzz

FUZZ_MESSAGES = 10_000


def _witness(sidecar: Sidecar) -> tuple[dict[str, object], int]:
    with sidecar.connect() as client:
        if "fuzz-witness" not in [g["id"] for g in client.call("graph.list")["graphs"]]:
            walls = np.ones((8, 8), dtype=bool)
            walls[3, 1:7] = False
            client.load_grid("fuzz-witness", walls, diagonal="never")
        return client.find("fuzz-witness", (0, 0), (7, 7)), client.info("fuzz-witness")["version"]


def test_fuzzed_messages_get_no_internal_answer_and_harm_nothing(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--threads", "1")
    before = _witness(sidecar)
    report = run_fuzz(sidecar, FUZZ_MESSAGES)
    assert report.internal == [], f"{len(report.internal)} internal answers, e.g. {report.internal[:3]}"
    assert report.stalled == 0
    assert report.answers + report.closed >= FUZZ_MESSAGES
    assert sidecar.process.poll() is None
    assert _witness(sidecar) == before
