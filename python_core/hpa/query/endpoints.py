"""Inserting a query's start or goal into its cluster: exact costs to the cluster's transitions.

Quick start::

    import numpy as np
    from python_core.hpa.query.endpoints import insert_endpoint
    walk, w = np.ones(16, np.uint8), np.ones(16)
    tree = insert_endpoint(walk, w, 4, 0, 0, 4, 4, 3, 1.0, 1.0, 0, 0, 1.0, np.array([3, 15]))
    assert tree.costs.tolist() == [3.0, 3 * 2**0.5]     # both straight lines: no search at all

A stop whose straight grid line from the endpoint is legal and costs no more than the lower bound
(octile distance x smallest weight) is reached optimally by that line, so only the other stops
need a Dijkstra, which ends once they are all settled. On open ground that skips the search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from python_core._types import F64, I64, U8
from python_core.compiled import jit
from python_core.hpa.graph.cluster_search import new_scratch, rect_search
from python_core.hpa.query.smoothing import line_cost, line_fill
from python_core.hpa.steps import octile

__all__ = ["EndpointTree", "insert_endpoint", "line_cells", "stop_costs"]


@jit
def line_cells(a: int, b: int, width: int) -> I64:
    """The cells of the straight grid line from ``a`` to ``b``, both included.

    Example:
        >>> line_cells(0, 8, 3).tolist()
        [0, 4, 8]
    """
    ax, ay, bx, by = a % width, a // width, b % width, b // width
    out = np.empty(max(abs(bx - ax), abs(by - ay)) + 1, dtype=np.int64)
    out[0] = a
    line_fill(out, 1, ax, ay, bx, by, width, 0)
    return out


@jit
def stop_costs(  # noqa: PLR0917 (compiled kernel: positional)
    walk: U8,
    weights: F64,
    width: int,
    diag: int,
    cw: float,
    ch: float,
    cell: int,
    reverse: int,
    h_scale: float,
    stops: I64,
    costs: F64,
) -> int:
    """Fill ``costs`` with optimal straight-line costs, ``inf`` where no line is provably optimal.

    Returns:
        How many stops are left (``inf``) for a search.

    Example:
        >>> c, walk = np.zeros(2), np.ones(4, np.uint8)
        >>> stop_costs(walk, np.ones(4), 4, 3, 1.0, 1.0, 0, 0, 1.0, np.array([2, 3]), c), c.tolist()
        (0, [2.0, 3.0])
    """
    dl = np.hypot(cw, ch)
    left = 0
    for i in range(stops.shape[0]):
        a, b = (stops[i], cell) if reverse else (cell, stops[i])
        bound = h_scale * octile(abs(b % width - a % width), abs(b // width - a // width), diag, cw, ch, dl)
        cost = line_cost(a, b, walk, weights, width, diag, cw, ch)  # inf when a step is illegal
        if cost <= bound + 1e-9 * (1.0 + bound):
            costs[i] = cost
        else:
            costs[i] = np.inf
            left += 1
    return left


@dataclass(frozen=True, slots=True)
class EndpointTree:
    """A start or goal inserted into its cluster.

    ``costs[i]`` is the exact cost between the endpoint and ``stops[i]`` (from the endpoint, or to
    it when ``reverse``); a stop settled by the Dijkstra (``closed``) has its path in ``parent``
    (local indices), any other finite one is reached by its straight line.
    """

    cell: int
    reverse: int
    x0: int
    y0: int
    lw: int
    parent: I64
    closed: U8
    costs: F64

    def path_to(self, end: int, width: int) -> I64:
        """Cells from the endpoint to ``end`` in tree order (reverse trees: reverse it to walk)."""
        cur = (end // width - self.y0) * self.lw + end % width - self.x0
        if not self.closed[cur]:
            cells: I64 = (
                line_cells(end, self.cell, width)[::-1].copy()
                if self.reverse
                else line_cells(self.cell, end, width)
            )
            return cells
        out = [cur]
        while self.parent[cur] >= 0:
            cur = int(self.parent[cur])
            out.append(cur)
        local = np.asarray(out[::-1], dtype=np.int64)
        return (local // self.lw + self.y0) * width + local % self.lw + self.x0


def insert_endpoint(  # noqa: PLR0917 (mirrors the kernels' positional arguments)
    walk: U8,
    weights: F64,
    width: int,
    x0: int,
    y0: int,
    lw: int,
    lh: int,
    diag: int,
    cw: float,
    ch: float,
    cell: int,
    reverse: int,
    h_scale: float,
    stops: I64,
) -> EndpointTree:
    """Exact costs between ``cell`` and each global cell of ``stops`` inside the rectangle.

    Straight lines first (see the module docstring), then one Dijkstra for the rest.

    Returns:
        The :class:`EndpointTree`; ``costs`` is ``inf`` where a stop cannot be reached inside.
    """
    costs = np.empty(stops.shape[0])
    left = stop_costs(walk, weights, width, diag, cw, ch, cell, reverse, h_scale, stops, costs)
    dist, parent, closed = new_scratch(lw * lh)
    if left:
        pending = stops[costs == np.inf]
        local = (pending // width - y0) * lw + pending % width - x0
        rect_search(
            walk, weights, width, x0, y0, lw, lh, diag, cw, ch, cell, -1, reverse, 1.0, dist, parent, closed,
            local,
        )  # fmt: skip
        missing = costs == np.inf
        costs[missing] = dist[(stops[missing] // width - y0) * lw + stops[missing] % width - x0]
    return EndpointTree(cell, reverse, x0, y0, lw, parent, closed, costs)
