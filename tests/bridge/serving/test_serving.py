"""The serving layer in process: arrival order per graph, fair threads, whole loads, table refills."""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import numpy as np
import pytest

from bridge.methods.hierarchy_params import HierarchySpec
from bridge.methods.interface import LoadRequest
from bridge.methods.kinds import KINDS
from bridge.methods.params import Params
from bridge.serving.graph_lock import GraphLock
from bridge.serving.local import LocalServing
from bridge.serving.scheduler import FairScheduler
from bridge.wire.errors import GraphRejectedError, TooLargeError
from bridge.wire.protocol import Limits
from python_core.formats.records import to_record
from python_core.grid import GridGraph

T = TypeVar("T")


def _run(test: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(test())


async def _settle(outcome: Any) -> Any:
    return await outcome if inspect.isawaitable(outcome) else outcome


def _rooms(size: int = 64, seed: int = 3) -> GridGraph:
    rng = np.random.default_rng(seed)
    walkable = rng.random((size, size)) > 0.2
    walkable[0, :] = walkable[:, 0] = True  # a corridor joins the corners
    walkable[-1, :] = walkable[:, -1] = True
    return GridGraph(walkable, diagonal="only_if_no_obstacles")


def _load(grid: GridGraph, graph_id: str = "g", hierarchy: HierarchySpec | None = None) -> LoadRequest:
    kind, record = to_record(grid)
    return LoadRequest(graph_id, KINDS[kind], dict(record), hierarchy)


def _query(graph_id: str, start: Any, goal: Any, **options: Any) -> dict[str, Any]:
    return {
        "graph": graph_id,
        "start": [int(v) for v in start],
        "goal": [int(v) for v in goal],
        "options": options,
    }


# -- GraphLock ---------------------------------------------------------------------------------


def test_the_lock_grants_in_arrival_order_and_readers_side_by_side() -> None:
    async def scenario() -> list[str]:
        lock, order = GraphLock(), []
        assert lock.try_read()  # free: a read share at once
        write = lock.reserve_write()  # waits for that reader
        assert not lock.try_read()  # a writer waits: later readers queue behind it
        read_a, read_b = lock.reserve_read(), lock.reserve_read()
        write_2 = lock.reserve_write()
        for name, turn in (("w", write), ("a", read_a), ("b", read_b), ("w2", write_2)):
            turn.add_done_callback(lambda _, n=name: order.append(n))
        lock.release_read()
        await asyncio.sleep(0)
        assert order == ["w"]
        assert lock.writing
        lock.release_write()
        await asyncio.sleep(0)
        assert order == ["w", "a", "b"]
        assert lock.readers == 2
        lock.release_read()
        await asyncio.sleep(0)
        assert order == ["w", "a", "b"]  # the writer waits for the last reader
        lock.release_read()
        await asyncio.sleep(0)
        lock.release_write()
        assert lock.idle
        return order

    assert _run(scenario) == ["w", "a", "b", "w2"]


def test_a_waiter_that_gives_up_does_not_block_the_queue() -> None:
    async def scenario() -> None:
        lock = GraphLock()
        assert lock.try_read()
        gone = lock.reserve_write()
        behind = lock.reserve_read()
        lock.give_up(gone, write=True)  # its client left before its turn
        await asyncio.sleep(0)
        assert behind.done()
        assert lock.readers == 2
        lock.release_read()
        lock.release_read()
        assert lock.idle

    _run(scenario)


def test_a_waiting_task_cancelled_after_its_turn_came_gives_the_turn_back() -> None:
    async def scenario() -> None:
        lock = GraphLock()
        assert lock.try_write()
        turn = lock.reserve_read()
        task = asyncio.ensure_future(lock.wait(turn, write=False))
        await asyncio.sleep(0)
        lock.release_write()  # grants the read share ...
        task.cancel()  # ... to a task cancelled before it resumed
        with pytest.raises(asyncio.CancelledError):
            await task
        assert lock.idle

    _run(scenario)


# -- FairScheduler -----------------------------------------------------------------------------


def test_clients_take_turns_on_the_threads() -> None:
    async def scenario() -> list[str]:
        scheduler = FairScheduler(1, asyncio.get_running_loop())
        ran: list[str] = []
        gate = threading.Event()
        started = threading.Event()

        def hold() -> None:
            started.set()
            gate.wait()

        first = scheduler.submit("big", hold)  # holds the only thread
        await asyncio.to_thread(started.wait)
        big = [scheduler.submit("big", functools.partial(ran.append, f"big{i}")) for i in range(20)]
        small = scheduler.submit("small", lambda: ran.append("small"))
        gate.set()
        await asyncio.gather(first, small, *big)
        scheduler.close()
        return ran

    ran = _run(scenario)
    assert ran.index("small") <= 1  # after at most one of the big client's 20 queued jobs


def test_a_forgotten_client_s_queued_jobs_never_run_and_are_reported_done() -> None:
    async def scenario() -> tuple[list[int], int, int]:
        scheduler = FairScheduler(1, asyncio.get_running_loop())
        gate = threading.Event()
        ran: list[int] = []
        done = [0]

        def count() -> None:
            done[0] += 1

        started = threading.Event()

        def hold() -> None:
            started.set()
            gate.wait()

        running = scheduler.submit("x", hold, count)
        await asyncio.to_thread(started.wait)  # the thread has taken it: it is running, not queued
        queued = [scheduler.submit("x", functools.partial(ran.append, i), count) for i in range(10)]
        dropped = scheduler.forget("x")
        gate.set()
        await running
        await asyncio.sleep(0.01)
        assert all(f.cancelled() for f in queued)
        scheduler.close()
        return ran, dropped, done[0]

    ran, dropped, done = _run(scenario)
    assert ran == []
    assert dropped == 10
    assert done == 11


# -- LocalServing ------------------------------------------------------------------------------


def test_a_query_sent_right_after_a_load_sees_the_new_graph() -> None:
    grid = _rooms()

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        serving = LocalServing(Limits(), threads=2)
        await serving.start()
        load = serving.load(_load(grid), None)  # not awaited before the query is sent
        found = serving.find("c", _query("g", (0, 0), (63, 63)))
        answers = await _settle(load), await _settle(found)
        await serving.close()
        return answers

    loaded, found = _run(scenario)
    assert loaded == {"id": "g", "nodes": 64 * 64}
    assert found["status"] == "found"
    assert found["cost"] == pytest.approx(grid.find_path((0, 0), (63, 63)).cost)


def test_an_update_waits_for_the_queries_before_it_and_the_ones_after_see_it() -> None:
    grid = _rooms(256)
    wall = [(x, 128) for x in range(256)]

    async def scenario() -> list[str]:
        serving = LocalServing(Limits(), threads=2)
        await serving.start()
        await _settle(serving.load(_load(grid), None))
        before = [serving.find("a", _query("g", (0, 0), (255, 255))) for _ in range(8)]
        cells = np.asarray(wall, dtype="<i4").tobytes()
        fields = Params({"id": "g", "cells": cells, "walkable": bytes(len(wall))}, "graph.update")
        update = serving.update("g", fields)
        after = serving.find("b", _query("g", (0, 0), (255, 255)))
        statuses = [r["status"] for r in await asyncio.gather(*(_settle(b) for b in before))]
        assert (await _settle(update))["version"] == 2
        statuses.append((await _settle(after))["status"])
        await serving.close()
        return statuses

    assert _run(scenario) == ["found"] * 8 + ["no_path"]


def test_a_load_that_fails_while_building_leaves_the_old_graph_answering() -> None:
    old, new = _rooms(96, seed=1), _rooms(96, seed=2)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()
        # the old graph has a hierarchy too: the build kernels are typed for int64 from then on
        await _settle(serving.load(_load(old, hierarchy=HierarchySpec(cluster_size=16)), None))
        before = await _settle(serving.find("c", _query("g", (0, 0), (95, 95))))
        huge = HierarchySpec(cluster_size=16, long_entrance=2**63)  # too big for int64: the build fails
        with pytest.raises(GraphRejectedError):
            await _settle(serving.load(_load(new, hierarchy=huge), None))
        after = await _settle(serving.find("c", _query("g", (0, 0), (95, 95))))
        await serving.close()
        return before, after

    before, after = _run(scenario)
    assert before["status"] == after["status"] == "found"
    assert after["cost"] == before["cost"]


def test_a_time_boxed_update_s_table_is_refilled_while_the_graph_is_idle() -> None:
    grid = _rooms(128, seed=5)

    async def scenario() -> tuple[int, int]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()
        spec = HierarchySpec(cluster_size=16, repair_ms=0.0)
        await _settle(serving.load(_load(grid, hierarchy=spec), None))
        hpa = serving.registry.get("g").graph._hierarchy  # type: ignore[attr-defined]
        rng = np.random.default_rng(13)
        cells = np.stack((rng.integers(0, 128, 40), rng.integers(0, 128, 40)), axis=1).astype("<i4")
        flips = (~grid.walkable[cells[:, 1], cells[:, 0]]).astype(np.uint8)
        fields = Params({"id": "g", "cells": cells.tobytes(), "walkable": flips.tobytes()}, "graph.update")
        await _settle(serving.update("g", fields))
        stale = int(hpa.pending_rows)
        for _ in range(2000):
            if not hpa.pending_rows:
                break
            await asyncio.sleep(0.005)
        left = int(hpa.pending_rows)
        await serving.close()
        return stale, left

    stale, left = _run(scenario)
    assert stale > 0
    assert left == 0


def test_find_many_keeps_query_order_and_answers_each_query_for_itself() -> None:
    grid = _rooms(128, seed=9)
    rng = np.random.default_rng(2)
    ends = [(rng.integers(0, 128, 2), rng.integers(0, 128, 2)) for _ in range(200)]

    async def scenario() -> list[dict[str, Any]]:
        serving = LocalServing(Limits(), threads=2)
        await serving.start()
        await _settle(serving.load(_load(grid), None))
        items: list[Any] = [_query("g", s, g) for s, g in ends]
        items.insert(7, {"graph": "nope", "start": [0, 0], "goal": [1, 1]})
        answer = await _settle(serving.find_many("c", items))
        await serving.close()
        return list(answer["results"])

    results = _run(scenario)
    assert results[7]["status"] == "error"
    assert results[7]["error"]["code"] == "unknown_graph"
    del results[7]
    for (start, goal), result in zip(ends, results, strict=True):
        if not (grid.walkable[start[1], start[0]]):
            assert result["status"] == "error"
            continue
        expected = grid.find_path(tuple(start), tuple(goal))
        assert result["status"] == expected.status.value
        if expected.found:
            assert result["cost"] == pytest.approx(expected.cost)


def test_a_big_query_runs_off_the_loop_and_small_ones_pass_it() -> None:
    """A search past the inline budget goes to a thread; a one-step query sent after it on another
    graph is answered at once, while the big one still runs."""
    blocked = np.ones((1024, 1024), dtype=bool)
    blocked[:, 1000] = False  # the goal side is unreachable: the search floods everything

    async def scenario() -> tuple[bool, str]:
        serving = LocalServing(Limits(), threads=1)
        await serving.start()
        await _settle(serving.load(_load(GridGraph(blocked, diagonal="never"), "big"), None))
        await _settle(serving.load(_load(_rooms(16), "small"), None))
        big = serving.find("a", _query("big", (0, 0), (1023, 1023)))
        assert inspect.isawaitable(big)
        small = serving.find("b", _query("small", (0, 0), (1, 0)))
        assert isinstance(small, dict)
        assert small["status"] == "found"
        big_task = asyncio.ensure_future(_settle(big))
        await asyncio.sleep(0)
        pending_when_small_answered = not big_task.done()
        status = (await big_task)["status"]
        await serving.close()
        return pending_when_small_answered, status

    pending, status = _run(scenario)
    assert pending
    assert status == "no_path"


def test_a_query_without_a_budget_gets_the_default_and_may_ask_for_more() -> None:
    blocked = np.ones((128, 128), dtype=bool)
    blocked[:, 100] = False  # the goal is walled off: the search floods the left side

    async def scenario() -> tuple[str, str, int]:
        serving = LocalServing(Limits(default_expansions=5000, max_expansions=10**6), threads=1)
        await serving.start()
        await _settle(serving.load(_load(GridGraph(blocked, diagonal="never")), None))
        plain = await _settle(serving.find("c", _query("g", (0, 0), (127, 0))))
        more = await _settle(serving.find("c", _query("g", (0, 0), (127, 0), max_expansions=10**6)))
        await serving.close()
        return plain["status"], more["status"], plain["expanded"]

    plain, more, expanded = _run(scenario)
    assert plain == "budget_exhausted"
    assert expanded == 5000
    assert more == "no_path"


def test_a_load_past_the_memory_budget_is_refused_and_the_loaded_graphs_stay() -> None:
    async def scenario() -> dict[str, Any]:
        serving = LocalServing(Limits(max_graph_bytes=64 * 64 * 48 + 100), threads=1)
        await serving.start()
        await _settle(serving.load(_load(_rooms(64), "a"), None))
        with pytest.raises(TooLargeError):
            await _settle(serving.load(_load(_rooms(16), "b"), None))
        await _settle(serving.load(_load(_rooms(64, seed=8), "a"), None))  # replacing a counts once
        answer = await _settle(serving.find("c", _query("a", (0, 0), (63, 63))))
        await serving.close()
        return dict(answer)

    assert _run(scenario)["status"] == "found"


def test_a_batch_answers_like_single_queries_and_a_bad_pair_answers_for_itself() -> None:
    """Alike queries of a batch run in one find_many call (hierarchical ones in one compiled call);
    a wall start among them makes that call fail, and then each query answers for itself."""
    grid = _rooms(128, seed=4)
    rng = np.random.default_rng(6)
    cells = np.argwhere(grid.walkable)[:, ::-1]
    ends = [(cells[a], cells[b]) for a, b in rng.integers(0, len(cells), (60, 2))]
    wall = tuple(int(v) for v in np.argwhere(~grid.walkable)[0][::-1])

    async def scenario() -> tuple[list[Any], list[Any]]:
        serving = LocalServing(Limits(), threads=2)
        await serving.start()
        await _settle(serving.load(_load(grid, hierarchy=HierarchySpec(cluster_size=16)), None))
        items: list[Any] = [_query("g", s, g, hierarchical=True) for s, g in ends]
        items.insert(30, _query("g", wall, (0, 0), hierarchical=True))
        batch = (await _settle(serving.find_many("c", items)))["results"]
        single = [await _settle(serving.find("c", item)) if i != 30 else None for i, item in enumerate(items)]
        await serving.close()
        return list(batch), single

    batch, single = _run(scenario)
    assert batch[30]["status"] == "error"
    assert batch[30]["error"]["code"] == "blocked_endpoint"
    for i, (got, want) in enumerate(zip(batch, single, strict=True)):
        if i != 30:
            assert got["status"] == want["status"]
            assert got["cost"] == pytest.approx(want["cost"])
            assert got["points"] == want["points"]
