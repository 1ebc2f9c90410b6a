"""Distance estimates for A*, and when each one keeps A* optimal.

Quick start::

    from python_core.grid.search.heuristics import octile, resolve_heuristic
    assert octile(3.0, 1.0) == 2.0 + 2.0**0.5
    assert resolve_heuristic(None, eight_connected=True) == "octile"

A heuristic ``h`` is *admissible* when it never overestimates the cost still to pay; A* with an
admissible and consistent ``h`` returns an optimal path. On a grid every step costs
``step_length * weight(entered cell)``, so a distance in world units is a lower bound only after it
is multiplied by the smallest weight a step can pay (``min_weight``). :func:`grid_estimate` does that
scaling and also handles rectangular cells ``cell_size = (w, h)``:

========== ===================================================================================
name       admissible when
========== ===================================================================================
manhattan  4-connected grids only (``DiagonalMode.NEVER``); overestimates once diagonals exist
octile     any grid (4- or 8-connected); exact on an empty 8-connected grid. On grids it is the
           "rectangular octile" ``d * min(nx, ny) + w * (nx - m) + h * (ny - m)`` with
           ``d = hypot(w, h)``, which equals ``w * octile(nx, ny)`` for square cells
euclidean  always (grids, waypoint graphs, navmeshes): no step is shorter than a straight line
chebyshev  always; weaker than octile and euclidean
zero       always: A* becomes Dijkstra
========== ===================================================================================

An inadmissible heuristic still finds a path, but it may be longer than the optimum.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType

from python_core.errors import InvalidQueryError

__all__ = [
    "HEURISTICS",
    "HEURISTIC_CODES",
    "Heuristic",
    "chebyshev",
    "euclidean",
    "grid_estimate",
    "manhattan",
    "octile",
    "resolve_heuristic",
    "zero",
]

Heuristic = Callable[[float, float], float]

_SQRT2_MINUS_1 = math.sqrt(2.0) - 1.0


def manhattan(dx: float, dy: float) -> float:
    """Manhattan (taxicab) distance ``|dx| + |dy|``.

    Admissible on 4-connected grids only; with diagonal moves it overestimates.

    Args:
        dx: displacement along x (world units or cells).
        dy: displacement along y.

    Returns:
        The distance, ``>= 0``.

    Example:
        >>> manhattan(3.0, -4.0), manhattan(0.0, 0.0)
        (7.0, 0.0)
    """
    return abs(dx) + abs(dy)


def octile(dx: float, dy: float) -> float:
    """Octile distance ``max + (sqrt(2) - 1) * min`` of ``|dx|, |dy|``: exact on an open 8-way grid.

    Admissible on square-celled grids with straight steps 1 and diagonals sqrt(2) (scale by the
    minimum weight and the cell size); for rectangular cells use :func:`grid_estimate`.

    Args:
        dx: displacement along x.
        dy: displacement along y.

    Returns:
        The distance, ``>= 0``.

    Example:
        >>> round(octile(1.0, 1.0), 6), octile(-5.0, 0.0)
        (1.414214, 5.0)
    """
    ax, ay = abs(dx), abs(dy)
    return max(ax, ay) + _SQRT2_MINUS_1 * min(ax, ay)


def euclidean(dx: float, dy: float) -> float:
    """Straight-line distance ``hypot(dx, dy)``: admissible for every graph embedded in the plane.

    Args:
        dx: displacement along x.
        dy: displacement along y.

    Returns:
        The distance, ``>= 0``.

    Example:
        >>> euclidean(3.0, 4.0), euclidean(0.0, -2.0)
        (5.0, 2.0)
    """
    return math.hypot(dx, dy)


def chebyshev(dx: float, dy: float) -> float:
    """Chebyshev distance ``max(|dx|, |dy|)``: admissible whenever euclidean is (it is smaller).

    Args:
        dx: displacement along x.
        dy: displacement along y.

    Returns:
        The distance, ``>= 0``.

    Example:
        >>> chebyshev(3.0, -4.0), chebyshev(0.0, 0.0)
        (4.0, 0.0)
    """
    return max(abs(dx), abs(dy))


def zero(dx: float, dy: float) -> float:
    """No estimate at all: A* degenerates to Dijkstra. Always admissible.

    Args:
        dx: ignored.
        dy: ignored.

    Returns:
        ``0.0``.

    Example:
        >>> zero(10.0, 10.0)
        0.0
    """
    del dx, dy
    return 0.0


HEURISTICS: Mapping[str, Heuristic] = MappingProxyType(
    {
        "manhattan": manhattan,
        "octile": octile,
        "euclidean": euclidean,
        "chebyshev": chebyshev,
        "zero": zero,
    }
)
"""Every heuristic by its protocol name."""

HEURISTIC_CODES: Mapping[str, int] = MappingProxyType({name: i for i, name in enumerate(HEURISTICS)})
"""Small integer per name, as the array kernels take it (0 manhattan ... 4 zero)."""


def resolve_heuristic(name: str | None, *, eight_connected: bool) -> str:
    """Check a heuristic name, or pick the admissible default for a grid.

    Args:
        name: a key of :data:`HEURISTICS`, or None for the default.
        eight_connected: whether diagonal moves exist; the default is ``"octile"`` if so,
            ``"manhattan"`` otherwise.

    Returns:
        A valid heuristic name.

    Raises:
        InvalidQueryError: ``name`` is not a known heuristic.

    Example:
        >>> resolve_heuristic(None, eight_connected=False)
        'manhattan'
        >>> resolve_heuristic("Euclid", eight_connected=True)
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidQueryError: unknown heuristic 'Euclid'; expected one of ...
    """
    if name is None:
        return "octile" if eight_connected else "manhattan"
    if not isinstance(name, str) or name not in HEURISTICS:
        raise InvalidQueryError(f"unknown heuristic {name!r}; expected one of {sorted(HEURISTICS)}")
    return name


def grid_estimate(  # noqa: PLR0917 (hot-loop call from a numba-compilable kernel: positional)
    code: int, nx: int, ny: int, cell_w: float, cell_h: float, scale: float
) -> float:
    """Estimate of the cost of ``nx`` columns and ``ny`` rows on a grid, as the A* kernel uses it.

    Plain arithmetic on numbers (no Python objects), so a compiler such as numba can take it.

    Args:
        code: a value of :data:`HEURISTIC_CODES`.
        nx: absolute column difference, ``>= 0``.
        ny: absolute row difference, ``>= 0``.
        cell_w: cell width in world units.
        cell_h: cell height in world units.
        scale: the smallest weight a step can pay (``min_weight``); keeps the estimate admissible.

    Returns:
        The scaled estimate, ``>= 0``.

    Example:
        >>> grid_estimate(HEURISTIC_CODES["octile"], 2, 1, 1.0, 2.0, 1.0) == 1.0 + 5.0**0.5
        True
        >>> grid_estimate(HEURISTIC_CODES["zero"], 9, 9, 1.0, 1.0, 1.0)
        0.0
    """
    if code == 0:  # manhattan
        return scale * (nx * cell_w + ny * cell_h)
    if code == 1:  # rectangular octile: as many diagonals as possible, then straight steps
        m = min(nx, ny)
        return scale * (math.hypot(cell_w, cell_h) * m + cell_w * (nx - m) + cell_h * (ny - m))
    if code == 2:
        return scale * math.hypot(nx * cell_w, ny * cell_h)
    if code == 3:
        return scale * max(nx * cell_w, ny * cell_h)
    return 0.0
