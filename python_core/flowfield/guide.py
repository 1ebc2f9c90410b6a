"""The goal search's landmark heuristic: every cell's landmark distances (float32) turned into a
consistent lower bound of the cost from the cells asked for to that cell.

Quick start (:meth:`python_core.flowfield.FlowField.extend` does this)::

    marks = Landmarks.build(grid, tile_size=64, count=4, every_cell=True)
    guide = search_guide(marks, targets, goals, wmin, min(grid.cell_size))  # targets: flat cells
    h = guide_bound(guide, node)     # <= the cost from the nearest target to node

Why: the goal search (:mod:`.goal_search`) runs backwards from the goals and settles every cell
whose ``g + h`` is below the start's cost. With ``h`` the octile distance, on a map of random
obstacles (many paths of nearly the same cost side by side) a corner-to-corner search settles most
of the map; a landmark behind the start bounds the rest of the way almost exactly, and the search
settles little more than the corridor.

For a landmark ``L``, targets ``S`` and a cell ``v`` (``t = d(., L)``, ``f = d(L, .)``):
``d(S, v) >= min_S t - t(v)`` and ``d(S, v) >= f(v) - max_S f``. Each term changes by at most a
move's cost between neighbours, so the search's ``h`` (their maximum, and 0) is **consistent**:
every cell it settles has its exact cost, whatever the targets are (the search also waits for the
tiles the chains run through, which the bound does not aim at). Two details keep that true:

- float32 rounding: each table value is within ``e = 2**-24 * M`` of the true one (``M`` the
  tables' largest finite value), so a term is scaled by ``1 - eps`` with ``eps = 4 e / c_min``
  (``c_min`` the cheapest move): ``(1 - eps)(c + 2e) <= c``. Where ``eps`` would pass
  ``MAX_SCALE_LOSS`` (zero weights, huge costs) the guide is empty (the octile bound alone).
- cells a landmark cannot reach (``t = inf``) drop the first term; cells it cannot reach from
  (``f = inf``) take the second term's cap (the largest finite value it takes): an infinite key
  would leave such cells in no order, and a cap is consistent (the minimum of two consistent
  bounds is).

Only the ``ACTIVE_TERMS`` terms with the largest bound at the goals are looked at per cell.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from python_core._types import F32, F64, I64
from python_core.compiled import jit
from python_core.flowfield.landmarks import Landmarks
from python_core.flowfield.tiles import FieldTiles

__all__ = [
    "ACTIVE_TERMS",
    "MAX_SCALE_LOSS",
    "SearchGuide",
    "guide_bound",
    "no_guide",
    "search_guide",
    "tiles_guide",
]

ACTIVE_TERMS = 2
"""Landmark terms looked at per cell: the best at the goals (each costs a table read per cell)."""
MAX_SCALE_LOSS = 0.05
"""Past this scale loss for rounding (``eps``), the tables are not used."""


class SearchGuide(NamedTuple):
    """One search's landmark terms (numba passes a namedtuple as a struct): the tables
    ``(rows, cells)``; per active term its ``row``, whether it is the ``f(v) - E`` kind
    (``from_kind``), its constant (``min_S t`` or ``max_S f``) and cap; the rounding ``scale``."""

    tables: F32
    row: I64
    from_kind: npt.NDArray[np.bool_]
    const: F64
    cap: F64
    scale: float


def no_guide() -> SearchGuide:
    """A guide with no term (the bound is 0)."""
    empty = np.zeros(0)
    return SearchGuide(
        np.zeros((1, 1), dtype=np.float32), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.bool_),
        empty, empty, 1.0,
    )  # fmt: skip


def tiles_guide(field: FieldTiles, marks: Landmarks | None, tiles: I64) -> SearchGuide:
    """The guide toward every cell of ``tiles`` for ``field``'s search: none without tables, for a
    stale set, or for units larger than one cell (the tables are one-cell units' distances)."""
    if marks is None or marks.tables is None or field.size != 1 or not marks.usable(field.grid, field.cs):
        return no_guide()
    grid, cs = field.grid, field.cs
    lx, ly = np.meshgrid(np.arange(cs), np.arange(cs))
    xs = ((tiles % field.tiles_x) * cs)[:, None] + lx.ravel()[None, :]
    ys = ((tiles // field.tiles_x) * cs)[:, None] + ly.ravel()[None, :]
    inside = (xs < grid.width) & (ys < grid.height)
    targets = (ys * grid.width + xs)[inside]
    goals = field.goal_nodes[grid.walkable.ravel()[field.goal_nodes]]
    return search_guide(marks, targets, goals, field._min_weight(), min(grid.cell_size))


def search_guide(marks: Landmarks | None, targets: I64, goals: I64, wmin: float, cmin: float) -> SearchGuide:
    """The guide toward the flat cells ``targets`` for a search from ``goals`` (open goal cells),
    from a set built with ``every_cell`` (any other set, or None: :func:`no_guide`). ``wmin`` times
    ``cmin`` (the smaller cell side) is the cheapest move. The caller checks that the set is fresh."""
    tables = None if marks is None else marks.tables
    if marks is None or tables is None or wmin * cmin <= 0.0:
        return no_guide()
    eps = 4.0 * 2.0**-24 * float(marks.table_max.max(initial=0.0)) / (wmin * cmin)
    if not eps <= MAX_SCALE_LOSS:
        return no_guide()
    scale = 1.0 - eps
    count = marks.count
    rows, kinds, consts, caps, scores = [], [], [], [], []
    for k in range(count):
        for from_kind in (False, True):
            row = k if marks.symmetric_tables or not from_kind else count + k
            at_targets = tables[row, targets].astype(np.float64)
            at_targets = at_targets[np.isfinite(at_targets)]
            at_goals = tables[row, goals].astype(np.float64)
            if at_targets.size == 0 or goals.size == 0:
                continue  # no target reaches (or is reached from) this landmark
            if from_kind:
                const = float(at_targets.max())
                cap = scale * (float(marks.table_max[row]) - const)
                at_goals = np.minimum(scale * (at_goals - const), cap)
            else:
                const, cap = float(at_targets.min()), np.inf
                at_goals = scale * (const - at_goals)  # -inf where t(goal) is inf: no bound
            score = float(at_goals.min())
            if score > 0.0:
                rows.append(row)
                kinds.append(from_kind)
                consts.append(const)
                caps.append(cap)
                scores.append(score)
    best = np.argsort(-np.array(scores), kind="stable")[:ACTIVE_TERMS]
    return SearchGuide(
        tables, np.array(rows, dtype=np.int64)[best], np.array(kinds, dtype=np.bool_)[best],
        np.array(consts, dtype=np.float64)[best], np.array(caps, dtype=np.float64)[best], scale,
    )  # fmt: skip


@jit
def guide_bound(guide: SearchGuide, node: int) -> float:
    """The guide's lower bound of the cost from the nearest target to ``node`` (>= 0)."""
    best = 0.0
    for i in range(guide.row.shape[0]):
        value = np.float64(guide.tables[guide.row[i], node])
        if guide.from_kind[i]:
            h = guide.cap[i] if value == np.inf else min(guide.scale * (value - guide.const[i]), guide.cap[i])
        elif value == np.inf:
            continue
        else:
            h = guide.scale * (guide.const[i] - value)
        best = max(best, h)
    return best
