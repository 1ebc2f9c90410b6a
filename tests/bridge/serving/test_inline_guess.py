"""Issue 41: an exact query that runs out of its inline budget is searched again from nothing on a
thread. Once a graph's recent queries show that queries as far apart cannot fit, they go straight
to a thread (no attempt thrown away); short ones still run inline."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import numpy as np

from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.serving.inline import INLINE_EXPANSIONS
from bridge.serving.local import LocalServing
from bridge.wire.protocol import Limits
from python_core.formats.records import to_record
from python_core.grid import GridGraph


def _load(grid: GridGraph, graph_id: str = "g") -> LoadRequest:
    kind, record = to_record(grid)
    return LoadRequest(graph_id, KINDS[kind], dict(record), None)


def _query(start: tuple[int, int], goal: tuple[int, int]) -> dict[str, Any]:
    return {"graph": "g", "start": list(start), "goal": list(goal)}


def _serpentine(size: int = 128) -> GridGraph:
    """Walls on every odd row, each open at one end, alternately: top to bottom is the whole grid."""
    walkable = np.ones((size, size), dtype=bool)
    for row in range(1, size, 2):
        walkable[row, :] = False
        walkable[row, -1 if row % 4 == 1 else 0] = True
    return GridGraph(walkable, diagonal="never")


async def _answer(outcome: Any) -> tuple[dict[str, Any], bool]:
    """The answer, and whether it came inline (not awaitable: no thread hop)."""
    if inspect.isawaitable(outcome):
        return await outcome, False
    return outcome, True


def test_queries_too_far_for_the_loop_go_straight_to_a_thread_and_short_ones_stay_inline() -> None:
    async def scenario() -> list[tuple[float, bool, int, int]]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()
        try:
            outcome = serving.load(_load(_serpentine()), None)
            await outcome if inspect.isawaitable(outcome) else None
            seen = []
            for start, goal in [((0, 0), (0, 126))] * 3 + [((2, 0), (9, 0)), ((0, 0), (0, 126))]:
                answer, inline = await _answer(serving.find("c", _query(start, goal)))
                assert answer["status"] == "found"
                seen.append((answer["cost"], inline, serving.inline.ran_out, serving.inline.straight))
            return seen
        finally:
            await serving.close()

    seen = asyncio.run(scenario())
    long_cost = seen[0][0]
    assert long_cost > INLINE_EXPANSIONS  # the whole maze: more than the inline budget can expand
    # the first ran out inline (searched again on the thread); the next ones were not tried inline
    assert seen[:3] == [(long_cost, False, 1, 0), (long_cost, False, 1, 1), (long_cost, False, 1, 2)]
    assert seen[3] == (7.0, True, 1, 2)  # a short one on the same graph: inline, no hop
    assert seen[4] == (long_cost, False, 1, 3)


def test_a_query_whose_own_budget_fits_runs_inline_even_where_the_guess_says_thread() -> None:
    """Its own budget bounds its work on the loop: no hop, however far apart its endpoints are."""

    async def scenario() -> tuple[list[bool], int, dict[str, Any], bool]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()
        try:
            outcome = serving.load(_load(_serpentine()), None)
            await outcome if inspect.isawaitable(outcome) else None
            taught = [(await _answer(serving.find("c", _query((0, 0), (0, 126)))))[1] for _ in range(2)]
            straight = serving.inline.straight
            small = {**_query((0, 0), (0, 126)), "options": {"max_expansions": 100}}
            answer, inline = await _answer(serving.find("c", small))
            return taught, straight, answer, inline
        finally:
            await serving.close()

    taught, straight, answer, inline = asyncio.run(scenario())
    assert taught == [False, False]
    assert straight == 1  # the graph's guess now sends such reaches straight to a thread
    assert inline  # the old guess sent it to a thread too
    assert answer["status"] == "budget_exhausted"
    assert answer["expanded"] <= 100
