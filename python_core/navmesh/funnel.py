"""String pulling (the "simple stupid funnel") of a corridor of 2D portals.

Quick start::

    import numpy as np
    from python_core.navmesh.funnel import funnel_points
    left, right = np.array([[1.0, 1.0]]), np.array([[1.0, -1.0]])  # one portal at x = 1
    assert funnel_points((0, 0), (2, 0), left, right).tolist() == [[0, 0], [2, 0]]

Orientation: ``left``/``right`` are as seen walking from start to goal in a frame where
``cross(a, b) = a.x * b.y - a.y * b.x > 0`` means ``b`` is counter-clockwise of ``a``. For a polygon
with positive signed area, leaving it through its edge ``v[i] -> v[i+1]`` has ``left = v[i+1]``,
``right = v[i]``. The waypoints are portal endpoints, so the path stays inside the corridor.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64

__all__ = ["funnel_points", "string_pull"]


def _cross(o: F64, a: F64, b: F64) -> float:
    """Twice the signed area of (o, a, b): > 0 when ``b`` lies left of the ray ``o -> a``."""
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def _same(a: F64, b: F64) -> bool:
    return bool(abs(a[0] - b[0]) <= 1e-12 and abs(a[1] - b[1]) <= 1e-12)


def string_pull(start: npt.ArrayLike, goal: npt.ArrayLike, left: npt.ArrayLike, right: npt.ArrayLike) -> I64:
    """Indices of the taut path's corners in the table ``[start, goal, *left, *right]``.

    Args:
        start, goal: 2D points.
        left, right: ``(k, 2)`` portal endpoints in corridor order (see the module docstring).

    Returns:
        int64 indices: 0 is start, 1 is goal, ``2 + i`` is ``left[i]``, ``2 + k + i`` is ``right[i]``.
        The first is 0 and the last is 1; consecutive equal points are dropped.

    Example:
        >>> string_pull((0, 0), (2, 0), [[1.0, 1.5]], [[1.0, 0.5]]).tolist()  # bends at right[0]
        [0, 3, 1]
    """
    s = np.asarray(start, dtype=np.float64).reshape(2)
    t = np.asarray(goal, dtype=np.float64).reshape(2)
    lf = np.asarray(left, dtype=np.float64).reshape(-1, 2)
    rt = np.asarray(right, dtype=np.float64).reshape(-1, 2)
    k = lf.shape[0]
    # Portal j of k + 2: 0 is the start (degenerate), 1..k the given ones, k + 1 the goal.
    lefts = np.vstack([s, lf, t])
    rights = np.vstack([s, rt, t])
    left_ids = np.concatenate([[0], 2 + np.arange(k), [1]])
    right_ids = np.concatenate([[0], 2 + k + np.arange(k), [1]])
    path = [0]
    a = lo = ro = s  # apex point and the funnel's current left / right points
    apex = lp = rp = 0  # their portal indices
    j = 1
    while j <= k + 1:
        if _cross(a, ro, rights[j]) >= 0.0:  # the right side moves inwards (or stays)
            if _same(a, ro) or _cross(a, lo, rights[j]) < 0.0:
                ro, rp = rights[j], j
            else:  # it would cross the left side: the left point becomes the new apex
                path.append(int(left_ids[lp]))
                a, apex = lo, lp
                lo = ro = a
                lp = rp = apex
                j = apex + 1
                continue
        if _cross(a, lo, lefts[j]) <= 0.0:  # the left side moves inwards (or stays)
            if _same(a, lo) or _cross(a, ro, lefts[j]) > 0.0:
                lo, lp = lefts[j], j
            else:
                path.append(int(right_ids[rp]))
                a, apex = ro, rp
                lo = ro = a
                lp = rp = apex
                j = apex + 1
                continue
        j += 1
    path.append(1)
    return _drop_repeats(np.asarray(path, dtype=np.int64), np.vstack([s, t, lf, rt]))


def _drop_repeats(path: I64, table: F64) -> I64:
    keep = [0]
    for i in range(1, path.shape[0]):
        if not _same(table[path[i]], table[path[keep[-1]]]):
            keep.append(i)
    if path[keep[-1]] != path[-1]:  # the goal coincides with the previous corner: end on the goal
        keep[-1] = path.shape[0] - 1
    return path[keep]


def funnel_points(
    start: npt.ArrayLike, goal: npt.ArrayLike, left: npt.ArrayLike, right: npt.ArrayLike
) -> F64:
    """The taut path through the portals as ``(m, 2)`` points, start first, goal last.

    Args:
        start, goal: 2D points.
        left, right: ``(k, 2)`` portal endpoints (see the module docstring); ``k`` may be 0.

    Returns:
        The corner points of the shortest path inside the corridor.

    Example:
        >>> funnel_points((0, 0), (0, 0), np.zeros((0, 2)), np.zeros((0, 2))).tolist()
        [[0.0, 0.0]]
    """
    s = np.asarray(start, dtype=np.float64).reshape(2)
    t = np.asarray(goal, dtype=np.float64).reshape(2)
    lf = np.asarray(left, dtype=np.float64).reshape(-1, 2)
    rt = np.asarray(right, dtype=np.float64).reshape(-1, 2)
    table = np.vstack([s, t, lf, rt])
    return np.asarray(table[string_pull(s, t, lf, rt)], dtype=np.float64)
