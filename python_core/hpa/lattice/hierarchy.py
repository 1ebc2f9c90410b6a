"""``LatticeHierarchy``: HPA* over a hexagonal, isometric or half-offset :class:`TileGrid`.

Quick start::

    from python_core.grid.layouts import TileGrid, TileLayout
    from python_core.hpa.lattice import LatticeHierarchy
    grid = TileGrid(walls, layout=TileLayout("hexagon"), cell_size=(32, 28))
    hpa = LatticeHierarchy(grid, cluster_size=16).build()
    hpa.find_path((0, 0), (200, 150))               # PathResult, like grid.find_path
    hpa.set_walkable([(10, 10)], False)             # the grid and the touched clusters change

Why a hierarchy of its own rather than the square one's kernels: those hard-code the square
grid's eight moves in every stage (entrances along straight borders, cluster trees, the all-pairs
table, smoothing along straight lines), while a lattice's moves depend on the parity of the row or
column and some reach two rows. Here every stage walks the layout's own move table
(:func:`python_core.grid.layouts.search._moves`, the exact search's): clusters are ``C x C`` MAP
cells; transitions come from the border crossings (:mod:`.entrances`); a cluster's transitions
are joined by a compiled Dijkstra restricted to it; a query searches from the start's cluster to
the goal's over that graph (one compiled A*) and refines each abstract edge by the same
restricted search. Reachability is exact (:mod:`.entrances` says why); costs are near-optimal:
paths that may be detours and are short are checked against the exact search, as
:class:`~python_core.hpa.HierarchicalGrid` does. Agents are not modelled (the navigator falls back
to the exact search when one stands on the path); unit sizes above 1 are refused. Threads: any
number of queries at once; a build or a change must not overlap a query.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64
from python_core.errors import BlockedEndpointError, InvalidGraphError, InvalidQueryError
from python_core.grid.cells import as_cell, as_cells, check_options
from python_core.grid.layouts import TileGrid
from python_core.grid.layouts.kernel import _distance
from python_core.grid.search.prepared import Workspace
from python_core.hpa.lattice.abstract_kernels import abstract_astar, refine
from python_core.hpa.lattice.cluster_kernels import cluster_search
from python_core.hpa.lattice.corridor_kernel import corridor_astar
from python_core.hpa.lattice.graph import LatticeGraph
from python_core.result import PathResult, PathStatus, QueryOptions

__all__ = ["ABSTRACT_WEIGHT", "CHECK_SLACK", "LatticeHierarchy"]

ABSTRACT_WEIGHT = 1.05
"""The default heuristic weight of the abstract A*."""

CHECK_SLACK = 1.10
"""A path dearer than this many times the obstacle-free bound, and short, is checked exactly."""
_DEFAULTS = QueryOptions()


class LatticeHierarchy:
    """HPA* over a tile lattice (see the module notes).

    Args:
        grid: a :class:`TileGrid` on a lattice (hexagon, isometric, half-offset; AStarGrid2D's
            isometric shapes are square grids in id space: use :class:`HierarchicalGrid` there).
        cluster_size: cluster side in map cells, 4-180.
        long_entrance: entrances longer than this get their two ends as transitions too.
        exact_check: paths up to this many cluster sides long (at the cheapest weight) that cost
            over :data:`CHECK_SLACK` times the obstacle-free bound are compared with the exact
            search, and the cheaper one returned (``0``: never).
        abstract_weight: heuristic weight of the abstract A* (``1``: exact over the abstract graph;
            above, fewer transitions expanded on open ground, and the corridor search makes up
            most of the difference).

    Raises:
        InvalidGraphError: a bad option, or a grid that is not a lattice TileGrid.

    Example:
        >>> g = TileGrid(np.ones((8, 8), bool), layout="hexagon", cell_size=(2.0, 2.0))
        >>> hpa = LatticeHierarchy(g, cluster_size=4).build()
        >>> hpa.find_path((0, 0), (7, 7)).found, hpa.is_reachable((0, 0), (7, 7))
        (True, True)
        >>> LatticeHierarchy(g, cluster_size=2)
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidGraphError: cluster_size must be an integer in [4, 180], got 2
    """

    def __init__(
        self,
        grid: TileGrid,
        *,
        cluster_size: int = 16,
        long_entrance: int = 6,
        exact_check: float = 4.0,
        abstract_weight: float = ABSTRACT_WEIGHT,
    ) -> None:
        if not isinstance(grid, TileGrid) or not grid.layout.lattice:
            raise InvalidGraphError(
                "LatticeHierarchy needs a TileGrid on a hexagonal, isometric or half-offset lattice"
            )
        for name, value, low, high in (
            ("cluster_size", cluster_size, 4, 180),
            ("long_entrance", long_entrance, 1, 1 << 20),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise InvalidGraphError(f"{name} must be an integer in [{low}, {high}], got {value!r:.40}")
        if (
            isinstance(exact_check, bool)
            or not isinstance(exact_check, int | float)
            or not 0 <= exact_check < math.inf
        ):
            raise InvalidGraphError(f"exact_check must be a finite number >= 0, got {exact_check!r:.40}")
        if (
            isinstance(abstract_weight, bool)
            or not isinstance(abstract_weight, int | float)
            or not 1 <= abstract_weight <= 2
        ):
            raise InvalidGraphError(
                f"abstract_weight must be a number in [1, 2], got {abstract_weight!r:.40}"
            )
        self._abstract_weight = float(abstract_weight)
        self._grid = grid
        self._graph = LatticeGraph(grid, csize=cluster_size, long_len=long_entrance)
        self._check_cells = float(exact_check) * cluster_size
        self._version = -1
        self._min_weight = 1.0
        self._spare: list[tuple[Workspace, Workspace]] = []
        self._lock = threading.Lock()
        self.build_seconds = 0.0
        self.checked_queries = 0

    @property
    def grid(self) -> TileGrid:
        """The underlying grid."""
        return self._grid

    @property
    def graph(self) -> LatticeGraph:
        """The abstract graph (read-only by convention)."""
        return self._graph

    @property
    def nbytes(self) -> int:
        """Bytes held by the hierarchy's arrays (the grid's own not included)."""
        scratch = sum(a.nbytes() + b.nbytes() for a, b in self._spare)
        return self._graph.nbytes() + scratch

    def build(self) -> LatticeHierarchy:
        """Build (or rebuild) everything from the grid's walls and weights; returns ``self``."""
        began = time.perf_counter()
        self._graph.build()
        self._settle()
        self.build_seconds = time.perf_counter() - began
        return self

    def _settle(self) -> None:
        """After a build or a repair: what queries read besides the graph."""
        walk = self._grid.walkable
        open_weights = self._grid.weights[walk]
        self._min_weight = float(open_weights.min()) if open_weights.size else 1.0
        self._version = self._grid.version
        with self._lock:  # abstract workspaces are sized by the node count
            self._spare.clear()

    # -- changes ----------------------------------------------------------------------------------

    def set_walkable(self, cells: npt.ArrayLike, walkable: bool | npt.ArrayLike = True) -> None:
        """Open or close cells (:meth:`GridGraph.set_walkable`), then repair the touched clusters.

        Raises:
            as :meth:`GridGraph.set_walkable` (nothing changes).
        """
        self._grid.set_walkable(cells, walkable)
        self.repair(cells)

    def set_weights(self, cells: npt.ArrayLike, weights: float | npt.ArrayLike) -> None:
        """Set weights (:meth:`GridGraph.set_weights`), then repair the touched clusters.

        Raises:
            as :meth:`GridGraph.set_weights` (nothing changes).
        """
        self._grid.set_weights(cells, weights)
        self.repair(cells)

    def repair(self, cells: npt.ArrayLike) -> int:
        """Take cells the grid changed (walls or weights, by any route) into account: only the
        clusters within one move of them are recomputed. Returns how many clusters were.

        Raises:
            InvalidQueryError, OutOfBoundsError: malformed cells (nothing changes).
        """
        nodes = as_cells(cells, self._grid.width, self._grid.height)
        ys, xs = np.divmod(nodes, self._grid.width)
        redone = self._graph.repair(np.stack([xs, ys], axis=1))
        self._settle()
        return redone

    # -- queries ----------------------------------------------------------------------------------

    def _require_built(self) -> None:
        if self._version < 0:
            raise InvalidGraphError("the hierarchy is not built yet; call build() first")
        if self._grid.version != self._version:
            raise InvalidGraphError(
                "the grid changed behind the hierarchy's back; change cells through "
                "LatticeHierarchy.set_walkable / set_weights / repair, or call build() again"
            )

    def _node(self, cell: Sequence[int], what: str) -> int:
        x, y = as_cell(cell, self._grid.width, self._grid.height, what=what)
        return int(self._graph.padded(x, y))

    def is_reachable(self, start: Sequence[int], goal: Sequence[int]) -> bool:
        """Whether any path joins two cells (exact; agents ignored), without a search.

        Raises:
            InvalidQueryError, OutOfBoundsError: malformed cells, or outside the grid.
            InvalidGraphError: not built, or the grid changed behind its back.
        """
        s, t = self._node(start, "start"), self._node(goal, "goal")
        self._require_built()
        return self._joined(s, t)

    def _joined(self, s: int, t: int) -> bool:
        labels, comp = self._graph.labels, self._graph.component_of_label
        ls, lt = int(labels[s]), int(labels[t])
        if ls < 0 or lt < 0:
            return False
        if ls == lt:
            return True
        return bool(comp[ls] >= 0 and comp[ls] == comp[lt])

    def find_path(
        self,
        start: Sequence[int],
        goal: Sequence[int],
        *,
        options: QueryOptions | None = None,
        smooth: bool = True,
        corridor: bool = False,
    ) -> PathResult:
        """A near-optimal path by HPA*; ``no_path`` at once when the goal is unreachable.

        Args:
            start, goal: grid cells ``(x, y)``.
            options: ``max_expansions`` (abstract expansions), ``allow_partial`` (an unreachable
                goal falls back to the grid's exact search), ``heuristic`` (``None``,
                ``"euclidean"`` or ``"zero"``, as the lattice search); agents are not modelled.
            smooth: improve the refined path: search again, exactly, inside the clusters it crosses
                (:mod:`.corridor_kernel`), and check short paths against the exact search
                (``exact_check``); ``False`` gives the refined path as the abstraction found it.
            corridor: the corridor search even when ``smooth`` is off.

        Raises:
            InvalidQueryError: malformed cells or options; a unit size or radius other than one cell.
            OutOfBoundsError: an end outside the grid.
            BlockedEndpointError: the start is a wall.
            InvalidGraphError: not built, or the grid changed behind its back.
        """
        opts = options if options is not None else _DEFAULTS
        check_options(opts)
        if opts.size != 1 or opts.radius is not None:
            kind = self._grid.layout.kind.value
            raise InvalidQueryError(
                f"HPA* on a {kind} layout answers one-cell units only; query the grid exactly"
            )
        if opts.heuristic not in (None, "euclidean", "zero"):
            raise InvalidQueryError(
                f"heuristic {opts.heuristic!r:.40} does not fit a lattice: "
                "use the default, 'euclidean' or 'zero'"
            )
        s, t = self._node(start, "start"), self._node(goal, "goal")
        self._require_built()
        graph = self._graph
        if not graph.passable[s]:
            raise BlockedEndpointError(f"start cell {tuple(start)} is blocked")
        if s == t:
            return self._package(PathStatus.FOUND, np.array([s]), 0.0, 0)
        if not self._joined(s, t):
            if opts.allow_partial:
                return self._grid.find_path(start, goal, options=opts)
            return PathResult(PathStatus.NO_PATH)
        near, far = self._take()
        try:
            cells, expanded, status = self._abstract(s, t, opts, near, far)
            if cells is None:
                return PathResult(status, expanded=expanded)
            nodes, cost = np.zeros(0, dtype=np.int64), math.inf
            if smooth or corridor:  # the refined path lies in the chain's clusters: never dearer
                nodes, cost = self._corridor(cells, opts, near)
            if not nodes.size:
                nodes, cost, near.tag = refine(
                    graph.passable, graph.weights, graph.stride, graph.pad, graph.csize, graph.frame.nx,
                    graph.lattice, cells, near.g, near.parent, near.stamp, near.pos, near.heap_nodes,
                    near.heap_keys, near.next_tag(),
                )  # fmt: skip
            if not nodes.size:  # never on a graph in step with its grid
                raise InvalidGraphError("the hierarchy is out of step with its grid; call build() again")
        finally:
            self._give(near, far)
        result = self._package(PathStatus.FOUND, nodes, float(cost), expanded)
        return self._checked(result, start, goal, opts) if smooth else result

    def _corridor(self, chain: I64, opts: QueryOptions, work: Workspace) -> tuple[I64, float]:
        """The exact path inside the clusters of an abstract chain (its ends, its transitions)."""
        graph = self._graph
        inside = np.zeros(graph.cluster_count, dtype=np.uint8)
        inside[graph.frame.clusters(chain)] = 1
        h_scale = 0.0 if opts.heuristic == "zero" else self._min_weight
        facets = graph.facets if opts.heuristic is None else np.zeros((0, 2))
        path, better = corridor_astar(
            graph.passable, graph.weights, graph.stride, graph.pad, graph.csize, graph.frame.nx,
            graph.lattice, inside, graph.centre_frame, facets, h_scale, int(chain[0]), int(chain[-1]),
            work.g, work.parent, work.stamp, work.pos, work.heap_nodes, work.heap_keys, work.next_tag(),
        )  # fmt: skip
        return path, float(better)

    def _abstract(
        self, s: int, t: int, opts: QueryOptions, near: Workspace, far: Workspace
    ) -> tuple[I64 | None, int, PathStatus]:
        """The start, transitions and goal an abstract A* chains (or None, its expansions, why)."""
        graph = self._graph
        args = (
            graph.passable,
            graph.weights,
            graph.stride,
            graph.pad,
            graph.csize,
            graph.frame.nx,
            graph.lattice,
        )
        sc, tc = graph.frame.clusters(np.array([s, t]))
        tag = near.next_tag()
        cluster_search(
            *args,
            s,
            -1,
            False,
            near.g,
            near.parent,
            near.stamp,
            near.pos,
            near.heap_nodes,
            near.heap_keys,
            tag,
        )
        mine = graph.node_cells[graph.node_offsets[sc] : graph.node_offsets[sc + 1]]
        settled = near.stamp[mine] == tag + 1
        sources = np.arange(graph.node_offsets[sc], graph.node_offsets[sc + 1])[settled]
        source_g = near.g[mine][settled]
        direct = float(near.g[t]) if sc == tc and near.stamp[t] == tag + 1 else math.inf
        back = far.next_tag()
        cluster_search(
            *args, t, -1, True, far.g, far.parent, far.stamp, far.pos, far.heap_nodes, far.heap_keys, back
        )
        theirs = graph.node_cells[graph.node_offsets[tc] : graph.node_offsets[tc + 1]]
        reached = far.stamp[theirs] == back + 1
        tail_nodes = np.arange(graph.node_offsets[tc], graph.node_offsets[tc + 1])[reached]
        tail_costs = far.g[theirs][reached]
        n, work = graph.node_count, far  # far's arrays serve again (padded cells outnumber nodes)
        tails = np.full(n, math.inf)
        goal_xy = graph.grid.cell_points(
            [(t // graph.stride - graph.pad) * graph.grid.width + t % graph.stride - graph.pad]
        )[0]
        h_scale = 0.0 if opts.heuristic == "zero" else self._min_weight * self._abstract_weight
        facets = graph.facets if opts.heuristic is None else np.zeros((0, 2))
        budget = -1 if opts.max_expansions is None else int(opts.max_expansions)
        outcome, expanded = abstract_astar(
            graph.indptr, graph.targets, graph.costs, graph.node_xy, facets, h_scale, goal_xy,
            sources, source_g, tail_nodes, tail_costs, tails, direct, budget,
            work.g, work.parent, work.stamp, work.pos, work.heap_nodes, work.heap_keys, work.next_tag(),
        )  # fmt: skip
        if outcome != 1:
            status = PathStatus.BUDGET_EXHAUSTED if outcome == 2 else PathStatus.NO_PATH
            return None, int(expanded), status
        chain = [t]
        node = int(work.parent[n])
        while node >= 0:
            chain.append(int(graph.node_cells[node]))
            node = int(work.parent[node])
        chain.append(s)
        return np.array(chain[::-1], dtype=np.int64), int(expanded), PathStatus.FOUND

    def _checked(
        self, result: PathResult, start: Sequence[int], goal: Sequence[int], opts: QueryOptions
    ) -> PathResult:
        """The exact path instead, when a short path may be a detour and the exact one is cheaper."""
        graph = self._graph
        a, b = result.points[0], result.points[-1]
        bound = self._min_weight * _distance(float(b[0] - a[0]), float(b[1] - a[1]), graph.facets)
        reach = self._check_cells * min(self._grid.cell_size) * self._min_weight
        if result.cost <= CHECK_SLACK * bound or bound > reach:
            return result
        self.checked_queries += 1
        exact = self._grid.find_path(
            start, goal, options=QueryOptions(ignore_agents=True, heuristic=opts.heuristic)
        )
        return exact if exact.found and exact.cost < result.cost else result

    def find_many(
        self, starts: npt.ArrayLike, goals: npt.ArrayLike, *, options: QueryOptions | None = None
    ) -> list[PathResult]:
        """:meth:`find_path` for each pair, in order (the first bad query raises).

        Raises:
            InvalidQueryError: ``starts`` and ``goals`` differ in length (and as :meth:`find_path`).
        """
        a, b = np.asarray(starts).reshape(-1, 2), np.asarray(goals).reshape(-1, 2)
        if a.shape != b.shape:
            raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
        return [self.find_path(s, t, options=options) for s, t in zip(a.tolist(), b.tolist(), strict=True)]

    def _take(self) -> tuple[Workspace, Workspace]:
        with self._lock:
            if self._spare:
                return self._spare.pop()
        size = self._graph.passable.size
        return Workspace.for_nodes(size), Workspace.for_nodes(size)

    def _give(self, near: Workspace, far: Workspace) -> None:
        with self._lock:
            if near.g.size == self._graph.passable.size:
                self._spare.append((near, far))

    def _package(self, status: PathStatus, padded: I64, cost: float, expanded: int) -> PathResult:
        """A result over grid cells from padded nodes."""
        graph = self._graph
        rows, cols = np.divmod(padded, graph.stride)
        nodes = (rows - graph.pad) * self._grid.width + cols - graph.pad
        points: F64 = self._grid.cell_points(nodes)
        return PathResult(status, points=points, nodes=nodes, cost=cost, expanded=expanded)

    def __repr__(self) -> str:
        g = self._graph
        return (
            f"LatticeHierarchy({self._grid.width} x {self._grid.height}, {self._grid.layout.kind.value}, "
            f"cluster_size={g.csize}, nodes={g.node_count}, built={self._version >= 0})"
        )
