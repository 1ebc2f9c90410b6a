"""Batches split across the replicas: ``path.find_many`` by ranges of its queries, ``path.find_packed``
by ranges of about equal work; the pieces run at once, each retried once on another replica when
its own dies, and are joined in order.

    answer = await find_many(pool, limits, graphs, items)      # {"results": [...]} or Encoded
    answer = await find_packed(pool, limits, state, batch)      # Encoded: the parts' arrays

A ``path.find_packed`` batch crosses the network once per replica (``ray.put``: every piece names
the same object, its arrays read in place); a ``path.find_many`` piece carries its own queries only.
Each piece's answer comes back as plain lists and arrays.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

from bridge.serving.packed import PackedBatch, packed_bytes, packed_message
from bridge.serving.ray.cluster import ray_module
from bridge.serving.ray.graphs import GraphState
from bridge.serving.ray.pool import ReplicaPool
from bridge.wire.answers import PACK_OFF_LOOP_BYTES, AnswerBudget, Encoded
from bridge.wire.protocol import Limits
from bridge.wire.stream import pack

__all__ = ["PIECE_QUERIES", "find_many", "find_packed", "pieces"]

PIECE_QUERIES = 1024
"""Queries per piece of a large batch (at least two pieces per replica): a piece whose replica dies
is answered again elsewhere, so pieces are kept small enough to redo, large enough that a call's
~1 ms of Ray is a small share."""


def pieces(count: int, replicas: int) -> int:
    """How many pieces a batch of ``count`` queries is cut into."""
    if count <= 0:
        return 0
    wanted = max(2 * replicas, math.ceil(count / PIECE_QUERIES))
    return min(count, -(-wanted // replicas) * replicas)


async def _put(value: Any) -> Any:
    """``ray.put(value)`` off the loop (a large batch is copied into the object store)."""
    return await asyncio.get_running_loop().run_in_executor(None, ray_module().put, value)


async def find_many(
    pool: ReplicaPool, limits: Limits, graphs: list[GraphState], items: list[Any]
) -> dict[str, Any] | Encoded:
    """The answers of ``items`` (each its own result or error), the queries on ``graphs`` (those
    of the named graphs that are loaded) spread over the replicas."""
    if not items:
        return {"results": []}
    count = pieces(len(items), len(pool))
    bounds = [(len(items) * k // count, len(items) * (k + 1) // count) for k in range(count)]
    home = graphs[0].ref.graph_id if graphs else ""

    async def piece(k: int, lo: int, hi: int) -> tuple[list[dict[str, Any]], int]:
        def send(actor: Any, targets: dict[str, Any]) -> Any:  # only its own queries cross
            return actor.find_many.remote(list(targets.values()), items[lo:hi], lo, hi)

        answer: tuple[list[dict[str, Any]], int] = await pool.call(pool.route(home, k), graphs, send)
        return answer

    parts = await _gathered([piece(k, lo, hi) for k, (lo, hi) in enumerate(bounds)])
    total = sum(nbytes for _, nbytes in parts)
    _check(limits, total, "path.find_many")
    results = [result for answers, _ in parts for result in answers]
    return await _answer({"results": results}, total, lambda: pack({"results": results}))


async def find_packed(
    pool: ReplicaPool, limits: Limits, state: GraphState, batch: PackedBatch
) -> dict[str, Any] | Encoded:
    """A ``path.find_packed`` on ``state``'s graph: checked and cut by its home replica (the
    request's errors before any query runs), the pieces spread over every replica."""
    ref = await _put(batch)
    count = pieces(len(batch), len(pool))
    graph_id = state.ref.graph_id

    def split(actor: Any, targets: dict[str, Any]) -> Any:
        return actor.packed_pieces.remote(targets[graph_id], ref, max(1, count))

    pieces_at: list[tuple[int, int]] = [
        (lo, hi) for lo, hi in await pool.call(pool.route(graph_id), [state], split)
    ]

    async def piece(k: int, lo: int, hi: int) -> dict[str, Any]:
        def send(actor: Any, targets: dict[str, Any]) -> Any:
            return actor.find_packed.remote(targets[graph_id], ref, lo, hi)

        part: dict[str, Any] = await pool.call(pool.route(graph_id, k), [state], send)
        return part

    parts = await _gathered([piece(k, lo, hi) for k, (lo, hi) in enumerate(pieces_at)])
    total = sum(packed_bytes(p) for p in parts)
    _check(limits, total, "path.find_packed")
    return Encoded(packed_message(parts))  # the parts' arrays, written as they are (as the local sidecar's)


def _check(limits: Limits, total: int, where: str) -> None:
    if total > limits.max_answer_bytes:
        AnswerBudget(limits.max_answer_bytes, where).add(total)  # raises too_large


async def _answer(small: dict[str, Any], total: int, encode: Callable[[], bytes]) -> dict[str, Any] | Encoded:
    """The answer as a map, or encoded on a thread when large (as the local sidecar does)."""
    if total <= PACK_OFF_LOOP_BYTES:
        return small
    data = await asyncio.get_running_loop().run_in_executor(None, encode)
    return Encoded(data)


async def _gathered(jobs: list[Any]) -> list[Any]:
    """The jobs' values in order; the first failure raised once all have ended (none left running
    against a graph whose read share the caller then gives back)."""
    done = await asyncio.gather(*jobs, return_exceptions=True)
    for value in done:
        if isinstance(value, BaseException):
            raise value
    return list(done)
