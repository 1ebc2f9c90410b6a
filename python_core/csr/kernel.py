"""A* over CSR adjacency (waypoint graphs, navmesh portal graphs): one kernel, compiled here once.

Quick start::

    from python_core.csr.kernel import astar_kernel
    status, best, expanded, parent, g = astar_kernel(indptr, indices, costs, coords, ...)

:func:`astar_kernel` is one plain function over numpy arrays and ints (no objects, no closures),
handed to :func:`python_core.compiled.jit` with its heuristic helper; without numba (or with
``ASTAR_BRIDGE_NO_JIT=1``) the same code runs as plain Python, and ``astar_kernel.py_func`` is that
plain source when it is compiled. Every CSR search (:func:`python_core.csr.search.find_csr_path`,
the navmesh's polygon search) calls this one compiled object.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND, SEARCH_NO_PATH
from python_core.compiled import JIT_ENABLED, jit, register_warm_up
from python_core.errors import InvalidQueryError
from python_core.heaps.indexed import quantize

__all__ = ["COMPILED", "HEURISTIC_CODES", "astar_kernel", "heuristic_code", "walk_back"]

COMPILED: bool = JIT_ENABLED
"""Whether :func:`astar_kernel` runs as machine code (numba on) or as plain Python."""

HEURISTIC_CODES: dict[str, int] = {"zero": 0, "euclidean": 1, "manhattan": 2, "chebyshev": 3, "octile": 4}
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


@jit
def _estimate(coords: F64, node: int, goal_xy: F64, code: int, scale: float) -> float:
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


@jit
def astar_kernel(  # noqa: PLR0917 - a numba-compilable kernel takes its arrays positionally
    indptr: I64,
    indices: I64,
    costs: F64,
    coords: F64,
    sources: I64,
    source_g: F64,
    exit_nodes: I64,
    exit_costs: F64,
    goal_xy: F64,
    code: int,
    scale: float,
    max_expansions: int,
) -> tuple[int, int, int, I64, F64]:
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
    # Seeded with one entry and emptied so that numba can infer the element type.
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
            return SEARCH_FOUND, goal, expanded, parent, g
        if 0 <= max_expansions <= expanded:
            return SEARCH_BUDGET, best, expanded, parent, g
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
    return SEARCH_NO_PATH, best, expanded, parent, g


def walk_back(parent: I64, end: int) -> I64:
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


@register_warm_up
def _warm_up() -> None:
    """Compile (or load from the disk cache) the kernel with the dtypes the searches pass."""
    indptr, indices = np.array([0, 1, 1], dtype=np.int64), np.array([1], dtype=np.int64)
    coords = np.zeros((2, 2))
    one, zero = np.array([0], dtype=np.int64), np.zeros(1)
    astar_kernel(indptr, indices, np.ones(1), coords, one, zero, one + 1, zero, coords[1], 1, 1.0, -1)
