"""A* over a graph stored as CSR adjacency (waypoint graphs, navmesh portal graphs).

Quick start::

    import numpy as np
    from python_core.csr_search import CsrGraph, find_csr_path
    graph = CsrGraph.from_edges(np.zeros((3, 2)) + [[0, 0], [1, 0], [2, 0]], [[0, 1], [1, 2]], [1.0, 1.0])
    assert list(find_csr_path(graph, 0, 2).nodes) == [0, 1, 2]

The kernel :func:`astar_kernel` is a plain function over numpy arrays and ints (no objects, no
closures) so that ``numba.njit`` can compile it unchanged later.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from python_core.errors import InvalidGraphError, InvalidQueryError
from python_core.open_list import quantize
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = [
    "HEURISTIC_CODES",
    "STATUS_BUDGET",
    "STATUS_FOUND",
    "STATUS_NO_PATH",
    "CsrGraph",
    "astar_kernel",
    "find_csr_path",
    "heuristic_code",
    "walk_back",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

HEURISTIC_CODES: dict[str, int] = {"zero": 0, "euclidean": 1, "manhattan": 2, "chebyshev": 3, "octile": 4}
STATUS_FOUND = 0
STATUS_NO_PATH = 1
STATUS_BUDGET = 2
_SQRT2_MINUS_1 = math.sqrt(2.0) - 1.0


def heuristic_code(name: str | None, default: str = "euclidean") -> int:
    """Map a heuristic name to the kernel's integer code.

    Args:
        name: ``"euclidean"``, ``"zero"``, ``"manhattan"``, ``"chebyshev"``, ``"octile"`` or None.
        default: the name used when ``name`` is None.

    Returns:
        The code :func:`astar_kernel` expects.

    Raises:
        InvalidQueryError: for an unknown name.

    Example:
        >>> heuristic_code(None), heuristic_code("zero")
        (1, 0)
    """
    key = default if name is None else name
    if key not in HEURISTIC_CODES:
        raise InvalidQueryError(f"unknown heuristic {key!r}; expected one of {sorted(HEURISTIC_CODES)}")
    return HEURISTIC_CODES[key]


def _estimate(coords: FloatArray, node: int, goal_xy: FloatArray, code: int, scale: float) -> float:
    """Heuristic distance from ``coords[node]`` to ``goal_xy`` (scaled to stay admissible)."""
    if code == 0:
        return 0.0
    total = 0.0
    big = 0.0
    small = math.inf
    for k in range(goal_xy.shape[0]):
        d = abs(coords[node, k] - goal_xy[k])
        if code == 1:
            total += d * d
        elif code == 2:
            total += d
        else:
            big = max(big, d)
            small = min(small, d)
    if code == 1:
        return scale * math.sqrt(total)
    if code == 2:
        return scale * total
    if code == 3:
        return scale * big
    return scale * (big + _SQRT2_MINUS_1 * small)  # octile (2D meaning; in 3D a lower bound still)


def astar_kernel(  # noqa: PLR0917 - a numba-compilable kernel takes its arrays positionally
    indptr: IntArray,
    indices: IntArray,
    costs: FloatArray,
    coords: FloatArray,
    sources: IntArray,
    source_g: FloatArray,
    exit_nodes: IntArray,
    exit_costs: FloatArray,
    goal_xy: FloatArray,
    code: int,
    scale: float,
    max_expansions: int,
) -> tuple[int, int, int, IntArray, FloatArray]:
    """A* from several weighted sources to a virtual goal node ``n`` (one past the last node).

    The goal is reached through ``exit_nodes``: expanding ``exit_nodes[i]`` offers the goal at
    ``g + exit_costs[i]``. A plain single-goal search passes ``exit_nodes=[goal], exit_costs=[0]``.

    Args:
        indptr, indices, costs: CSR adjacency of ``n`` nodes; edge ``j`` of node ``u`` goes to
            ``indices[indptr[u] + j]`` at cost ``costs[indptr[u] + j]`` (>= 0).
        coords: ``(n, d)`` node positions for the heuristic.
        sources, source_g: start nodes and their initial g.
        exit_nodes, exit_costs: nodes that lead to the goal and the cost of that last step.
        goal_xy: ``(d,)`` goal position for the heuristic.
        code: heuristic code (see :data:`HEURISTIC_CODES`); ``scale`` multiplies it.
        max_expansions: stop after this many expansions (< 0: no limit).

    Returns:
        ``(status, best, expanded, parent, g)``: status code, the node the path ends at (``n`` when
        found; otherwise the closed node nearest the goal by heuristic, -1 if none), the number of
        expansions, parent pointers (-1 at sources) and g values, both of length ``n + 1``.

    Example:
        >>> import numpy as np
        >>> ip, ix = np.array([0, 1, 1]), np.array([1]); c = np.array([2.0]); xy = np.zeros((2, 1))
        >>> st, best, _, parent, g = astar_kernel(ip, ix, c, xy, np.array([0]), np.zeros(1),
        ...     np.array([1]), np.zeros(1), np.zeros(1), 0, 1.0, -1)
        >>> st, best, int(parent[2]), float(g[2])
        (0, 2, 1, 2.0)
    """
    n = indptr.shape[0] - 1
    goal = n
    g = np.full(n + 1, np.inf)
    parent = np.full(n + 1, -1, dtype=np.int64)
    closed = np.zeros(n + 1, dtype=np.bool_)
    exit_cost = np.full(n, np.inf)
    for i in range(exit_nodes.shape[0]):
        exit_cost[exit_nodes[i]] = min(exit_cost[exit_nodes[i]], exit_costs[i])
    # Heap entries are (f, -g, tie, node): equal f pops the larger g first (deeper, fewer
    # re-expansions); the insertion counter `tie` makes the order total, hence deterministic.
    # f is rounded as in open_list, so ties in exact arithmetic are not split by rounding noise.
    # Seeded with one entry and emptied so that numba can infer the element type (see fast_csr).
    heap: list[tuple[float, float, int, int]] = [(0.0, 0.0, 0, 0)]
    heap.pop()
    tie = 0
    for i in range(sources.shape[0]):
        s = sources[i]
        if source_g[i] < g[s]:
            g[s] = source_g[i]
            heapq.heappush(heap, (quantize(g[s] + _estimate(coords, s, goal_xy, code, scale)), -g[s], tie, s))
            tie += 1
    expanded = 0
    best = -1
    best_h = math.inf
    while heap:
        _f, neg_g, _t, u = heapq.heappop(heap)
        if closed[u] or -neg_g > g[u]:
            continue  # lazy deletion: a stale entry for a node already improved or closed
        if u == goal:
            return STATUS_FOUND, goal, expanded, parent, g
        if 0 <= max_expansions <= expanded:
            return STATUS_BUDGET, best, expanded, parent, g
        closed[u] = True
        expanded += 1
        h_u = _estimate(coords, u, goal_xy, code, 1.0)
        if h_u < best_h or (h_u == best_h and g[u] < g[best]):
            best, best_h = u, h_u
        if exit_cost[u] < math.inf and g[u] + exit_cost[u] < g[goal]:
            g[goal] = g[u] + exit_cost[u]
            parent[goal] = u
            heapq.heappush(heap, (quantize(g[goal]), -g[goal], tie, goal))
            tie += 1
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            new_g = g[u] + costs[j]
            if closed[v] or new_g >= g[v]:
                continue
            g[v] = new_g
            parent[v] = u
            f = quantize(new_g + _estimate(coords, v, goal_xy, code, scale))
            heapq.heappush(heap, (f, -new_g, tie, v))
            tie += 1
    return STATUS_NO_PATH, best, expanded, parent, g


def walk_back(parent: IntArray, end: int) -> IntArray:
    """Follow parent pointers from ``end`` back to a source.

    Args:
        parent: parent array from :func:`astar_kernel` (-1 marks a source).
        end: the last node of the path.

    Returns:
        The nodes from the source to ``end`` (int64).

    Example:
        >>> walk_back(np.array([-1, 0, 1]), 2).tolist()
        [0, 1, 2]
    """
    out: list[int] = []
    node = end
    while node >= 0:
        out.append(int(node))
        node = int(parent[node])
    out.reverse()
    return np.asarray(out, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class CsrGraph:
    """An immutable CSR graph with node coordinates.

    Attributes:
        indptr: ``(n + 1,)`` int64 row starts.
        indices: ``(m,)`` int64 edge targets.
        costs: ``(m,)`` float64 edge costs, all finite and >= 0.
        coords: ``(n, d)`` float64 node positions (heuristic and returned points).
    """

    indptr: IntArray
    indices: IntArray
    costs: FloatArray
    coords: FloatArray

    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return int(self.indptr.shape[0] - 1)

    @classmethod
    def from_edges(
        cls, coords: npt.ArrayLike, edges: npt.ArrayLike, costs: npt.ArrayLike | None = None
    ) -> CsrGraph:
        """Build from directed edges ``(m, 2)``; costs default to Euclidean edge length.

        Args:
            coords: ``(n, d)`` node positions.
            edges: ``(m, 2)`` directed ``(from, to)`` node indices.
            costs: ``(m,)`` edge costs, or None for the distance between the endpoints.

        Returns:
            The graph, edges grouped by source in their given order.

        Raises:
            InvalidGraphError: for out-of-range indices or negative / non-finite costs.

        Example:
            >>> CsrGraph.from_edges([[0.0, 0.0], [3.0, 4.0]], [[0, 1]]).costs.tolist()
            [5.0]
        """
        xy = np.asarray(coords, dtype=np.float64)
        e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        n = xy.shape[0]
        if e.size and (e.min() < 0 or e.max() >= n):
            raise InvalidGraphError(f"edge index out of range 0..{n - 1}: {e.min()}..{e.max()}")
        if costs is None:
            c = np.linalg.norm(xy[e[:, 1]] - xy[e[:, 0]], axis=1)
        else:
            c = np.asarray(costs, dtype=np.float64).reshape(-1)
        if c.shape[0] != e.shape[0] or not np.all(np.isfinite(c)) or np.any(c < 0):
            raise InvalidGraphError("edge costs must be finite, >= 0 and one per edge")
        order = np.argsort(e[:, 0], kind="stable")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(e[:, 0], minlength=n), out=indptr[1:])
        return cls(indptr, e[order, 1].copy(), c[order].copy(), xy)


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
    # The compiled twin of astar_kernel when numba is on (fast_csr imports this module: import late).
    from python_core.fast_csr import astar_kernel as kernel  # noqa: PLC0415

    status, best, expanded, parent, g = kernel(
        graph.indptr, graph.indices, graph.costs, graph.coords,
        np.array([start], dtype=np.int64), np.zeros(1), np.array([goal], dtype=np.int64), np.zeros(1),
        graph.coords[goal], code, heuristic_scale, budget,
    )  # fmt: skip
    if status == STATUS_FOUND:
        nodes = walk_back(parent, int(parent[graph.node_count]))
        return PathResult(PathStatus.FOUND, graph.coords[nodes], nodes, float(g[-1]), expanded)
    kind = PathStatus.NO_PATH if status == STATUS_NO_PATH else PathStatus.BUDGET_EXHAUSTED
    if opts.allow_partial and best >= 0:
        # An exhausted budget stays BUDGET_EXHAUSTED, but carries the best path so far.
        kind = PathStatus.PARTIAL if kind is PathStatus.NO_PATH else kind
        nodes = walk_back(parent, best)
        return PathResult(kind, graph.coords[nodes], nodes, float(g[best]), expanded)
    dim = graph.coords.shape[1]
    return PathResult(kind, np.zeros((0, dim)), expanded=expanded)
