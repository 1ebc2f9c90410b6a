"""``path.find_packed``: many paths on one grid with one options map, endpoints and answers as ``bin``.

    batch = parse_packed(raw)                              # shapes checked, on the loop
    part = run_packed_chunk(batch, range(0, 256), registry=registry, shared={"g"}, cap=10**7, default=None)
    answer = join_packed([part, ...])                      # the wire map

Why: a ``path.find_many`` query is a map to validate and its answer a map to build, a few
microseconds of Python each, which is most of an HPA* query's time through the socket (about 9 us
of search). Here the graph and options are validated once per chunk, the endpoints arrive as one
array, and the answers leave as a handful of arrays: per query, only the search and a slice.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from bridge.methods.params import Params
from bridge.methods.queries import parse_options_map, sized
from bridge.methods.registry import Registry
from bridge.serving.packed_mesh import mesh_step, mesh_work
from bridge.wire.answers import BYTES_PER_PATH_CELL, AnswerBudget, step_queries
from bridge.wire.errors import (
    BadRequestError,
    TooLargeError,
    UnknownGraphError,
    UnsupportedError,
    from_exception,
)
from bridge.wire.stream import pack
from python_core import PathResult, PathStatus, QueryOptions
from python_core.errors import InvalidQueryError
from python_core.navigation.grid import GridNavigator
from python_core.navigation.navmesh import NavMeshNavigator
from python_core.path_batch import STATUS_ORDER, PathBatch

__all__ = [
    "STATUS_CODES",
    "PackedBatch",
    "balanced_pieces",
    "check_packed",
    "join_packed",
    "packed_bytes",
    "packed_message",
    "packed_pieces",
    "parse_packed",
    "run_packed_chunk",
]

STATUS_CODES = {
    PathStatus.FOUND: 0, PathStatus.PARTIAL: 1, PathStatus.NO_PATH: 2, PathStatus.BUDGET_EXHAUSTED: 3
}  # fmt: skip
"""A query's status byte; 255 is an error (its map under ``errors``)."""
ERROR_CODE = 255
_WIRE_STATUS = np.array([STATUS_CODES[status] for status in STATUS_ORDER], dtype=np.uint8)
"""The status byte of each :data:`~python_core.path_batch.STATUS_ORDER` code."""


@dataclass(frozen=True)
class PackedBatch:
    """One ``path.find_packed`` request, its shapes checked (the graph and options are checked
    against the loaded graph on the search threads)."""

    graph_id: str
    starts: npt.NDArray[Any]
    goals: npt.NDArray[Any]
    options: Any  # the raw options map (validated once per chunk)
    corridors: bool = True  # False: a navmesh's answer leaves out each path's polygons

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    @property
    def cells(self) -> bool:
        """Whether the endpoints are the grid's cells (``"cells": true``), on any grid."""
        return self.starts.dtype.kind == "i"

    @property
    def hierarchical(self) -> bool:
        """Whether the options ask for HPA* (read before they are validated: a chunking hint)."""
        return isinstance(self.options, dict) and self.options.get("hierarchical") is True


def parse_packed(raw: Any, max_batch: int) -> PackedBatch:
    """Validate the request's fields and shapes: ``starts`` and ``goals`` as int32 cell pairs or
    float32 position pairs (the same type both), as many of each, at most ``max_batch``."""
    params = Params(raw, "path.find_packed") if isinstance(raw, dict) else None
    if params is None:
        raise BadRequestError("path.find_packed: params must be a map")
    params.only("graph", "starts", "goals", "cells", "dim", "options", "corridors")
    graph_id = params.text("graph")
    cells = params.flag("cells", True)
    corridors = params.flag("corridors", True)  # a navmesh's polygons per path (grids: ignored)
    dim = params.integer("dim", minimum=2, maximum=3) if params.has("dim") else 2  # 3: a 3D navmesh
    if cells and dim != 2:
        raise BadRequestError(
            "path.find_packed: 'dim' 3 takes float32 positions (cells: false)", {"field": "dim"}
        )
    dtype = "<i4" if cells else "<f4"
    ends = []
    for key in ("starts", "goals"):
        blob = params.blob(key)
        if len(blob) % (4 * dim):
            kind = "int32 (x, y) cells" if cells else f"float32 positions of {dim} numbers"
            raise BadRequestError(
                f"path.find_packed: {key!r} must be {kind}, got {len(blob)} bytes", {"field": key}
            )
        ends.append(np.frombuffer(blob, dtype=dtype).reshape(-1, dim))
    if ends[0].shape != ends[1].shape:
        raise BadRequestError(
            f"path.find_packed: {len(ends[0])} starts but {len(ends[1])} goals", {"field": "goals"}
        )
    if len(ends[0]) > max_batch:
        raise TooLargeError(
            f"path.find_packed: {len(ends[0])} queries exceed the limit of {max_batch}", {"limit": max_batch}
        )
    options = params.values.get("options")
    if options is not None and not isinstance(options, dict):
        raise BadRequestError("path.find_packed: 'options' must be a map", {"field": "options"})
    return PackedBatch(graph_id, ends[0].astype(np.int64 if cells else np.float64), ends[1].astype(
        np.int64 if cells else np.float64), options, corridors)  # fmt: skip


PIECE_OVERHEAD = 384.0
"""What a query costs beside its path, in cells of path: its ends' trees, the table look-up, its
arrays and its share of the chunk's Python. Chosen by timing the two pieces of 100 scenario
queries in process: 64 left brc202d's at 1.06 / 0.87 ms, 256 at 0.95 / 0.96; Aurora's and
random512-10-0's balance past 512, 32room_000's at 128-256."""


def balanced_pieces(work: npt.NDArray[np.float64], count: int, last_lead: float = 0.0) -> list[range]:
    """``count`` consecutive ranges covering the queries (fewer when there are fewer queries), each
    holding about the same share of ``work`` (a rough cost per query, in cells of path) plus
    :data:`PIECE_OVERHEAD` per query; the last one ``1 + last_lead`` shares."""
    if work.size == 0:
        return []
    total = np.cumsum(work + PIECE_OVERHEAD)
    shares = np.arange(1, count) / (count + last_lead)
    cuts = np.searchsorted(total, total[-1] * shares, side="right").tolist()
    bounds = [0, *(int(cut) for cut in cuts), work.size]  # in order: cuts of rising shares
    return [range(lo, hi) for lo, hi in itertools.pairwise(bounds) if hi > lo]


def packed_pieces(batch: PackedBatch, count: int, registry: Registry, last_lead: float = 0.0) -> list[range]:
    """:func:`balanced_pieces` of the batch by its grid's :meth:`GridNavigator.work_estimates`
    (a navmesh's: :func:`~bridge.serving.packed_mesh.mesh_work`); read under the batch's read
    share (an unknown graph or kind: by count, a chunk reports it)."""
    if len(batch) < 2:  # nothing to share out (one query's estimate cost 30-55 us on the loop)
        return [range(len(batch))] if len(batch) else []
    entry = registry.find(batch.graph_id)
    work = np.zeros(len(batch))
    if count > 1 and entry is not None and isinstance(entry.graph, GridNavigator):
        work = entry.graph.work_estimates(
            batch.starts, batch.goals, hierarchical=batch.hierarchical, cells=batch.cells
        )
    elif count > 1 and entry is not None and isinstance(entry.graph, NavMeshNavigator) and not batch.cells:
        work = mesh_work(batch.starts, batch.goals, PIECE_OVERHEAD)
    return balanced_pieces(work, count, last_lead)


def check_packed(
    batch: PackedBatch, registry: Registry, *, cap: int, default: int | None
) -> tuple[GridNavigator | NavMeshNavigator, QueryOptions, bool, bool]:
    """The request's own errors, before any query runs (under the batch's read share): an unknown
    graph, not a grid, a bad options map (an unknown heuristic...), positions on a grid not placed
    in the world (cells are taken on any grid). Returns what the batch runs on: its navigator,
    options, whether it is hierarchical and wants corridors.

    Raises:
        UnknownGraphError, UnsupportedError, BadRequestError: as their names say.
    """
    return _checked(batch, registry, cap, default)


def _checked(
    batch: PackedBatch, registry: Registry, cap: int, default: int | None
) -> tuple[GridNavigator | NavMeshNavigator, QueryOptions, bool, bool]:
    entry = registry.get(batch.graph_id)
    nav = entry.graph
    where = "path.find_packed"
    if isinstance(nav, NavMeshNavigator):
        if batch.cells:
            raise BadRequestError(
                f"{where}: a navmesh takes float32 positions ('cells': false)", {"field": "cells"}
            )
        if batch.starts.shape[1] != nav.dim:
            raise BadRequestError(f"{where}: {batch.graph_id!r} takes positions of {nav.dim} numbers ('dim')",
                                  {"field": "dim"})  # fmt: skip
    elif not isinstance(nav, GridNavigator):
        raise UnsupportedError(
            f"{where}: grids and navmeshes only; {batch.graph_id!r} is a {entry.kind.name}"
        )
    elif batch.starts.shape[1] != 2:
        raise BadRequestError(f"{where}: a grid takes (x, y) pairs ('dim' 2)", {"field": "dim"})
    options, hierarchical, corridor = parse_options_map(batch.options, entry, cap, default, where)
    if isinstance(nav, NavMeshNavigator):
        if hierarchical or corridor:
            raise UnsupportedError(f"{where}: 'hierarchical' and 'corridor' are for grids")
        try:
            nav.ready_for(options)  # a size on a navmesh is the request's error, not each query's
        except InvalidQueryError as exc:
            raise BadRequestError(f"{where}: {exc}", {"field": "options"}) from None
        return nav, options, hierarchical, corridor
    if nav.endpoints.cells and not batch.cells:  # a grid not placed in the world has no positions
        raise BadRequestError(f"{where}: {batch.graph_id!r} takes int32 cells", {"field": "starts"})
    return nav, options, hierarchical, corridor


def run_packed_chunk(
    batch: PackedBatch,
    indices: range,
    *,
    registry: Registry,
    shared: set[str],
    cap: int,
    default: int | None,
    budget: AnswerBudget,
) -> dict[str, Any]:
    """The answers of ``indices``, as arrays (see :func:`join_packed`), on a search thread. A bad
    graph or options map raises (the whole request's error); a query that fails alone (a start on
    a wall, outside the grid) is status 255 with its error. The queries run a few at a time, so
    many on a big graph, each path as long as the graph, stay near ``budget``'s cap: each step's
    answer is counted in ``budget`` (``too_large`` past it)."""
    if batch.graph_id not in shared:
        raise UnknownGraphError(batch.graph_id)
    nav, options, hierarchical, corridor = _checked(batch, registry, cap, default)
    # A hierarchical grid batch stops by itself once its paths hold a step's worth of cells (one
    # call for the whole chunk on any map); others go a few queries at a time on a big graph.
    grid_hpa = hierarchical and isinstance(nav, GridNavigator)
    step = indices.stop - indices.start if grid_hpa else step_queries(nav.node_count, budget.cap)
    max_cells = max(1, budget.cap // BYTES_PER_PATH_CELL) if grid_hpa else None
    parts = []
    lo = indices.start
    while lo < indices.stop:
        piece = range(lo, min(lo + max(1, step), indices.stop))
        part = _packed_step(
            batch, piece, nav, options, hierarchical=hierarchical, corridor=corridor, max_cells=max_cells
        )
        budget.add(packed_bytes(part))
        parts.append(part)
        lo += max(1, len(part["status"]))
    if len(parts) == 1:
        return parts[0]
    errors = [e for part in parts for e in part["errors"]]
    keys = ("status", "costs", "expanded", "counts", "points", "nodes", "node_counts")
    return {
        "errors": errors,
        **{key: np.concatenate([p[key] for p in parts]) for key in keys if key in parts[0]},
    }


def packed_bytes(part: dict[str, Any]) -> int:
    """The wire bytes of a chunk's part (arrays by their wire types, and its errors, roughly)."""
    queries, cells = len(part["status"]), len(part["nodes"])
    return queries * 33 + cells * 8 + int(part["points"].size) * 4 + 256 * len(part["errors"])


def _packed_step(
    batch: PackedBatch,
    indices: range,
    nav: GridNavigator | NavMeshNavigator,
    options: QueryOptions,
    *,
    hierarchical: bool,
    corridor: bool,
    max_cells: int | None = None,
) -> dict[str, Any]:
    """The answers of ``indices``, or of their first few when ``max_cells`` stopped a
    hierarchical batch early (the part's length says how many)."""
    if isinstance(nav, NavMeshNavigator):
        return mesh_step(batch, indices, nav, options)
    lo, hi = indices.start, indices.stop
    if hi - lo == 1:  # one query: the single search (the batch kernel's set-up cost more than it)
        return _one_by_one(nav, batch, indices, options, hierarchical=hierarchical, corridor=corridor)
    try:
        if not batch.cells:  # positions: each resolved to its cell (an error here is one query's own)
            unit = sized(options)  # a sized unit's anchor: its footprint centre nearest the position
            starts = np.array(
                [nav.resolve(tuple(p), unit) for p in batch.starts[lo:hi].tolist()], dtype=np.int64
            )
            goals = np.array(
                [nav.resolve(tuple(p), unit) for p in batch.goals[lo:hi].tolist()], dtype=np.int64
            )
        else:  # cells go as they are, on any grid (the search checks they lie in it)
            starts, goals = batch.starts[lo:hi], batch.goals[lo:hi]
        found = nav.find_batch(
            starts, goals, options, hierarchical=hierarchical, corridor=corridor, max_cells=max_cells
        )
        return _packed(found, [], lo)
    except Exception:  # a bad pair: each query answers for itself
        return _one_by_one(nav, batch, indices, options, hierarchical=hierarchical, corridor=corridor)


def _one_by_one(
    nav: GridNavigator,
    batch: PackedBatch,
    indices: range,
    options: QueryOptions,
    *,
    hierarchical: bool,
    corridor: bool,
) -> dict[str, Any]:
    """The chunk's answers query by query, each error the answer of its own query."""
    positions, unit = not batch.cells, sized(options)
    results: list[PathResult] = []
    errors: list[list[Any]] = []
    for i in indices:
        s, g = batch.starts[i].tolist(), batch.goals[i].tolist()
        try:
            cells = [
                nav.resolve(tuple(end), unit) if positions else (int(end[0]), int(end[1])) for end in (s, g)
            ]
            results.append(
                nav.find_path(cells[0], cells[1], options, hierarchical=hierarchical, corridor=corridor)
            )
        except Exception as exc:  # a query's error is its answer
            results.append(PathResult(PathStatus.NO_PATH))
            errors.append([i, from_exception(exc).to_wire()])
    return _packed(PathBatch.from_results(results, nav.dim), errors, indices.start)


def _packed(found: PathBatch, errors: list[list[Any]], first: int) -> dict[str, Any]:
    """A chunk's part of the answer: the batch's arrays, status 255 where a query failed."""
    status = _WIRE_STATUS[found.status]
    for i, _ in errors:
        status[i - first] = ERROR_CODE
    return {
        "status": status, "costs": found.costs, "expanded": found.expanded,
        "counts": np.diff(found.offsets), "errors": errors, "nodes": found.nodes,
        "points": found.points.astype("<f4"),  # the wire's type now: a part is held until the join
    }  # fmt: skip


def join_packed(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The wire answer of a batch's chunks, in order: ``status`` (uint8 per query), ``costs``
    (float64), ``expanded`` (int64), ``offsets`` (int64, queries + 1: query ``i``'s points and nodes
    are ``[offsets[i], offsets[i + 1])``), ``points`` (float32 pairs or triples), ``nodes`` (int64),
    and ``errors`` (``[query index, error map]`` of each status 255). Each array is written once, in
    its wire type, and leaves as a memoryview (msgpack packs it as ``bin`` without another copy)."""
    counts = np.concatenate([p["counts"] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    offsets = np.zeros(counts.size + 1, dtype="<i8")
    np.cumsum(counts, out=offsets[1:])
    errors = [e for part in parts for e in part["errors"]]

    def joined(key: str, dtype: str) -> memoryview:
        arrays = [p[key] for p in parts]
        out = np.empty((sum(len(a) for a in arrays), *(arrays[0].shape[1:] if arrays else ())), dtype=dtype)
        at = 0
        for a in arrays:
            out[at : at + len(a)] = a
            at += len(a)
        return out.reshape(-1).data.cast("B")

    out = {
        "status": joined("status", "u1"), "costs": joined("costs", "<f8"),
        "expanded": joined("expanded", "<i8"), "offsets": offsets.data.cast("B"),
        "points": joined("points", "<f4"), "nodes": joined("nodes", "<i8"), "errors": errors,
    }  # fmt: skip
    if parts and "node_counts" in parts[0]:  # a navmesh: corridors apart from the waypoints
        out["node_offsets"] = _node_offsets(parts).data.cast("B")
    return out


def _node_offsets(parts: list[dict[str, Any]]) -> npt.NDArray[np.int64]:
    """A navmesh answer's ``node_offsets``: query ``i``'s polygons are rows
    ``[node_offsets[i], node_offsets[i + 1])`` of ``nodes``."""
    counts = np.concatenate([p["node_counts"] for p in parts])
    out = np.zeros(counts.size + 1, dtype="<i8")
    np.cumsum(counts, out=out[1:])
    return out


_WIRE_TYPES = (("status", "u1"), ("costs", "<f8"), ("expanded", "<i8"), ("points", "<f4"), ("nodes", "<i8"))


def packed_message(parts: list[dict[str, Any]]) -> list[bytes | memoryview]:
    """``pack(join_packed(parts))``, the same bytes, written straight from the parts as the pieces
    they are made of, the arrays' own memory among them: the transport writes them in one
    ``writev`` (uvloop), so a large answer (760 KB for 100 paths on brc202d) is not copied into one
    buffer first, nor joined, then copied again by the encoder.

    Example:
        >>> import msgpack
        >>> part = {"status": np.zeros(1, "u1"), "costs": np.ones(1), "expanded": np.ones(1, "i8"),
        ...         "counts": np.ones(1, "i8"), "points": np.zeros((1, 2)), "nodes": np.zeros(1, "i8"),
        ...         "errors": []}
        >>> b"".join(packed_message([part, part])) == pack(join_packed([part, part]))
        True
    """
    counts = np.concatenate([p["counts"] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    offsets = np.zeros(counts.size + 1, dtype="<i8")
    np.cumsum(counts, out=offsets[1:])
    mesh = bool(parts) and "node_counts" in parts[0]
    pieces: list[Any] = [b"\x88" if mesh else b"\x87"]  # a map of 8 (a navmesh's) or 7
    for key, dtype in _WIRE_TYPES:
        arrays = [np.ascontiguousarray(p[key], dtype=dtype).reshape(-1) for p in parts]
        _bin(pieces, key, arrays)
        if key == "expanded":
            _bin(pieces, "offsets", [offsets])
    pieces += [pack("errors"), pack([e for part in parts for e in part["errors"]])]
    if mesh:  # last, as in join_packed's map
        _bin(pieces, "node_offsets", [_node_offsets(parts)])
    return pieces


def _bin(pieces: list[Any], key: str, arrays: list[npt.NDArray[Any]]) -> None:
    """``key`` and a bin of ``arrays``' bytes, one after the other (no copy until the join); its
    header the smallest that holds it, as msgpack writes one (the same bytes as ``pack``)."""
    size = sum(a.nbytes for a in arrays)
    if size < 1 << 8:
        head = b"\xc4" + size.to_bytes(1, "big")
    elif size < 1 << 16:
        head = b"\xc5" + size.to_bytes(2, "big")
    else:
        head = b"\xc6" + size.to_bytes(4, "big")
    pieces += [pack(key), head, *(a.data.cast("B") for a in arrays)]
