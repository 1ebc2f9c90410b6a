"""The padded copy of a grid the compiled searches read, its search workspaces, and agent blocking.

Quick start (:mod:`.dispatch` uses this; :meth:`GridGraph.clearance` reads it)::

    from python_core.grid.search.prepared import prepared_for
    p = prepared_for(grid)                  # built on first use, rebuilt when grid.version moves
    work = p.take(); ...; p.give(work)      # one workspace per running query

The copy holds each cell's clearance (:mod:`python_core.grid.clearance`) with a border of 0 around
the grid, ``(height + 2) x (width + 2)`` bytes: a node is open for a unit of size k when its value
is ``>= k``, so one byte per cell serves every size, and size 1 reads it as today's walls. Weights
are padded once for the grid (or not at all when every open cell weighs the same); a size k > 1
on a grid whose weights differ gets the footprint-max weights of that size, cached here for the
:data:`SIZED_WEIGHTS_KEPT` sizes used last (8 bytes a cell each: 134 MB on 4096 x 4096, so the
cache holds at most ``SIZED_WEIGHTS_KEPT`` x 8 bytes a cell; a size used again after its eviction
pays one footprint-max pass, tens of ms on 1024 x 1024).

Threads: any number of queries read one copy at once and never write it; changes to the grid wait
for them (the caller's readers-writer lock). A query that blocks other agents writes only its
workspace's private copy, and puts every value back before giving the workspace back.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from python_core._types import F64, I32, I64, U8
from python_core.grid.clearance import fill_clearance
from python_core.grid.search.grid_view import GridView
from python_core.grid.sized_view import footprint_max

__all__ = [
    "LABEL_AT_ONCE_NODES",
    "SIZED_WEIGHTS_KEPT",
    "Prepared",
    "SizeIndex",
    "Workspace",
    "block_agents",
    "current_copy",
    "is_ready",
    "open_extremes",
    "pad",
    "prepared_for",
    "unblock",
]

_TAG_LIMIT = 2**31 - 4
LABEL_AT_ONCE_NODES = 1 << 16
"""A size's first query labels the parts of its eroded grid (a flood fill of every node, about
0.2 ms for this many); on a bigger grid that query is not :func:`is_ready` (the sidecar runs it on
a search thread, never on its event loop)."""
SIZED_WEIGHTS_KEPT = 4
"""Sizes whose footprint-max weights a weighted grid's copy keeps (the least recently used goes)."""
_SIZED_LOCK = threading.Lock()  # queries on several threads reorder and evict one cache


@dataclass(slots=True, eq=False)
class Workspace:
    """What one running query writes: the search arrays, one slot per padded node, and (made on
    the first query that blocks agents) a private copy of the clearance to block them in."""

    g: F64
    parent: I32
    stamp: I32
    pos: I32
    heap_nodes: I32
    heap_keys: F64
    passable: U8 | None = None  # equal to the shared copy between queries (agents put back)
    tag: int = 0

    def next_tag(self) -> int:
        """A fresh even stamp for one query (clears the stamps once every ~10^9 queries)."""
        self.tag += 2
        if self.tag >= _TAG_LIMIT:
            self.stamp.fill(0)
            self.tag = 2
        return self.tag

    @classmethod
    def for_nodes(cls, n: int) -> Workspace:
        """A new workspace for ``n`` padded nodes (np.empty / np.zeros pages are only made
        resident when a search touches them)."""
        return cls(
            g=np.empty(n, dtype=np.float64), parent=np.empty(n, dtype=np.int32),
            stamp=np.zeros(n, dtype=np.int32), pos=np.empty(n, dtype=np.int32),
            heap_nodes=np.empty(n, dtype=np.int32), heap_keys=np.empty(n, dtype=np.float64),
        )  # fmt: skip

    def nbytes(self) -> int:
        """Bytes of its arrays."""
        own = 0 if self.passable is None else int(self.passable.nbytes)
        arrays = (self.g, self.parent, self.stamp, self.pos, self.heap_nodes, self.heap_keys)
        return own + sum(int(a.nbytes) for a in arrays)


@dataclass(slots=True, eq=False)
class SizeIndex:
    """One unit size's parts and landmarks on one prepared copy (read-only to queries; built and
    kept right by :mod:`.size_index`)."""

    size: int
    labels: I32 | None  # part of each padded node (0: closed); None once dropped
    opened: int  # nodes in parts big enough for landmarks (what a landmark's Dijkstra visits)
    rows: I32 | None = None  # each padded node's row of ``landmarks`` (-1: its part has none)
    landmarks: F64 | None = None  # ``count`` distances per row, row by row
    count: int = 0
    weight: float = -1.0  # the uniform weight the distances were summed with
    tried: bool = False  # landmarks built (and kept or refused) since the labels were made
    stale: bool = False  # cells closed since the labels were made: they may join parts now apart
    debt: int = 0  # expansions the size's queries spent since the labels were made (or dropped)
    due: bool = False  # the queries paid for a build: the next query of the size makes it

    def apart(self, s: int, t: int) -> bool:
        """Whether padded nodes ``s`` and ``t`` lie in different parts (never a false yes)."""
        labels = self.labels
        return labels is not None and bool(labels[s] != labels[t])

    def usable(self, p: Prepared) -> bool:
        """Whether its landmarks exist and bound ``p``'s costs (summed with its uniform weight)."""
        return self.landmarks is not None and self.rows is not None and self.weight == p.uniform_weight

    def drop(self) -> None:
        """Forget parts and landmarks (cells opened: both may be wrong now); rebuilt once paid."""
        self.labels, self.rows, self.landmarks, self.count, self.debt = None, None, None, 0, 0
        self.tried = self.stale = self.due = False

    def nbytes(self) -> int:
        """Bytes of its arrays."""
        return sum(int(a.nbytes) for a in (self.labels, self.rows, self.landmarks) if a is not None)


@dataclass(slots=True, eq=False)
class Prepared:
    """A padded copy of one grid's clearance and weights (read-only to queries) plus the pool of
    search workspaces that queries take and give back."""

    version: int
    width: int
    height: int
    passable: U8  # padded clearance, flat; border 0
    weights: F64  # padded, or one unused slot when the weight is uniform
    uniform_weight: float  # the common weight of open cells, or -1.0 when weights differ
    min_weight: float  # smallest and largest open weight (1.0 with no open cell)...
    max_weight: float
    low_count: int  # ...and how many open cells hold each (kept by local repairs)
    high_count: int
    open_count: int
    # size > 1, weights that differ; least recently used first, SIZED_WEIGHTS_KEPT at most
    sized_weights: dict[int, F64] = field(default_factory=dict)
    # size > 1: parts and landmarks (:mod:`.size_index`); least recently used first
    size_indexes: dict[int, SizeIndex] = field(default_factory=dict)
    spare: list[Workspace] = field(default_factory=list)
    # size 1: options object id -> its query plan (:mod:`.dispatch`; a plan names its version)
    plans: dict[int, Any] = field(default_factory=dict)

    @property
    def stride(self) -> int:
        """Padded row length, ``width + 2``."""
        return self.width + 2

    @property
    def clearance(self) -> U8:
        """The ``(height, width)`` view of the clearance inside the border."""
        return self.passable.reshape(self.height + 2, self.stride)[1:-1, 1:-1]

    def take(self) -> Workspace:
        """An idle workspace, or a new one when every one is in use (list.pop is atomic)."""
        try:
            return self.spare.pop()
        except IndexError:
            return Workspace.for_nodes(self.passable.shape[0])

    def give(self, work: Workspace) -> None:
        """Return a workspace after its query."""
        self.spare.append(work)

    def weights_for(self, grid: GridView, size: int) -> F64:
        """The padded weights a size-``size`` search enters anchors with: the footprint's highest
        (uniform grids need none; cached for the :data:`SIZED_WEIGHTS_KEPT` sizes used last)."""
        if size == 1 or self.uniform_weight >= 0.0:
            return self.weights
        cache = self.sized_weights
        with _SIZED_LOCK:
            cached = cache.pop(size, None)
            if cached is not None:
                cache[size] = cached  # now the most recently used
                return cached
        # outside the lock: two threads may both compute it, with the same values
        cached = pad(footprint_max(grid.weights, size), np.float64)
        with _SIZED_LOCK:
            cache[size] = cached
            while len(cache) > SIZED_WEIGHTS_KEPT:
                del cache[next(iter(cache))]
        return cached


def is_ready(grid: GridView, size: int) -> bool:
    """Whether a size-``size`` search on ``grid`` would start at once: the padded copy is current
    and, for a size above 1, its index owes no build (:mod:`.size_index`; a missing one is made
    at once only on grids up to :data:`LABEL_AT_ONCE_NODES`) and, on a grid whose weights differ,
    its footprint-max weights are built."""
    p = _PREPARED.get(grid)
    if p is None or p.version != grid.version:
        return False
    if size == 1:
        return True
    index = p.size_indexes.get(size)
    if index.due if index is not None else p.passable.shape[0] > LABEL_AT_ONCE_NODES:
        return False
    return p.uniform_weight >= 0.0 or size in p.sized_weights


def pad(values: F64, dtype: type) -> F64:
    """A flat copy of ``(h, w)`` values inside a border of zeros, ``(h + 2) x (w + 2)``."""
    h, w = values.shape
    out = np.zeros((h + 2, w + 2), dtype=dtype)
    out[1:-1, 1:-1] = values
    return out.ravel()


_PREPARED: weakref.WeakKeyDictionary[GridView, Prepared] = weakref.WeakKeyDictionary()
_PREPARING = threading.Lock()  # one thread builds a grid's padded copy; the others wait for it


def prepared_for(grid: GridView) -> Prepared:
    """The cached :class:`Prepared` of ``grid``, rebuilt when its walls or weights changed."""
    cached = _PREPARED.get(grid)
    if cached is not None and cached.version == grid.version:
        return cached
    with _PREPARING:
        cached = _PREPARED.get(grid)
        if cached is None or cached.version != grid.version:
            cached = _PREPARED[grid] = _build(grid)
        return cached


def current_copy(grid: GridView, version: int) -> Prepared | None:
    """``grid``'s prepared copy when one exists for ``version``, else None."""
    p = _PREPARED.get(grid)
    return p if p is not None and p.version == version else None


def open_extremes(grid: GridView) -> tuple[float, float, int, int]:
    """The smallest and largest weight of an open cell and how many open cells hold each
    (``(1.0, 1.0, 0, 0)`` without open cells)."""
    open_weights = grid.weights[grid.walkable]
    if not open_weights.size:
        return 1.0, 1.0, 0, 0
    low, high = float(open_weights.min()), float(open_weights.max())
    return low, high, int((open_weights == low).sum()), int((open_weights == high).sum())


def _build(grid: GridView) -> Prepared:
    walkable = grid.walkable
    h, w = grid.height, grid.width
    passable = np.zeros((h + 2, w + 2), dtype=np.uint8)
    fill_clearance(walkable.view(np.uint8), passable[1:-1, 1:-1])
    low, high, n_low, n_high = open_extremes(grid)
    uniform = low == high
    weights = np.zeros(1, dtype=np.float64) if uniform else pad(grid.weights, np.float64)
    return Prepared(
        version=grid.version, width=w, height=h, passable=passable.ravel(), weights=weights,
        uniform_weight=low if uniform else -1.0, min_weight=low, max_weight=high,
        low_count=n_low, high_count=n_high, open_count=int(np.count_nonzero(walkable)),
    )  # fmt: skip


def block_agents(
    grid: GridView, p: Prepared, work: Workspace, *, size: int, own: int | None
) -> tuple[U8, I64]:
    """The workspace's private copy with every anchor closed where a size-``size`` unit would
    overlap another agent's footprint (an agent of size a at (ax, ay) closes the anchors in
    ``[ax - size + 1, ax + a - 1] x [ay - size + 1, ay + a - 1]``); agent ``own`` never blocks
    itself. Returns the copy and the padded nodes closed, to open again with :func:`unblock`."""
    if work.passable is None:
        work.passable = p.passable.copy()
    stride, sizes = p.stride, grid.agent_sizes
    single: list[int] = []  # size-1 agents for a size-1 unit, the common case: one node each
    parts = [np.zeros(0, dtype=np.int64)]
    for agent, (x, y) in grid.agents.items():
        if agent == own:
            continue
        a = sizes.get(agent, 1)
        if a == 1 and size == 1:
            single.append((y + 1) * stride + x + 1)
            continue
        # padded rows and columns, clipped to the grid's anchors
        rows = np.arange(max(1, y - size + 2), min(p.height, y + a) + 1, dtype=np.int64)
        cols = np.arange(max(1, x - size + 2), min(p.width, x + a) + 1, dtype=np.int64)
        parts.append((rows[:, None] * stride + cols[None, :]).ravel())
    nodes = np.fromiter(single, dtype=np.int64, count=len(single))
    if len(parts) > 1:
        nodes = np.concatenate([nodes, *parts])
    work.passable[nodes] = 0
    return work.passable, nodes


def unblock(p: Prepared, walls: U8, nodes: I64) -> None:
    """Put the shared values back at the nodes :func:`block_agents` closed."""
    walls[nodes] = p.passable[nodes]
