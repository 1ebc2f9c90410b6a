"""Units of any size in HPA*: one abstract layer per unit size, built on first use of that size.

Quick start (through the facade)::

    hpa = HierarchicalGrid(grid, cluster_size=16).build()
    hpa.find_path((3, 3), (60, 70), options=QueryOptions(size=3))   # builds the size-3 layer once
    hpa.set_walkable([(10, 10)], False)                              # every built layer repaired

Why a layer per size, not HAA*'s one graph with clearance-annotated entrances: a size-k unit may
stand on anchor n exactly when ``clearance[n] >= k``, and its moves and costs are the grid's rules
on that eroded grid (walkable = the k x k footprint is free, weight = the footprint's highest).
HAA*'s annotated graph answers size k from the entrances and edges annotated ``>= k``, which is
HPA* over that eroded grid with the same cluster partition; building that layer explicitly gives
the same abstraction while reusing every compiled part unchanged (trees, the all-pairs table,
component labels, local repair, smoothing's line of sight, the exact check), so a size-k path is
exactly as good as a size-1 path is on its grid, size 1 stays bit for bit what it was, and a size
costs memory and build time only once a query uses it. The cost: each size in use keeps its eroded
copy of the grid (13 bytes a cell: walls, weights, agent counts) and its own trees and table,
within the hierarchy's budgets.

Repair stays local: a cell's state enters the footprints of the anchors up to ``k - 1`` cells
up and left of it, so a change redoes those anchors' eroded values and hands only the ones that
changed to the layer's own local update.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from python_core._types import I64
from python_core.grid import GridGraph
from python_core.grid.sized_view import sized_view

__all__ = ["SizeLayer", "SizeLayers", "eroded_grid", "footprint_reduce"]

Reduce = Callable[[Any, Any], Any]


def footprint_reduce(values: npt.NDArray[Any], k: int, fill: Any, op: Reduce) -> npt.NDArray[Any]:
    """``out[y, x] = op`` over ``values[y:y+k, x:x+k]``, cells past the bottom or right edge counting
    ``fill``; same shape as ``values``. ``op`` is ``np.minimum`` or ``np.maximum``.

    Windows double in length (1, 2, 4, ...) then two overlapping ones cover ``k``: O(cells x log k).

    Example:
        >>> footprint_reduce(np.array([[1, 2, 3], [4, 5, 6]]), 2, 0, np.maximum).tolist()
        [[5, 6, 6], [5, 6, 6]]
    """
    out = values
    for axis in (0, 1):
        out = _window(out, k, axis, fill, op)
    return out


def _window(values: npt.NDArray[Any], k: int, axis: int, fill: Any, op: Reduce) -> npt.NDArray[Any]:
    n = values.shape[axis]
    pad = [(0, 0), (0, 0)]
    pad[axis] = (0, k - 1)
    spans = np.pad(values, pad, constant_values=fill)  # spans[i] covers [i, i + span)

    def part(lo: int, count: int) -> npt.NDArray[Any]:
        index: list[slice] = [slice(None), slice(None)]
        index[axis] = slice(lo, lo + count)
        return spans[tuple(index)]

    span = 1
    while 2 * span <= k:
        count = spans.shape[axis] - span
        spans = op(part(0, count), part(span, count))
        span *= 2
    return np.asarray(op(part(0, n), part(k - span, n)))


def eroded_grid(grid: GridGraph, k: int) -> GridGraph:
    """The grid a size-``k`` unit walks, as its own :class:`GridGraph`: cell n is walkable when the
    k x k footprint anchored there is (inside the grid), its weight is the footprint's highest,
    and its origin is shifted by ``(k - 1) / 2`` cells so that its points are footprint centres.

    Example:
        >>> g = eroded_grid(GridGraph.from_strings(["...", "..@"]), 2)
        >>> g.walkable.astype(int).tolist(), g.origin
        ([[1, 0, 0], [0, 0, 0]], (0.5, 0.5))
    """
    view = sized_view(grid, k)  # the grid's clearance >= k, footprint-max weights, shifted origin
    return GridGraph(
        view.walkable, diagonal=view.diagonal, weights=view.weights, cell_size=view.cell_size,
        origin=view.origin,
    )  # fmt: skip


class SizeLayer(Protocol):
    """What :class:`SizeLayers` uses of a layer (a :class:`~python_core.hpa.HierarchicalGrid`,
    named by this Protocol because the hierarchy imports this module)."""

    @property
    def grid(self) -> GridGraph: ...
    @property
    def nbytes(self) -> int: ...
    def set_walkable(self, cells: npt.ArrayLike, walkable: bool | npt.ArrayLike = True) -> float: ...
    def set_weights(self, cells: npt.ArrayLike, weights: float | npt.ArrayLike) -> float: ...
    @property
    def repair_seconds(self) -> float | None: ...
    @repair_seconds.setter
    def repair_seconds(self, value: float | None) -> None: ...
    @property
    def pending_rows(self) -> int: ...
    def refill_table(self, seconds: float | None = None) -> int: ...


LayerT_co = TypeVar("LayerT_co", bound=SizeLayer, covariant=True)


class SizeLayers(Generic[LayerT_co]):
    """The per-size hierarchies of one :class:`~python_core.hpa.HierarchicalGrid` (sizes >= 2).

    Args:
        grid: the hierarchy's grid (the source of every layer's eroded grid).
        make: builds a hierarchy over an eroded grid for a size, with the owner's options.
    """

    def __init__(self, grid: GridGraph, make: Callable[[GridGraph, int], LayerT_co]) -> None:
        self._grid, self._make = grid, make
        self._layers: dict[int, LayerT_co] = {}
        # first uses of a size run inside queries, which may run in several threads at once
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        """Pickles and copies keep the layers (built hierarchies), not the lock."""
        return {"grid": self._grid, "make": self._make, "layers": self._layers}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._grid, self._make, self._layers = state["grid"], state["make"], state["layers"]
        self._lock = threading.Lock()

    @property
    def sizes(self) -> tuple[int, ...]:
        """The sizes whose layer is built, ascending."""
        return tuple(sorted(self._layers))

    def hierarchies(self) -> list[LayerT_co]:
        """The built layers, by ascending size."""
        return [layer for _, layer in sorted(self._layers.items())]

    def nbytes(self) -> int:
        """Bytes the layers hold: their hierarchies and eroded grids."""
        total = 0
        for layer in list(self._layers.values()):
            grid = layer.grid
            total += layer.nbytes + grid.node_count * (1 + grid.weights.itemsize + 4)  # + agent counts
        return total

    def layer(self, k: int) -> LayerT_co:
        """The size-``k`` layer (``k >= 2``), built now if no query used the size before."""
        layer = self._layers.get(k)
        if layer is None:
            with self._lock:
                layer = self._layers.get(k)
                if layer is None:
                    layer = self._make(eroded_grid(self._grid, k), k)
                    self._layers[k] = layer
        return layer

    def clear(self) -> None:
        """Forget every layer (a rebuild of the owner: each is built again on its next use)."""
        with self._lock:
            self._layers = {}

    def changed(self, nodes: I64, *, weights: bool) -> None:
        """After the grid's cells ``nodes`` changed (walls, or ``weights``): each layer's anchors
        whose footprint covers one of them get their eroded value again, and those that differ go
        to the layer's local update."""
        if not self._layers or not nodes.shape[0]:
            return
        grid = self._grid
        w, h = grid.width, grid.height
        xs, ys = nodes % w, nodes // w
        source = np.asarray(grid.weights if weights else grid.walkable)
        for k, layer in sorted(self._layers.items()):
            # anchors [ax0, ax1) x [ay0, ay1); their footprints lie in the patch [ax0, px1) x [ay0, py1)
            ax0, ay0 = max(int(xs.min()) - k + 1, 0), max(int(ys.min()) - k + 1, 0)
            ax1, ay1 = int(xs.max()) + 1, int(ys.max()) + 1
            px1, py1 = min(ax1 + k - 1, w), min(ay1 + k - 1, h)
            marked = np.zeros((py1 - ay0, px1 - ax0), dtype=bool)
            marked[ys - ay0, xs - ax0] = True
            touched = footprint_reduce(marked, k, False, np.maximum)[: ay1 - ay0, : ax1 - ax0]
            patch = source[ay0:py1, ax0:px1]
            now: npt.NDArray[Any]
            if weights:
                fresh = footprint_reduce(patch, k, 0.0, np.maximum)[: ay1 - ay0, : ax1 - ax0]
                now = np.asarray(layer.grid.weights)[ay0:ay1, ax0:ax1]
            else:
                fresh = footprint_reduce(patch, k, False, np.minimum)[: ay1 - ay0, : ax1 - ax0]
                now = np.asarray(layer.grid.walkable)[ay0:ay1, ax0:ax1]
            dy, dx = np.nonzero(touched & (fresh != now))
            if not dy.shape[0]:
                continue  # e.g. a door too narrow for this size either way
            cells = np.stack((dx + ax0, dy + ay0), axis=1)
            if weights:
                layer.set_weights(cells, fresh[dy, dx])
            else:
                layer.set_walkable(cells, fresh[dy, dx])
