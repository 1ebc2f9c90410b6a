"""Flow fields shared by every request: one per (grid, goal set, options), within a memory budget.

Quick start::

    from python_core.flowfield.cache import FieldCache
    cache = FieldCache(budget_bytes=64 << 20)
    field_id, field, new_tiles = cache.request("map", grid, goals, starts, hierarchy=hpa)
    reports = cache.cells_changed("map", dearer=[(3, 4)])   # {field_id: RepairReport}

Fields are keyed by ``(grid key, sorted goal cells, agents_block, unit size)``: two requests for the
same goals and size share one field and extend it; units of another size get a field of their own.
When the fields' bytes pass the budget, the least recently used fields are dropped whole (never the
one the request at hand uses), and a later request builds them again; ``evicted`` counts them.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from python_core.errors import InvalidQueryError, UnknownPointError
from python_core.flowfield.field import FlowField, RepairReport
from python_core.flowfield.landmarks import Landmarks
from python_core.flowfield.lattice_field import LatticeField
from python_core.grid import GridGraph
from python_core.grid.cells import as_cells
from python_core.grid.clearance import check_size
from python_core.grid.layouts import TileGrid
from python_core.hpa import HierarchicalGrid

__all__ = ["FieldCache", "FieldKey"]


@dataclass(frozen=True, slots=True)
class FieldKey:
    """What makes two field requests the same field."""

    grid: str
    goals: tuple[int, ...]
    agents_block: bool
    size: int = 1


class FieldCache:
    """Fields by id and by key, least recently used first, within ``budget_bytes``.

    Raises:
        InvalidQueryError: a budget that is not a positive integer.

    Example:
        >>> from python_core.grid import GridGraph
        >>> cache = FieldCache(budget_bytes=1 << 20)
        >>> g = GridGraph.from_strings(["....", "...."])
        >>> fid, field, tiles = cache.request("g", g, [(0, 0)], [(3, 1)], tile_size=2)
        >>> fid, tiles, cache.request("g", g, [(0, 0)], [(3, 1)], tile_size=2)[0] == fid
        ('f1', [0, 1], True)
    """

    def __init__(self, *, budget_bytes: int) -> None:
        if isinstance(budget_bytes, bool) or not isinstance(budget_bytes, int) or budget_bytes <= 0:
            raise InvalidQueryError(f"budget_bytes must be a positive integer, got {budget_bytes!r}")
        self.budget_bytes = budget_bytes
        self.evicted = 0
        self._fields: OrderedDict[str, tuple[FieldKey, FlowField | LatticeField]] = OrderedDict()
        self._ids: dict[FieldKey, str] = {}
        self._counter = itertools.count(1)

    def request(
        self,
        grid_key: str,
        grid: GridGraph,
        goals: npt.ArrayLike,
        starts: npt.ArrayLike,
        *,
        hierarchy: HierarchicalGrid | None = None,
        agents_block: bool = False,
        tile_size: int = 16,
        landmarks: Landmarks | None = None,
        size: int = 1,
    ) -> tuple[str, FlowField | LatticeField, list[int]]:
        """The field for these goals and unit ``size`` (made or reused), extended to cover
        ``starts`` (anchors, for a size above 1); ``landmarks`` (the grid's :class:`Landmarks`,
        when the caller keeps one) replaces a reused field's set (size 1 only: other sizes' fields
        ignore them). A :class:`TileGrid` (hexagonal, isometric, half-offset) gets a
        :class:`LatticeField` (the whole map at once; no landmarks).

        Returns:
            ``(field id, field, tile ids computed by this request)``.

        Raises:
            InvalidQueryError, OutOfBoundsError: as :class:`FlowField` and :meth:`FlowField.extend`.
        """
        nodes = np.unique(as_cells(goals, grid.width, grid.height))
        size = check_size(size)
        if size != 1 or isinstance(grid, TileGrid):
            landmarks = None
        key = FieldKey(grid_key, tuple(nodes.tolist()), bool(agents_block), size)
        known = self._ids.get(key)
        field = None if known is None else self._fields[known][1]
        if known is not None and field is not None and field.grid is grid and field.hierarchy is hierarchy:
            field_id = known
            if landmarks is not None:
                field.landmarks = landmarks
        else:
            if known is not None:
                self.drop(known)
            if isinstance(grid, TileGrid):  # the layout's own moves
                field = LatticeField(
                    grid, goals, hierarchy=hierarchy, agents_block=agents_block, tile_size=tile_size,
                    size=size,
                )  # fmt: skip
            else:
                field = FlowField(
                    grid, goals, hierarchy=hierarchy, agents_block=agents_block, tile_size=tile_size,
                    landmarks=landmarks, size=size,
                )  # fmt: skip
            field_id = f"f{next(self._counter)}"
            self._fields[field_id] = (key, field)
            self._ids[key] = field_id
        self._fields.move_to_end(field_id)
        tiles = field.extend(starts)
        self._evict(keep=field_id)
        return field_id, field, tiles

    def get(self, field_id: str) -> FlowField | LatticeField:
        """The field under an id (marks it used).

        Raises:
            UnknownPointError: no such field (never made, dropped, or evicted).
        """
        entry = self._fields.get(field_id) if isinstance(field_id, str) else None
        if entry is None:
            raise UnknownPointError(f"no flow field with id {field_id!r} (never made, dropped or evicted)")
        self._fields.move_to_end(field_id)
        return entry[1]

    def grid_key_of(self, field_id: str) -> str:
        """The grid key a field was made for."""
        self.get(field_id)
        return self._fields[field_id][0].grid

    def drop(self, field_id: str) -> None:
        """Forget a field (no error when absent)."""
        entry = self._fields.pop(field_id, None)
        if entry is not None:
            del self._ids[entry[0]]

    def has_grid(self, grid_key: str) -> bool:
        """Whether a field of this grid is held."""
        return any(key.grid == grid_key for key, _ in self._fields.values())

    def drop_grid(self, grid_key: str) -> list[str]:
        """Forget every field of a grid (it was dropped or replaced); returns their ids."""
        ids = [fid for fid, (key, _) in self._fields.items() if key.grid == grid_key]
        for fid in ids:
            self.drop(fid)
        return ids

    def cells_changed(
        self,
        grid_key: str,
        *,
        dearer: npt.ArrayLike = (),
        cheaper: npt.ArrayLike = (),
        agents: bool = False,
    ) -> dict[str, RepairReport]:
        """Repair every field of a grid after its cells changed (see :meth:`FlowField.repair`);
        ``agents``: the change was agents moving, which only fields with ``agents_block`` see.

        Returns:
            Field id -> report, for the fields with computed tiles.
        """
        out: dict[str, RepairReport] = {}
        for fid, (key, field) in list(self._fields.items()):
            if key.grid != grid_key or (agents and not key.agents_block):
                continue
            out[fid] = field.repair(dearer=dearer, cheaper=cheaper)
        self._evict(keep=None)
        return out

    @property
    def nbytes(self) -> int:
        """Bytes held by every field."""
        return sum(field.nbytes for _, field in self._fields.values())

    def ids(self) -> list[str]:
        """Field ids, least recently used first."""
        return list(self._fields)

    def _evict(self, keep: str | None) -> None:
        total = self.nbytes
        for fid in list(self._fields):
            if total <= self.budget_bytes:
                return
            if fid == keep:
                continue
            total -= self._fields[fid][1].nbytes
            self.drop(fid)
            self.evicted += 1
