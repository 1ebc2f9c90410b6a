"""Many navmesh queries in one compiled call: :func:`nav_query` in a loop, the answers packed.

    status, expanded, costs, point_counts, points, node_counts, nodes = nav_query_batch(
        mesh._static_record, scratch, starts, goals, mask, budget, partial)

Why: one query through Python (checks, a ``PathResult``, numba unboxing its arguments) costs
several times the search itself on a small mesh; a batch crosses into compiled code once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from python_core._types import F64, I64
from python_core.compiled import jit
from python_core.navmesh.kernel import nav_query

__all__ = ["nav_query_batch"]


@jit
def nav_query_batch(  # noqa: PLR0917
    st: Any, sc: Any, starts: F64, goals: F64, mask: int, budget: int, partial: bool
) -> tuple[I64, I64, F64, I64, F64, I64, I64]:
    """:func:`~python_core.navmesh.kernel.nav_query` of each row pair of ``starts`` and ``goals``
    (``(n, dim)``), in order.

    Returns:
        ``(status, expanded, costs, point_counts, points, node_counts, nodes)``: per query its
        ``nav_query`` status, expansions, cost and the number of its rows in ``points`` (the
        waypoints, one query after the other) and in ``nodes`` (its polygon corridor).
    """
    n, dim = starts.shape[0], starts.shape[1]
    status = np.empty(n, np.int64)
    expanded = np.empty(n, np.int64)
    costs = np.empty(n)
    point_counts = np.empty(n, np.int64)
    node_counts = np.empty(n, np.int64)
    paths = []
    corridors = []
    for i in range(n):
        s, e, pts, corridor, cost = nav_query(st, sc, starts[i], goals[i], mask, budget, partial)
        status[i], expanded[i], costs[i] = s, e, cost
        point_counts[i], node_counts[i] = pts.shape[0], corridor.shape[0]
        paths.append(pts)
        corridors.append(corridor)
    points = np.empty((int(point_counts.sum()), dim))
    nodes = np.empty(int(node_counts.sum()), np.int64)
    at = 0
    nat = 0
    for i in range(n):
        points[at : at + point_counts[i]] = paths[i]
        nodes[nat : nat + node_counts[i]] = corridors[i]
        at += point_counts[i]
        nat += node_counts[i]
    return status, expanded, costs, point_counts, points, node_counts, nodes
