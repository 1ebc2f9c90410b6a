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

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from bridge.errors import BadRequestError, TooLargeError, UnknownGraphError, UnsupportedError, from_exception
from bridge.params import Params
from bridge.queries import parse_options_map
from bridge.registry import Registry
from python_core import PathResult, PathStatus
from python_core.navigation.grid import GridNavigator

__all__ = ["STATUS_CODES", "PackedBatch", "join_packed", "parse_packed", "run_packed_chunk"]

STATUS_CODES = {
    PathStatus.FOUND: 0, PathStatus.PARTIAL: 1, PathStatus.NO_PATH: 2, PathStatus.BUDGET_EXHAUSTED: 3
}  # fmt: skip
"""A query's status byte; 255 is an error (its map under ``errors``)."""
ERROR_CODE = 255


@dataclass(frozen=True)
class PackedBatch:
    """One ``path.find_packed`` request, its shapes checked (the graph and options are checked
    against the loaded graph on the search threads)."""

    graph_id: str
    starts: npt.NDArray[Any]
    goals: npt.NDArray[Any]
    options: Any  # the raw options map (validated once per chunk)

    def __len__(self) -> int:
        return int(self.starts.shape[0])

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
    params.only("graph", "starts", "goals", "cells", "options")
    graph_id = params.text("graph")
    cells = params.flag("cells", True)
    dtype = "<i4" if cells else "<f4"
    ends = []
    for key in ("starts", "goals"):
        blob = params.blob(key)
        if len(blob) % 8:
            kind = "int32 (x, y) cells" if cells else "float32 (x, y) positions"
            raise BadRequestError(
                f"path.find_packed: {key!r} must be {kind}, got {len(blob)} bytes", {"field": key}
            )
        ends.append(np.frombuffer(blob, dtype=dtype).reshape(-1, 2))
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
        np.int64 if cells else np.float64), options)  # fmt: skip


def run_packed_chunk(
    batch: PackedBatch, indices: range, *, registry: Registry, shared: set[str], cap: int, default: int | None
) -> dict[str, Any]:
    """The answers of ``indices``, as arrays (see :func:`join_packed`), on a search thread. A bad
    graph or options map raises (the whole request's error); a query that fails alone (a start on
    a wall, outside the grid) is status 255 with its error."""
    if batch.graph_id not in shared:
        raise UnknownGraphError(batch.graph_id)
    entry = registry.get(batch.graph_id)
    nav = entry.graph
    if not isinstance(nav, GridNavigator):
        raise UnsupportedError(f"path.find_packed: grids only; {batch.graph_id!r} is a {entry.kind.name}")
    where = "path.find_packed"
    options, hierarchical, corridor = parse_options_map(batch.options, entry, cap, default, where)
    lo, hi = indices.start, indices.stop
    world = not nav.endpoints.cells
    if world == (batch.starts.dtype.kind == "i"):
        form = "float32 world positions (cells: false)" if world else "int32 cells"
        raise BadRequestError(f"{where}: {batch.graph_id!r} takes {form}", {"field": "starts"})
    raw = list(zip(batch.starts[lo:hi].tolist(), batch.goals[lo:hi].tolist(), strict=True))

    def cell(end: list[Any]) -> tuple[int, int]:
        return nav.resolve(tuple(end)) if world else (int(end[0]), int(end[1]))

    results: list[PathResult | BaseException]
    try:
        pairs = [(cell(s), cell(g)) for s, g in raw]
        starts, goals = [p[0] for p in pairs], [p[1] for p in pairs]
        results = list(nav.find_many(starts, goals, options, hierarchical=hierarchical, corridor=corridor))
    except Exception:  # a bad pair: each query answers for itself
        results = []
        for s, g in raw:
            try:
                results.append(
                    nav.find_path(cell(s), cell(g), options, hierarchical=hierarchical, corridor=corridor)
                )
            except Exception as exc:  # a query's error is its answer
                results.append(exc)
    return _packed(results, lo, nav.dim)


def _packed(results: list[PathResult | BaseException], first: int, dim: int) -> dict[str, Any]:
    status = np.empty(len(results), dtype=np.uint8)
    costs = np.full(len(results), np.inf)
    expanded = np.zeros(len(results), dtype=np.int64)
    counts = np.zeros(len(results), dtype=np.int64)
    points: list[npt.NDArray[Any]] = []
    nodes: list[npt.NDArray[Any]] = []
    errors: list[list[Any]] = []
    for i, r in enumerate(results):
        if isinstance(r, BaseException):
            status[i] = ERROR_CODE
            errors.append([first + i, from_exception(r).to_wire()])
            continue
        status[i] = STATUS_CODES[r.status]
        costs[i], expanded[i], counts[i] = r.cost, r.expanded, len(r.nodes)
        points.append(r.points)
        nodes.append(r.nodes)
    return {
        "status": status, "costs": costs, "expanded": expanded, "counts": counts, "errors": errors,
        "points": np.concatenate(points).reshape(-1, dim) if points else np.zeros((0, dim)),
        "nodes": np.concatenate(nodes) if nodes else np.zeros(0, dtype=np.int64),
    }  # fmt: skip


def join_packed(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The wire answer of a batch's chunks, in order: ``status`` (uint8 per query), ``costs``
    (float64), ``expanded`` (int64), ``offsets`` (int64, queries + 1: query ``i``'s points and nodes
    are ``[offsets[i], offsets[i + 1])``), ``points`` (float32 pairs or triples), ``nodes`` (int64),
    and ``errors`` (``[query index, error map]`` of each status 255)."""
    counts = np.concatenate([p["counts"] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    offsets = np.zeros(counts.size + 1, dtype="<i8")
    np.cumsum(counts, out=offsets[1:])
    errors = [e for part in parts for e in part["errors"]]

    def joined(key: str, dtype: str) -> bytes:
        return b"".join(np.ascontiguousarray(p[key], dtype=dtype).tobytes() for p in parts)

    return {
        "status": joined("status", "u1"), "costs": joined("costs", "<f8"),
        "expanded": joined("expanded", "<i8"), "offsets": offsets.tobytes(),
        "points": joined("points", "<f4"), "nodes": joined("nodes", "<i8"), "errors": errors,
    }  # fmt: skip
