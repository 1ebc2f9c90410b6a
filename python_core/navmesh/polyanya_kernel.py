"""Polyanya's compiled kernels: exactly shortest any-angle paths over a mesh's intervals.

Quick start (the arrays come from :func:`python_core.navmesh.polyanya_prepare.prepare`)::

    status, roots, corridor, expanded = polyanya_search(xy, ptr, verts, cpoly, nxt, nbr, twin,
        corner, pocket, start_xy, start_polys, goal_xy, goal_polys, True, -1, *no_landmarks(V),
        search_scratch(xy, ptr, SCRATCH_NODES))

Cui, Harabor and Grastien (2017), "Compromise-free Pathfinding on a Navigation Mesh" (IJCAI). A
search node is an interval ``[R, L]`` on an edge, seen from a root (the start or a mesh vertex),
leading into one polygon; its successors project the interval through that polygon onto the
polygon's other edges: observable ones keep the root, non-observable ones turn around an end of
the interval that is a corner of the mesh (a vertex touching an obstacle). ``h`` is the straight
distance from the root through the interval to the goal (the goal mirrored across the interval's
line when it lies on the root's side), so the first node popped in the goal's polygon ends an
optimal path. Pruning as the reference implementation (a closed list on roots: a vertex reached
again with a larger g is dropped; nodes with one successor expanded at once, not pushed), and wider
than its dead ends: no pocket (:func:`~python_core.navmesh.polyanya_places.pockets`) entered from
the polygon it hangs from unless the goal lies in it.

Conventions: polygons counter-clockwise in the plane; corner ``c``'s edge runs ``v[c] -> v[nxt[c]]``
and leads into ``nbr[c]`` (-1: none or masked), entered there through ``twin[c]``. A node entering
polygon ``P`` through corner ``t`` of ``P`` has its left end on ``v[t]`` and its right end on
``v[nxt[t]]`` (left and right as seen from the root).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from python_core._types import F64, I64, SEARCH_BUDGET, SEARCH_FOUND, SEARCH_NO_PATH, B
from python_core.compiled import jit, register_warm_up
from python_core.navmesh.links import LAYERS_MAX
from python_core.navmesh.locate_kernel import closest_point
from python_core.navmesh.polyanya_intervals import (
    EPS,
    ROOM_PER_CORNER,
    cross,
    h_value,
    helper_jit,
    on_edge,
    root_kept,
    successors,
    turn,
)
from python_core.navmesh.polyanya_landmarks import (
    alt_bound,
    no_landmarks,
    one_to_all,
    pick_landmarks,
    seg_dist,
    vertex_bounds,
)
from python_core.navmesh.polyanya_open import open_list, open_pop, open_push
from python_core.navmesh.polyanya_places import (
    closest_reachable,
    mark_goal,
    pockets,
    polygons_at,
    twin_corners,
)

__all__ = [
    "NO_START",
    "ROOM_PER_CORNER",
    "SCRATCH_NODES",
    "Scratch",
    "polyanya_batch",
    "polyanya_search",
    "search_scratch",
]


@helper_jit
def _h(  # noqa: PLR0917 - numba kernel
    xy: F64, sx: float, sy: float, gx: float, gy: float, nf: F64, ni: I64, j: int, cpoly: I64,
    verts: I64, nxt: I64, goal_set: B, use_h: bool, lo: F64, hi: F64, act: I64, glo: F64, ghi: F64,
) -> float:  # fmt: skip
    """Node ``j``'s heuristic: the interval's (exact into the goal's polygon, 0 without ``use_h``
    elsewhere), raised to the landmarks' bound outside the goal's polygon."""
    t = ni[j, 1]
    into_goal = goal_set[cpoly[t]]
    if not (use_h or into_goal):
        return 0.0
    root = ni[j, 0]
    px, py = (sx, sy) if root < 0 else (xy[root, 0], xy[root, 1])
    lx, ly, rx, ry = nf[j, 0], nf[j, 1], nf[j, 2], nf[j, 3]
    h = h_value(px, py, gx, gy, lx, ly, rx, ry)
    if use_h and act.shape[0] and not into_goal:  # the goal's polygon: h is exact
        # the edge as its polygon before saw it: u -> w (t's edge reversed)
        alt = alt_bound(xy, lo, hi, act, glo, ghi, verts[nxt[t]], verts[t], lx, ly, rx, ry)
        if alt > 0.0:
            h = max(h, alt + seg_dist(px, py, lx, ly, rx, ry))
    return h


_NEED_ROOM = -100
""":func:`_search`'s status when its node arrays ran full (searched again with bigger ones)."""

Scratch = tuple[F64, F64, I64, F64, I64, F64, I64, B, B]
"""``(root_g, sf, si, nf, ni, keys, heap, goal_set, below)``: see :func:`search_scratch`."""


@jit
def search_scratch(xy: F64, ptr: I64, capacity: int) -> Scratch:
    """What :func:`polyanya_search` reuses from query to query: the best length per vertex root
    (all ``inf``, left so), room for one polygon's successors, ``capacity`` search nodes and
    open-list entries, and per polygon the goal's flags (all False, left so). Why: a batch makes
    it once (filling a row per vertex was a tenth of a short query on aurora), and arrays never
    replaced inside the search loop are not reference-counted
    at every step (numba counts the variables a loop may reassign; a grown array was one)."""
    width = 2 * int(np.max(ptr[1:] - ptr[:-1])) + 2 if ptr.shape[0] > 1 else 2
    capacity = max(capacity, 2 * width + 64)
    nf = np.empty((capacity, 6))  # lx, ly, rx, ry, g, f
    ni = np.empty((capacity, 3), dtype=np.int64)  # root (-1: start), entry corner, parent node
    keys, heap = open_list(capacity)
    sf, si = np.empty((width, 4)), np.empty((width, 2), dtype=np.int64)
    flags = np.zeros(ptr.shape[0] - 1, dtype=np.bool_)
    return np.full(xy.shape[0], np.inf), sf, si, nf, ni, keys, heap, flags, flags.copy()


SCRATCH_NODES = 16384
"""Search nodes a scratch holds at first (aurora's longest scenario query makes about 10,000)."""


@jit
def polyanya_search(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, nxt: I64, nbr: I64, twin: I64, corner: B,
    pocket: I64, start_xy: F64, start_polys: I64, goal_xy: F64, goal_polys: I64, use_h: bool,
    max_expansions: int, lo: F64, hi: F64, act: I64, glo: F64, ghi: F64, scratch: Scratch,
) -> tuple[int, I64, I64, int]:  # fmt: skip
    """Polyanya from ``start_xy`` (inside every polygon of ``start_polys``) to ``goal_xy`` (inside
    every polygon of ``goal_polys``).

    Args:
        xy: ``(V, 2)`` vertex positions in the plane; ``ptr``, ``verts``: polygons (CSR, CCW);
            ``cpoly``, ``nxt``: each corner's polygon and next corner.
        nbr, twin: each corner's traversable neighbour (-1: none or masked) and its corner there.
        corner: per vertex, True when it touches an obstacle (a path may turn there).
        pocket: per polygon, the polygon its pocket hangs from (-1: none; see
            :func:`~python_core.navmesh.polyanya_places.pockets`).
        use_h: False searches with h = 0 (Dijkstra order) except into the goal's polygons (where
            the exact rest is needed to stop there), True with the interval heuristic.
        lo, hi, act, glo, ghi: landmark bounds (:mod:`~python_core.navmesh.polyanya_landmarks`):
            per vertex and landmark, per active landmark ``act[i]`` the goal's; with ``use_h`` a
            node's h is the larger of the interval heuristic and the landmarks' (none: ``act`` empty).
        max_expansions: nodes taken off the open list allowed (< 0: no limit); the chain of lone
            successors a node leads to is expanded with it.
        scratch: :func:`search_scratch` of the mesh (not shared by two searches at once); a
            search that needs more nodes runs again with room for four times as many, up to
            :data:`ROOM_PER_CORNER` nodes per corner: past that it ends as ``SEARCH_BUDGET``.

    Returns:
        ``(status, roots, corridor, expanded)``: the vertex indices the path turns at (start and
        goal excluded), the polygons it crosses from the start's to the goal's, nodes taken off the
        open list.
    """
    return _roomy_search(
        xy, ptr, verts, cpoly, nxt, nbr, twin, corner, pocket, start_xy, start_polys, goal_xy,
        goal_polys, use_h, max_expansions, lo, hi, act, glo, ghi, scratch,
    )[0]  # fmt: skip


@jit
def _roomy_search(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, nxt: I64, nbr: I64, twin: I64, corner: B,
    pocket: I64, start_xy: F64, start_polys: I64, goal_xy: F64, goal_polys: I64, use_h: bool,
    max_expansions: int, lo: F64, hi: F64, act: I64, glo: F64, ghi: F64, scratch: Scratch,
) -> tuple[tuple[int, I64, I64, int], Scratch]:  # fmt: skip
    """:func:`polyanya_search`, and the scratch it ended with (a bigger one when it grew). Why: a
    batch keeps the grown scratch for its next queries, instead of each long query growing one."""
    found = _search(
        xy, ptr, verts, cpoly, nxt, nbr, twin, corner, pocket, start_xy, start_polys, goal_xy,
        goal_polys, use_h, max_expansions, lo, hi, act, glo, ghi, scratch,
    )  # fmt: skip
    capacity = scratch[3].shape[0]
    limit = ROOM_PER_CORNER * verts.shape[0] + 1024
    while found[0] == _NEED_ROOM:
        if capacity >= limit:  # a runaway search (a mesh with inconsistent joins): give up
            return (SEARCH_BUDGET, found[1], found[2], found[3]), scratch
        capacity = min(4 * capacity, limit)
        scratch = search_scratch(xy, ptr, capacity)
        found = _search(
            xy, ptr, verts, cpoly, nxt, nbr, twin, corner, pocket, start_xy, start_polys,
            goal_xy, goal_polys, use_h, max_expansions, lo, hi, act, glo, ghi, scratch,
        )  # fmt: skip
    return found, scratch


@jit
def _search(  # noqa: PLR0917 - numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, nxt: I64, nbr: I64, twin: I64, corner: B,
    pocket: I64, start_xy: F64, start_polys: I64, goal_xy: F64, goal_polys: I64, use_h: bool,
    max_expansions: int, lo: F64, hi: F64, act: I64, glo: F64, ghi: F64, scratch: Scratch,
) -> tuple[int, I64, I64, int]:  # fmt: skip
    """:func:`polyanya_search` in the scratch's arrays; status :data:`_NEED_ROOM` when they ran
    full (the scratch left as it was given; the goal's flags, set for :func:`_flagged`, unset)."""
    mark_goal(pocket, goal_polys, scratch[7], scratch[8], True)
    found = _flagged(
        xy, ptr, verts, cpoly, nxt, nbr, twin, corner, pocket, start_xy, start_polys, goal_xy,
        use_h, max_expansions, lo, hi, act, glo, ghi, scratch,
    )  # fmt: skip
    mark_goal(pocket, goal_polys, scratch[7], scratch[8], False)
    return found


@jit
def _flagged(  # noqa: PLR0912, PLR0915, PLR0917 - one numba kernel
    xy: F64, ptr: I64, verts: I64, cpoly: I64, nxt: I64, nbr: I64, twin: I64, corner: B,
    pocket: I64, start_xy: F64, start_polys: I64, goal_xy: F64, use_h: bool, max_expansions: int,
    lo: F64, hi: F64, act: I64, glo: F64, ghi: F64, scratch: Scratch,
) -> tuple[int, I64, I64, int]:  # fmt: skip
    """:func:`_search` with the goal's flags set in the scratch (:func:`mark_goal`)."""
    sx, sy, gx, gy = start_xy[0], start_xy[1], goal_xy[0], goal_xy[1]
    empty = np.zeros(0, dtype=np.int64)
    root_g, sf, si, nf, ni, keys, heap, goal_set, below = scratch
    for i in range(start_polys.shape[0]):
        if goal_set[start_polys[i]]:
            return SEARCH_FOUND, empty, start_polys[i : i + 1].copy(), 0
    cap = nf.shape[0]
    count = size = 0
    status = SEARCH_NO_PATH
    # Initial nodes: every edge of every start polygon that the start does not lie on (one in
    # line with it is kept: the collinear case of the expansion turns at its nearer end).
    for i in range(start_polys.shape[0]):
        s = start_polys[i]
        for c in range(ptr[s], ptr[s + 1]):
            q = nbr[c]
            if q < 0 or (pocket[q] == s and not below[q]):
                continue
            a, b = verts[c], verts[nxt[c]]
            if on_edge(xy, a, b, sx, sy):
                continue
            if count == cap:
                return _NEED_ROOM, empty, empty, 0
            nf[count, 0], nf[count, 1], nf[count, 2], nf[count, 3] = xy[b, 0], xy[b, 1], xy[a, 0], xy[a, 1]
            nf[count, 4] = 0.0
            exact = use_h or goal_set[q]  # a node into the goal's polygon needs its true cost
            h = h_value(sx, sy, gx, gy, xy[b, 0], xy[b, 1], xy[a, 0], xy[a, 1]) if exact else 0.0
            nf[count, 5] = h
            ni[count, 0], ni[count, 1], ni[count, 2] = -1, twin[c], -1
            size = open_push(keys, heap, size, h, 0.0, count)
            count += 1
    expanded = 0
    final = -1
    final_root = -1
    while size:
        node, size = open_pop(keys, heap, size)
        root = ni[node, 0]
        if root >= 0 and root_g[root] + EPS < nf[node, 4]:
            continue  # a better path reached this root since
        t = ni[node, 1]
        if goal_set[cpoly[t]]:
            final = node
            break
        if 0 <= max_expansions <= expanded:
            status = SEARCH_BUDGET
            break
        expanded += 1  # nodes taken off the open list, as every search counts them
        while True:  # expand; a lone successor is expanded at once (intermediate pruning)
            t = ni[node, 1]
            root = ni[node, 0]
            ox, oy = (sx, sy) if root < 0 else (xy[root, 0], xy[root, 1])
            g0 = nf[node, 4]
            k = successors(
                xy, ptr, verts, cpoly, corner, t, ox, oy,
                nf[node, 0], nf[node, 1], nf[node, 2], nf[node, 3], sf, si,
            )  # fmt: skip
            if count + k > cap:  # checked before any root's length is lowered: reset below
                status = _NEED_ROOM
                break
            lv, rv = verts[t], verts[nxt[t]]
            here = cpoly[t]
            made = 0
            last = -1
            for j in range(k):
                ce = si[j, 1]
                q = nbr[ce]
                if q < 0 or (pocket[q] == here and not below[q]):
                    continue
                new_root, g = turn(xy, si[j, 0], root, lv, rv, g0, ox, oy)
                if not root_kept(root_g, new_root, g):
                    continue
                nf[count, 0], nf[count, 1] = sf[j, 0], sf[j, 1]
                nf[count, 2], nf[count, 3] = sf[j, 2], sf[j, 3]
                nf[count, 4] = g  # f when pushed (below)
                ni[count, 0], ni[count, 1], ni[count, 2] = new_root, twin[ce], node
                last = count
                count += 1
                made += 1
            if made == 1 and not goal_set[cpoly[ni[last, 1]]]:
                node = last  # expanded at once: its f is never read, so never computed
                continue
            for j in range(count - made, count):
                f = nf[j, 4] + _h(
                    xy, sx, sy, gx, gy, nf, ni, j, cpoly, verts, nxt, goal_set, use_h, lo, hi, act, glo, ghi
                )  # fmt: skip
                nf[j, 5] = f
                size = open_push(keys, heap, size, f, -nf[j, 4], j)
            break
        if status == _NEED_ROOM:
            break
    for j in range(count):  # the scratch back to all inf for the next query
        if ni[j, 0] >= 0:
            root_g[ni[j, 0]] = np.inf
    if final < 0:
        return status, empty, empty, expanded
    # The last turn: around the interval's left or right end when the goal is outside the cone.
    root = ni[final, 0]
    ox, oy = (sx, sy) if root < 0 else (xy[root, 0], xy[root, 1])
    t = ni[final, 1]
    if cross(gx - ox, gy - oy, nf[final, 0] - ox, nf[final, 1] - oy) < -EPS:
        final_root = verts[t]
    elif cross(nf[final, 2] - ox, nf[final, 3] - oy, gx - ox, gy - oy) < -EPS:
        final_root = verts[nxt[t]]
    else:
        final_root = root
    depth = 0
    node = final
    while node >= 0:
        depth += 1
        node = ni[node, 2]
    corridor = np.empty(depth + 1, dtype=np.int64)
    roots = np.empty(depth + 1, dtype=np.int64)
    nroots = 0
    if final_root >= 0:
        roots[0] = final_root
        nroots = 1
    node = final
    i = depth
    while node >= 0:
        corridor[i] = cpoly[ni[node, 1]]
        r = ni[node, 0]
        if r >= 0 and (nroots == 0 or roots[nroots - 1] != r):
            roots[nroots] = r
            nroots += 1
        i -= 1
        first_node = node
        node = ni[node, 2]
    corridor[0] = cpoly[twin[ni[first_node, 1]]]
    return SEARCH_FOUND, roots[:nroots][::-1].copy(), corridor, expanded


NO_START = -1  # polyanya_batch's status of a query whose start snapped onto a polygon not traversable


@jit
def polyanya_batch(  # noqa: PLR0917 - one numba kernel
    st: Any, mesh: tuple[F64, I64, I64, I64, I64, I64, I64, B, I64], places: tuple[I64, I64, B, I64],
    starts: F64, goals: F64, plane: I64, use_h: bool, max_expansions: int,
    bounds: tuple[F64, F64], active: int,
) -> tuple[I64, I64, F64, F64, I64, I64, I64, I64]:  # fmt: skip
    """:func:`polyanya_search` of each row pair of ``starts`` and ``goals`` (mesh coordinates,
    snapped onto the mesh as :func:`~python_core.navmesh.locate_kernel.closest_point` does), with
    the landmarks bounding each best, in one compiled call (no Python, and no GIL, per query).

    Args:
        st: the mesh's static record (for the snapping); ``mesh``: ``(xy, ptr, verts, cpoly, nxt,
            nbr, twin, corner, pocket)``; ``places``: ``(vp_ptr, vp, usable, view_of)``
            (``view_of``: per polygon of ``st``, the searched one holding it); ``plane``: the
            two mesh axes of the search plane; ``bounds``: ``(lo, hi)`` per vertex and landmark
            (``(V, 0)``: none).

    Returns:
        ``(status, expanded, snapped_starts, snapped_goals, root_counts, roots, corridor_counts,
        corridors)``: per query its search status (:data:`NO_START`: no path from there), the
        turning vertices and polygons of each found path, one query after the other.
    """
    xy, ptr, verts, cpoly, nxt, nbr, twin, corner, pocket = mesh
    vp_ptr, vp, usable, view_of = places
    lo, hi = bounds
    n = starts.shape[0]
    status = np.full(n, NO_START, np.int64)
    expanded = np.zeros(n, np.int64)
    snapped_s, snapped_g = np.empty_like(starts), np.empty_like(goals)
    root_counts, corridor_counts = np.zeros(n, np.int64), np.zeros(n, np.int64)
    found_roots, found_corridors = [], []
    none = np.zeros(0, np.int64)
    scratch = search_scratch(xy, ptr, SCRATCH_NODES)
    for i in range(n):
        poly_s, ps = closest_point(st, starts[i], LAYERS_MAX)
        poly_g, pg = closest_point(st, goals[i], LAYERS_MAX)
        snapped_s[i], snapped_g[i] = ps, pg
        poly_s, poly_g = view_of[poly_s], view_of[poly_g]
        if not usable[poly_s]:
            continue
        s_xy = np.array([ps[plane[0]], ps[plane[1]]])
        g_xy = np.array([pg[plane[0]], pg[plane[1]]])
        start_polys = polygons_at(xy, ptr, verts, vp_ptr, vp, usable, poly_s, s_xy[0], s_xy[1])
        goal_polys = polygons_at(xy, ptr, verts, vp_ptr, vp, usable, poly_g, g_xy[0], g_xy[1])
        act, glo, ghi = none, np.zeros(0), np.zeros(0)
        if lo.shape[1]:
            act, glo, ghi = pick_landmarks(
                lo, hi, xy, ptr, verts, poly_s, s_xy[0], s_xy[1], poly_g, g_xy[0], g_xy[1], active
            )
        (found, roots, corridor, count), scratch = _roomy_search(
            xy, ptr, verts, cpoly, nxt, nbr, twin, corner, pocket, s_xy, start_polys, g_xy,
            goal_polys, use_h, max_expansions, lo, hi, act, glo, ghi, scratch,
        )  # fmt: skip
        status[i], expanded[i] = found, count
        if found == SEARCH_FOUND:
            root_counts[i], corridor_counts[i] = roots.shape[0], corridor.shape[0]
            found_roots.append(roots)
            found_corridors.append(corridor)
    roots_out = np.empty(int(root_counts.sum()), np.int64)
    corridors_out = np.empty(int(corridor_counts.sum()), np.int64)
    at = cat = 0
    for k in range(len(found_roots)):  # one after the other, as the statuses list them
        roots_out[at : at + found_roots[k].shape[0]] = found_roots[k]
        corridors_out[cat : cat + found_corridors[k].shape[0]] = found_corridors[k]
        at += found_roots[k].shape[0]
        cat += found_corridors[k].shape[0]
    return status, expanded, snapped_s, snapped_g, root_counts, roots_out, corridor_counts, corridors_out


@register_warm_up
def _warm_up() -> None:
    """Compile (or load from the disk cache) the kernels on two squares, with the real dtypes."""
    xy = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]])
    ptr = np.array([0, 4, 8], dtype=np.int64)
    verts = np.array([0, 1, 2, 3, 1, 4, 5, 2], dtype=np.int64)
    cpoly = np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int64)
    nxt = np.array([1, 2, 3, 0, 5, 6, 7, 4], dtype=np.int64)
    nbr = np.array([-1, 1, -1, -1, -1, -1, -1, 0], dtype=np.int64)
    twin = twin_corners(xy, ptr, verts, cpoly, nxt, nbr)
    corner = np.ones(6, dtype=np.bool_)
    usable = np.ones(2, dtype=np.bool_)
    pocket = pockets(ptr, nbr, usable)
    goal = np.array([1], dtype=np.int64)
    vp_ptr = np.array([0, 1, 3, 5, 6, 7, 8], dtype=np.int64)
    vp = np.array([0, 0, 1, 0, 1, 0, 1, 1], dtype=np.int64)
    start = polygons_at(xy, ptr, verts, vp_ptr, vp, usable, 0, 0.5, 0.5)
    scratch = search_scratch(xy, ptr, SCRATCH_NODES)
    polyanya_search(
        xy, ptr, verts, cpoly, nxt, nbr, twin, corner, pocket, np.array([0.5, 0.5]),
        start, np.array([1.5, 0.5]), goal, True, -1, *no_landmarks(xy.shape[0]), scratch,
    )  # fmt: skip
    group = np.arange(6, dtype=np.int64)  # each id its own point
    table = np.stack([one_to_all(xy, ptr, verts, cpoly, nxt, nbr, twin, corner, 0.5, 0.5, start, group)] * 2)
    lo, hi = vertex_bounds(table, xy, ptr, verts, xy, ptr, verts, np.arange(2, dtype=np.int64))
    act, glo, ghi = pick_landmarks(lo, hi, xy, ptr, verts, 0, 0.5, 0.5, 1, 1.5, 0.5, 2)
    polyanya_search(
        xy, ptr, verts, cpoly, nxt, nbr, twin, corner, pocket, np.array([0.5, 0.5]),
        start, np.array([1.5, 0.5]), goal, True, -1, lo, hi, act, glo, ghi, scratch,
    )  # fmt: skip
    closest_reachable(xy, ptr, verts, nbr, start, 3.0, 0.5)
    # polyanya_batch is warmed by python_core.navmesh.optimal_batch, with real meshes' arrays
