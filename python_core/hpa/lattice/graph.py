"""The abstract graph of a tile lattice's hierarchy: transitions, in-cluster costs, components.

Quick start (:class:`~python_core.hpa.lattice.LatticeHierarchy` owns one)::

    graph = LatticeGraph(tile_grid, csize=16, long_len=6)
    graph.build()                      # every cluster
    graph.repair(changed_cells)        # after walls or weights changed: the touched clusters only

It keeps its own padded copy of the walls and weights (updated cell by cell on a repair), the
in-cluster component label of every cell, the chosen transitions (:mod:`.entrances`), one cost
matrix per cluster between its transitions, and the flat CSR the query kernels read. A changed
cell touches the clusters within one move of it (a corner move looks at the cells beside it):
their labels, crossings and matrices are computed again, and so are the matrices of neighbours
whose transitions the new crossings moved. The CSR is then re-flattened (numpy over the
transitions; no cell is visited).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from python_core._types import DIAG_CODES, F64, I32, I64, U8
from python_core.grid.layouts import TileGrid
from python_core.grid.layouts.search import _moves
from python_core.grid.search.prepared import Workspace
from python_core.hpa.lattice.abstract_kernels import components
from python_core.hpa.lattice.cluster_kernels import Lattice, crossings, intra_costs, local_labels
from python_core.hpa.lattice.entrances import ClusterFrame, pick_transitions

__all__ = ["LatticeGraph"]

_TAG_RESET = 1 << 29  # the repair workspace's stamps are cleared before its tags get near int32's end


class LatticeGraph:
    """Clusters, transitions and costs of one :class:`TileGrid` (see the module notes)."""

    def __init__(self, grid: TileGrid, *, csize: int, long_len: int) -> None:
        table = _moves(grid)
        self.grid, self.csize, self.long_len = grid, csize, long_len
        self.pad, self.stride = table.pad, table.stride
        self.lattice: Lattice = (
            table.moves, table.steps, table.corner_sides, table.n_sides, table.n_moves,
            DIAG_CODES[grid.diagonal], table.parity_axis, table.parity_shift,
        )  # fmt: skip
        self.facets: F64 = table.facets
        self.centre_frame: F64 = table.frame  # the lattice search's affine map of padded centres
        nx, ny = -(-grid.width // csize), -(-grid.height // csize)
        self.frame = ClusterFrame(self.stride, self.pad, csize, nx, ny)
        self.cluster_count = nx * ny
        size = (grid.height + 2 * self.pad) * self.stride
        self.passable: U8 = np.zeros(size, dtype=np.uint8)
        self.weights: F64 = np.zeros(size, dtype=np.float64)
        self.labels: I64 = np.full(size, -1, dtype=np.int64)
        self._stack: I64 = np.empty(csize * csize, dtype=np.int64)
        self._work = Workspace.for_nodes(size)
        self._tag = 0
        empty_i, empty_f = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        self._ta, self._tb, self._tstep = empty_i, empty_i, empty_f  # transitions, by cluster pair
        self._nodes: list[I64] = [empty_i] * self.cluster_count  # each cluster's transition cells
        self._intra: list[F64] = [empty_f] * self.cluster_count  # their n x n costs, row-major
        # the flat graph the queries read (set by _flatten)
        self.node_cells: I64 = empty_i
        self.node_offsets: I64 = np.zeros(self.cluster_count + 1, dtype=np.int64)
        self.indptr: I64 = np.zeros(1, dtype=np.int64)
        self.targets: I32 = np.zeros(0, dtype=np.int32)
        self.costs: F64 = empty_f
        self.node_xy: F64 = np.zeros((0, 2), dtype=np.float64)
        self.component_of_label: I32 = np.full(size, -1, dtype=np.int32)

    @property
    def node_count(self) -> int:
        """Transition cells (abstract nodes)."""
        return int(self.node_cells.size)

    def nbytes(self) -> int:
        """Bytes of the graph's arrays (its padded copy and scratch included)."""
        arrays = (
            self.passable, self.weights, self.labels, self.node_cells, self.indptr, self.targets,
            self.costs, self.node_xy, self.component_of_label, self._ta, self._tb, self._tstep,
        )  # fmt: skip
        own = sum(int(a.nbytes) for a in arrays) + sum(int(m.nbytes) for m in self._intra)
        return own + self._work.nbytes()

    def padded(self, xs: npt.ArrayLike, ys: npt.ArrayLike) -> I64:
        """Padded node ids of grid cells."""
        out: I64 = (np.asarray(ys, dtype=np.int64) + self.pad) * self.stride + np.asarray(xs) + self.pad
        return out

    # -- building ---------------------------------------------------------------------------------

    def build(self) -> None:
        """Compute everything from the grid's current walls and weights."""
        self._copy_cells(None)
        every = np.arange(self.cluster_count, dtype=np.int64)
        self._relabel(every)
        a, b, step = self._crossings(every)
        self._ta, self._tb, self._tstep = pick_transitions(
            a, b, step, self.labels, self.frame, long_len=self.long_len
        )
        self._update_clusters(every)
        self._flatten()

    def repair(self, cells: I64) -> int:
        """Take changed grid cells ``(n, 2)`` into account; returns how many clusters were redone."""
        if not cells.size:
            return 0
        self._copy_cells(cells)
        dirty = self._touched(cells)
        self._relabel(dirty)
        a, b, step = self._crossings(dirty)
        a, b, step = pick_transitions(a, b, step, self.labels, self.frame, long_len=self.long_len)
        stale = np.isin(self.frame.clusters(self._ta), dirty) | np.isin(self.frame.clusters(self._tb), dirty)
        # clusters whose transition list may change: the dirty ones, and those across their borders
        ends = [self._ta[stale], self._tb[stale], a, b]
        neighbours = np.unique(np.concatenate([dirty, *(self.frame.clusters(e) for e in ends)]))
        self._ta = np.concatenate([self._ta[~stale], a])
        self._tb = np.concatenate([self._tb[~stale], b])
        self._tstep = np.concatenate([self._tstep[~stale], step])
        self._update_clusters(neighbours, always=dirty)
        self._flatten()
        return int(neighbours.size)

    def _copy_cells(self, cells: I64 | None) -> None:
        """Copy walls and weights from the grid into the padded arrays (all, or only ``cells``)."""
        grid, pad = self.grid, self.pad
        if cells is None:
            shape = (grid.height + 2 * pad, self.stride)
            self.passable.reshape(shape)[pad : pad + grid.height, pad : pad + grid.width] = grid.walkable
            self.weights.reshape(shape)[pad : pad + grid.height, pad : pad + grid.width] = grid.weights
            return
        xs, ys = cells[:, 0], cells[:, 1]
        nodes = self.padded(xs, ys)
        self.passable[nodes] = grid.walkable[ys, xs]
        self.weights[nodes] = grid.weights[ys, xs]

    def _touched(self, cells: I64) -> I64:
        """Clusters with a cell within one move (``pad`` cells) of a changed cell."""
        c, pad, f = self.csize, self.pad, self.frame
        found = set()
        for dy in (-pad, 0, pad):
            for dx in (-pad, 0, pad):
                x = np.clip(cells[:, 0] + dx, 0, self.grid.width - 1)
                y = np.clip(cells[:, 1] + dy, 0, self.grid.height - 1)
                found.update(((y // c) * f.nx + x // c).tolist())
        return np.array(sorted(found), dtype=np.int64)

    def _relabel(self, clusters: I64) -> None:
        g = self.grid
        local_labels(
            self.passable, self.stride, self.pad, self.csize, self.frame.nx, g.width, g.height,
            self.lattice, clusters, self.labels, self._stack,
        )  # fmt: skip

    def _crossings(self, clusters: I64) -> tuple[I64, I64, F64]:
        g = self.grid
        a, b, step = crossings(
            self.passable, self.stride, self.pad, self.csize, self.frame.nx, g.width, g.height,
            self.lattice, clusters,
        )  # fmt: skip
        # found from both sides: one copy; ordered by (a, b), so a repair, which scans fewer
        # clusters in another order, picks among equal crossings as the build does
        _, keep = np.unique(np.stack([a, b], axis=1), axis=0, return_index=True)
        return a[keep], b[keep], step[keep]

    def _update_clusters(self, clusters: I64, always: I64 | None = None) -> None:
        """New transition lists for ``clusters``; cost matrices again where a list changed (or the
        cluster is in ``always``, or the whole build)."""
        cells = np.concatenate([self._ta, self._tb])
        owner = self.frame.clusters(cells)
        mask = np.isin(owner, clusters)
        cells, owner = cells[mask], owner[mask]
        order = np.lexsort((cells, owner))
        cells, owner = cells[order], owner[order]
        keep = np.ones(cells.size, dtype=bool)
        keep[1:] = cells[1:] != cells[:-1]
        cells, owner = cells[keep], owner[keep]
        bounds = np.searchsorted(owner, clusters, side="left"), np.searchsorted(owner, clusters, side="right")
        forced = set() if always is None else set(always.tolist())
        redo = []
        for i, c in enumerate(clusters.tolist()):
            mine = cells[bounds[0][i] : bounds[1][i]]
            if always is None or c in forced or not np.array_equal(mine, self._nodes[c]):
                self._nodes[c] = mine
                redo.append(c)
        self._costs(redo)

    def _costs(self, clusters: list[int]) -> None:
        """In-cluster cost matrices of ``clusters``, in one compiled call."""
        if not clusters:
            return
        groups = [self._nodes[c] for c in clusters]
        sizes = np.array([len(n) for n in groups], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        out_offsets = np.concatenate([[0], np.cumsum(sizes * sizes)])
        out = np.empty(int(out_offsets[-1]), dtype=np.float64)
        nodes = np.concatenate(groups) if groups else np.zeros(0, dtype=np.int64)
        w = self._work
        if self._tag > _TAG_RESET:
            w.stamp.fill(0)
            self._tag = 0
        self._tag = intra_costs(
            self.passable, self.weights, self.stride, self.pad, self.csize, self.frame.nx,
            self.lattice, nodes, offsets, out_offsets, out,
            w.g, w.parent, w.stamp, w.pos, w.heap_nodes, w.heap_keys, self._tag,
        )  # fmt: skip
        for i, c in enumerate(clusters):
            self._intra[c] = out[out_offsets[i] : out_offsets[i + 1]]

    def _flatten(self) -> None:
        """The CSR over every cluster's transitions, their centres and the components."""
        sizes = np.array([n.size for n in self._nodes], dtype=np.int64)
        self.node_offsets = np.concatenate([[0], np.cumsum(sizes)])
        cells = np.concatenate(self._nodes) if self._nodes else np.zeros(0, dtype=np.int64)
        self.node_cells = cells
        n = cells.size
        # intra edges: every finite (i, j), i != j, of each cluster's matrix
        src, dst, cost = [], [], []
        for c, matrix in enumerate(self._intra):
            k = int(sizes[c])
            if k < 2:
                continue
            base = int(self.node_offsets[c])
            grid = matrix.reshape(k, k)
            i, j = np.nonzero(np.isfinite(grid) & ~np.eye(k, dtype=bool))
            src.append(i + base)
            dst.append(j + base)
            cost.append(grid[i, j])
        # inter edges: each transition both ways, a step weighing the cell entered
        order = np.argsort(cells)
        ia = order[np.searchsorted(cells, self._ta, sorter=order)]
        ib = order[np.searchsorted(cells, self._tb, sorter=order)]
        src += [ia, ib]
        dst += [ib, ia]
        cost += [self._tstep * self.weights[self._tb], self._tstep * self.weights[self._ta]]
        s, d, w = np.concatenate(src), np.concatenate(dst), np.concatenate(cost)
        by = np.argsort(s, kind="stable")
        self.targets = d[by].astype(np.int32)
        self.costs = w[by]
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(s, minlength=n))]).astype(np.int64)
        xs, ys = self.frame.cells(cells)
        self.node_xy = self.grid.cell_points(ys * self.grid.width + xs)
        comp = components(self.indptr, self.targets)
        self.component_of_label.fill(-1)
        self.component_of_label[self.labels[cells]] = comp
