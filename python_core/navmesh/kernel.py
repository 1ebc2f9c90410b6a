"""The navmesh query, compiled end to end: locate, clamp, corridor A*, funnel, cost.

Quick start::

    from python_core.navmesh import NavMesh
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    assert mesh.find_path((0.5, 0.5), (2.5, 0.5)).found   # runs :func:`nav_query`

One call per query (numba types and unboxes its arguments once): :data:`NavStatic` holds what stays
from query to query (the mesh, its bucket grid, the search graph of :mod:`~python_core.navmesh.graph`),
built by :func:`nav_static` in compiled code so its machine code is cached. The query's parts, each
a module of its own: start and goal are located and clamped onto the mesh
(:mod:`~python_core.navmesh.locate_kernel`), the corridor is searched by A* over the graph's nodes
(:mod:`~python_core.navmesh.corridor_kernel`) and pulled taut by the funnel piece by piece between
links (:mod:`~python_core.navmesh.funnel_kernel`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND, SEARCH_NO_PATH
from python_core.compiled import jit, record
from python_core.navmesh.corridor_kernel import corridor_search, reset_scratch
from python_core.navmesh.funnel_kernel import funnel_piece
from python_core.navmesh.locate_kernel import (
    closest_on_mesh,
    holding,
    lift,
    near_on_polygon,
    plane_xy,
)

__all__ = ["NAV_FIELDS", "NavStatic", "nav_query", "nav_static"]

NAV_FIELDS = (
    "verts", "xy", "poly_ptr", "poly_verts", "origin", "cell", "cols", "rows", "cell_ptr",
    "cell_polys", "poly_layers", "plane", "up", "ax_i", "ax_j",
    "indptr", "indices", "costs", "pos", "src", "dst", "left", "right", "link", "node_layers",
    "out_ptr", "out_nodes", "in_ptr", "in_nodes", "enter", "poly_travel", "poly_region",
    "link_start", "link_end", "scale", "samples", "portal_nodes", "layers_common",
)  # fmt: skip
"""What :func:`nav_query` takes unchanged from query to query, in this order."""

NavStatic: Any = record("NavStatic", NAV_FIELDS, __name__)
"""Those values as one record (see :func:`python_core.compiled.record`)."""


@jit
def nav_static(*values: Any) -> Any:
    """The :data:`NavStatic` of ``values`` in :data:`NAV_FIELDS` order (compiled: cached code)."""
    return NavStatic(*values)


# ---- one query -----------------------------------------------------------------------------------
@jit
def nav_query(  # noqa: PLR0917
    st: Any, sc: Any, start: F64, goal: F64, mask: int, budget: int, partial: bool
) -> tuple[int, int, F64, I64, float]:
    """One path query: clamp both ends onto allowed polygons, search, funnel; ``sc`` is a
    :data:`NavScratch` of this mesh that no other thread uses meanwhile (left clean).

    Returns:
        ``(status, expanded, points, corridor, cost)``: a ``SEARCH_*`` status, or 3 for
        "partial" (``partial`` was set and the goal is unreachable: the path ends at the reached
        point nearest the goal), -1 when no polygon shares ``mask``; the waypoints in mesh
        coordinates; the polygons passed (the corridor); the path's cost.
    """
    dim = start.shape[0]
    sx, sy, sh = plane_xy(st, start)
    gx, gy, gh = plane_xy(st, goal)
    poly_s, qsx, qsy = closest_on_mesh(st, sx, sy, sh, mask)
    poly_g, qgx, qgy = closest_on_mesh(st, gx, gy, gh, mask)
    ends = np.zeros((2, dim))
    if poly_s < 0:
        return -1, 0, np.zeros((0, dim)), np.zeros(0, np.int64), math.inf
    lift(st, poly_s, qsx, qsy, ends, 0)
    lift(st, poly_g, qgx, qgy, ends, 1)
    ps, pg = ends[0], ends[1]
    starts = holding(st, poly_s, qsx, qsy, mask)
    goals = holding(st, poly_g, qgx, qgy, mask)
    for i in range(starts.shape[0]):
        for j in range(goals.shape[0]):
            if starts[i] == goals[j]:
                poly_s = poly_g = starts[i]
    if poly_s == poly_g:
        pts = np.empty((2, dim))
        pts[0], pts[1] = ps, pg
        cost = math.sqrt(np.sum((pg - ps) ** 2)) * st.poly_travel[poly_s]
        if np.sum((pg - ps) ** 2) == 0.0:
            return SEARCH_FOUND, 0, pts[:1].copy(), np.array([poly_s]), 0.0
        return SEARCH_FOUND, 0, pts, np.array([poly_s]), cost
    status, end, expanded, touched = corridor_search(st, sc, ps, pg, starts, goals, mask, budget)
    answer = _finish(st, sc, status, end, expanded, ps, pg, poly_s, gx, gy, partial)
    reset_scratch(sc, st, touched)
    return answer


@jit
def _finish(  # noqa: PLR0917
    st: Any,
    sc: Any,
    status: int,
    end: int,
    expanded: int,
    ps: F64,
    pg: F64,
    poly_s: int,
    gx: float,
    gy: float,
    partial: bool,
) -> tuple[int, int, F64, I64, float]:
    """The path of a finished search: the chain of nodes, the corridor and the funnelled points."""
    dim = ps.shape[0]
    parent, g = sc.parent, sc.work[:, 0]
    ends = np.zeros((2, dim))
    ends[0], ends[1] = ps, pg
    poly_g = -1
    if status == SEARCH_FOUND:
        poly_g = st.dst[end]
    if status != SEARCH_FOUND:
        if not partial:
            return status, expanded, np.zeros((0, dim)), np.zeros(0, np.int64), math.inf
        while end >= 0 and st.dst[end] < 0:  # ended on a link's start: back to its polygon
            end = parent[end]
        poly_g = poly_s if end < 0 else st.dst[end]
        _d, qgx, qgy = near_on_polygon(st, poly_g, gx, gy)
        lift(st, poly_g, qgx, qgy, ends, 1)
        pg = ends[1]
        status = 3 if status == SEARCH_NO_PATH else SEARCH_BUDGET
    length = 0
    u = end
    while u >= 0:
        length += 1
        u = parent[u]
    chain = np.empty(length, np.int64)
    u = end
    for k in range(length - 1, -1, -1):
        chain[k] = u
        u = parent[u]
    if length > 0:
        poly_s = st.src[chain[0]]  # the start polygon the search set out from
    corridor = np.empty(length + 1, np.int64)
    corridor[0] = poly_s
    for k in range(length):
        corridor[k + 1] = st.dst[chain[k]]
    points = np.empty((2 * length + 3, dim))
    points[0] = ps
    m = 1
    cost = 0.0
    piece_start, from_point, from_poly = 0, ps, poly_s
    for k in range(length + 1):
        if k < length and st.dst[chain[k]] >= 0:
            continue  # a portal (or a link's end): the piece goes on
        to_point = pg if k == length else st.link_start[st.link[chain[k]]]
        to_poly = poly_g if k == length else st.src[chain[k]]
        m, c = funnel_piece(st, chain, piece_start, k, from_point, to_point, from_poly, to_poly, points, m)
        cost += c
        if k < length:  # cross the link: its start and end nodes are chain[k], chain[k + 1]
            lk = st.link[chain[k]]
            cost += g[chain[k + 1]] - g[chain[k]]
            points[m] = st.link_end[lk]
            m += 1
            from_point, from_poly = st.link_end[lk], st.dst[chain[k + 1]]
            piece_start = k + 2
    return status, expanded, points[:m].copy(), corridor[corridor >= 0], cost
