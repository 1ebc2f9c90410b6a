"""Off-mesh links, as Godot's ``NavigationLink2D/3D``: a jump between two points of the mesh.

Quick start::

    from python_core.navmesh.links import NavLink
    ladder = NavLink((0.5, 0.5), (4.5, 0.5), bidirectional=False, travel_cost=2.0)
    assert ladder.cost == 8.0

A link joins the polygon closest to ``start`` to the polygon closest to ``end`` (each within the
map's link connection radius, as Godot's ``link_connection_radius``); a path that uses it walks to
``start`` (snapped onto its polygon), crosses to ``end`` for :attr:`NavLink.cost` and walks on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from python_core._types import F64
from python_core.errors import InvalidGraphError, InvalidQueryError

__all__ = ["LAYERS_MAX", "NavLink", "check_cost", "check_layers", "checked_links", "query_mask"]

LAYERS_MAX = 0xFFFFFFFF
"""Navigation layers are a 32-bit mask, as Godot's ``navigation_layers``."""


def check_layers(value: int, what: str) -> int:
    """``value`` as a layer mask, or :class:`InvalidGraphError` naming ``what``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or not 0 <= int(value) <= LAYERS_MAX
    ):
        raise InvalidGraphError(f"{what} must be an integer mask in [0, 2**32 - 1], got {value!r:.40}")
    return int(value)


def query_mask(layers: int | None) -> int:
    """A query's layer mask (None: every layer), or :class:`InvalidQueryError`."""
    if layers is None:
        return LAYERS_MAX
    if isinstance(layers, bool) or not isinstance(layers, int | np.integer) or not 0 <= layers <= LAYERS_MAX:
        raise InvalidQueryError(f"layers must be an integer mask in [0, 2**32 - 1], got {layers!r:.40}")
    return int(layers)


def check_cost(value: float, what: str) -> float:
    """``value`` as a finite cost >= 0, or :class:`InvalidGraphError` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise InvalidGraphError(f"{what} must be a number >= 0, got {value!r:.40}")
    if not math.isfinite(float(value)) or float(value) < 0.0:
        raise InvalidGraphError(f"{what} must be finite and >= 0, got {value!r:.40}")
    return float(value)


@dataclass(frozen=True, slots=True, eq=False)
class NavLink:
    """One off-mesh link.

    Attributes:
        start, end: points in mesh coordinates (2 or 3 numbers, as the mesh).
        bidirectional: usable from ``end`` to ``start`` too (Godot's default: True).
        enter_cost: added once per use.
        travel_cost: multiplies the straight distance from ``start`` to ``end``.
        layers: navigation layer mask; a query uses the link when its mask shares a bit.
        enabled: a disabled link is never used.

    Raises:
        InvalidGraphError: non-finite points of different sizes, negative costs, a bad mask.
    """

    start: F64
    end: F64
    bidirectional: bool = True
    enter_cost: float = 0.0
    travel_cost: float = 1.0
    layers: int = 1
    enabled: bool = True

    def __post_init__(self) -> None:
        start = np.asarray(self.start, dtype=np.float64).reshape(-1)
        end = np.asarray(self.end, dtype=np.float64).reshape(-1)
        if start.shape != end.shape or start.shape[0] not in (2, 3):
            raise InvalidGraphError(f"link start and end must be 2 or 3 numbers each, got {start} / {end}")
        if not (np.all(np.isfinite(start)) and np.all(np.isfinite(end))):
            raise InvalidGraphError(f"link points must be finite, got {start.tolist()} / {end.tolist()}")
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "enter_cost", check_cost(self.enter_cost, "link enter_cost"))
        object.__setattr__(self, "travel_cost", check_cost(self.travel_cost, "link travel_cost"))
        object.__setattr__(self, "layers", check_layers(self.layers, "link layers"))
        object.__setattr__(self, "bidirectional", bool(self.bidirectional))
        object.__setattr__(self, "enabled", bool(self.enabled))

    @property
    def cost(self) -> float:
        """What one crossing costs: ``enter_cost + travel_cost * |end - start|``."""
        return self.enter_cost + self.travel_cost * float(np.linalg.norm(self.end - self.start))


def checked_links(links: Sequence[NavLink], dim: int) -> list[NavLink]:
    """``links`` as a list, each a :class:`NavLink` of ``dim`` coordinates, or
    :class:`InvalidGraphError` naming the first that is not."""
    out = list(links)
    for link in out:
        if not isinstance(link, NavLink) or link.start.shape[0] != dim:
            raise InvalidGraphError(f"links must be NavLink objects of {dim} coordinates, got {link!r:.80}")
    return out
