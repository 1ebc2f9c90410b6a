"""``path.find_packed`` on a navmesh: a chunk's positions in, its waypoints out as arrays.

    part = mesh_step(batch, range(0, 160), nav, options)   # the part of a chunk (see packed.py)

Why: a ``path.find_many`` query on a small mesh costs several times its search in maps to
validate and build; here the chunk's queries run as one :meth:`NavMeshNavigator.find_batch` (one
compiled call in the funnel mode) and leave as arrays. A path's waypoints and its polygon
corridor differ in length, so a navmesh part carries ``node_counts`` beside ``counts``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from bridge.wire.errors import from_exception
from python_core import PathResult, PathStatus, QueryOptions
from python_core.navigation.navmesh import NavMeshNavigator
from python_core.navmesh.batch import MeshBatch
from python_core.path_batch import STATUS_ORDER

F64 = npt.NDArray[np.float64]

__all__ = ["ERROR_CODE", "QUERY_SHARE", "mesh_part", "mesh_step", "mesh_work"]

ERROR_CODE = 255
QUERY_SHARE = 9.0
"""A navmesh query's search against what it costs beside it (its ends, its share of the chunk's
Python): about 90 / 10 for Polyanya on aurora (in process, 200 scenario queries)."""
_WIRE_STATUS = np.array([{"found": 0, "partial": 1, "no_path": 2, "budget_exhausted": 3}[s.value]
                         for s in STATUS_ORDER], dtype=np.uint8)  # fmt: skip


def mesh_work(starts: F64, goals: F64, overhead: float) -> F64:
    """A rough cost per navmesh query, in units where ``overhead`` is what a query costs beside its
    search (:func:`~bridge.serving.packed.balanced_pieces` adds it): the straight distance between
    its ends to the power 1.5 (its time on aurora's 200 scenario queries grew so), scaled to
    :data:`QUERY_SHARE` overheads on average. Why: scenario files list short paths first, so equal
    counts gave the last piece of a frame's batch most of the work (a thread idle meanwhile)."""
    work: F64 = np.linalg.norm(goals - starts, axis=1) ** 1.5
    mean = float(work.mean()) if work.size else 0.0
    if not np.isfinite(mean) or mean <= 0.0:  # all queries in place, or a non-finite end
        return np.zeros(work.shape[0])
    scaled: F64 = np.nan_to_num(work * (QUERY_SHARE * overhead / mean), posinf=0.0)
    return scaled


def mesh_step(batch: Any, indices: range, nav: NavMeshNavigator, options: QueryOptions) -> dict[str, Any]:
    """The answers of ``indices`` (``batch``: a :class:`~bridge.serving.packed.PackedBatch` of
    float positions, one row per query; its ``corridors`` False: each path's polygons left out,
    ``node_counts`` all 0); a query that fails alone (a non-finite position) is status 255 with
    its error, the others are still answered."""
    lo, hi = indices.start, indices.stop
    starts, goals = batch.starts[lo:hi], batch.goals[lo:hi]
    try:
        return mesh_part(nav.find_batch(starts, goals, options, corridors=batch.corridors), [], lo)
    except Exception:  # a bad row: each query answers for itself
        results: list[PathResult] = []
        errors: list[list[Any]] = []
        for i in indices:
            try:
                found = nav.find_path(batch.starts[i], batch.goals[i], options)
                results.append(found if batch.corridors else replace(found, nodes=found.nodes[:0]))
            except Exception as exc:  # a query's error is its answer
                results.append(PathResult(PathStatus.NO_PATH))
                errors.append([i, from_exception(exc).to_wire()])
        return mesh_part(MeshBatch.from_results(results, nav.dim), errors, lo)


def mesh_part(found: MeshBatch, errors: list[list[Any]], first: int) -> dict[str, Any]:
    """A chunk's part of the answer: the batch's arrays, status 255 where a query failed."""
    status = _WIRE_STATUS[found.status]
    for i, _ in errors:
        status[i - first] = ERROR_CODE
    return {
        "status": status, "costs": found.costs, "expanded": found.expanded,
        "counts": np.diff(found.offsets), "node_counts": np.diff(found.node_offsets),
        "errors": errors, "nodes": found.nodes, "points": found.points.astype("<f4"),
    }  # fmt: skip
