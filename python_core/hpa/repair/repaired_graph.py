"""What a local repair reads and writes of the abstract graph: a Protocol that
:class:`~python_core.hpa.graph.abstract_graph.AbstractGraph` meets.

Quick start::

    from python_core.hpa.repair.repaired_graph import RepairedGraph
    def clusters(graph: RepairedGraph) -> int:
        return graph.ncx * -(-graph.height // graph.csize)

Why a Protocol: the abstract graph runs its repairs (:meth:`AbstractGraph.apply_changes` calls
:func:`~python_core.hpa.repair.local_updates.apply_changes`), so the repair modules may not import
the graph back, not even for type checking. They name this seam instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, overload

import numpy as np
import numpy.typing as npt

from python_core._types import F32, F64, I64, U8
from python_core.hpa.graph.entrances import Border
from python_core.hpa.graph.graph_arrays import GraphArrays
from python_core.hpa.graph.pieces import Pieces

__all__ = ["RepairedGraph"]


class RepairedGraph(Protocol):
    """The members of the abstract graph a repair uses (see
    :class:`~python_core.hpa.graph.abstract_graph.AbstractGraph` for what each means)."""

    walk: U8
    weights: F64
    width: int
    height: int
    csize: int
    ncx: int
    merge_span: int
    diag: int
    cw: float
    ch: float
    has_trees: bool
    nodes_kept: bool
    uniform: U8
    priced: U8
    labels: npt.NDArray[np.int16]
    comp_count: I64
    pair_dist: F32
    trans: Pieces[np.int64]
    tables: Pieces[np.float64]
    dirs: Pieces[np.uint8]

    @overload
    def cluster_of(self, cell: int) -> int: ...
    @overload
    def cluster_of(self, cell: I64) -> I64: ...
    def rect(self, cluster: int) -> tuple[int, int, int, int]: ...
    def sides(self, key: Border) -> tuple[int, int]: ...
    def rebuild_borders(self, keys: Iterable[Border]) -> set[int]: ...
    def transitions_of(self, cluster: int) -> I64: ...
    def price_cluster(self, cluster: int) -> None: ...
    def relabel(self, clusters: I64) -> None: ...
    def assemble(self, before: GraphArrays | None = None, table_seconds: float | None = None) -> None: ...
    def assemble_crossings(self) -> None: ...
    def derive(
        self, before: GraphArrays | None, table_seconds: float | None = None, *, components: bool = True
    ) -> None: ...
