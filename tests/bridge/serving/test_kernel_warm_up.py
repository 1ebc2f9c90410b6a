"""The sidecar loads every compiled kernel before its first answer (bridge/serving/kernel_warm_up.py):
a query or a load sent at once waits for all of them, so none loads beside a game's first rounds of
requests."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.serving import kernel_warm_up
from bridge.serving.local import LocalServing
from bridge.wire.protocol import Limits
from python_core.compiled import WARM_UP_MODULES, warm_up
from python_core.formats.records import to_record
from python_core.grid import GridGraph


async def _settle(outcome: Any) -> Any:
    return await outcome if inspect.isawaitable(outcome) else outcome


def test_the_first_load_and_query_wait_for_every_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[tuple[str, ...]] = []

    def recorded(modules: Sequence[str] | None = None) -> float:
        seconds = warm_up(modules)
        loaded.append(tuple(WARM_UP_MODULES if modules is None else modules))
        return seconds

    monkeypatch.setattr(kernel_warm_up, "warm_up", recorded)

    async def scenario() -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], dict[str, Any]]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()  # returns at once: the sidecar announces itself before the kernels
        try:
            kind, record = to_record(GridGraph(np.ones((8, 8), dtype=bool)))
            await _settle(serving.load(LoadRequest("g", KINDS[kind], dict(record), None), None))
            after_load = list(loaded)
            answer = await _settle(serving.find("c", {"graph": "g", "start": [0, 0], "goal": [7, 7]}))
            return after_load, list(loaded), answer
        finally:
            await serving.close()

    after_load, after_query, answer = asyncio.run(scenario())
    assert after_load == after_query == [tuple(WARM_UP_MODULES)]
    assert answer["status"] == "found"


def test_the_future_carries_a_failed_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(modules: Sequence[str] | None = None) -> float:
        raise ImportError("no kernels here")

    monkeypatch.setattr(kernel_warm_up, "warm_up", broken)

    async def started() -> float:
        return await kernel_warm_up.start(asyncio.get_running_loop())

    with pytest.raises(ImportError, match="no kernels here"):
        asyncio.run(started())
