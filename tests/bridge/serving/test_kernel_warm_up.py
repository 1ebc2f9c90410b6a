"""The sidecar loads every compiled kernel before its first answer (bridge/serving/kernel_warm_up.py):
a query or a load sent at once waits for all of them, so none loads beside a game's first rounds of
requests; unless numba's cache lacks a kernel: then answers start once the grid and waypoint kernels
are in, the rest compiling meanwhile."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.serving import kernel_warm_up
from bridge.serving.local import LocalServing
from bridge.wire.protocol import Limits
from python_core.compiled import FIRST_WARM_UP_MODULES, WARM_UP_MODULES, warm_up
from python_core.formats.records import to_record
from python_core.grid import GridGraph

WarmUp = Callable[[Sequence[str] | None], float]

EVENTS: Any = importlib.import_module("numba.core.event")  # untyped


async def _settle(outcome: Any) -> Any:
    return await outcome if inspect.isawaitable(outcome) else outcome


def _compiling() -> None:
    """What numba signals when a kernel is not in its cache and must be compiled."""
    EVENTS.start_event("numba:compile")
    EVENTS.end_event("numba:compile")


async def _load_and_find(serving: LocalServing) -> dict[str, Any]:
    kind, record = to_record(GridGraph(np.ones((8, 8), dtype=bool)))
    await _settle(serving.load(LoadRequest("g", KINDS[kind], dict(record), None), None))
    answer: dict[str, Any] = await _settle(serving.find("c", {"graph": "g", "start": [0, 0], "goal": [7, 7]}))
    return answer


@pytest.fixture
def rest_held() -> Iterator[threading.Event]:
    """Set it to let a fake loading of the remaining kernels finish (at the latest, set on teardown)."""
    release = threading.Event()
    yield release
    release.set()


def test_the_first_load_and_query_wait_for_every_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[tuple[str, ...]] = []

    def recorded(modules: Sequence[str] | None = None) -> float:
        seconds = warm_up(modules)
        loaded.append(tuple(WARM_UP_MODULES if modules is None else modules))
        return seconds

    monkeypatch.setattr(kernel_warm_up, "warm_up", recorded)

    async def scenario() -> tuple[list[tuple[str, ...]], dict[str, Any]]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()  # returns at once: the sidecar announces itself before the kernels
        try:
            answer = await _load_and_find(serving)
            return list(loaded), answer
        finally:
            await serving.close()

    seen, answer = asyncio.run(scenario())
    assert seen == [tuple(FIRST_WARM_UP_MODULES), tuple(WARM_UP_MODULES)]
    assert answer["status"] == "found"


def _cold(rest_held: threading.Event, first_compiles: bool, finished: list[bool]) -> WarmUp:
    """A loading whose cache lacks a kernel of the rest (or, ``first_compiles``, of the first
    phase), and whose rest goes on until ``rest_held`` is set (``finished`` then gets a True)."""

    def loading(modules: Sequence[str] | None = None) -> float:
        if modules is not None:
            if first_compiles:
                _compiling()
            return warm_up(modules)
        _compiling()
        rest_held.wait(timeout=120)  # a loading that waited for it fails below, not hangs
        finished.append(True)
        return warm_up()

    return loading


@pytest.mark.parametrize("first_compiles", [False, True], ids=["rest_compiles", "first_compiles"])
def test_without_the_cache_answers_start_once_the_grid_kernels_are_in(
    monkeypatch: pytest.MonkeyPatch, rest_held: threading.Event, first_compiles: bool
) -> None:
    finished: list[bool] = []
    monkeypatch.setattr(kernel_warm_up, "warm_up", _cold(rest_held, first_compiles, finished))

    async def scenario() -> tuple[dict[str, Any], list[bool]]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()
        try:
            answer = await _load_and_find(serving)
            seen = list(finished)
            rest_held.set()
            return answer, seen
        finally:
            await serving.close()

    answer, finished_before_answer = asyncio.run(scenario())
    assert answer["status"] == "found"
    assert finished_before_answer == []


def test_the_future_carries_a_failed_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(modules: Sequence[str] | None = None) -> float:
        raise ImportError("no kernels here")

    monkeypatch.setattr(kernel_warm_up, "warm_up", broken)

    async def started() -> float:
        return await kernel_warm_up.start(asyncio.get_running_loop())

    with pytest.raises(ImportError, match="no kernels here"):
        asyncio.run(started())
