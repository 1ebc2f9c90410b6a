"""A small hierarchical ``path.find_packed`` (``PACKED_INLINE`` queries or fewer, its grid free)
is searched on the event loop, with no hop to a search thread, and answers the bytes the search
threads give; every packed answer is encoded once, the same bytes as packing its joined map."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import msgpack
import numpy as np
import pytest

from bridge.methods.hierarchy_params import parse_hierarchy
from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.methods.params import Params
from bridge.serving import batch_runner
from bridge.serving.local import LocalServing
from bridge.serving.packed import join_packed, packed_message
from bridge.wire.answers import Encoded
from bridge.wire.errors import BadRequestError
from bridge.wire.protocol import Limits
from bridge.wire.stream import pack
from python_core.formats.records import to_record
from python_core.grid import GridGraph

WALK = np.ones((48, 64), dtype=bool)
WALK[20, 2:60] = False
WALK[5:40, 30] = False
WALK[10, 10] = False  # a start on a wall


def _part(queries: int, cells: int, mesh: bool = False, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    counts = np.full(queries, cells // max(1, queries), dtype=np.int64)
    total = int(counts.sum())
    part: dict[str, Any] = {
        "status": rng.integers(0, 3, queries).astype("u1"), "costs": rng.random(queries),
        "expanded": rng.integers(0, 99, queries), "counts": counts,
        "points": rng.random((total, 3 if mesh else 2)).astype("<f4"),
        "nodes": rng.integers(0, 1 << 40, total), "errors": [[0, {"code": "bad_request"}]] if queries else [],
    }  # fmt: skip
    if mesh:
        part["node_counts"] = np.ones(queries, dtype=np.int64)
    return part


@pytest.mark.parametrize("mesh", [False, True])
@pytest.mark.parametrize(("queries", "cells"), [(0, 0), (1, 3), (20, 400), (300, 9000)])
def test_packed_message_is_the_packed_joined_map(queries: int, cells: int, mesh: bool) -> None:
    """Arrays across msgpack's bin8 / bin16 / bin32 sizes, one part or several."""
    one = [_part(queries, cells, mesh)]
    several = [_part(queries, cells, mesh, seed) for seed in range(3)]
    for parts in (one, several):
        assert b"".join(packed_message(parts)) == pack(join_packed(parts))


def _load() -> LoadRequest:
    kind, record = to_record(GridGraph(WALK, diagonal="only_if_no_obstacles"))
    spec = parse_hierarchy(Params({"cluster_size": 8}, "test"))
    return LoadRequest("g", KINDS[kind], dict(record), spec)


def _raw(count: int, options: Any) -> dict[str, Any]:
    rng = np.random.default_rng(count)
    cells = np.argwhere(WALK)[:, ::-1].astype("<i4")
    starts, goals = cells[rng.choice(len(cells), count)], cells[rng.choice(len(cells), count)]
    starts[0] = (10, 10)  # on a wall: that query's own error
    raw = {"graph": "g", "starts": starts.tobytes(), "goals": goals.tobytes(), "cells": True}
    return {**raw, "options": options}


async def _serving() -> LocalServing:
    serving = LocalServing(Limits(), threads=2)
    await serving.start()
    outcome = serving.load(_load(), None)
    await outcome if inspect.isawaitable(outcome) else None
    return serving


async def _answer(outcome: Any) -> tuple[bytes, bool]:
    """The answer's bytes, and whether it came at once (not awaitable: no thread hop)."""
    now = not inspect.isawaitable(outcome)
    answer = outcome if now else await outcome
    return (answer.joined() if isinstance(answer, Encoded) else pack(answer)), now


@pytest.mark.parametrize(
    ("count", "options", "inline"),
    [
        (1, {"hierarchical": True}, True),
        (batch_runner.PACKED_INLINE, {"hierarchical": True, "corridor": True}, True),
        (batch_runner.PACKED_INLINE + 1, {"hierarchical": True}, False),
        (3, {}, False),  # exact: its work has no bound known ahead
    ],
)
def test_a_small_hierarchical_batch_is_answered_on_the_loop_with_the_threads_bytes(
    count: int, options: dict[str, Any], inline: bool
) -> None:
    async def scenario() -> tuple[bytes, bool, bytes, bool]:
        serving = await _serving()
        try:
            here, here_now = await _answer(serving.find_packed("c", _raw(count, options)))
            serving.allow_inline_until(0.0)  # the connection's slice is spent: to the threads
            there, there_now = await _answer(serving.find_packed("c", _raw(count, options)))
            return here, here_now, there, there_now
        finally:
            await serving.close()

    here, here_now, there, there_now = asyncio.run(scenario())
    assert (here_now, there_now) == (inline, False)
    assert here == there
    answer = msgpack.unpackb(here)
    assert len(answer["status"]) == count
    assert answer["status"][0] == 255  # the start on a wall


def test_a_bad_options_map_is_the_requests_error_inline_too() -> None:
    async def scenario() -> None:
        serving = await _serving()
        try:
            with pytest.raises(BadRequestError):
                serving.find_packed("c", _raw(2, {"hierarchical": True, "heuristic": "nope"}))
        finally:
            await serving.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("options", [{}, {"hierarchical": True}])
def test_a_one_query_batch_answers_as_that_query_in_a_larger_batch(options: dict[str, Any]) -> None:
    """One query runs the single search, not the batch kernel: the same answer."""
    count = 6
    raw = _raw(count, options)

    async def scenario() -> tuple[bytes, list[bytes]]:
        serving = await _serving()
        try:
            whole, _ = await _answer(serving.find_packed("c", raw))
            ones = []
            for i in range(count):
                one = {
                    **raw,
                    "starts": raw["starts"][8 * i : 8 * i + 8],
                    "goals": raw["goals"][8 * i : 8 * i + 8],
                }
                ones.append((await _answer(serving.find_packed("c", one)))[0])
            return whole, ones
        finally:
            await serving.close()

    whole_bytes, ones = asyncio.run(scenario())
    whole = msgpack.unpackb(whole_bytes)
    offsets = np.frombuffer(whole["offsets"], "<i8")
    for i, data in enumerate(ones):
        one = msgpack.unpackb(data)
        assert one["status"] == whole["status"][i : i + 1]
        assert np.frombuffer(one["costs"], "<f8")[0] == np.frombuffer(whole["costs"], "<f8")[i]
        lo, hi = offsets[i], offsets[i + 1]
        assert one["nodes"] == whole["nodes"][8 * lo : 8 * hi]
        assert one["points"] == whole["points"][8 * lo : 8 * hi]
        assert [e[1] for e in one["errors"]] == [e[1] for e in whole["errors"] if e[0] == i]
