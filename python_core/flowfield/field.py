"""One flow field: exact costs to a goal set and a direction per cell, computed tile by tile.

Quick start::

    from python_core.flowfield import FlowField
    field = FlowField(grid, [(40, 40), (41, 40)], hierarchy=hpa)   # nothing computed yet
    new_tiles = field.extend([(300, 200)])   # the HPA* corridor's tiles (and any the check adds)
    print(field.cost_at((300, 200)), field.direction_at((300, 200)))

Tiles are the HPA* clusters (``cluster_size`` cells a side; without a hierarchy, ``tile_size``).
The invariant, kept through :meth:`FlowField.extend` and :meth:`FlowField.repair`: every cell of a
computed tile holds its exact cost to the nearest goal (``inf`` when none can be reached), equal to
a full Dijkstra from the goal set, and a direction whose step plus the next cell's cost equals that
cost, so following the directions from any computed cell costs exactly its cost and ends on a goal.
See docs/flowfield.md for the argument and :mod:`python_core.flowfield.region_solver` for the check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from python_core._types import F64, I64, B
from python_core.errors import AStarError, InvalidQueryError, UnsupportedOperationError
from python_core.flowfield import region_solver, walks
from python_core.flowfield.goal_search import HEURISTIC_TILES, solve_from_goals
from python_core.flowfield.guide import tiles_guide
from python_core.flowfield.landmarks import Landmarks, no_landmarks
from python_core.flowfield.moves import SLACK, UNREACHABLE
from python_core.flowfield.tiles import FieldTiles
from python_core.grid import GridGraph
from python_core.grid.cells import as_cells
from python_core.grid.layouts import TileGrid
from python_core.hpa import HierarchicalGrid

__all__ = ["FlowField", "RepairReport"]

DEFAULT_TILE = 16
"""Tile side without a hierarchy."""
FILL_SHARE = 0.5
"""When the tiles computed and asked for (or added by the check) pass this share of the map, every
tile left is computed at once: the check's rounds over a region full of holes cost more than one
pass over the rest (on a 4096 x 4096 rooms map, a corner-to-corner field whose rounds reached 97 %
of the tiles took 12 times one full pass)."""
MAX_ROUNDS = 6
"""Rounds of the check after which every tile left is computed in one pass (each round solves the
violated tiles again: a corridor the octile bounds cannot certify would take many)."""
GOALS_TRIED = 4
"""Goal tiles (nearest first) whose HPA* paths a new start tries for its corridor."""


@dataclass(frozen=True, slots=True)
class RepairReport:
    """What :meth:`FlowField.repair` did: tiles recomputed (including new ones the check added) and,
    of those, the tiles whose directions or costs differ from before (what a client must refetch)."""

    recomputed: tuple[int, ...]
    changed: tuple[int, ...]


class FlowField(FieldTiles):
    """Exact cost-to-goal and a direction byte per cell of the tiles requests touched (their
    layout, storage and reading: :class:`~python_core.flowfield.tiles.FieldTiles`).

    Args:
        grid: the grid (read at every computation: walls, weights and, with ``agents_block``,
            the agents' cells).
        goals: ``(x, y)`` goal cells (a non-empty set; walls among them are never reached).
        hierarchy: the grid's HPA* hierarchy: its clusters are the tiles and its paths the
            corridors; without one, tiles are ``tile_size`` a side and a corridor is the straight
            line of tiles to the nearest goal (the exactness check adds what that misses).
        tile_size: tile side without a hierarchy (``>= 2``).
        agents_block: cells with agents are not entered (an agent's own cell still gets the
            direction out of it, as a path's start never blocks).
        size: the units' size in cells (1..255): the field leads a unit's anchor (its footprint's
            top-left cell) along moves its whole footprint fits, at the cost a size-``size`` path
            pays (footprint's highest weight); cells, goals and starts are anchors, and a goal
            where the footprint does not fit is never reached. See :mod:`.surface`.
        landmarks: landmark distances of this grid and tile size (:class:`Landmarks`): the
            exactness check bounds exits with them as well as with the octile distance, which keeps
            a long field near its corridor on maps of rooms; ignored while stale (the grid changed
            since they were built). Size 1 only: they are distances of one-cell units.

    Raises:
        InvalidQueryError: no goals, malformed goals, a bad tile size or unit size, a hierarchy
            over another grid, landmarks with a size other than 1.
        OutOfBoundsError: a goal outside the grid.
        UnsupportedOperationError: a hexagonal, isometric or half-offset grid (a
            :class:`~python_core.grid.layouts.TileGrid`: its field is a
            :class:`~python_core.flowfield.lattice_field.LatticeField`).

    Example:
        >>> g = GridGraph.from_strings(["....", ".@@.", "...."], diagonal="never")
        >>> f = FlowField(g, [(0, 0)], tile_size=2); f.extend([(3, 2)])
        [0, 1, 2, 3]
        >>> f.cost_at((3, 2)), f.direction_at((3, 0))
        (5.0, 1)
        >>> FlowField(g, [])
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidQueryError: a flow field needs at least one goal cell
    """

    def __init__(
        self,
        grid: GridGraph,
        goals: npt.ArrayLike,
        *,
        hierarchy: HierarchicalGrid | None = None,
        tile_size: int = DEFAULT_TILE,
        agents_block: bool = False,
        landmarks: Landmarks | None = None,
        size: int = 1,
    ) -> None:
        if isinstance(grid, TileGrid):  # its moves are the square grid's: a hex field would be wrong
            kind = grid.layout.kind.value
            raise UnsupportedOperationError(
                f"flow fields on a {kind} layout are LatticeField's (FieldCache picks it), not FlowField's"
            )
        nodes = np.unique(as_cells(goals, grid.width, grid.height))
        if nodes.size == 0:
            raise InvalidQueryError("a flow field needs at least one goal cell")
        if hierarchy is not None:
            if hierarchy.grid is not grid:
                raise InvalidQueryError("the hierarchy must be built over the field's own grid")
            tile_size = int(hierarchy.graph.csize)
        if isinstance(tile_size, bool) or not isinstance(tile_size, int) or tile_size < 2:
            raise InvalidQueryError(f"tile_size must be an integer >= 2, got {tile_size!r}")
        super().__init__(grid, nodes, tile_size, agents_block=agents_block, size=size)
        self.hierarchy = hierarchy
        self._gx, self._gy = nodes % grid.width, nodes // grid.width
        self._landmarks: Landmarks | None = None
        self.landmarks = landmarks

    @property
    def landmarks(self) -> Landmarks | None:
        """The landmark set the check uses (None: octile bounds alone). Set a new one after the grid
        changed (a stale set is ignored); raises ``InvalidQueryError`` for a set of another grid or
        tile size."""
        return self._landmarks

    @landmarks.setter
    def landmarks(self, marks: Landmarks | None) -> None:
        if marks is not None and not isinstance(marks, Landmarks):
            raise InvalidQueryError(f"landmarks must be a Landmarks set, got {type(marks).__name__}")
        if marks is not None and (marks.grid is not self.grid or marks.cs != self.cs):
            raise InvalidQueryError("the landmarks must be built over the field's own grid and tile size")
        if marks is not None and self.size != 1:
            raise InvalidQueryError(f"landmarks bound one-cell units' costs, not size {self.size}'s")
        self._landmarks = marks
        self._lm_terms: tuple[int, F64, F64] | None = None

    # -- computing --------------------------------------------------------------------------------

    def extend(self, starts: npt.ArrayLike) -> list[int]:
        """Compute the tiles needed to lead every start to a goal: for the starts in tiles not yet
        closed (:attr:`closed`), their tiles and the tiles their cells' chains of directions run
        through, from an A* from the goals toward them (:mod:`.goal_search`; guided by landmark
        tables when the set has them); the starts' tiles are then closed, the others stored open.
        Starts in closed tiles cost nothing. Past half the map's cells the search gives up and
        every tile left is computed in one pass (the region solver, which repairs use).

        Returns:
            The tile ids computed by this call, ascending.

        Raises:
            InvalidQueryError: malformed starts; OutOfBoundsError: a start outside the grid.
        """
        nodes = as_cells(starts, self.grid.width, self.grid.height)
        self._check_version()
        asked = np.unique(self._tiles_of_nodes(nodes))
        asked = asked[~self.closed[asked]]  # a closed tile's chains are all computed
        if not asked.size:
            return []
        fresh = int((self.known_slot[asked] < 0).sum())
        fill = (self.known_slot >= 0).sum() + fresh > FILL_SHARE * self.known_slot.size
        if asked.size > HEURISTIC_TILES:  # an unguided search: a disc reaching the farthest tile
            corners = self._tile_corners(asked)
            reach = float(self._reach(corners).max()) + self.cs
            fill |= math.pi * reach * reach > FILL_SHARE * self.grid.node_count
        done: list[int] = []
        # the searches of a field settle at most one map's worth of cells between two fill passes
        # (each search starts at the goals again: many far requests must not cost many passes)
        budget = min(int(FILL_SHARE * self.grid.node_count), self.grid.node_count - self._searched)
        if not fill and budget > 0:
            guide = tiles_guide(self, self.landmarks, asked)  # landmark tables: a tighter A*
            tiles, cost, dirs, whole, settled = solve_from_goals(self, asked, budget, guide)
            self._searched += settled
            self._store(tiles, cost, dirs)
            done = [int(t) for t in tiles]
            if whole:
                self.closed[asked] = True
                return done
        # most of the map: one pass over every tile left (the tiles a search gave up with help)
        rest = self._solve({int(t) for t in np.flatnonzero(self.known_slot < 0)})
        self.closed[:] = True  # every tile computed: every chain runs through computed tiles
        return sorted(done + rest)

    def _reach(self, nodes: I64) -> F64:
        """Chebyshev distance of each cell to the nearest goal."""
        w = self.grid.width
        xs, ys = nodes % w, nodes // w
        reach = np.full(nodes.size, np.inf)
        for gx, gy in zip(self._gx.tolist(), self._gy.tolist(), strict=True):
            reach = np.minimum(reach, np.maximum(np.abs(xs - gx), np.abs(ys - gy)))
        return reach

    def _corridor(self, node: int) -> list[int]:
        """Tiles an HPA* path from ``node`` to one of the nearest goal tiles crosses (the start's
        tile alone when none is found); a straight line of tiles without a hierarchy."""
        w = self.grid.width
        x, y = node % w, node // w
        order = np.argsort(np.maximum(np.abs(self._gx - x), np.abs(self._gy - y)), kind="stable")
        goal_tiles: dict[int, int] = {}
        for i in order.tolist():
            goal_tiles.setdefault(self._tile_of_node(int(self.goal_nodes[i])), int(self.goal_nodes[i]))
            if len(goal_tiles) == GOALS_TRIED:
                break
        if self.hierarchy is None:
            goal = next(iter(goal_tiles.values()))
            return self._line_tiles(x, y, goal % w, goal // w)
        best: tuple[float, list[int]] = (math.inf, [self._tile_of_node(node)])
        for goal in goal_tiles.values():
            try:
                path = self.hierarchy.find_path((x, y), (goal % w, goal // w), smooth=False)
            except AStarError:
                break  # a start on a wall: its tile alone
            if path.found and path.cost < best[0]:
                nodes = path.nodes
                tiles = ((nodes // w) // self.cs) * self.tiles_x + (nodes % w) // self.cs
                best = (path.cost, np.unique(tiles).tolist())
        return best[1]

    def _line_tiles(self, x0: int, y0: int, x1: int, y1: int) -> list[int]:
        steps = max(abs(x1 - x0), abs(y1 - y0)) // max(1, self.cs // 2) + 1
        xs = np.rint(np.linspace(x0, x1, steps + 1)).astype(np.int64)
        ys = np.rint(np.linspace(y0, y1, steps + 1)).astype(np.int64)
        return sorted(
            {int((yy // self.cs) * self.tiles_x + xx // self.cs) for xx, yy in zip(xs, ys, strict=True)}
        )

    def _solve(self, pending: set[int]) -> list[int]:
        """Compute the tiles of ``pending`` (and the ones the check adds) and store them."""
        if not pending:
            return []
        ground = self.ground()
        region = np.array(sorted(pending), dtype=np.int64)
        done: list[int] = []
        rounds = 0
        while region.size:
            rounds += 1
            region_slot = np.full(self.known_slot.size, -1, dtype=np.int32)
            region_slot[region] = np.arange(region.size, dtype=np.int32)
            cost, dirs, culprits, violated = region_solver.solve_region(
                ground, region, region_slot, self.known_slot, self._cost, self.goal_nodes, self._gx,
                self._gy, self._min_weight(), *self._landmark_args(),
            )  # fmt: skip
            exact = ~violated
            # tiles without a violation are exact: they become known cells for the next round
            self._store(region[exact], cost[exact], dirs[exact])
            done.extend(int(t) for t in region[exact])
            if culprits.size and self._tight():
                # tight bounds name real culprits: the better path runs on from them to a goal
                culprits = self._culprit_corridors(culprits)
            region = np.union1d(region[violated], culprits)
            big = (self.known_slot >= 0).sum() + region.size > FILL_SHARE * self.known_slot.size
            if region.size and (big or rounds >= MAX_ROUNDS):
                region = np.flatnonzero(self.known_slot < 0).astype(np.int64)  # one pass for the rest
        return sorted(done)

    def _tight(self) -> bool:
        """Whether the check bounds exits with (usable) landmarks."""
        return self.landmarks is not None and self.landmarks.usable(self.grid, self.cs)

    def _culprit_corridors(self, tiles: I64) -> I64:
        """``tiles`` and the unknown tiles of the corridor from an open cell of each (nearest its
        centre). With landmarks a culprit is mostly a tile a cheaper path really crosses, and that
        path runs on toward a goal: adding its corridor at once saves a round per tile down it (on
        the 4096 x 4096 rooms map, 5 rounds and 541 tiles instead of 30 rounds and the whole map).
        With octile bounds most culprits are not on a better path: the culprits alone."""
        walk = self.surface.walkable
        out = set(tiles.tolist())
        added: set[int] = set()
        centres = (tiles // self.tiles_x) * self.cs * self.grid.width + (tiles % self.tiles_x) * self.cs
        for tile in tiles[np.argsort(-self._reach(centres), kind="stable")].tolist():
            if tile in added:
                continue  # on a corridor added already: it leads on from there
            x0, y0 = (tile % self.tiles_x) * self.cs, (tile // self.tiles_x) * self.cs
            block = walk[y0 : y0 + self.cs, x0 : x0 + self.cs]
            ys, xs = np.nonzero(block)
            if xs.size == 0:
                continue
            half = self.cs / 2
            i = int(np.argmin(np.abs(xs - half) + np.abs(ys - half)))
            node = (y0 + int(ys[i])) * self.grid.width + x0 + int(xs[i])
            path = [t for t in self._corridor(node) if self.known_slot[t] < 0]
            out.update(path)
            added.update(path)
        return np.array(sorted(out), dtype=np.int64)

    def _landmark_args(self) -> tuple[F64, F64, F64, F64]:
        """The check's landmark arguments: the set's border values and the goals' terms (found once
        per grid version), or none when there is no set or it is stale."""
        marks = self.landmarks
        if marks is None or not self._tight():
            return no_landmarks(self.cs)
        if self._lm_terms is None or self._lm_terms[0] != marks.version:
            self._lm_terms = (marks.version, *marks.goal_terms(self.goal_nodes))
        return marks.to_border, marks.from_border, self._lm_terms[1], self._lm_terms[2]

    # -- repair -----------------------------------------------------------------------------------

    def repair(self, *, dearer: npt.ArrayLike = (), cheaper: npt.ArrayLike = ()) -> RepairReport:
        """Bring the computed tiles up to date after cells changed (call after the grid changed).
        The cells are the grid's whatever the field's size: what changed for its units are the
        anchors whose footprint holds one.

        Args:
            dearer: cells that got harder to cross (closed, weight up, an agent arrived where
                agents block): a tile is recomputed when a chain of directions from one of its
                cells passes next to one (other chains keep their cost: nothing got cheaper).
            cheaper: cells that got easier to cross (opened, weight down, an agent left): a tile
                is recomputed when a path through one could beat a cost it holds (a lower bound
                through the cell, from its distances to the tile and to the goals, says no).
            A cell whose change is unknown belongs in both.

        Returns:
            A :class:`RepairReport`.

        Raises:
            InvalidQueryError, OutOfBoundsError: malformed cells (nothing is changed).
        """
        w, h = self.grid.width, self.grid.height
        dear, cheap = as_cells(dearer, w, h), as_cells(cheaper, w, h)
        # for units of size k, a cell changes the anchors whose footprint holds it
        dear, cheap = self.surface.anchors_of(dear), self.surface.anchors_of(cheap)
        known = np.flatnonzero(self.known_slot >= 0)
        self.version = self.grid.version
        if known.size == 0 or dear.size + cheap.size == 0:
            return RepairReport((), ())
        dirty = np.zeros(known.size, dtype=np.bool_)
        changed_tiles = {self._tile_of_node(int(n)) for n in np.concatenate([dear, cheap]).tolist()}
        dirty |= np.isin(known, list(changed_tiles))
        if dear.size:
            taint = np.unique(_around(dear, w, h))
            dirty |= walks.tainted_tiles(
                self._dirs, known, self.known_slot, w, h, self.cs, self.tiles_x, taint
            )
        if cheap.size:
            dirty |= self._maybe_cheaper(known, cheap)
        redo = known[dirty]
        before = {
            int(t): (self._dirs[self.known_slot[t]].copy(), self._cost[self.known_slot[t]].copy())
            for t in redo
        }
        for t in redo.tolist():
            self._free.append(int(self.known_slot[t]))
            self.known_slot[t] = -1
        done = self._solve(set(redo.tolist()))
        self.closed[:] = bool((self.known_slot >= 0).all())  # new chains may leave open tiles
        changed = []
        for t in done:
            old = before.get(t)
            d, c = self.tile_arrays(t)
            if old is None or not (np.array_equal(old[0], d.ravel()) and np.array_equal(old[1], c.ravel())):
                changed.append(t)
        return RepairReport(tuple(done), tuple(changed))

    def _maybe_cheaper(self, known: I64, cheap: I64) -> npt.NDArray[np.bool_]:
        """Per known tile: could a path through a cheaper cell beat a cost it holds?"""
        grid, cs = self.grid, self.cs
        cw, ch = grid.cell_size
        diag, never = math.hypot(cw, ch), grid.diagonal.value == "never"
        wmin = self._min_weight()
        slots = self.known_slot[known]
        costs = self._cost[slots]
        walk_open = np.isfinite(costs)
        finite_max = np.where(walk_open, costs, 0.0).max(axis=1)
        has_inf = self._has_unreachable(known, slots)
        x0, y0 = (known % self.tiles_x) * cs, (known // self.tiles_x) * cs
        out = np.zeros(known.size, dtype=np.bool_)
        near = np.zeros(known.size, dtype=np.bool_)
        for node in cheap.tolist():
            cx, cy = node % grid.width, node // grid.width
            dx = np.maximum(np.maximum(x0 - cx, cx - (x0 + cs - 1)), 0)
            dy = np.maximum(np.maximum(y0 - cy, cy - (y0 + cs - 1)), 0)
            to_tile = _octile_np(dx, dy, cw, ch, diag, never=never)
            to_goal = float(
                _octile_np(np.abs(self._gx - cx), np.abs(self._gy - cy), cw, ch, diag, never=never).min()
            )
            bound = wmin * (np.maximum(to_tile - diag, 0.0) + max(to_goal - diag, 0.0))
            out |= finite_max * (1.0 - SLACK) > bound
            near |= has_inf & (np.maximum(dx, dy) <= 1)
        return out | self._pocket_tiles(known, has_inf, near) if near.any() else out

    def _has_unreachable(self, known: I64, slots: npt.NDArray[np.int32]) -> npt.NDArray[np.bool_]:
        """Per known tile: does it hold a walkable cell with no way to a goal (an enclosed pocket,
        which only a change next to it can open)?"""
        return np.asarray((self._dirs[slots] == UNREACHABLE).any(axis=1))

    def _pocket_tiles(self, known: I64, has_inf: npt.NDArray[np.bool_], near: npt.NDArray[np.bool_]) -> B:
        """Per known tile: is it joined to a ``near`` tile (a pocket next to an opened cell) by
        tiles holding unreachable cells (or not computed)? A cell cut off from every goal reaches
        the opened cell, if at all, only through cells that were cut off too: the whole pocket,
        however many tiles it spans, is recomputed, not only its tiles next to the opening."""
        flat = np.ones(self.known_slot.size, dtype=np.bool_)  # tiles not computed: a way on
        flat[known] = has_inf
        passable = flat.reshape(self.tiles_y, self.tiles_x)
        seeds = np.zeros(self.known_slot.size, dtype=np.bool_)
        seeds[known[near]] = True
        reach = seeds.reshape(self.tiles_y, self.tiles_x)
        while True:  # grow by the 8 neighbouring tiles, within the passable ones
            grown = reach.copy()
            grown[1:] |= reach[:-1]
            grown[:-1] |= reach[1:]
            wide = grown.copy()
            wide[:, 1:] |= grown[:, :-1]
            wide[:, :-1] |= grown[:, 1:]
            wide &= passable
            if np.array_equal(wide, reach):
                return np.asarray(reach.ravel()[known])
            reach = wide


def _around(nodes: I64, width: int, height: int) -> I64:
    """The cells of the 3 x 3 blocks around ``nodes`` (inside the grid)."""
    xs, ys = nodes % width, nodes // width
    out = []
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            nx, ny = xs + dx, ys + dy
            inside = (nx >= 0) & (nx < width) & (ny >= 0) & (ny < height)
            out.append((ny * width + nx)[inside])
    return np.concatenate(out)


def _octile_np(dx: I64, dy: I64, cw: float, ch: float, diag: float, *, never: bool) -> F64:
    if never:
        return np.asarray(dx * cw + dy * ch, dtype=np.float64)
    m = np.minimum(dx, dy)
    return np.asarray(diag * m + cw * (dx - m) + ch * (dy - m), dtype=np.float64)
