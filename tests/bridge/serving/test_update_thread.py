"""A graph's changes run on one thread of its own (a moved region's mesh reuses the last one's
memory: on alternating pool threads an aurora move touched 17-35 MB of fresh pages), which ends
when the graph is dropped or the serving closes."""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any

import numpy as np
import pytest

from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.methods.params import Params
from bridge.serving.local import LocalServing
from bridge.wire.errors import GraphRejectedError
from bridge.wire.protocol import Limits
from python_core.formats.records import to_record
from python_core.grid import GridGraph


async def _settle(outcome: Any) -> Any:
    return await outcome if inspect.isawaitable(outcome) else outcome


def _load(graph_id: str) -> LoadRequest:
    kind, record = to_record(GridGraph(np.ones((8, 8), dtype=bool)))
    return LoadRequest(graph_id, KINDS[kind], dict(record), None)


def _wall(graph_id: str, x: int) -> Params:
    cells = np.asarray([[x, 3]], dtype="<i4").tobytes()
    return Params({"id": graph_id, "cells": cells, "walkable": b"\x00"}, "graph.update")


def _update_threads(before: set[threading.Thread]) -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("astar-update") and t not in before}


def test_each_graph_s_changes_run_on_one_thread_that_ends_with_the_graph() -> None:
    before = set(threading.enumerate())

    async def scenario() -> None:
        serving = LocalServing(Limits(), threads=2)
        await serving.start()
        for graph_id in ("a", "b"):
            await _settle(serving.load(_load(graph_id), None))
        versions = [(await _settle(serving.update("a", _wall("a", x))))["version"] for x in range(4)]
        assert versions == [2, 3, 4, 5]
        assert (await _settle(serving.update("b", _wall("b", 0))))["version"] == 2
        threads = _update_threads(before)
        assert sorted(t.name for t in threads) == ["astar-update a_0", "astar-update b_0"]  # one a graph
        answer = await _settle(
            serving.find("c", {"graph": "a", "start": [0, 0], "goal": [7, 7], "options": {}})
        )
        assert answer["status"] == "found"
        await _settle(serving.drop("a"))
        gone = [t for t in threads if t.name.startswith("astar-update a")]
        await asyncio.to_thread(gone[0].join, 30)
        assert [t.name for t in _update_threads(before)] == ["astar-update b_0"]  # until the serving closes
        await serving.close()

    asyncio.run(scenario())
    for thread in _update_threads(before):
        thread.join(30)
    assert not _update_threads(before)


def test_a_load_runs_on_the_graph_s_thread_and_a_failed_one_leaves_none() -> None:
    """The first change after a load reuses the memory the load freed (the same thread's malloc
    arena, not fresh pages): the load starts the graph's thread; a load that fails ends it."""
    before = set(threading.enumerate())

    async def scenario() -> None:
        serving = LocalServing(Limits(), threads=2)
        await serving.start()
        await _settle(serving.load(_load("a"), None))
        assert [t.name for t in _update_threads(before)] == ["astar-update a_0"]  # before any change
        bad = LoadRequest("z", KINDS["grid"], {**_load("z").record, "width": -1}, None)
        with pytest.raises(GraphRejectedError):
            await _settle(serving.load(bad, None))
        gone = [t for t in _update_threads(before) if t.name.startswith("astar-update z")]
        for thread in gone:
            await asyncio.to_thread(thread.join, 30)
        assert [t.name for t in _update_threads(before)] == ["astar-update a_0"]
        assert (await _settle(serving.update("a", _wall("a", 2))))["version"] == 2
        assert [t.name for t in _update_threads(before)] == ["astar-update a_0"]  # the same thread
        await serving.close()

    asyncio.run(scenario())
    for thread in _update_threads(before):
        thread.join(30)
