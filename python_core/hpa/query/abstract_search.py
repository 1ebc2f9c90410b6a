"""A* over the abstract graph, with the start and goal inserted as virtual nodes.

Quick start (the arrays come from :class:`python_core.hpa.graph.abstract_graph.AbstractGraph`)::

    outcome, expanded = abstract_astar(graph arrays..., start_nodes, start_costs, goal_cluster,
                                       goal_costs, direct_cost, goal_cell, budget, scratch..., qid)

The virtual start is never stored: its edges seed the open list (``parent = -1``). The virtual goal
is node ``N`` (one past the last transition); the transitions of the goal's cluster get an edge to
it priced by a reverse Dijkstra from the goal, and a path that stays inside one cluster enters it
directly (``parent[N] = -2``). Scratch arrays are reused across queries: an entry is valid only
where its stamp is the query's, so a query costs what it touches, not ``O(N)``.
"""

from __future__ import annotations

import numpy as np

from python_core._types import F32, F64, I32, I64
from python_core.compiled import jit
from python_core.grid.search.heuristics import HEURISTIC_CODES, grid_estimate
from python_core.heaps.indexed import heap_decrease, heap_pop, heap_push

__all__ = [
    "ABSTRACT_BUDGET",
    "ABSTRACT_FOUND",
    "ABSTRACT_NO_PATH",
    "BIG_MAP_CELLS",
    "LANDMARK_SEARCH_WEIGHT",
    "LANDMARK_WEIGHT",
    "QID_LIMIT",
    "abstract_alt",
    "abstract_astar",
    "estimate",
    "landmark_bound",
    "landmark_search_weight",
    "node_chain",
    "search_defaults",
    "split_cell",
]

ABSTRACT_FOUND = 0
ABSTRACT_NO_PATH = 1
ABSTRACT_BUDGET = 2

QID_LIMIT = (1 << 30) - 1
"""Query numbers stay below this, so that ``2 qid + 1`` fits the int32 stamps; a caller that
reaches it zeroes its stamps and starts again at 1."""


_ZERO = HEURISTIC_CODES["zero"]

MID_MAP_CELLS = 1024 * 1024
"""From this many cells on, :func:`search_defaults` trades some cost for fewer expansions."""

BIG_MAP_CELLS = 2048 * 2048
"""From this many cells on, :func:`search_defaults` trades a little more cost for far fewer."""

LANDMARK_WEIGHT = 1.05
"""The most the landmark bound is weighted (by the abstract weight where that is smaller). The bound
is near the true cost already: weighted like the grid estimate (1.1), it made the search greedy and
the paths dearer; unweighted, it left some queries a band where it exceeds the weighted grid
estimate by a hair, which the search expanded whole (a 4096 x 4096 map with 20% random walls, 60
queries in process: up to 10,178 transitions, the 90th percentile query 4.1 ms, mean cost over the
optimum 1.031). Weighted 1.05: up to 7,237, 2.2 ms, 1.034; with :data:`LANDMARK_SEARCH_WEIGHT`
as well: up to 1,223, 1.8 ms, 1.036."""

LANDMARK_SEARCH_WEIGHT = 1.13
"""The default abstract weight of a search that landmarks guide (grids of :data:`BIG_MAP_CELLS` and
more, without cluster trees): where scattered walls forbid diagonals the octile estimate falls up
to 13% short, and 1.1 still left diagonal queries a band to expand (see :data:`LANDMARK_WEIGHT`).
A search without landmarks keeps 1.1: on 4096 x 4096 maps with cluster trees 1.13 was no faster
and its paths up to 0.6% dearer (bench/hpa_speed.py, rooms4096 1.0231 against 1.0167)."""


def search_defaults(cells: int) -> tuple[float, float]:
    """The default ``(abstract_weight, line_bias)`` of a hierarchy over a grid of ``cells`` cells.

    Below :data:`MID_MAP_CELLS`: ``(1.02, 0.05)``. From :data:`BIG_MAP_CELLS` on ``(1.1, 0.2)``:
    a path across such a map crosses hundreds of clusters, and the octile estimate (some 5-13%
    under the true cost where scattered walls forbid diagonals) leaves a band of near-equal
    transitions that a near-exact search expands whole. On a 4096 x 4096 map with 20% of its
    cells blocked that was 15,700 expansions a query (three quarters of its time); these weights
    take about 400, for a mean cost over the optimum of 1.029 instead of 1.021 (the bound is
    their sum, 1.3). In between ``(1.05, 0.2)``: on 1024 x 1024 maps (40 queries, in process)
    the median query took 356 us instead of 1,075 with 20% random walls, 155 instead of 229 on
    open ground, 104 instead of 123 in rooms, for a mean cost over the optimum of 1.0105,
    1.0120, 1.0083 instead of 1.0066, 1.0084, 1.0073 ((1.1, 0.2) took 199, 125, 85 us for
    1.0190, 1.0187, 1.0122). A search with landmarks weighs more (:func:`landmark_search_weight`).

    Example:
        >>> search_defaults(512 * 512), search_defaults(1024 * 1024), search_defaults(4096 * 4096)
        ((1.02, 0.05), (1.05, 0.2), (1.1, 0.2))
    """
    if cells >= BIG_MAP_CELLS:
        return 1.1, 0.2
    return (1.05, 0.2) if cells >= MID_MAP_CELLS else (1.02, 0.05)


def landmark_search_weight(abstract_weight: float | None, cells: int) -> float:
    """The abstract weight of a search that landmarks guide, over a grid of ``cells`` cells: the
    one given, else :data:`LANDMARK_SEARCH_WEIGHT` on big maps and :func:`search_defaults`'s below.

    Example:
        >>> landmark_search_weight(None, 4096 * 4096), landmark_search_weight(1.0, 4096 * 4096)
        (1.13, 1.0)
    """
    if abstract_weight is not None:
        return abstract_weight
    return LANDMARK_SEARCH_WEIGHT if cells >= BIG_MAP_CELLS else search_defaults(cells)[0]


estimate = jit(grid_estimate)
"""The grid heuristic of :mod:`python_core.grid.search.heuristics`, compiled for use inside the kernel."""


@jit
def split_cell(cell: int, width: int, inv_width: float) -> tuple[int, int]:
    """``(cell % width, cell // width)`` of a cell ``>= 0`` by a float multiply (``inv_width =
    1 / width``) and a one-row correction instead of an integer division: on open4096 the
    heuristic's division per relaxed node was about a fifth of the abstract search (scratch).

    Example:
        >>> split_cell(4095 * 4096, 4096, 1 / 4096), split_cell(23, 7, 1 / 7)
        ((0, 4095), (2, 3))
    """
    y = int(cell * inv_width)
    if y * width > cell:  # the product rounded up past a row's first cell
        y -= 1
    elif (y + 1) * width <= cell:
        y += 1
    return cell - y * width, y


@jit
def abstract_astar(  # noqa: PLR0917 (compiled kernel: positional)
    node_cell: I64,
    node_cluster: I64,
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    width: int,
    cw: float,
    ch: float,
    hcode: int,
    h_scale: float,
    start_nodes: I64,
    start_costs: F64,
    goal_cluster: int,
    goal_costs: F64,
    direct_cost: float,
    goal_cell: int,
    budget: int,
    g: F64,
    parent: I32,
    stamps: I32,
    qid: int,
    heap_nodes: I32,
    heap_keys: F64,
    heap_pos: I32,
    weight: float,
    line_bias: float,
    start_cell: int,
) -> tuple[int, int]:
    """:func:`abstract_alt` without landmarks: the grid estimate alone (the arguments are its).

    Example:
        >>> e = np.zeros(0, np.int64)
        >>> abstract_astar(e, e, np.zeros(2, np.int64), e, np.zeros(0), np.zeros(1, np.int64), e,
        ...                np.zeros(0), 1, 1.0, 1.0, 1, 1.0, e, np.zeros(0), 0, np.zeros(0), 2.0, 0, -1,
        ...                np.zeros(1), np.zeros(1, np.int32), np.zeros(1, np.int32), 1,
        ...                np.zeros(1, np.int32), np.zeros(1), np.zeros(1, np.int32), 1.0, 0.0, 0)
        (0, 1)
    """
    return abstract_alt(
        node_cell, node_cluster, cl_first, cl_doff, dist_flat, inter_off, inter_dst, inter_cost, width, cw,
        ch, hcode, h_scale, start_nodes, start_costs, goal_cluster, goal_costs, direct_cost, goal_cell,
        budget, g, parent, stamps, qid, heap_nodes, heap_keys, heap_pos, weight, line_bias, start_cell,
        np.zeros((0, 0), np.float32), 1.0, 0,
    )  # fmt: skip


@jit
def landmark_bound(table: F32, v: int, goal_from: F64, symmetric: int) -> float:
    """The largest landmark lower bound of node ``v``'s cost to the goal (``0.0`` without landmarks):
    ``d(L, goal) - d(L, v)``, and ``d(v, L) - d(goal, L)`` too on a ``symmetric`` graph (``goal_from``:
    ``d(L, goal)`` per landmark; ``inf`` skips a landmark).

    Example:
        >>> landmark_bound(np.array([[2.0, 9.0]], np.float32), 0, np.array([7.0, 4.0]), 1)
        5.0
    """
    best = 0.0
    for i in range(table.shape[1]):
        d, to_goal = float(table[v, i]), goal_from[i]
        if d == np.inf or to_goal == np.inf:  # noqa: PLR1714 (compiled: no tuple membership)
            continue
        gap = to_goal - d
        if gap > best:
            best = gap
        elif symmetric and -gap > best:
            best = -gap
    return best


@jit
def abstract_alt(  # noqa: PLR0917, PLR0912, PLR0915 (compiled kernel: positional, one hot loop)
    node_cell: I64,
    node_cluster: I64,
    cl_first: I64,
    cl_doff: I64,
    dist_flat: F64,
    inter_off: I64,
    inter_dst: I64,
    inter_cost: F64,
    width: int,
    cw: float,
    ch: float,
    hcode: int,
    h_scale: float,
    start_nodes: I64,
    start_costs: F64,
    goal_cluster: int,
    goal_costs: F64,
    direct_cost: float,
    goal_cell: int,
    budget: int,
    g: F64,
    parent: I32,
    stamps: I32,
    qid: int,
    heap_nodes: I32,
    heap_keys: F64,
    heap_pos: I32,
    weight: float,
    line_bias: float,
    start_cell: int,
    landmarks: F32,
    landmark_weight: float,
    symmetric: int,
) -> tuple[int, int]:
    """A* from the virtual start to the virtual goal ``N``.

    Args:
        node_cell: cell per transition node.
        node_cluster: cluster per node.
        cl_first: first node of each cluster (length clusters + 1).
        cl_doff: offset of each cluster's ``(k, k)`` table in ``dist_flat``.
        dist_flat: the tables, row-major, ``inf`` where unreachable inside the cluster.
        inter_off: CSR offsets of the crossings.
        inter_dst: crossing targets.
        inter_cost: crossing costs.
        width: grid columns.
        cw: cell width.
        ch: cell height.
        hcode: heuristic code (``HEURISTIC_CODES``).
        h_scale: heuristic multiplier (smallest weight).
        start_nodes: nodes the start reaches inside its cluster.
        start_costs: their costs.
        goal_cluster: the goal's cluster.
        goal_costs: per transition of the goal's cluster, its cost to the goal (``inf``: none).
        direct_cost: cost of the best path from start to goal inside one cluster, or ``inf``.
        goal_cell: the goal cell (for the heuristic).
        budget: expansion budget, ``-1`` for none.
        g: scratch, length ``N + 1``: cost so far.
        parent: scratch, int32: predecessor (``-1`` the start, ``-2`` a direct path); half the
            bytes of int64, and a faster abstract search on the largest maps.
        stamps: scratch, int32: ``2 qid`` where ``g``/``parent`` are this query's (open), ``2 qid +
            1`` where the node is also closed. One array instead of a seen and a closed one: a
            relaxation reads one stamp, which counts on the largest maps (the node arrays there
            are far bigger than the caches).
        qid: this query's number, larger than every earlier one's and below :data:`QID_LIMIT`.
        heap_nodes: scratch of the indexed open list (length ``N + 1``, int32).
        heap_keys: its f values.
        heap_pos: slot per open node (int32).
        weight: heuristic weight (``1.0``: exact A*; more trades cost for fewer expansions).
        line_bias: adds this times a node's distance from the straight line through
            ``start_cell`` and the goal (world units, times ``h_scale``) to its heuristic. On open
            ground the octile metric leaves a wide band of near-equal ``f`` around that line, and
            every transition in it is expanded; the bias walks the band's middle. That distance
            is at most the node's straight-line distance to the goal, so the heuristic stays
            within ``weight + line_bias`` times the true cost, and so does the path found. The
            ``zero`` heuristic gets no bias (its search stays Dijkstra's).
        start_cell: the query's start cell (the line's other end).
        landmarks: ``(N, L)`` costs from ``L`` landmarks (:mod:`~python_core.hpa.graph.landmarks`;
            ``(0, 0)``: none). A node's estimate is then the larger of the weighted grid estimate
            and its landmark bound (:func:`landmark_bound`) times ``landmark_weight``.
        landmark_weight: the landmark bound's weight, at most ``weight`` (so the path's bound
            stays ``weight + line_bias``): :data:`LANDMARK_WEIGHT` explains its default.
        symmetric: nonzero when every cost is the same both ways (one weight on every open cell):
            the landmark costs then bound from both sides.

    Returns:
        ``(outcome, expanded)`` with an ``ABSTRACT_*`` outcome.
    """
    goal = node_cell.shape[0]
    opened, closed = 2 * qid, 2 * qid + 1
    gx, gy = goal_cell % width, goal_cell // width
    hw = weight * h_scale
    inv_width = 1.0 / width
    sx, sy = split_cell(start_cell, width, inv_width)
    lx, ly = (sx - gx) * cw, (sy - gy) * ch  # the line's direction, world units
    span = np.sqrt(lx * lx + ly * ly)
    # times |cross product| = distance; none for the zero heuristic, which asks for Dijkstra
    bias = line_bias * h_scale / span if span > 0.0 and hcode != _ZERO else 0.0
    # d(L, goal) per landmark: through the goal cluster's transitions (the goal's only way in)
    goal_from = np.full(landmarks.shape[1] if hcode != _ZERO else 0, np.inf)
    lo, hi = cl_first[goal_cluster], cl_first[goal_cluster + 1]
    for i in range(goal_from.shape[0]):
        for t in range(lo, hi):
            goal_from[i] = min(goal_from[i], float(landmarks[t, i]) + goal_costs[t - lo])
    # One indexed heap entry per open node (decrease-key); open = stamped `opened` this query.
    size = 0
    for i in range(start_nodes.shape[0]):
        v, c = start_nodes[i], start_costs[i]
        if c < np.inf:
            stamps[v], g[v], parent[v] = opened, c, -1
            vx, vy = split_cell(node_cell[v], width, inv_width)
            h = max(
                estimate(hcode, abs(vx - gx), abs(vy - gy), cw, ch, hw),
                landmark_weight * landmark_bound(landmarks, v, goal_from, symmetric),
            )
            h += bias * abs((vx - gx) * cw * ly - (vy - gy) * ch * lx)
            size = heap_push(heap_nodes, heap_keys, heap_pos, g, size, v, c + h)
    if direct_cost < np.inf:
        stamps[goal], g[goal], parent[goal] = opened, direct_cost, -2
        size = heap_push(heap_nodes, heap_keys, heap_pos, g, size, goal, direct_cost)
    expanded = 0
    while size > 0:
        if expanded == budget:
            return ABSTRACT_BUDGET, expanded
        u, size = heap_pop(heap_nodes, heap_keys, heap_pos, g, size)
        stamps[u] = closed
        expanded += 1
        if u == goal:
            return ABSTRACT_FOUND, expanded
        gu = g[u]
        c = node_cluster[u]
        base = cl_first[c]
        k = cl_first[c + 1] - base
        row = cl_doff[c] + (u - base) * k
        n_intra = k if c != goal_cluster else k + 1
        n_inter = inter_off[u + 1] - inter_off[u]
        # Reached inside its own cluster (from the start or a cluster mate w): w already offered
        # every mate x g[w] + c(w, x) <= g[u] + c(u, x), the tables being shortest paths, and the
        # goal likewise. Only a node entered by a crossing spreads through its cluster.
        p = parent[u]
        first = n_intra if p == -1 or (p >= 0 and node_cluster[p] == c) else 0
        for j in range(first, n_intra + n_inter):
            if j < k:
                v, cost = base + j, dist_flat[row + j]
            elif j == k and c == goal_cluster:
                v, cost = goal, goal_costs[u - base]
            else:
                e = inter_off[u] + j - n_intra
                v, cost = inter_dst[e], inter_cost[e]
            if v == u or cost == np.inf:
                continue
            stamp = stamps[v]
            if stamp == closed:
                continue
            ng = gu + cost
            fresh = stamp != opened
            if fresh or ng < g[v]:
                h = 0.0
                if v != goal:
                    vx, vy = split_cell(node_cell[v], width, inv_width)
                    h = max(
                        estimate(hcode, abs(vx - gx), abs(vy - gy), cw, ch, hw),
                        landmark_weight * landmark_bound(landmarks, v, goal_from, symmetric),
                    )
                    h += bias * abs((vx - gx) * cw * ly - (vy - gy) * ch * lx)
                stamps[v], g[v], parent[v] = opened, ng, u
                if fresh:
                    size = heap_push(heap_nodes, heap_keys, heap_pos, g, size, v, ng + h)
                else:
                    heap_decrease(heap_nodes, heap_keys, heap_pos, g, v, ng + h)
    return ABSTRACT_NO_PATH, expanded


@jit
def node_chain(parent: I32, goal: int) -> I64:
    """The transition nodes of the found path, first to last, from the parents of the goal ``N``.

    Example:
        >>> node_chain(np.array([-1, 0, 1], np.int32), 2).tolist()
        [0, 1]
    """
    n = 0
    u = parent[goal]
    while u >= 0:
        n += 1
        u = parent[u]
    out = np.empty(n, dtype=np.int64)
    u = parent[goal]
    while u >= 0:
        n -= 1
        out[n] = u
        u = parent[u]
    return out
