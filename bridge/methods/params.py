"""The decode boundary: pull typed fields out of a request's parameter map, or raise ``bad_request``.

Every value that arrives off the wire is ``Any``; these helpers check it at once and hand back a
typed value, naming the field and the bad value in the error.

    from bridge.methods.params import Params
    p = Params({"id": "g", "width": 3}, "graph.load_grid")
    assert p.text("id") == "g" and p.integer("width", minimum=1) == 3
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from bridge.wire.errors import BadRequestError, OutOfBoundsError, short_repr
from bridge.wire.protocol import AGENT_ID_MAX, STRICT_FIELDS
from python_core.grid.clearance import MAX_UNIT_SIZE

__all__ = ["Params", "is_vector", "params_of", "unit_size"]


def params_of(method: str, params: Any) -> Params:
    """Check the msgpack-RPC ``params`` slot: an array holding exactly one map (or empty: ``{}``);
    for the methods of :data:`~bridge.wire.protocol.STRICT_FIELDS`, also that the map has no other field.
    """
    if not isinstance(params, list):
        raise BadRequestError(f"{method}: params must be an array holding one map, got {_kind(params)}")
    if not params:
        return Params({}, method)
    if len(params) != 1 or not isinstance(params[0], dict):
        raise BadRequestError(f"{method}: params must be an array holding one map")
    checked = Params(params[0], method)
    if method in STRICT_FIELDS:
        checked.only(*STRICT_FIELDS[method])
    return checked


def _kind(value: Any) -> str:
    return type(value).__name__


class Params:
    """A request's parameter map with typed, validating accessors.

    Args:
        values: the decoded map.
        where: the method name (or ``method.field``), used in error messages.
    """

    def __init__(self, values: dict[str, Any], where: str) -> None:
        self.values = values
        self.where = where

    def _fail(self, key: str, expected: str, value: Any = None) -> BadRequestError:
        got = "missing" if key not in self.values else f"got {_kind(value)} {short_repr(value)}"
        return BadRequestError(f"{self.where}: {key!r} must be {expected}, {got}", {"field": key})

    def has(self, key: str) -> bool:
        """True when ``key`` is present and not nil."""
        return self.values.get(key) is not None

    def only(self, *allowed: str) -> None:
        """Reject keys outside ``allowed`` (a typo should not silently be ignored)."""
        extra = sorted(set(self.values) - set(allowed))
        if extra:  # named by a bounded repr: a key may be megabytes long, and there may be many
            shown = [key[:40] for key in extra[:5]]
            more = f" and {len(extra) - 5} more" if len(extra) > 5 else ""
            raise BadRequestError(
                f"{self.where}: unknown field(s) {short_repr(shown, 240)}{more}", {"fields": shown}
            )

    def text(self, key: str, *, choices: tuple[str, ...] | None = None) -> str:
        """A required string (one of ``choices`` when given)."""
        value = self.values.get(key)
        if not isinstance(value, str):
            raise self._fail(key, "a string", value)
        if choices is not None and value not in choices:
            raise BadRequestError(
                f"{self.where}: {key!r} must be one of {list(choices)}, got {short_repr(value)}",
                {"field": key},
            )
        return value

    def integer(self, key: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
        """A required integer (bool is not an integer here), within the bounds given."""
        value = self.values.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._fail(key, "an integer", value)
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            raise BadRequestError(
                f"{self.where}: {key!r} must be in [{minimum}, {maximum}], got {short_repr(value)}",
                {"field": key},
            )
        return value

    def agent_id(self, key: str) -> int:
        """A required agent id, an integer in ``0..AGENT_ID_MAX`` (what a Godot int holds)."""
        return self.integer(key, minimum=0, maximum=AGENT_ID_MAX)

    def number(self, key: str, *, minimum: float | None = None, maximum: float | None = None) -> float:
        """A required finite number (an int or a float; bool is not a number here), within the bounds
        given."""
        value = self.values.get(key)
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
            raise self._fail(key, "a finite number", value)
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            raise BadRequestError(
                f"{self.where}: {key!r} must be in [{minimum}, {maximum}], got {short_repr(value)}",
                {"field": key},
            )
        return float(value)

    def flag(self, key: str, default: bool = False) -> bool:
        """An optional bool."""
        value = self.values.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self._fail(key, "a bool", value)
        return value

    def blob(self, key: str) -> bytes:
        """A required ``bin``."""
        value = self.values.get(key)
        if not isinstance(value, bytes):
            raise self._fail(key, "bin (bytes)", value)
        return value

    def sub(self, key: str) -> Params:
        """An optional nested map (absent or nil gives an empty one)."""
        value = self.values.get(key)
        if value is None:
            return Params({}, f"{self.where}.{key}")
        if not isinstance(value, dict):
            raise self._fail(key, "a map", value)
        return Params(value, f"{self.where}.{key}")

    def array(self, key: str) -> list[Any]:
        """A required array (its elements are checked by the caller)."""
        value = self.values.get(key)
        if not isinstance(value, list):
            raise self._fail(key, "an array", value)
        return value

    def vector(self, key: str, sizes: tuple[int, ...] = (2, 3)) -> tuple[float, ...]:
        """A required point: an array of ``sizes`` finite numbers."""
        value = self.values.get(key)
        if not isinstance(value, list) or not is_vector(value, sizes):
            raise self._fail(key, f"an array of {' or '.join(map(repr, sizes))} finite numbers", value)
        return tuple(float(v) for v in value)

    def cells(self, key: str) -> npt.NDArray[np.int64]:
        """Required cells: a ``bin`` of int32 ``(x, y)`` pairs or an array of ``[x, y]`` integers, as
        an ``(n, 2)`` int64 array. A coordinate no int32 holds lies outside every grid: that is
        ``out_of_bounds``, as for ``path.find``'s endpoints (the grid checks the others).

        Raises:
            BadRequestError: neither form.
            OutOfBoundsError: a coordinate outside int32.
        """
        value = self.values.get(key)
        if isinstance(value, bytes):
            if len(value) % 8:
                raise BadRequestError(
                    f"{self.where}: {key!r} must be int32 (x, y) pairs, got {len(value)} bytes",
                    {"field": key},
                )
            return np.frombuffer(value, dtype="<i4").astype(np.int64).reshape(-1, 2)
        if not isinstance(value, list) or not all(
            isinstance(c, list) and len(c) == 2 and all(type(v) is int for v in c) for c in value
        ):
            raise self._fail(key, "a bin of int32 pairs or [[x, y], ...] integers", value)
        for cell in value:
            if not all(_INT32_MIN <= v <= _INT32_MAX for v in cell):
                raise OutOfBoundsError(
                    f"{self.where}: cell {short_repr(cell)} in {key!r} is outside every grid", {"field": key}
                )
        return np.array(value, dtype=np.int64).reshape(-1, 2)

    def raw(self, key: str) -> Any:
        """The value as decoded (the caller checks its type at once)."""
        return self.values.get(key)


_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def is_vector(value: Any, sizes: tuple[int, ...]) -> bool:
    """True for an array of ``sizes`` finite numbers (not bools)."""
    return (
        isinstance(value, list)
        and len(value) in sizes
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
    )


def unit_size(params: Params) -> tuple[int, float | None]:
    """A query's unit: ``size`` (an int 1..255 cells, default 1) and ``radius`` (a finite number
    > 0 in world units, or None); giving a radius with a size other than 1 is ``bad_request``.
    Which graph takes which is the graph's to say (grids both, navmeshes ``radius``)."""
    size = params.integer("size", minimum=1, maximum=MAX_UNIT_SIZE) if params.has("size") else 1
    radius = params.number("radius", minimum=0.0) if params.has("radius") else None
    if radius is not None and radius <= 0.0:
        raise BadRequestError(f"{params.where}: 'radius' must be > 0, got {radius!r}", {"field": "radius"})
    if radius is not None and size != 1:
        raise BadRequestError(
            f"{params.where}: give 'size' or 'radius', not both (size {size}, radius {radius!r})",
            {"field": "radius"},
        )
    return size, radius
