"""``PathBatch``: the answers of many queries as a few flat arrays, not a ``PathResult`` each.

Quick start::

    import numpy as np
    from python_core import GridGraph
    from python_core.hpa import HierarchicalGrid
    hpa = HierarchicalGrid(GridGraph(np.ones((64, 64), bool)), cluster_size=16).build()
    batch = hpa.find_batch(np.array([[0, 0], [5, 5]]), np.array([[63, 63], [5, 5]]))
    batch.statuses()                 # [PathStatus.FOUND, PathStatus.FOUND]
    batch.result(1).nodes            # query 1's cells: rows offsets[1]:offsets[2] of ``nodes``

Why: a compiled batch answers an HPA* query in about 10-20 us, and building a ``PathResult`` (two
array views and a frozen dataclass) and then taking it apart again for the wire costs several
microseconds more per query, under the GIL, so threads running batches wait on each other. A batch
keeps the kernel's arrays as they came out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from python_core._types import F64, I64, U8
from python_core.result import PathResult, PathStatus

__all__ = ["STATUS_ORDER", "PathBatch"]

STATUS_ORDER: tuple[PathStatus, ...] = tuple(PathStatus)
"""A status code ``i`` of :attr:`PathBatch.status` is ``STATUS_ORDER[i]``: found 0, partial 1,
no_path 2, budget_exhausted 3 (the order :class:`PathStatus` declares them in)."""
_CODES = {status: code for code, status in enumerate(STATUS_ORDER)}


@dataclass(frozen=True, slots=True)
class PathBatch:
    """The answers of ``n`` queries, in order.

    Attributes:
        status: ``(n,)`` uint8 codes into :data:`STATUS_ORDER`.
        costs: ``(n,)`` path costs (``inf`` without a path).
        expanded: ``(n,)`` expansions per query.
        offsets: ``(n + 1,)``: query ``i``'s rows of ``nodes`` and ``points`` are
            ``offsets[i]:offsets[i + 1]``.
        nodes: every path's nodes, one after the other.
        points: every path's world points, ``(len(nodes), dim)``.
    """

    status: U8
    costs: F64
    expanded: I64
    offsets: I64
    nodes: I64
    points: F64

    def __len__(self) -> int:
        return int(self.status.shape[0])

    def result(self, i: int) -> PathResult:
        """Query ``i``'s answer as a :class:`PathResult` (its arrays are views of the batch's)."""
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return PathResult(
            STATUS_ORDER[int(self.status[i])], self.points[lo:hi], self.nodes[lo:hi],
            float(self.costs[i]), int(self.expanded[i]),
        )  # fmt: skip

    def results(self) -> list[PathResult]:
        """Every query's :meth:`result`, in order."""
        return [self.result(i) for i in range(len(self))]

    def statuses(self) -> list[PathStatus]:
        """Every query's status, in order."""
        return [STATUS_ORDER[code] for code in self.status.tolist()]

    @classmethod
    def from_results(cls, results: Sequence[PathResult], dim: int = 2) -> PathBatch:
        """The batch of ``results`` (``dim``: the points' width when every path is empty)."""
        counts = np.array([len(r.nodes) for r in results], dtype=np.int64)
        offsets = np.zeros(len(results) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        nodes = [r.nodes for r in results if len(r.nodes)]
        points = [r.points for r in results if len(r.nodes)]
        return cls(
            np.array([_CODES[r.status] for r in results], dtype=np.uint8),
            np.array([r.cost for r in results], dtype=np.float64),
            np.array([r.expanded for r in results], dtype=np.int64),
            offsets,
            np.concatenate(nodes).astype(np.int64, copy=False) if nodes else np.zeros(0, dtype=np.int64),
            np.concatenate(points).astype(np.float64, copy=False) if points else np.zeros((0, dim)),
        )

    def replaced(self, results: Mapping[int, PathResult]) -> PathBatch:
        """This batch with query ``i``'s answer replaced by ``results[i]`` for each key. The kept
        paths are copied as runs (one slice per run between replacements), so a few replacements in
        a big batch cost one copy of the rows."""
        if not results:
            return self
        status, costs, expanded = self.status.copy(), self.costs.copy(), self.expanded.copy()
        counts = np.diff(self.offsets)
        nodes: list[I64] = []
        points: list[F64] = []
        kept_from = 0  # the first query of the run of kept answers not copied yet
        for i in sorted(results):
            r = results[i]
            status[i], costs[i], expanded[i], counts[i] = _CODES[r.status], r.cost, r.expanded, len(r.nodes)
            lo, hi = self.offsets[kept_from], self.offsets[i]
            nodes += [self.nodes[lo:hi], r.nodes.astype(np.int64, copy=False)]
            points += [self.points[lo:hi], r.points.reshape(-1, self.points.shape[1])]
            kept_from = i + 1
        nodes.append(self.nodes[self.offsets[kept_from] :])
        points.append(self.points[self.offsets[kept_from] :])
        offsets = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return PathBatch(status, costs, expanded, offsets, np.concatenate(nodes), np.concatenate(points))
