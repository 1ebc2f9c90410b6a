"""A* between two nodes of a :class:`~python_core.csr.graph.CsrGraph`, packaged as a PathResult.

Quick start::

    import numpy as np
    from python_core.csr.graph import CsrGraph
    from python_core.csr.search import find_csr_path
    graph = CsrGraph.from_edges(np.zeros((3, 2)) + [[0, 0], [1, 0], [2, 0]], [[0, 1], [1, 2]], [1.0, 1.0])
    assert list(find_csr_path(graph, 0, 2).nodes) == [0, 1, 2]

The search itself is :func:`python_core.csr.kernel.astar_kernel` (compiled when numba is on).
"""

from __future__ import annotations

import numpy as np

from python_core._types import SEARCH_FOUND, SEARCH_NO_PATH
from python_core.csr.graph import CsrGraph
from python_core.csr.kernel import astar_kernel, heuristic_code, walk_back
from python_core.errors import InvalidQueryError
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["find_csr_path"]


def find_csr_path(
    graph: CsrGraph,
    start: int,
    goal: int,
    *,
    options: QueryOptions | None = None,
    heuristic_scale: float = 1.0,
) -> PathResult:
    """A* from node ``start`` to node ``goal`` of a :class:`CsrGraph`.

    Args:
        graph: the graph.
        start, goal: node indices.
        options: heuristic (default Euclidean), allow_partial, max_expansions.
        heuristic_scale: multiplies the heuristic; keep it <= the cheapest cost per unit distance so
            the heuristic stays admissible (0 turns A* into Dijkstra).

    Returns:
        A :class:`PathResult`; ``nodes`` are node indices, ``points`` their coordinates.

    Raises:
        InvalidQueryError: for an unknown heuristic or a negative budget.

    Example:
        >>> g = CsrGraph.from_edges([[0.0, 0.0], [1.0, 0.0]], [[0, 1]])
        >>> find_csr_path(g, 1, 0).status.value
        'no_path'
    """
    opts = options or QueryOptions()
    code = heuristic_code(opts.heuristic)
    budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
    if opts.max_expansions is not None and budget < 0:
        raise InvalidQueryError(f"max_expansions must be >= 0, got {opts.max_expansions}")
    status, best, expanded, parent, g = astar_kernel(
        graph.indptr, graph.indices, graph.costs, graph.coords,
        np.array([start], dtype=np.int64), np.zeros(1), np.array([goal], dtype=np.int64), np.zeros(1),
        graph.coords[goal], code, heuristic_scale, budget,
    )  # fmt: skip
    if status == SEARCH_FOUND:
        nodes = walk_back(parent, int(parent[graph.node_count]))
        return PathResult(PathStatus.FOUND, graph.coords[nodes], nodes, float(g[-1]), expanded)
    kind = PathStatus.NO_PATH if status == SEARCH_NO_PATH else PathStatus.BUDGET_EXHAUSTED
    if opts.allow_partial and best >= 0:
        # An exhausted budget stays BUDGET_EXHAUSTED, but carries the best path so far.
        kind = PathStatus.PARTIAL if kind is PathStatus.NO_PATH else kind
        nodes = walk_back(parent, best)
        return PathResult(kind, graph.coords[nodes], nodes, float(g[best]), expanded)
    dim = graph.coords.shape[1]
    return PathResult(kind, np.zeros((0, dim)), expanded=expanded)
