"""Graphs stored as CSR adjacency with node coordinates: what the CSR kernel searches.

Quick start::

    from python_core.csr.graph import CsrGraph
    graph = CsrGraph.from_edges([[0.0, 0.0], [3.0, 4.0]], [[0, 1]])
    assert graph.costs.tolist() == [5.0]

Immutable: a waypoint graph rebuilds its CSR form after an edit, a navmesh builds its portal graph
once, and the kernel reads the four arrays as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64
from python_core.errors import InvalidGraphError

__all__ = ["CsrGraph"]


@dataclass(frozen=True, slots=True)
class CsrGraph:
    """An immutable CSR graph with node coordinates.

    Attributes:
        indptr: ``(n + 1,)`` int64 row starts.
        indices: ``(m,)`` int64 edge targets.
        costs: ``(m,)`` float64 edge costs, all finite and >= 0.
        coords: ``(n, d)`` float64 node positions (heuristic and returned points).
    """

    indptr: I64
    indices: I64
    costs: F64
    coords: F64

    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return int(self.indptr.shape[0] - 1)

    @classmethod
    def from_edges(
        cls, coords: npt.ArrayLike, edges: npt.ArrayLike, costs: npt.ArrayLike | None = None
    ) -> CsrGraph:
        """Build from directed edges ``(m, 2)``; costs default to Euclidean edge length.

        Args:
            coords: ``(n, d)`` node positions.
            edges: ``(m, 2)`` directed ``(from, to)`` node indices.
            costs: ``(m,)`` edge costs, or None for the distance between the endpoints.

        Returns:
            The graph, edges grouped by source in their given order.

        Raises:
            InvalidGraphError: for out-of-range indices or negative / non-finite costs.

        Example:
            >>> CsrGraph.from_edges([[0.0, 0.0], [3.0, 4.0]], [[0, 1]]).costs.tolist()
            [5.0]
        """
        xy = np.asarray(coords, dtype=np.float64)
        e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        n = xy.shape[0]
        if e.size and (e.min() < 0 or e.max() >= n):
            raise InvalidGraphError(f"edge index out of range 0..{n - 1}: {e.min()}..{e.max()}")
        if costs is None:
            c = np.linalg.norm(xy[e[:, 1]] - xy[e[:, 0]], axis=1)
        else:
            c = np.asarray(costs, dtype=np.float64).reshape(-1)
        if c.shape[0] != e.shape[0] or not np.all(np.isfinite(c)) or np.any(c < 0):
            raise InvalidGraphError("edge costs must be finite, >= 0 and one per edge")
        order = np.argsort(e[:, 0], kind="stable")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(e[:, 0], minlength=n), out=indptr[1:])
        return cls(indptr, e[order, 1].copy(), c[order].copy(), xy)
