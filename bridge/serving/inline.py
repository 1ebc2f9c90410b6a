"""Which single queries run inline on the event loop, and with what budget.

    guess = InlineGuess()
    answer = guess.run(graph, query)         # on the loop; None: run it on a search thread
    answer = guess.learned(graph, query, run_query(graph, query))   # there, and counted

An inline attempt that runs out of its budget is thrown away and the query starts again from
nothing on a search thread: its work is done twice, plus the hop. So, for an exact grid query:

- Each graph keeps the expansions per cell of reach (the endpoints' Chebyshev distance) of its
  last :data:`RATIOS_KEPT` exact queries; a query whose reach times their lower quartile exceeds
  the budget goes straight to a thread. The quartile, not the median: a query sent to a thread
  that would have fitted pays the hop, which on a loaded machine costs as much as the attempt
  (with the median, random512-10-0's one-per-request mean rose from about 2.0 to 2.6 ms).

A hierarchical query has no expansion budget that bounds its work (a table or the cluster trees
answer with no abstract expansion, and refining a long path across a huge map takes
milliseconds), so its guess is in time: each graph keeps the seconds per cell of reach of its
last hierarchical queries that reached :data:`TIMED_REACH` cells or more (inline or on a thread),
and one whose reach times their lower quartile exceeds :data:`INLINE_SECONDS` goes to a thread.
Shorter ones, and every one on a grid of :data:`TIMED_CELLS` cells or fewer, run inline with no
guess to keep (its bookkeeping cost 1-2 us a query: on the 512 x 512 benchmark maps a whole
hierarchical query takes 30-250 us). When the request is all the server has to do (``alone``:
one connection, nothing pending on it, nothing else in its read: a game's own sidecar between
frames) the bound is :data:`ALONE_SECONDS` instead: no other client waits, and the hop there and
back is saved.
"""

from __future__ import annotations

import time
from typing import Any

from bridge.methods.queries import Query, run_query
from python_core.navigation.grid import GridNavigator

__all__ = [
    "ALONE_EXPANSIONS",
    "ALONE_SECONDS",
    "INLINE_EXPANSIONS",
    "INLINE_SECONDS",
    "RATIOS_KEPT",
    "TIMED_CELLS",
    "TIMED_REACH",
    "InlineGuess",
    "run_timed",
]

INLINE_EXPANSIONS = 4096
"""Expansions (JPS: jump points) a query may take on the event loop before it is handed to a
search thread (run again there with its own budget). A few hundred microseconds at most with A*
(4,096 jump points took 2.8 ms on Aurora), so no client waits long for another's query, while a
game's typical path never pays the thread hop."""
INLINE_SECONDS = 0.002
"""Seconds a hierarchical query may be guessed to take on the event loop; one guessed longer runs on
a search thread (about what the exact queries' inline budget allows at most)."""
ALONE_SECONDS = 0.008
""":data:`INLINE_SECONDS` for a request that is all its server has to do: a hierarchical query guessed
to take up to half a 60 fps frame runs inline. The thread hop it saves cost a long query on a
4096 x 4096 map about 0.3 ms in the sidecar (to the thread 0.10, back to the loop 0.12, the
answer's write after it; one client, one request at a time, 55 of 90 queries sent to a thread)."""
ALONE_EXPANSIONS = round(INLINE_EXPANSIONS * ALONE_SECONDS / INLINE_SECONDS)
""":data:`INLINE_EXPANSIONS` of a hierarchical query alone, in the same ratio as
:data:`ALONE_SECONDS` to :data:`INLINE_SECONDS`: with the usual budget a fifth of a 4096 x 4096
map's far queries (their abstract search past 4,096 nodes) ran inline for some 3 ms, stopped,
and started again on a thread."""
TIMED_REACH = 64
"""Cells of reach from which a hierarchical query's time is learned and guessed: a shorter one's
time is mostly the request's own fixed cost, which says nothing of a long one's."""
TIMED_CELLS = 1 << 20
"""Cells a grid has at most (1024 x 1024) for its hierarchical queries to run inline with no guess
(the 512 x 512 benchmark maps' take 30-250 us; a 4096 x 4096 map's took milliseconds)."""
RATIOS_KEPT = 32
"""Recent exact queries whose expansions per cell of reach a graph's guess is made of."""
_REFRESH = 8
"""Learned queries between two quartiles (not sorted on every query's turn)."""


class _Recent:
    """One graph's recent expansions per cell of reach, and their lower quartile."""

    __slots__ = ("low", "ratios", "seen")

    def __init__(self) -> None:
        self.ratios: list[float] = []
        self.low = 0.0
        self.seen = 0


class InlineGuess:
    """Per graph, the expansions per cell of reach of recent exact grid queries, and from them
    whether a new one will fit inline. Used on the event loop only."""

    def __init__(self) -> None:
        self._recent: dict[str, _Recent] = {}
        self._timed: dict[str, _Recent] = {}
        """Per graph, the seconds per cell of reach of recent far hierarchical queries."""
        self.straight = 0
        """Queries sent straight to a thread (predicted not to fit)."""
        self.ran_out = 0
        """Inline attempts that ran out of their budget (searched again on a thread)."""

    def run(self, graph: Any, query: Query, alone: bool = False) -> dict[str, Any] | None:
        """The query's answer within its inline budget (its own when that is smaller: then it
        always runs here), or None when it ran out or is guessed to (it then runs on a search
        thread from nothing). What kind of query it is, its reach and its graph's guess are
        looked up once (a one-step path's whole search takes a few microseconds). ``alone``: the
        server has nothing else to do (a hierarchical query's bounds are then :data:`ALONE_SECONDS`
        and :data:`ALONE_EXPANSIONS`)."""
        own = query.options.max_expansions
        if query.hierarchical:
            if alone:
                return self._hierarchical(graph, query, own, ALONE_SECONDS, ALONE_EXPANSIONS)
            return self._hierarchical(graph, query, own, INLINE_SECONDS, INLINE_EXPANSIONS)
        fits = own is not None and own <= INLINE_EXPANSIONS
        if not _exact_grid(graph, query):
            if fits:
                return run_query(graph, query)
            answer = run_query(graph, query, INLINE_EXPANSIONS)
            if answer["status"] == "budget_exhausted":
                self.ran_out += 1
                return None
            return answer
        reach = _reach(graph, query)
        recent = self._recent.get(query.graph_id)
        if fits:
            answer = run_query(graph, query)
        elif recent is not None and recent.low * reach > INLINE_EXPANSIONS:
            self.straight += 1  # guessed too long for the loop: no attempt to throw away
            return None
        else:
            answer = run_query(graph, query, INLINE_EXPANSIONS)
            if answer["status"] == "budget_exhausted":
                self.ran_out += 1
                return None
        self._count(query.graph_id, recent, answer, reach)
        return answer

    def _hierarchical(
        self, graph: Any, query: Query, own: int | None, seconds: float, expansions: int
    ) -> dict[str, Any] | None:
        """:meth:`run` of a hierarchical query: on a thread when guessed longer than ``seconds`` (see
        the module's notes), else here, within ``expansions`` abstract expansions (or its ``own``
        budget when that is smaller), timed on a graph of more than :data:`TIMED_CELLS` cells."""
        fits = own is not None and own <= expansions
        reach = _reach(graph, query) if graph.node_count > TIMED_CELLS else 0.0
        timed = reach >= TIMED_REACH
        recent = self._timed.get(query.graph_id) if timed else None
        if recent is not None and recent.low * reach > seconds:
            self.straight += 1
            return None
        began = time.perf_counter() if timed else 0.0
        answer = run_query(graph, query) if fits else run_query(graph, query, expansions)
        if timed:
            self._add(self._timed, query.graph_id, recent, (time.perf_counter() - began) / reach)
        if not fits and answer["status"] == "budget_exhausted":
            self.ran_out += 1
            return None
        return answer

    def learned(
        self, graph: Any, query: Query, answer: dict[str, Any], seconds: float = 0.0
    ) -> dict[str, Any]:
        """``answer`` (of a query run on a thread in ``seconds``), counted in its graph's guess: its
        expansions if it is an exact grid query, its time if it is a far hierarchical one on a
        big graph."""
        if query.hierarchical:
            reach = _reach(graph, query)
            if graph.node_count > TIMED_CELLS and reach >= TIMED_REACH:
                self._add(self._timed, query.graph_id, self._timed.get(query.graph_id), seconds / reach)
        elif _exact_grid(graph, query):
            self._count(query.graph_id, self._recent.get(query.graph_id), answer, _reach(graph, query))
        return answer

    def _count(self, graph_id: str, recent: _Recent | None, answer: dict[str, Any], reach: float) -> None:
        expanded = answer.get("expanded")
        if type(expanded) is int:
            self._add(self._recent, graph_id, recent, expanded / max(1.0, reach))

    @staticmethod
    def _add(guesses: dict[str, _Recent], graph_id: str, recent: _Recent | None, ratio: float) -> None:
        """One more recent ratio of ``graph_id`` in ``guesses``; its lower quartile now and then."""
        if recent is None:
            recent = guesses[graph_id] = _Recent()
        ratios = recent.ratios
        ratios.append(ratio)
        if len(ratios) > RATIOS_KEPT:
            del ratios[0]
        recent.seen += 1
        if recent.seen % _REFRESH == 0 or len(ratios) < _REFRESH:
            recent.low = sorted(ratios)[len(ratios) // 4]

    def forget(self, graph_id: str) -> None:
        """Drop a graph's guess (its id has no graph any more)."""
        self._recent.pop(graph_id, None)
        self._timed.pop(graph_id, None)


def run_timed(graph: Any, query: Query) -> tuple[dict[str, Any], float]:
    """:func:`run_query`'s answer and the seconds it took (on a search thread: learned on the loop)."""
    began = time.perf_counter()
    answer = run_query(graph, query)
    return answer, time.perf_counter() - began


def _exact_grid(graph: Any, query: Query) -> bool:
    return type(graph) is GridNavigator and not (query.hierarchical or query.reachable or query.corridor)


def _reach(graph: GridNavigator, query: Query) -> float:
    """The endpoints' Chebyshev distance in cells (positions scaled by the cell size; a bad
    endpoint gives 0: the search reports it)."""
    start, goal = query.start, query.goal
    try:
        dx, dy = abs(start[0] - goal[0]), abs(start[1] - goal[1])  # type: ignore[index]
        if not query.cells and not graph.endpoints.cells:
            cw, ch = graph.grid.cell_size
            dx, dy = dx / cw, dy / ch
        return float(max(dx, dy))
    except (TypeError, IndexError, ValueError):
        return 0.0
