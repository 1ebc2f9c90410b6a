"""The eight flat arrays of one abstract graph, as one value a table build or repair reads.

Quick start::

    from python_core.hpa.graph.graph_arrays import GraphArrays
    before = GraphArrays.of(graph)              # copies: a change rewrites some arrays in place
    now = GraphArrays.of(graph, copy=False)     # references, once the graph no longer changes
    changed = not before.same_as(now)

``graph[1:]`` are the arguments of :func:`~python_core.hpa.graph.distance_table.all_pairs`; the
level-1 graph (:class:`~python_core.hpa.graph.abstract_graph.AbstractGraph`) and level 2
(:class:`~python_core.hpa.graph.upper_level.UpperLevel`) both give theirs in this form.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from python_core._types import F64, I64

__all__ = ["GraphArrays"]


class GraphArrays(NamedTuple):
    """The flat arrays of one abstract graph (as :meth:`AbstractGraph.assemble` builds them).

    ``graph[1:]`` are the arguments of :func:`~python_core.hpa.graph.distance_table.all_pairs`.

    Example:
        >>> g = GraphArrays(np.array([3]), np.array([0, 1]), np.array([0]), np.zeros(1), np.array([0]),
        ...                 np.array([0, 0]), np.zeros(0, np.int64), np.zeros(0))
        >>> g.node_count, len(g[1:])
        (1, 7)
    """

    node_cell: I64
    cl_first: I64
    cl_doff: I64
    dist_flat: F64
    node_cluster: I64
    inter_off: I64
    inter_dst: I64
    inter_cost: F64

    @classmethod
    def of(cls, source: object, *, copy: bool = True) -> GraphArrays:
        """Read the eight arrays from any object having them as attributes (an ``AbstractGraph``).

        Args:
            source: the object.
            copy: copy the arrays (a later change may rewrite the source's arrays in place), or
                keep references (when the source is no longer changed).

        Returns:
            The arrays, int64 / float64.
        """
        take = np.array if copy else np.asarray

        def ints(name: str) -> I64:
            return take(getattr(source, name), dtype=np.int64)

        def floats(name: str) -> F64:
            return take(getattr(source, name), dtype=np.float64)

        return cls(
            ints("node_cell"), ints("cl_first"), ints("cl_doff"), floats("dist_flat"),
            ints("node_cluster"), ints("inter_off"), ints("inter_dst"), floats("inter_cost"),
        )  # fmt: skip

    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return int(self.node_cell.shape[0])

    def same_as(self, other: GraphArrays) -> bool:
        """Whether both graphs have equal arrays (the same nodes, tables and crossings)."""
        return all(np.array_equal(a, b) for a, b in zip(self, other, strict=True))
