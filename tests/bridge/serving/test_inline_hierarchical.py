"""Issue 41: a hierarchical query runs inline on the event loop unless its graph is big and its
recent far queries say it would hold the loop too long (:data:`bridge.serving.inline.INLINE_SECONDS`);
then it runs on a search thread with the same answer, and other queries are answered meanwhile."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from bridge.methods.hierarchy_params import parse_hierarchy
from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.methods.params import Params
from bridge.serving import inline
from bridge.serving.local import LocalServing
from bridge.serving.server import Server
from bridge.wire.protocol import Limits
from python_core.formats.records import to_record
from python_core.grid import GridGraph

FAR = ((0, 0), (120, 100))
"""Ends :data:`inline.TIMED_REACH` cells apart or more: their time is learned and guessed."""
NEAR = ((3, 3), (20, 9))


def _rooms(size: int = 128) -> GridGraph:
    walkable = np.ones((size, size), dtype=bool)
    walkable[::16, :] = False
    walkable[:, ::16] = False
    walkable[8::16, :] = True
    walkable[:, 8::16] = True
    walkable[0, :] = walkable[:, 0] = True
    return GridGraph(walkable, diagonal="only_if_no_obstacles")


def _load() -> LoadRequest:
    kind, record = to_record(_rooms())
    spec = parse_hierarchy(Params({"cluster_size": 16}, "test"))
    return LoadRequest("g", KINDS[kind], dict(record), spec)


def _query(ends: tuple[tuple[int, int], tuple[int, int]]) -> dict[str, Any]:
    return {"graph": "g", "start": list(ends[0]), "goal": list(ends[1]), "options": {"hierarchical": True}}


async def _answer(outcome: Any) -> tuple[dict[str, Any], bool]:
    """The answer, and whether it came inline (not awaitable: no thread hop)."""
    if inspect.isawaitable(outcome):
        return await outcome, False
    return outcome, True


async def _serving() -> LocalServing:
    serving = LocalServing(Limits(), threads=1)
    await serving.start()
    outcome = serving.load(_load(), None)
    await outcome if inspect.isawaitable(outcome) else None
    return serving


def test_far_hierarchical_queries_stay_inline_while_their_guess_fits() -> None:
    async def scenario() -> list[bool]:
        serving = await _serving()
        try:
            return [(await _answer(serving.find("c", _query(FAR))))[1] for _ in range(12)]
        finally:
            await serving.close()

    assert asyncio.run(scenario()) == [True] * 12  # a 128 x 128 grid's queries take microseconds
    assert inline.INLINE_SECONDS >= 0.001


def test_a_hierarchical_query_guessed_too_long_runs_on_a_thread_and_others_are_answered_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no time allowed on the loop, the first far query (nothing learned yet) runs inline,
    the next ones go straight to a thread with the same answer; a near one still runs inline, and
    is answered while a far one is on the thread."""
    monkeypatch.setattr(inline, "INLINE_SECONDS", 0.0)
    monkeypatch.setattr(inline, "TIMED_CELLS", 0)  # the test's grid is small

    async def scenario() -> dict[str, Any]:
        serving = await _serving()
        try:
            first, first_inline = await _answer(serving.find("c", _query(FAR)))
            pending = serving.find("c", _query(FAR))  # guessed too long: on the search thread
            near, near_inline = await _answer(serving.find("c", _query(NEAR)))
            second, second_inline = await _answer(pending)
            return {
                "first": (first, first_inline),
                "second": (second, second_inline),
                "near": (near, near_inline),
                "straight": serving.inline.straight,
                "ran_out": serving.inline.ran_out,
            }
        finally:
            await serving.close()

    seen = asyncio.run(scenario())
    first, first_inline = seen["first"]
    second, second_inline = seen["second"]
    near, near_inline = seen["near"]
    assert (first["status"], first_inline) == ("found", True)
    assert (second, second_inline) == (first, False)  # the same path, searched on the thread
    assert (near["status"], near_inline) == ("found", True)  # under TIMED_REACH: always inline
    assert (seen["straight"], seen["ran_out"]) == (1, 0)


def test_a_query_guessed_too_long_stays_inline_when_the_server_has_nothing_else_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``alone`` (one connection, nothing pending: :meth:`LocalServing.allow_inline_until`) bounds a
    hierarchical query by :data:`inline.ALONE_SECONDS`: far queries the usual bound sends to a
    thread run inline, with the same answer; the next request not alone goes to the thread again."""
    monkeypatch.setattr(inline, "INLINE_SECONDS", 0.0)
    monkeypatch.setattr(inline, "TIMED_CELLS", 0)

    async def scenario() -> tuple[list[tuple[dict[str, Any], bool]], tuple[dict[str, Any], bool], int]:
        serving = await _serving()
        try:
            await _answer(serving.find("c", _query(FAR)))  # learned: any far query is too long now
            alone = []
            for _ in range(3):
                serving.allow_inline_until(float("inf"), alone=True)
                alone.append(await _answer(serving.find("c", _query(FAR))))
            serving.allow_inline_until(float("inf"))
            crowded = await _answer(serving.find("c", _query(FAR)))
            return alone, crowded, serving.inline.straight
        finally:
            await serving.close()

    alone, crowded, straight = asyncio.run(scenario())
    assert [inline_ for _, inline_ in alone] == [True] * 3
    assert crowded == (alone[0][0], False)  # on the thread: the same path
    assert straight == 1
    assert inline.ALONE_SECONDS > inline.INLINE_SECONDS


def test_alone_a_hierarchical_query_may_expand_more_inline_before_it_is_sent_to_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without cluster trees or a table a far query runs the abstract search: past the usual
    expansion budget it stops and starts again on a thread (``ran_out``); alone, the larger
    :data:`inline.ALONE_EXPANSIONS` keeps it inline, with the same path."""
    monkeypatch.setattr(inline, "INLINE_EXPANSIONS", 1)

    async def scenario() -> tuple[tuple[dict[str, Any], bool], tuple[dict[str, Any], bool], list[int]]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()
        kind, record = to_record(_rooms())
        spec = parse_hierarchy(Params({"cluster_size": 16, "tree_mb": 0, "table_mb": 0}, "test"))
        outcome = serving.load(LoadRequest("g", KINDS[kind], dict(record), spec), None)
        await outcome if inspect.isawaitable(outcome) else None
        try:
            serving.allow_inline_until(float("inf"))
            crowded = await _answer(serving.find("c", _query(FAR)))
            ran_out = serving.inline.ran_out
            serving.allow_inline_until(float("inf"), alone=True)
            alone = await _answer(serving.find("c", _query(FAR)))
            return crowded, alone, [ran_out, serving.inline.ran_out]
        finally:
            await serving.close()

    (crowded, crowded_inline), (alone, alone_inline), ran_out = asyncio.run(scenario())
    assert crowded["status"] == "found"
    assert crowded["expanded"] > 1  # the abstract search ran: past the usual budget of 1
    assert (crowded_inline, alone_inline) == (False, True)
    assert alone == crowded
    assert ran_out == [1, 1]  # the crowded attempt ran out; the lone one did not
    assert inline.ALONE_EXPANSIONS > 1


def test_through_the_socket_a_lone_client_keeps_its_long_queries_inline_until_another_connects(
    server_thread: tuple[Server, asyncio.AbstractEventLoop, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real server and clients: while one client is connected, its far hierarchical queries
    (guessed too long for the usual bound) run inline; once a second client is connected, the
    same query goes straight to the search thread (``straight`` counts it), with the same path."""
    monkeypatch.setattr(inline, "INLINE_SECONDS", 0.0)
    monkeypatch.setattr(inline, "TIMED_CELLS", 0)
    server, _, announced = server_thread
    host, port, token = str(announced["host"]), int(str(announced["port"])), str(announced["token"])
    guess = server.serving.inline  # type: ignore[attr-defined]  # the local serving layer's
    with Client.connect(host, port, timeout=30) as first:
        first.hello(token)
        rooms = _rooms().walkable
        first.load_grid("g", rooms, diagonal="only_if_no_obstacles", hierarchy={"cluster_size": 16})
        learned = first.find("g", *FAR, hierarchical=True)  # nothing learned yet: inline, timed
        alone = [first.find("g", *FAR, hierarchical=True) for _ in range(3)]
        straight_alone = guess.straight
        with Client.connect(host, port, timeout=30) as second:
            second.hello(token)
            crowded = first.find("g", *FAR, hierarchical=True)
            straight_crowded = guess.straight
    assert learned["status"] == "found"
    assert alone == [learned] * 3
    assert straight_alone == 0
    assert crowded == learned
    assert straight_crowded == 1
