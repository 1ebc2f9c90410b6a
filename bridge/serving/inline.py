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
"""

from __future__ import annotations

from typing import Any

from bridge.methods.queries import Query, run_query
from python_core.navigation.grid import GridNavigator

__all__ = ["INLINE_EXPANSIONS", "RATIOS_KEPT", "InlineGuess"]

INLINE_EXPANSIONS = 4096
"""Expansions (JPS: jump points) a query may take on the event loop before it is handed to a
search thread (run again there with its own budget). A few hundred microseconds at most with A*
(4,096 jump points took 2.8 ms on Aurora), so no client waits long for another's query, while a
game's typical path never pays the thread hop."""
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
        self.straight = 0
        """Queries sent straight to a thread (predicted not to fit)."""
        self.ran_out = 0
        """Inline attempts that ran out of their budget (searched again on a thread)."""

    def run(self, graph: Any, query: Query) -> dict[str, Any] | None:
        """The query's answer within its inline budget (its own when that is smaller: then it
        always runs here), or None when it ran out or is guessed to (it then runs on a search
        thread from nothing). What kind of query it is, its reach and its graph's guess are
        looked up once (a one-step path's whole search takes a few microseconds)."""
        own = query.options.max_expansions
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

    def learned(self, graph: Any, query: Query, answer: dict[str, Any]) -> dict[str, Any]:
        """``answer`` (of a query run on a thread), its expansions counted in its graph's guess if
        it is an exact grid query."""
        if _exact_grid(graph, query):
            self._count(query.graph_id, self._recent.get(query.graph_id), answer, _reach(graph, query))
        return answer

    def _count(self, graph_id: str, recent: _Recent | None, answer: dict[str, Any], reach: float) -> None:
        expanded = answer.get("expanded")
        if type(expanded) is not int:
            return
        if recent is None:
            recent = self._recent[graph_id] = _Recent()
        ratios = recent.ratios
        ratios.append(expanded / max(1.0, reach))
        if len(ratios) > RATIOS_KEPT:
            del ratios[0]
        recent.seen += 1
        if recent.seen % _REFRESH == 0 or len(ratios) < _REFRESH:
            recent.low = sorted(ratios)[len(ratios) // 4]

    def forget(self, graph_id: str) -> None:
        """Drop a graph's guess (its id has no graph any more)."""
        self._recent.pop(graph_id, None)


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
