"""Many navmesh queries at once, their answers as flat arrays (:class:`MeshBatch`).

    batch = find_mesh_batch(mesh, starts, goals)          # (n, dim) arrays of positions
    batch.statuses(); batch.points[batch.offsets[i]:batch.offsets[i + 1]]

Why: on a small mesh the search is a few microseconds and a query's Python around it (checks,
a ``PathResult``, the kernel call's unboxing) several times that; here the default mode runs the
whole batch in one compiled call (:func:`~python_core.navmesh.batch_kernel.nav_query_batch`).
A path's waypoints and its polygon corridor differ in length: each has its own offsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, U8
from python_core.compiled import register_warm_up
from python_core.csr.kernel import heuristic_code
from python_core.errors import InvalidQueryError
from python_core.navmesh.batch_kernel import nav_query_batch
from python_core.navmesh.corridor_kernel import nav_scratch
from python_core.navmesh.mesh import NavMesh
from python_core.path_batch import STATUS_ORDER
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["MeshBatch", "check_ends", "find_mesh_batch"]

_KERNEL_TO_CODE = np.array([2, 0, 2, 3, 1], dtype=np.uint8)
"""The :data:`STATUS_ORDER` code of a kernel status + 1 (-1 no polygon on the layers: no path;
found; no path; budget; partial)."""
_CODES = {status: code for code, status in enumerate(STATUS_ORDER)}


def _offsets(counts: I64) -> I64:
    out = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


@dataclass(frozen=True, slots=True)
class MeshBatch:
    """The answers of ``n`` navmesh queries, in order.

    Attributes:
        status: ``(n,)`` uint8 codes into :data:`~python_core.path_batch.STATUS_ORDER`.
        costs, expanded: ``(n,)`` per query (``inf`` cost without a path).
        offsets: ``(n + 1,)``: query ``i``'s waypoints are ``points[offsets[i]:offsets[i + 1]]``.
        points: every path's waypoints, ``(rows, dim)``.
        node_offsets: ``(n + 1,)``: query ``i``'s polygons are ``nodes[node_offsets[i]:...]``.
        nodes: every path's polygon corridor.
    """

    status: U8
    costs: F64
    expanded: I64
    offsets: I64
    points: F64
    node_offsets: I64
    nodes: I64

    def __len__(self) -> int:
        return int(self.status.shape[0])

    def result(self, i: int) -> PathResult:
        """Query ``i``'s answer (its arrays are views of the batch's)."""
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        nlo, nhi = int(self.node_offsets[i]), int(self.node_offsets[i + 1])
        return PathResult(
            STATUS_ORDER[int(self.status[i])], self.points[lo:hi], self.nodes[nlo:nhi],
            float(self.costs[i]), int(self.expanded[i]),
        )  # fmt: skip

    def statuses(self) -> list[PathStatus]:
        """Every query's status, in order."""
        return [STATUS_ORDER[code] for code in self.status.tolist()]

    def with_sources(self, source: I64) -> MeshBatch:
        """The batch with every corridor's polygons mapped through ``source`` (a cut mesh's
        :attr:`~NavMesh.polygon_source`), consecutive repeats in one corridor dropped."""
        n = len(self)
        nodes = source[self.nodes]
        query = np.repeat(np.arange(n), np.diff(self.node_offsets))
        keep = np.ones(nodes.shape[0], dtype=np.bool_)
        keep[1:] = (nodes[1:] != nodes[:-1]) | (query[1:] != query[:-1])
        counts = np.bincount(query[keep], minlength=n).astype(np.int64)
        return replace(self, node_offsets=_offsets(counts), nodes=np.ascontiguousarray(nodes[keep]))

    def without_nodes(self) -> MeshBatch:
        """The batch with every corridor left empty (the same points, costs and statuses)."""
        return replace(self, node_offsets=np.zeros_like(self.node_offsets), nodes=self.nodes[:0])

    @classmethod
    def from_results(cls, results: Sequence[PathResult], dim: int) -> MeshBatch:
        """The batch of ``results``, one per query."""
        points = [r.points.reshape(-1, dim) for r in results]
        nodes = [r.nodes.astype(np.int64, copy=False) for r in results]
        return cls(
            np.array([_CODES[r.status] for r in results], dtype=np.uint8),
            np.array([r.cost for r in results], dtype=np.float64),
            np.array([r.expanded for r in results], dtype=np.int64),
            _offsets(np.array([len(p) for p in points], dtype=np.int64)),
            np.concatenate(points) if points else np.zeros((0, dim)),
            _offsets(np.array([len(n) for n in nodes], dtype=np.int64)),
            np.concatenate(nodes) if nodes else np.zeros(0, dtype=np.int64),
        )


def check_ends(points: npt.ArrayLike, dim: int, name: str) -> F64:
    """``points`` as a float64 ``(n, dim)`` array of finite numbers.

    Raises:
        InvalidQueryError: another shape, or a non-finite coordinate (its row named).
    """
    array = np.asarray(points, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != dim:
        raise InvalidQueryError(f"{name} must be an (n, {dim}) array of positions, got shape {array.shape}")
    bad = np.flatnonzero(~np.isfinite(array).all(axis=1))
    if bad.size:
        raise InvalidQueryError(
            f"{name}[{int(bad[0])}] is not {dim} finite numbers: {array[bad[0]].tolist()}"
        )
    return np.ascontiguousarray(array)


def find_mesh_batch(
    mesh: NavMesh,
    starts: npt.ArrayLike,
    goals: npt.ArrayLike,
    *,
    options: QueryOptions | None = None,
    layers: int | None = None,
) -> MeshBatch:
    """:meth:`NavMesh.find_path` of each ``(starts[i], goals[i])`` (the default mode: corridor A*
    and the funnel), in one compiled call; answers equal ``find_path``'s query by query.

    Raises:
        InvalidQueryError: ends of another shape or not finite, a bad mask, heuristic or budget
            (the whole batch's error: check rows first to keep the others).

    Example:
        >>> m = NavMesh([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 1, 2, 3]])
        >>> b = find_mesh_batch(m, [[0, 0], [0, 0]], [[1, 1], [5, 0]])
        >>> b.statuses() == [PathStatus.FOUND] * 2, b.points[b.offsets[1]:b.offsets[2]].tolist()
        (True, [[0.0, 0.0], [1.0, 0.0]])
    """
    s, g = check_ends(starts, mesh.dim, "starts"), check_ends(goals, mesh.dim, "goals")
    if s.shape != g.shape:
        raise InvalidQueryError(f"{len(s)} starts but {len(g)} goals")
    opts = options or QueryOptions()
    heuristic_code(opts.heuristic)  # the checks of NavMesh.find_path, once for the batch
    if opts.max_expansions is not None and opts.max_expansions < 0:
        raise InvalidQueryError(f"max_expansions must be >= 0, got {opts.max_expansions}")
    mask = NavMesh._check_mask(layers)
    budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
    # a scratch of our own, as NavMesh.find_path takes one (pop and append are atomic)
    scratch = mesh._scratch.pop() if mesh._scratch else nav_scratch(mesh._static_record)
    try:
        status, expanded, costs, counts, points, node_counts, nodes = nav_query_batch(
            mesh._static_record, scratch, s, g, mask, budget, bool(opts.allow_partial)
        )
    finally:
        mesh._scratch.append(scratch)
    return MeshBatch(
        _KERNEL_TO_CODE[status + 1], costs, expanded, _offsets(counts), points, _offsets(node_counts), nodes
    )


@register_warm_up
def _warm_up() -> None:
    """Compile (or load from the disk cache) the batch kernel for 2D and 3D meshes."""
    square = [[0, 1, 2, 3], [1, 4, 5, 2]]
    flat = NavMesh([[0, 0], [1, 0], [1, 1], [0, 1], [2, 0], [2, 1]], square)
    find_mesh_batch(flat, [[0.5, 0.5]], [[1.5, 0.5]])
    up = NavMesh([[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1], [2, 0, 0], [2, 0, 1]], square)
    find_mesh_batch(up, [[0.5, 0.0, 0.5]], [[1.5, 0.0, 0.5]])
