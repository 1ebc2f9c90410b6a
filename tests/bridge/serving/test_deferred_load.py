"""A big grid's hierarchy over the wire (issue 41): a default load of 1024 x 1024 cells answers
before its cluster trees are priced, says so (``tables_ready`` in the load's answer and in
``graph.info``, from the hierarchy's own description), and answers hierarchical queries with the
exact search's path meanwhile; a small grid's hierarchy is ready when its load answers."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from bench.generated_maps import random_blocked
from bridge.methods.hierarchy_params import HierarchySpec
from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.serving.local import LocalServing
from bridge.wire.protocol import Limits
from python_core.formats.records import to_record
from python_core.grid import GridGraph

MODE = "only_if_no_obstacles"


async def _settle(outcome: Any) -> Any:
    return await outcome if inspect.isawaitable(outcome) else outcome


def _load(grid: GridGraph, graph_id: str) -> LoadRequest:
    kind, record = to_record(grid)
    return LoadRequest(graph_id, KINDS[kind], dict(record), HierarchySpec())


def _query(graph_id: str, start: tuple[int, int], goal: tuple[int, int]) -> dict[str, Any]:
    return {"graph": graph_id, "start": list(start), "goal": list(goal), "options": {"hierarchical": True}}


def test_a_default_1024_load_answers_exactly_before_its_trees_are_priced() -> None:
    big = GridGraph(random_blocked(1024, blocked=0.2, seed=5), diagonal=MODE)
    small = GridGraph(random_blocked(64, blocked=0.2, seed=5), diagonal=MODE)
    ends = ((0, 0), (1000, 1000))

    async def scenario() -> None:
        serving = LocalServing(Limits(), threads=2)
        await serving.start()
        # first the small one: the first hierarchy of a serving loads the HPA* kernels after its build
        ready = await _settle(serving.load(_load(small, "small"), None))
        assert ready["hierarchy"]["tables_ready"] is True
        assert (await _settle(serving.info("small")))["hierarchy"]["tables_ready"] is True
        loaded = await _settle(serving.load(_load(big, "big"), None))
        assert loaded["hierarchy"]["tables_ready"] is False  # tens of seconds of trees: not yet
        assert (await _settle(serving.info("big")))["hierarchy"]["tables_ready"] is False
        found = await _settle(serving.find("a", _query("big", *ends)))
        assert found["status"] == "found"
        assert found["cost"] == pytest.approx(big.find_path(*ends).cost)  # the exact search's
        await _settle(serving.drop("big"))
        await serving.close()

    asyncio.run(scenario())
