"""Obstacle shapes: ground-plane polygons that block grids and cut navmeshes at run time.

Quick start::

    from python_core.obstacles import ObstacleShape
    crate = ObstacleShape.polygon([(0, 0), (2, 0), (2, 1), (0, 1)])
    barrel = ObstacleShape.circle((5.0, 5.0), 0.5)
    graph.update_obstacles({1: crate, 2: barrel})   # a GridGraph, NavMesh or NavMap

One value type for every graph kind: a grid blocks the cells the outline overlaps by positive area,
a navmesh subtracts it from its walkable polygons. In 3D the outline lies in the two non-up axes and
``base``/``height`` bound the elevations it cuts; 2D graphs ignore them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely

from python_core._types import F64
from python_core.errors import InvalidGraphError

__all__ = ["CIRCLE_SIDES", "ObstacleShape"]

# A circle becomes this regular polygon, circumscribing it: a path that avoids the polygon never
# enters the circle, and 16 sides keep the re-cut small while overshooting the radius by only 2%.
CIRCLE_SIDES = 16


@dataclass(frozen=True, slots=True, eq=False)
class ObstacleShape:
    """A simple counter-clockwise polygon in the ground plane, optionally bounded in elevation.

    Build one with :meth:`polygon` or :meth:`circle`; the constructor applies the same checks.

    Attributes:
        outline: ``(n, 2)`` float64, read-only, ``n >= 3``, simple, counter-clockwise, without a
            repeated closing vertex.
        base: 3D only: the up coordinate of its bottom (``-inf``: unbounded below).
        height: 3D only: it cuts polygons whose elevation overlaps ``[base, base + height]``
            (``inf``: unbounded above).

    Example:
        >>> ObstacleShape.polygon([(0, 0), (0, 1), (1, 1), (1, 0)]).outline.tolist()  # made CCW
        [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
        >>> ObstacleShape.polygon([(0, 0), (1, 1), (2, 2)])
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidGraphError: obstacle polygon has zero area
    """

    outline: F64
    base: float = -math.inf
    height: float = math.inf
    _shape: shapely.Polygon = field(init=False, repr=False)

    def __post_init__(self) -> None:
        outline = _normalised_outline(self.outline)
        base, height = _checked_span(self.base, self.height)
        shape = shapely.Polygon(outline)
        if not shape.convex_hull.area > 0.0:  # all on one line (a bow-tie's signed area is 0 too)
            raise InvalidGraphError("obstacle polygon has zero area")
        if not shape.is_valid:
            reason = shapely.is_valid_reason(shape)
            raise InvalidGraphError(f"obstacle polygon is not simple ({reason})")
        if not shape.exterior.is_ccw:
            outline = np.ascontiguousarray(np.roll(outline[::-1], 1, axis=0))  # keeps vertex 0
            shape = shapely.Polygon(outline)
        outline.flags.writeable = False
        object.__setattr__(self, "outline", outline)
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "height", height)
        object.__setattr__(self, "_shape", shape)

    @classmethod
    def polygon(
        cls,
        points: Sequence[Sequence[float]] | F64,
        base: float = -math.inf,
        height: float = math.inf,
    ) -> ObstacleShape:
        """An obstacle with this outline (any orientation; a closing vertex equal to the first is dropped).

        Args:
            points: ``(n, 2)`` vertices, ``n >= 3``, finite, forming a simple polygon of non-zero area.
            base: 3D only: the up coordinate of its bottom.
            height: 3D only: how far above ``base`` it reaches (> 0).

        Raises:
            InvalidGraphError: wrong shape, non-finite value, fewer than 3 distinct vertices, zero
                area, a self-intersecting outline, ``height <= 0`` or a finite height on an
                unbounded base.
        """
        try:
            outline = np.array(points, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise InvalidGraphError(f"obstacle polygon is not a list of (x, y) points: {error}") from None
        return cls(outline, base, height)

    @classmethod
    def circle(
        cls,
        center_xy: Sequence[float] | F64,
        radius: float,
        base: float = -math.inf,
        height: float = math.inf,
    ) -> ObstacleShape:
        """The regular 16-gon circumscribing a circle (vertex radius ``radius / cos(pi / 16)``).

        Raises:
            InvalidGraphError: ``center_xy`` not two finite numbers, ``radius`` not finite and > 0,
                or a bad ``base``/``height`` as for :meth:`polygon`.
        """
        center = np.asarray(center_xy, dtype=np.float64) if _is_numeric(center_xy) else None
        if center is None or center.shape != (2,) or not np.isfinite(center).all():
            raise InvalidGraphError(f"obstacle circle center must be two finite numbers, got {center_xy!r}")
        r = _as_float(radius, "radius")
        if not (math.isfinite(r) and r > 0.0):
            raise InvalidGraphError(f"obstacle circle radius must be finite and > 0, got {radius!r}")
        angles = np.arange(CIRCLE_SIDES) * (2.0 * math.pi / CIRCLE_SIDES)
        reach = r / math.cos(math.pi / CIRCLE_SIDES)
        outline = center + reach * np.column_stack((np.cos(angles), np.sin(angles)))
        return cls(outline, base, height)

    def geometry(self) -> shapely.Polygon:
        """The outline as a shapely polygon (built once; shapely geometries are immutable)."""
        return self._shape

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(min_x, min_y, max_x, max_y)`` of the outline."""
        low = self.outline.min(axis=0)
        high = self.outline.max(axis=0)
        return (float(low[0]), float(low[1]), float(high[0]), float(high[1]))

    def overlaps_elevation(self, low: float, high: float) -> bool:
        """Whether ``[low, high]`` (an up-coordinate range) meets ``[base, base + height]``."""
        top = self.base + self.height if math.isfinite(self.height) else math.inf  # -inf + inf is nan
        return high >= self.base and low <= top

    def __reduce__(self) -> tuple[type[ObstacleShape], tuple[F64, float, float]]:
        # Rebuilt through the checks on unpickling, so the outline comes back read-only.
        return (ObstacleShape, (self.outline, self.base, self.height))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ObstacleShape):
            return NotImplemented
        return (
            self.base == other.base
            and self.height == other.height
            and np.array_equal(self.outline, other.outline)
        )

    def __hash__(self) -> int:
        return hash((self.outline.tobytes(), self.base, self.height))


def _is_numeric(value: object) -> bool:
    try:
        np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _as_float(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidGraphError(f"obstacle {name} must be a number, got {value!r}")
    return float(value)


def _normalised_outline(raw: object) -> F64:
    """A fresh ``(n, 2)`` float64 copy without consecutive duplicates or a closing vertex."""
    try:
        outline = np.array(raw, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InvalidGraphError(f"obstacle polygon is not a list of (x, y) points: {error}") from None
    if outline.ndim != 2 or outline.shape[1] != 2:
        raise InvalidGraphError(f"obstacle polygon must be (n, 2) points, got shape {outline.shape}")
    if not np.isfinite(outline).all():
        raise InvalidGraphError("obstacle polygon has a non-finite coordinate")
    if len(outline) > 1:
        # Repeats (including the closing vertex of a ring) add no edge; drop them.
        keep = np.any(outline != np.roll(outline, 1, axis=0), axis=1)
        outline = outline[keep] if keep.any() else outline[:1]
    if len(outline) < 3:
        raise InvalidGraphError(f"obstacle polygon needs >= 3 distinct vertices, got {len(outline)}")
    return np.ascontiguousarray(outline)


def _checked_span(base: object, height: object) -> tuple[float, float]:
    b = _as_float(base, "base")
    h = _as_float(height, "height")
    if math.isnan(b) or b == math.inf:
        raise InvalidGraphError(f"obstacle base must be finite or -inf, got {base!r}")
    if math.isnan(h) or not h > 0.0:
        raise InvalidGraphError(f"obstacle height must be > 0, got {height!r}")
    if math.isfinite(h) and not math.isfinite(b):
        raise InvalidGraphError("an obstacle with a finite height needs a finite base")
    return b, h
