"""Vertex ids on one point (separate regions' borders, unwelded) and the polygons around each
point, all of its ids' together: where Polyanya finds the polygons holding a start, goal or landmark.

Quick start::

    import numpy as np
    from python_core.navmesh.weld import point_groups
    xy = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]])  # ids 1 and 2: one point
    assert point_groups(xy, np.zeros((0, 2), np.int64)).tolist() == [0, 1, 1]

Why: a map of several regions keeps each region's vertex ids; where two borders touch, two or three
ids stand on one point. Polyanya found the polygons holding a point through the polygons around
its vertex ids, so a point on a seam got one region's polygons only, and the search does not cross
the edge the start lies on (the polygon beyond is assumed to hold it): paths from or to a seam
came out too long. And a path turns only at a vertex flagged as touching an obstacle: an obstacle
corner on a seam was flagged for the ids of the region touching it only, so a path reaching it
through the other region's polygons could not turn there (aurora as 16 regions: 4 of 20 optimal
paths too long). A landmark on a seam vertex (landmarks sit at far border vertices) then had
distances above the truth, which ALT reads as exact lower bounds, and it pruned the optimal path of
queries anywhere (21.61 instead of 14.92).
"""

from __future__ import annotations

import numpy as np

from python_core._types import F64, I64, B

__all__ = ["POINT_EPS", "point_groups", "point_polygons", "seam_pairs", "shared_flags"]

POINT_EPS = 1e-8
"""Ids closer than this are one point: Polyanya's own tolerance for "an interval ends at a vertex"."""


def seam_pairs(points: F64, verts: I64, nxt: I64, twin: I64) -> I64:
    """``(k, 2)`` id pairs facing each other across a shared edge within :data:`POINT_EPS` (an
    edge's start against its twin's end, and its end against the twin's start)."""
    c = np.flatnonzero(twin >= 0)
    t = twin[c]
    a = np.concatenate([verts[c], verts[nxt[c]]])
    b = np.concatenate([verts[nxt[t]], verts[t]])
    two = a != b  # a welded mesh has none: nothing more to look at
    a, b = a[two], b[two]
    near = np.abs(points[a] - points[b]).max(axis=1, initial=0.0) < POINT_EPS
    return np.stack([a[near], b[near]], axis=1)


def point_groups(points: F64, pairs: I64) -> I64:
    """Per vertex id, the smallest id standing on its point (itself when alone): ids at exactly one
    position (all coordinates: in 3D a deck over a floor is another point), and the ``pairs``
    (:func:`seam_pairs`, within the tolerance)."""
    label = np.arange(points.shape[0], dtype=np.int64)
    order = np.lexsort(points.T[::-1])  # by position, then id (stable)
    at = points[order]
    same = np.flatnonzero(np.all(at[1:] == at[:-1], axis=1)) + 1
    if same.shape[0]:
        head = np.ones(order.shape[0], dtype=np.bool_)
        head[same] = False
        run = np.cumsum(head) - 1
        label[order] = order[np.flatnonzero(head)][run]
    if pairs.shape[0] == 0:
        return label
    a, b = pairs[:, 0], pairs[:, 1]
    while True:  # a group is a handful of ids: a few rounds of min-propagation and pointer jumping
        low = np.minimum(label[a], label[b])
        before = label.copy()
        np.minimum.at(label, a, low)
        np.minimum.at(label, b, low)
        label = label[label]
        if np.array_equal(label, before):
            return label


def point_polygons(group: I64, verts: I64, cpoly: I64) -> tuple[I64, I64]:
    """Vertex -> polygons (CSR ``vp_ptr``, ``vp``) listing, for every id, the polygons holding any
    id of its point (a polygon once per corner there, as the plain per-id map)."""
    count = group.shape[0]
    key = group[verts]
    if np.array_equal(key, verts):  # welded: the plain per-id map
        vp_ptr = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(np.bincount(verts, minlength=count), out=vp_ptr[1:])
        return vp_ptr, np.ascontiguousarray(cpoly[np.argsort(verts, kind="stable")])
    order = np.argsort(key, kind="stable")
    by_point = cpoly[order]
    point_ptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(key, minlength=count), out=point_ptr[1:])
    start, size = point_ptr[group], point_ptr[group + 1] - point_ptr[group]
    vp_ptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(size, out=vp_ptr[1:])
    idx = np.repeat(start - vp_ptr[:-1], size) + np.arange(int(vp_ptr[-1]), dtype=np.int64)
    return vp_ptr, np.ascontiguousarray(by_point[idx])


def shared_flags(flag: B, group: I64) -> B:
    """A per-id flag true for every id of a point where any id has it: an obstacle corner on a
    seam is one for the ids of every region there (a path may have to turn at it coming from the
    region whose own polygons do not touch the obstacle)."""
    any_at = np.zeros(group.shape[0], dtype=np.bool_)
    any_at[group[flag]] = True
    return any_at[group]
