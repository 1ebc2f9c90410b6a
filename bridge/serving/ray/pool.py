"""The replica actors as the gateway sees them: which one serves a graph, what each is believed to
hold, and a request retried once on another when its replica dies.

    pool = ReplicaPool(actors)
    value = await pool.call(pool.route("g"), [state], lambda actor, t: actor.find.remote(t["g"], raw))

Routing is by graph id: rendezvous hashing ranks the replicas for each id (the same order on every
gateway, and adding a replica moves only the ids it wins), so one graph's queries go to one replica,
which keeps it built, and the graphs spread over the replicas. A request carries the log items its
replica is believed to lack (usually none); a replica that lacks more (restarted, or it evicted the
graph) answers ``behind`` and gets them from the revision it has.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from bridge.methods.interface import Progress
from bridge.serving.ray.cluster import ray_module
from bridge.serving.ray.graphs import GraphState, Target
from bridge.wire.errors import InternalError, from_wire

__all__ = ["BEHIND_ROUNDS", "RESTART_SECONDS", "SLOW_REPLY_SECONDS", "UNAVAILABLE_PAUSE", "ReplicaPool"]

log = logging.getLogger("bridge.serving.ray")

RESTART_SECONDS = 60.0
"""How long a request's retry waits for its replica to answer at all (Ray restarting a dead one
takes a second or two; loading its first kernels longer on a busy machine)."""

UNAVAILABLE_PAUSE = 0.25
"""Seconds between asking a restarting replica (``ActorUnavailableError``) whether it is back."""

SLOW_REPLY_SECONDS = 20.0
"""After this long without a replica's reply, and again each time it passes, the gateway logs a
warning naming the replica and the call: a rare hang on CI (a request right after failed updates
never answered) left no trace to diagnose."""

BEHIND_ROUNDS = 3
"""Times a request is resent to a replica that answered ``behind`` (once is the rule: the second
send carries every item from the revision it has; more only if it evicted the graph meanwhile)."""


def _restarting(exc: BaseException) -> bool:
    """Whether ``exc`` says the replica is only unreachable for now (Ray restarting it)."""
    return isinstance(exc, ray_module().exceptions.ActorUnavailableError)


def _died(exc: BaseException) -> bool:
    """Whether ``exc`` says the replica died (not the request's own error)."""
    errors = ray_module().exceptions
    return isinstance(exc, (errors.RayActorError, errors.ObjectLostError))


class ReplicaPool:
    """Replica actor handles by index, and per ``(replica, graph id)`` the ``(generation,
    revision)`` that replica holds, as far as its answers tell."""

    def __init__(self, actors: list[Any]) -> None:
        self.actors = actors
        self.retried = 0
        self._held: dict[tuple[int, str], tuple[int, int]] = {}

    def __len__(self) -> int:
        return len(self.actors)

    def route(self, graph_id: str, shift: int = 0) -> list[int]:
        """The replicas to try for ``graph_id``'s piece ``shift`` of a request: the ``shift``-th of
        its rendezvous order, then another one (or the same one again, restarted, when alone)."""
        ranked = sorted(range(len(self.actors)), key=lambda i: _score(graph_id, i), reverse=True)
        first = ranked[shift % len(ranked)]
        second = ranked[(shift + 1) % len(ranked)]
        return [first, second]

    def base(self, index: int, graph_id: str, generation: int, revision: int) -> int:
        """The revision replica ``index`` is believed to hold of that load (0: not known)."""
        held = self._held.get((index, graph_id))
        if held is None or held[0] != generation:
            return 0
        return min(held[1], revision)

    def note(self, index: int, target: Target) -> None:
        """Replica ``index`` answered at ``target``'s revision."""
        self._held[(index, target.ref.graph_id)] = (target.ref.generation, target.revision)

    def forget_graph(self, graph_id: str) -> None:
        for key in [k for k in self._held if k[1] == graph_id]:
            del self._held[key]

    def _forget_replica(self, index: int) -> None:
        for key in [k for k in self._held if k[0] == index]:
            del self._held[key]

    async def call(
        self,
        order: list[int],
        graphs: list[GraphState],
        send: Callable[[Any, dict[str, Target]], Any],
        progress: Progress | None = None,
    ) -> Any:
        """Send ``send(actor, targets)`` (``targets``: each graph at its revision, by id) to
        ``order[0]``; when that replica dies, once more to ``order[1]``. ``send`` returns an object
        ref of a reply, or a streaming generator of progress items and a reply (writes). The
        request's own error is raised as the replica sent it."""
        for attempt, index in enumerate(order[:2]):
            try:
                return await self._on(index, graphs, send, progress)
            except Exception as exc:
                if not _died(exc):
                    raise
                self._forget_replica(index)
                if attempt == 1 or not await self._available(order[1]):
                    raise InternalError(
                        f"replica {index} died while answering, after a retry: {type(exc).__name__}",
                        {"type": type(exc).__name__},
                    ) from None
                self.retried += 1
                log.warning("replica %d died while answering; retrying on replica %d", index, order[1])
        raise AssertionError("unreachable")

    async def _available(self, index: int) -> bool:
        """Whether replica ``index`` answers within :data:`RESTART_SECONDS` (the retry's replica may
        be the one that died, restarting, or unreachable for a moment under load). While Ray says
        it is restarting (``ActorUnavailableError``, at once) it is asked again until then."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RESTART_SECONDS
        while True:
            try:
                left = max(0.0, deadline - loop.time())
                await asyncio.wait_for(_reply_of(self.actors[index].ready.remote()), left)
                return True
            except Exception as exc:  # dead for good, or not back in time
                if _restarting(exc) and loop.time() + UNAVAILABLE_PAUSE < deadline:
                    await asyncio.sleep(UNAVAILABLE_PAUSE)
                    continue
                log.warning("replica %d is not available: %s", index, type(exc).__name__)
                return False

    async def _on(
        self,
        index: int,
        graphs: list[GraphState],
        send: Callable[[Any, dict[str, Target]], Any],
        progress: Progress | None,
    ) -> Any:
        bases = {
            g.ref.graph_id: self.base(index, g.ref.graph_id, g.ref.generation, g.revision) for g in graphs
        }
        for _ in range(BEHIND_ROUNDS):
            targets = {g.ref.graph_id: g.target(bases[g.ref.graph_id]) for g in graphs}
            kind, value = await _watched(_reply(send(self.actors[index], targets), progress), index)
            if kind == "ok":
                for target in targets.values():
                    self.note(index, target)
                return value
            if kind == "error":
                raise from_wire(value)
            bases.update({g: int(have) for g, have in value.items() if g in bases})  # behind
        ids = [g.ref.graph_id for g in graphs[:8]]
        raise InternalError(f"replica {index} stayed behind the graph's log", {"graphs": ids})


async def _reply_of(ref: Any) -> Any:
    return await ref


async def _watched(reply: Awaitable[tuple[str, Any]], index: int) -> tuple[str, Any]:
    """``reply``'s value; a warning each :data:`SLOW_REPLY_SECONDS` it is still awaited."""
    task = asyncio.ensure_future(reply)
    waited = 0.0
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=SLOW_REPLY_SECONDS)
            if done:
                return task.result()
            waited += SLOW_REPLY_SECONDS
            log.warning("replica %d has not answered a request for %.0f s", index, waited)
    finally:
        task.cancel()  # no-op once done; a cancelled caller stops waiting for the replica too


async def _reply(sent: Any, progress: Progress | None) -> tuple[str, Any]:
    """The reply of a plain call (an object ref) or of a streaming write (progress, then reply)."""
    if not hasattr(sent, "__aiter__"):
        reply: tuple[str, Any] = await sent
        return reply
    items: AsyncIterator[Any] = aiter(sent)  # one iterator, read to its end below
    async for ref in items:
        item = await ref
        if item[0] == "progress":
            if progress is not None:
                progress(int(item[1]), int(item[2]))
            continue
        async for _ in items:  # the reply is the last item: read the stream to its end, so the
            pass  # replica's task has returned, not left to Ray's teardown of an abandoned stream
        return (item[0], item[1])
    raise InternalError("a replica's write ended without an answer")


def _score(graph_id: str, index: int) -> int:
    digest = hashlib.blake2b(f"{index}:{graph_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")
