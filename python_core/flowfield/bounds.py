"""Lower bounds of a cell's cost to the goals, for the flow field's exactness check: the octile
distance times the smallest weight, and landmark bounds at tile borders.

Quick start::

    from python_core.flowfield.bounds import goal_bound
    low = goal_bound(x, y, goal_xs, goal_ys, 1.0, 1.0, diagonal, wmin)   # <= the cell's true cost

A bound must never exceed the true cost (the check would miss a violation); see
docs/flowfield.md and :mod:`.landmarks` for the landmark distances.
"""

# Compiled kernels take their arguments positionally: numba.njit does not compile keywords.
# ruff: noqa: PLR0917

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_NEVER
from python_core.compiled import jit

__all__ = ["border_index", "goal_bound"]


@jit
def _octile(dx: int, dy: int, cw: float, ch: float, diag: float, diagonal: int) -> float:
    """A lower bound of the move cost between cells ``(dx, dy)`` apart at weight 1."""
    if diagonal == DIAG_NEVER:
        return dx * cw + dy * ch
    m = min(dx, dy)
    return diag * m + cw * (dx - m) + ch * (dy - m)


@jit
def goal_bound(
    x: int,
    y: int,
    gx: npt.NDArray[np.int64],
    gy: npt.NDArray[np.int64],
    cw: float,
    ch: float,
    diagonal: int,
    wmin: float,
) -> float:
    """``wmin *`` the octile (manhattan for ``never``) distance to the nearest goal: a lower bound
    of the cell's cost, since every move costs at least its length times the smallest weight."""
    diag = math.hypot(cw, ch)
    best = math.inf
    for i in range(gx.shape[0]):
        best = min(best, _octile(abs(x - gx[i]), abs(y - gy[i]), cw, ch, diag, diagonal))
    return wmin * best


@jit
def border_index(lx: int, ly: int, cs: int) -> int:
    """Where a tile's border cell ``(lx, ly)`` (local) is stored in its ``4 * cs`` row: top row,
    bottom row, left column, right column (a corner under the first side it is on); ``-1`` inside."""
    if ly == 0:
        return lx
    if ly == cs - 1:
        return cs + lx
    if lx == 0:
        return 2 * cs + ly
    if lx == cs - 1:
        return 3 * cs + ly
    return -1


@jit
def _landmark_bound(
    nt: int,
    local: int,
    cs: int,
    lm_to: npt.NDArray[np.float64],
    lm_from: npt.NDArray[np.float64],
    g_to: npt.NDArray[np.float64],
    g_from: npt.NDArray[np.float64],
) -> float:
    """The best landmark lower bound of a border cell's cost (``-inf`` without landmarks):
    ``d(o, L) - max_g d(g, L)`` and ``min_g d(L, g) - d(L, o)``, less a relative 1e-12 of the
    terms for rounding (a bound a rounding above the cost would hide a violation)."""
    best = -np.inf
    b = border_index(local % cs, local // cs, cs)
    if b < 0:
        return best
    for k in range(2 * lm_to.shape[0]):
        if k % 2 == 0:
            a, c = lm_to[k // 2, nt, b], g_to[k // 2]
        else:
            a, c = g_from[k // 2], lm_from[k // 2, nt, b]
        term = a - c  # inf: no path (it would pass the landmark); nan (inf - inf) never counts
        if term < np.inf:
            term -= 1e-12 * (abs(a) + abs(c))
        if term > best:  # noqa: PLR1730 (max() of a nan is not defined the same compiled)
            best = term
    return best
