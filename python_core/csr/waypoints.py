"""Waypoint graphs with the cost rules of Godot's ``AStar2D`` / ``AStar3D``.

Quick start::

    from python_core.csr import WaypointGraph
    g = WaypointGraph(dim=2)
    g.add_point(1, (0, 0)); g.add_point(2, (3, 4), weight_scale=2.0); g.connect_points(1, 2)
    assert g.find_path(1, 2).cost == 10.0  # entering point 2 costs distance * its weight

Semantics (as Godot 4): stepping ``u -> v`` costs ``distance(u, v) * weight_scale(v)``; the heuristic
is the straight-line distance to the goal, admissible when every weight is >= 1. When some enabled
point has a weight below 1 the heuristic is scaled by the smallest such weight so that A* stays
optimal (Godot would not scale and may return a costlier path). Disabled points are never entered;
a disabled start gives ``no_path``; a disabled goal gives ``no_path`` (or ``partial`` with
``allow_partial``), and ``start == goal`` returns that one point, as ``AStar2D.get_id_path`` does.
Storage is flat: numpy arrays indexed by dense slots, segments in one dict keyed by id pairs, and a
CSR adjacency rebuilt lazily on the first query after a change. Queries may run in several
threads at once; a change must wait for them (the caller's readers-writer lock).
"""

from __future__ import annotations

import math
import threading

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64
from python_core.csr.graph import CsrGraph
from python_core.csr.search import find_csr_path
from python_core.errors import InvalidGraphError, UnknownPointError, UnsupportedOperationError
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["WaypointGraph"]


# Segment direction bits, keyed by (smaller id, larger id) like Godot's Segment.
_FORWARD = 1  # smaller id -> larger id
_BACKWARD = 2  # larger id -> smaller id
_BUILDING = threading.Lock()  # one of several querying threads builds the CSR form after a change


class WaypointGraph:
    """Points with ids, positions and weight scales, joined by one- or two-way segments.

    Args:
        dim: 2 (``AStar2D``) or 3 (``AStar3D``).

    Raises:
        InvalidGraphError: when ``dim`` is not 2 or 3.

    Example:
        >>> g = WaypointGraph(dim=3)
        >>> g.add_point(0, (0, 0, 0)); g.add_point(1, (0, 2, 0)); g.connect_points(0, 1, False)
        >>> g.find_path(0, 1).nodes.tolist(), g.find_path(1, 0).status.value
        ([0, 1], 'no_path')
    """

    def __init__(self, dim: int = 2) -> None:
        if dim not in (2, 3):
            raise InvalidGraphError(f"dim must be 2 or 3, got {dim!r}")
        self.dim = dim
        self._slot: dict[int, int] = {}
        self._ids = np.zeros(0, dtype=np.int64)
        self._pos = np.zeros((0, dim), dtype=np.float64)
        self._weight = np.zeros(0, dtype=np.float64)
        self._disabled = np.zeros(0, dtype=np.bool_)
        self._count = 0
        self._segments: dict[tuple[int, int], int] = {}
        self._csr: tuple[CsrGraph, I64] | None = None  # with each CSR node's id; None after a change

    # ---- points -------------------------------------------------------------------------------
    def add_point(self, point_id: int, position: npt.ArrayLike, weight_scale: float = 1.0) -> None:
        """Add a point, or update position and weight of an existing id (Godot semantics).

        Args:
            point_id: an id >= 0.
            position: ``dim`` finite coordinates.
            weight_scale: finite and >= 0; multiplies the cost of entering this point.

        Raises:
            InvalidGraphError: negative id, bad position, or negative / non-finite weight.

        Example:
            >>> g = WaypointGraph(); g.add_point(4, (1, 2)); g.add_point(4, (5, 6))
            >>> g.get_point_position(4).tolist()
            [5.0, 6.0]
        """
        pid = int(point_id)
        if pid < 0:
            raise InvalidGraphError(f"point id must be >= 0, got {pid}")
        pos = self._check_position(position)
        weight = float(weight_scale)
        if not math.isfinite(weight) or weight < 0:
            raise InvalidGraphError(f"weight_scale of point {pid} must be finite and >= 0, got {weight}")
        slot = self._slot.get(pid)
        if slot is None:
            slot = self._count
            self._grow(slot + 1)
            self._slot[pid] = slot
            self._ids[slot] = pid
            self._disabled[slot] = False
            self._count += 1
        self._pos[slot] = pos
        self._weight[slot] = weight
        self._csr = None

    def remove_point(self, point_id: int) -> None:
        """Remove a point and every segment touching it (O(segments)).

        Raises:
            UnknownPointError: the id is not in the graph.

        Example:
            >>> g = WaypointGraph(); g.add_point(1, (0, 0)); g.remove_point(1); g.has_point(1)
            False
        """
        slot = self._lookup(point_id)
        pid = int(point_id)
        last = self._count - 1
        if slot != last:  # swap-remove keeps the arrays dense
            moved = int(self._ids[last])
            for arr in (self._ids, self._pos, self._weight, self._disabled):
                arr[slot] = arr[last]
            self._slot[moved] = slot
        del self._slot[pid]
        self._count -= 1
        self._segments = {k: v for k, v in self._segments.items() if pid not in k}
        self._csr = None

    def has_point(self, point_id: int) -> bool:
        """True when ``point_id`` is in the graph."""
        return int(point_id) in self._slot

    def get_point_ids(self) -> I64:
        """All point ids, in insertion order except where removals swapped slots."""
        return np.array(self._ids[: self._count], dtype=np.int64)

    def get_point_position(self, point_id: int) -> F64:
        """The position of a point. Raises UnknownPointError for an unknown id."""
        return np.array(self._pos[self._lookup(point_id)], dtype=np.float64)

    def get_point_weight_scale(self, point_id: int) -> float:
        """The weight scale of a point. Raises UnknownPointError for an unknown id."""
        return float(self._weight[self._lookup(point_id)])

    def set_point_disabled(self, point_id: int, disabled: bool = True) -> None:
        """Disable (or re-enable) a point: a disabled point is never entered by a path.

        Raises:
            UnknownPointError: the id is not in the graph.
        """
        self._disabled[self._lookup(point_id)] = bool(disabled)
        self._csr = None

    def is_point_disabled(self, point_id: int) -> bool:
        """True when the point is disabled. Raises UnknownPointError for an unknown id."""
        return bool(self._disabled[self._lookup(point_id)])

    def __len__(self) -> int:
        return self._count

    # ---- segments -----------------------------------------------------------------------------
    def connect_points(self, a: int, b: int, bidirectional: bool = True) -> None:
        """Connect ``a -> b`` (and ``b -> a`` unless one-way); adds to an existing connection.

        Raises:
            UnknownPointError: either id is unknown.
            InvalidGraphError: ``a == b``.

        Example:
            >>> g = WaypointGraph(); g.add_point(0, (0, 0)); g.add_point(1, (1, 0))
            >>> g.connect_points(1, 0, bidirectional=False); g.are_points_connected(0, 1, False)
            False
        """
        key, bits = self._segment_key(a, b, bidirectional)
        self._segments[key] = self._segments.get(key, 0) | bits
        self._csr = None

    def disconnect_points(self, a: int, b: int, bidirectional: bool = True) -> None:
        """Remove ``a -> b`` (and ``b -> a`` when ``bidirectional``); absent segments are ignored.

        Raises:
            UnknownPointError: either id is unknown.
        """
        key, bits = self._segment_key(a, b, bidirectional)
        left = self._segments.get(key, 0) & ~bits
        if left:
            self._segments[key] = left
        else:
            self._segments.pop(key, None)
        self._csr = None

    def are_points_connected(self, a: int, b: int, bidirectional: bool = True) -> bool:
        """True when ``a -> b`` exists (with ``bidirectional``: either direction, as Godot)."""
        key, bits = self._segment_key(a, b, False)
        have = self._segments.get(key, 0)
        return bool(have) if bidirectional else bool(have & bits)

    def get_point_connections(self, point_id: int) -> I64:
        """Ids reachable from ``point_id`` in one step, sorted. Raises UnknownPointError."""
        pid = int(point_id)
        self._lookup(pid)
        out = [k[1] if k[0] == pid else k[0] for k, v in self._segments.items() if pid in k]
        keep = [o for o in out if self.are_points_connected(pid, o, bidirectional=False)]
        return np.asarray(sorted(keep), dtype=np.int64)

    # ---- queries ------------------------------------------------------------------------------
    def get_closest_point(self, position: npt.ArrayLike, include_disabled: bool = False) -> int:
        """Id of the point nearest ``position`` (ties: the smaller id); -1 when there is none.

        Example:
            >>> g = WaypointGraph(); g.add_point(7, (1, 0)); g.add_point(3, (-1, 0))
            >>> g.get_closest_point((0, 0))
            3
        """
        pos = self._check_position(position)
        mask = np.ones(self._count, dtype=np.bool_)
        if not include_disabled:
            mask &= ~self._disabled[: self._count]
        if not mask.any():
            return -1
        d2 = np.sum((self._pos[: self._count][mask] - pos) ** 2, axis=1)
        ids = self._ids[: self._count][mask]
        return int(ids[d2 == d2.min()].min())

    def get_closest_position_in_segment(self, position: npt.ArrayLike) -> F64:
        """Closest position on any segment whose both points are enabled (Godot: zeros if none).

        Example:
            >>> g = WaypointGraph(); g.add_point(0, (0, 0)); g.add_point(1, (4, 0)); g.connect_points(0, 1)
            >>> g.get_closest_position_in_segment((1, 3)).tolist()
            [1.0, 0.0]
        """
        pos = self._check_position(position)
        if not self._segments:
            return np.zeros(self.dim)
        pairs = np.asarray(list(self._segments), dtype=np.int64)
        sa = np.asarray([self._slot[int(i)] for i in pairs[:, 0]], dtype=np.int64)
        sb = np.asarray([self._slot[int(i)] for i in pairs[:, 1]], dtype=np.int64)
        keep = ~(self._disabled[sa] | self._disabled[sb])
        if not keep.any():
            return np.zeros(self.dim)
        a, b = self._pos[sa[keep]], self._pos[sb[keep]]
        ab = b - a
        denom = np.maximum(np.sum(ab * ab, axis=1), 1e-300)
        t = np.clip(np.sum((pos - a) * ab, axis=1) / denom, 0.0, 1.0)
        proj = a + t[:, None] * ab
        return np.asarray(proj[int(np.argmin(np.sum((proj - pos) ** 2, axis=1)))], dtype=np.float64)

    def find_path(self, start_id: int, goal_id: int, *, options: QueryOptions | None = None) -> PathResult:
        """Cheapest path from ``start_id`` to ``goal_id`` (Godot ``get_id_path`` semantics).

        Args:
            start_id, goal_id: point ids.
            options: heuristic (default Euclidean, scaled as the module docstring says),
                allow_partial, max_expansions.

        Returns:
            A :class:`PathResult`: ``nodes`` are point ids, ``points`` their positions.

        Raises:
            UnknownPointError: either id is unknown.
            InvalidQueryError: unknown heuristic or negative budget.
            UnsupportedOperationError: a unit ``size`` or ``radius`` (grids and navmeshes take them).

        Example:
            >>> g = WaypointGraph(); g.add_point(0, (0, 0)); g.add_point(1, (1, 0))
            >>> g.find_path(0, 1).status.value  # not connected
            'no_path'
        """
        if options is not None and (options.size != 1 or options.radius is not None):
            raise UnsupportedOperationError(
                "a waypoint graph has no unit sizes: 'size' is for grids, 'radius' for grids and navmeshes"
            )
        s, t = self._lookup(start_id), self._lookup(goal_id)
        if s == t:
            return PathResult(PathStatus.FOUND, self._pos[[s]].copy(), np.array([int(start_id)]), 0.0, 0)
        csr, csr_ids = self._graph()
        if self._disabled[s]:
            return PathResult(PathStatus.NO_PATH, np.zeros((0, self.dim)))
        if self._disabled[t] and not (options and options.allow_partial):
            return PathResult(PathStatus.NO_PATH, np.zeros((0, self.dim)))
        enabled = self._weight[: self._count][~self._disabled[: self._count]]
        scale = min(1.0, float(enabled.min())) if enabled.size else 1.0
        res = find_csr_path(csr, s, t, options=options, heuristic_scale=scale)
        return PathResult(res.status, res.points, csr_ids[res.nodes], res.cost, res.expanded)

    @classmethod
    def from_arrays(
        cls,
        ids: npt.ArrayLike,
        positions: npt.ArrayLike,
        weight_scales: npt.ArrayLike | None = None,
        edges: npt.ArrayLike | None = None,
        *,
        bidirectional: bool | npt.ArrayLike = True,
        disabled: npt.ArrayLike | None = None,
    ) -> WaypointGraph:
        """Build a graph in one call from arrays (the bulk form of the add/connect calls).

        Args:
            ids: ``(n,)`` distinct point ids >= 0.
            positions: ``(n, 2)`` or ``(n, 3)``; the width sets ``dim``.
            weight_scales: ``(n,)`` or None for all 1.
            edges: ``(m, 2)`` id pairs, or None.
            bidirectional: one flag for all edges or an ``(m,)`` mask (False = one-way a -> b).
            disabled: ``(n,)`` bool mask or None.

        Returns:
            The graph.

        Raises:
            InvalidGraphError: shape mismatch, duplicate ids, bad values; UnknownPointError for
                an edge naming an unknown id.

        Example:
            >>> g = WaypointGraph.from_arrays([5, 6], [[0, 0], [0, 1]], edges=[[5, 6]], bidirectional=[False])
            >>> g.find_path(6, 5).status.value
            'no_path'
        """
        pos = np.asarray(positions, dtype=np.float64)
        idv = np.asarray(ids, dtype=np.int64).reshape(-1)
        if pos.ndim != 2 or pos.shape[1] not in (2, 3) or pos.shape[0] != idv.shape[0]:
            raise InvalidGraphError(
                f"positions must be (n, 2|3) matching {idv.shape[0]} ids, got {pos.shape}"
            )
        if np.unique(idv).shape[0] != idv.shape[0]:
            raise InvalidGraphError("point ids must be distinct")
        w = np.ones(idv.shape[0]) if weight_scales is None else np.asarray(weight_scales, dtype=np.float64)
        graph = cls(dim=int(pos.shape[1]))
        for i in range(idv.shape[0]):
            graph.add_point(int(idv[i]), pos[i], float(w.reshape(-1)[i]))
        if disabled is not None:
            graph._disabled[: graph._count] = np.asarray(disabled, dtype=np.bool_).reshape(-1)
        e = np.zeros((0, 2), dtype=np.int64) if edges is None else np.asarray(edges, dtype=np.int64)
        both = np.broadcast_to(np.asarray(bidirectional, dtype=np.bool_), (e.reshape(-1, 2).shape[0],))
        for (a, b), two_way in zip(e.reshape(-1, 2).tolist(), both.tolist(), strict=True):
            graph.connect_points(a, b, two_way)
        return graph

    # ---- internals ----------------------------------------------------------------------------
    def _lookup(self, point_id: int) -> int:
        slot = self._slot.get(int(point_id))
        if slot is None:
            raise UnknownPointError(f"unknown point id {point_id}", int(point_id))
        return slot

    def _check_position(self, position: npt.ArrayLike) -> F64:
        pos = np.asarray(position, dtype=np.float64).reshape(-1)
        if pos.shape[0] != self.dim or not np.all(np.isfinite(pos)):
            raise InvalidGraphError(f"position must be {self.dim} finite numbers, got {pos.tolist()}")
        return pos

    def _segment_key(self, a: int, b: int, bidirectional: bool) -> tuple[tuple[int, int], int]:
        self._lookup(a)
        self._lookup(b)
        a, b = int(a), int(b)
        if a == b:
            raise InvalidGraphError(f"cannot connect point {a} to itself")
        bits = (_FORWARD | _BACKWARD) if bidirectional else (_FORWARD if a < b else _BACKWARD)
        return (min(a, b), max(a, b)), bits

    def _grow(self, size: int) -> None:
        cap = self._ids.shape[0]
        if size <= cap:
            return
        new = max(size, 2 * cap, 8)
        self._ids = np.resize(self._ids, new)
        self._pos = np.resize(self._pos, (new, self.dim))
        self._weight = np.resize(self._weight, new)
        self._disabled = np.resize(self._disabled, new)

    def _graph(self) -> tuple[CsrGraph, I64]:
        """The CSR view and each of its nodes' id, rebuilt after any change (edges into disabled
        points dropped): one querying thread builds it, under a lock, and sets both at once."""
        built = self._csr
        if built is not None:
            return built
        with _BUILDING:
            built = self._csr
            if built is None:
                built = self._csr = self._build_csr()
            return built

    def _build_csr(self) -> tuple[CsrGraph, I64]:
        n = self._count
        directed: list[tuple[int, int]] = []
        for (lo, hi), bits in self._segments.items():
            if bits & _FORWARD:
                directed.append((self._slot[lo], self._slot[hi]))
            if bits & _BACKWARD:
                directed.append((self._slot[hi], self._slot[lo]))
        e = np.asarray(directed, dtype=np.int64).reshape(-1, 2)
        e = e[~self._disabled[e[:, 1]]]
        pos = self._pos[:n].copy()
        cost = np.linalg.norm(pos[e[:, 1]] - pos[e[:, 0]], axis=1) * self._weight[e[:, 1]]
        return CsrGraph.from_edges(pos, e, cost), self._ids[:n].copy()
