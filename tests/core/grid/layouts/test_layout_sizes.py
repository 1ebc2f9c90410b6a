"""Units of any size on hexagonal, isometric and half-offset layers (issues 38 and 39), against an
oracle built from Godot's own dump: a size-k unit on cell c covers the cells within k - 1 steps of
c over ``get_surrounding_cells``; it stands where all of them exist and are walkable, moves between
the engine's neighbours where both footprints fit (the diagonal rule on the eroded grid), and a step
costs its length times the highest weight under the entered footprint. scipy's Dijkstra on that
graph gives the optimum our paths must have (relative 1e-5)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
import shapely
from scipy.sparse import csr_matrix  # type: ignore[import-untyped]
from scipy.sparse.csgraph import dijkstra  # type: ignore[import-untyped]

from python_core.errors import BlockedEndpointError, OutOfBoundsError
from python_core.flowfield import LatticeField
from python_core.grid.layouts import TileGrid, TileLayout
from python_core.grid.layouts.geometry import neighbour_table
from python_core.grid.layouts.prepared import prepared
from python_core.result import QueryOptions
from tests.core.grid.layouts.godot_dump import dump, layer_id, layers, layout_of

SIZES = (1, 2, 3)
QUERIES = 25
# every hexagonal, isometric and half-offset layer of the dump (square tiles use the square grid)
LAYERS = [la for la in layers() if la["shape"] != 0]


class Oracle:
    """The engine's graph for one layer: cells of the dump region, their sides and corners."""

    def __init__(self, layer: dict[str, Any]) -> None:
        x0, y0, w, h = dump()["region"]
        self.w, self.h = w, h
        self.index = {(x0 + i % w, y0 + i // w): i for i in range(w * h)}
        self.sides = [[self.index.get(tuple(c), -1) for c in layer["surrounding"][i]] for i in range(w * h)]
        self.corners = [[self.index.get(tuple(c), -1) for c in layer["corners"][i]] for i in range(w * h)]
        self.around = [{tuple(c) for c in layer["surrounding"][i]} for i in range(w * h)]
        self.cell = {i: c for c, i in self.index.items()}
        self.centre = np.array(layer["centres"], dtype=np.float64)

    def footprint(self, i: int, size: int) -> set[int] | None:
        """The cells within ``size - 1`` side steps of ``i``, ring by ring; None when one lies
        outside the region."""
        seen, ring = {i}, [i]
        for _ in range(size - 1):
            nxt = []
            for c in ring:
                for n in self.sides[c]:
                    if n < 0:
                        return None
                    if n not in seen:
                        seen.add(n)
                        nxt.append(n)
            ring = nxt
        return seen

    def clearance(self, walkable: np.ndarray, up_to: int = 8) -> np.ndarray:
        is_open = walkable.ravel()
        out = np.zeros(self.w * self.h, dtype=np.int64)
        for i in range(self.w * self.h):
            k = 0
            while k < up_to:
                cells = self.footprint(i, k + 1)
                if cells is None or not all(is_open[c] for c in cells):
                    break
                k += 1
            out[i] = k
        return out

    def graph(
        self,
        walkable: np.ndarray,
        weights: np.ndarray,
        size: int,
        diagonal: str,
        closed: frozenset[int] = frozenset(),
    ) -> csr_matrix:
        """The size's step graph: edges between cells whose footprints fit (and are not ``closed``:
        centres where the footprint would meet an agent's)."""
        fits = self.clearance(walkable, up_to=size) >= size
        fits[list(closed)] = False
        flat = weights.ravel()
        heavy = [
            max(float(flat[c]) for c in self.footprint(i, size) or ()) if fits[i] else 0.0
            for i in range(fits.size)
        ]
        edges: dict[tuple[int, int], float] = {}
        for i in np.flatnonzero(fits).tolist():
            for n in self.sides[i]:
                if n >= 0 and fits[n]:
                    edges[i, n] = float(np.hypot(*(self.centre[n] - self.centre[i])) * heavy[n])
            if diagonal == "never":
                continue
            for c in self.corners[i]:
                if c < 0 or not fits[c]:
                    continue
                between = self.around[i] & self.around[c]  # map cells: outside ones count as walls
                assert len(between) == 2
                free = [cell in self.index and bool(fits[self.index[cell]]) for cell in between]
                if diagonal == "always" or (any(free) if diagonal == "at_least_one_walkable" else all(free)):
                    edges[i, c] = float(np.hypot(*(self.centre[c] - self.centre[i])) * heavy[c])
        n = self.w * self.h
        if not edges:
            return csr_matrix((n, n))
        rows, cols = zip(*edges, strict=True)
        return csr_matrix((list(edges.values()), (rows, cols)), shape=(n, n))


def _random_layer(
    layer: dict[str, Any], seed: int, diagonal: str = "only_if_no_obstacles"
) -> tuple[Any, ...]:
    rng = np.random.default_rng(seed)
    _, _, w, h = dump()["region"]
    walkable = rng.random((h, w)) > 0.1
    weights = rng.choice([1.0, 1.0, 1.5, 2.5], size=(h, w))
    grid = TileGrid(
        walkable, layout=layout_of(layer), weights=weights, diagonal=diagonal, cell_size=layer["tile_size"]
    )
    return rng, walkable, weights, grid


@pytest.mark.parametrize("layer", LAYERS, ids=layer_id)
def test_clearance_and_paths_of_every_size_equal_the_oracle(layer: dict[str, Any]) -> None:
    seed = layer["shape"] * 100 + layer["layout"] * 2 + layer["offset_axis"]
    rng, walkable, weights, grid = _random_layer(layer, seed)
    oracle = Oracle(layer)
    assert grid.clearance.ravel().tolist() == oracle.clearance(walkable).tolist()
    w = oracle.w
    for size in SIZES:
        graph = oracle.graph(walkable, weights, size, grid.diagonal.value)
        fits = np.flatnonzero(grid.clearance.ravel() >= size)
        if fits.size == 0:
            continue
        starts, goals = rng.choice(fits, size=QUERIES), rng.choice(w * oracle.h, size=QUERIES)
        best = dijkstra(graph, indices=np.unique(starts))
        row = {s: k for k, s in enumerate(np.unique(starts).tolist())}
        opts = QueryOptions(size=size)
        for s, t in zip(starts.tolist(), goals.tolist(), strict=True):
            result = grid.find_path((s % w, s // w), (t % w, t // w), options=opts)
            want = best[row[s], t]
            assert result.found == bool(np.isfinite(want)), (size, s, t)
            if not result.found:
                continue
            assert result.cost == pytest.approx(want, rel=1e-5), (size, s, t)
            path = result.nodes.tolist()
            assert path[0] == s
            assert path[-1] == t
            assert all(graph[a, b] > 0 for a, b in itertools.pairwise(path)), path  # footprints fit
            np.testing.assert_allclose(result.points, grid.cell_points(result.nodes))


@pytest.mark.parametrize("diagonal", ["always", "at_least_one_walkable", "never"])
def test_isometric_corners_follow_the_diagonal_rule_on_the_eroded_grid(diagonal: str) -> None:
    layer = next(la for la in LAYERS if la["shape"] == 1 and la["layout"] == 0 and la["offset_axis"] == 0)
    _rng, walkable, weights, grid = _random_layer(layer, 7, diagonal)
    oracle = Oracle(layer)
    graph = oracle.graph(walkable, weights, 2, diagonal)
    fits = np.flatnonzero(grid.clearance.ravel() >= 2)
    best = dijkstra(graph, indices=fits)
    w = oracle.w
    for k, s in enumerate(fits.tolist()):
        for t in fits.tolist():
            result = grid.find_path((s % w, s // w), (t % w, t // w), options=QueryOptions(size=2))
            assert result.found == bool(np.isfinite(best[k, t]))
            if result.found:
                assert result.cost == pytest.approx(best[k, t], rel=1e-5)


def test_endpoints_without_room() -> None:
    grid = TileGrid(np.ones((5, 7), bool), layout="hexagon", cell_size=(2.0, 2.0))
    with pytest.raises(BlockedEndpointError, match="size 2: its footprint"):
        grid.find_path((0, 2), (3, 2), options=QueryOptions(size=2))
    assert grid.find_path((3, 2), (0, 2), options=QueryOptions(size=2)).status.value == "no_path"
    partial = grid.find_path((3, 2), (0, 2), options=QueryOptions(size=2, allow_partial=True))
    assert partial.status.value == "partial"
    assert partial.nodes[-1] == 2 * 7 + 1


def _walk_repairs(layout: TileLayout, seed: int) -> None:
    rng = np.random.default_rng(seed)
    walkable = rng.random((40, 50)) > 0.05
    grid = TileGrid(walkable, layout=layout, cell_size=(16.0, 14.0))
    assert grid.find_path((25, 20), (26, 20)).found or True  # build the search's copy first
    for _ in range(30):
        cells = rng.integers(0, [50, 40], size=(int(rng.integers(1, 30)), 2))
        grid.set_walkable(cells, bool(rng.random() < 0.5))
        fresh = TileGrid(grid.walkable, layout=layout, cell_size=(16.0, 14.0))
        np.testing.assert_array_equal(grid.clearance, fresh.clearance)


@pytest.mark.parametrize(
    "layout",
    [
        TileLayout("hexagon", layout=0, offset_axis=0, map_origin=(1, 3)),
        TileLayout("hexagon", layout=3, offset_axis=1),
        TileLayout("isometric", layout=1, map_origin=(0, 1)),
        TileLayout("half_offset_square", layout=5, offset_axis=1),
    ],
    ids=str,
)
def test_clearance_repaired_in_place_equals_a_fresh_computation(layout: TileLayout) -> None:
    _walk_repairs(layout, seed=layout.layout)


def test_changes_the_copy_was_not_told_of_are_caught_up() -> None:
    """An atomic() block undone after a failure writes the walls and weights back by itself: the
    next query finds the cells that differ and repairs them in place (the same copy)."""
    rng = np.random.default_rng(5)
    walkable = rng.random((30, 40)) > 0.1
    layout = TileLayout("hexagon", layout=1, offset_axis=1)
    grid = TileGrid(walkable, layout=layout, weights=rng.choice([1.0, 2.0], size=(30, 40)))
    before = grid.clearance.copy()
    heavy = grid.find_path((20, 15), (21, 15), options=QueryOptions(size=2)).cost
    copy = prepared(grid)

    def change_and_fail() -> None:
        with grid.atomic():
            grid.set_walkable(rng.integers(0, [40, 30], size=(40, 2)), False)
            grid.set_weights([(21, 15)], 9.0)
            grid.set_walkable([(99, 0)], False)  # outside: everything is undone

    with pytest.raises(OutOfBoundsError):
        change_and_fail()
    np.testing.assert_array_equal(grid.clearance, before)
    np.testing.assert_array_equal(grid.clearance, TileGrid(walkable, layout=layout).clearance)
    assert grid.find_path((20, 15), (21, 15), options=QueryOptions(size=2)).cost == heavy
    assert prepared(grid) is copy  # repaired in place, not rebuilt


def test_a_door_closing_and_opening_changes_paths_of_every_size() -> None:
    walkable = np.ones((15, 21), bool)
    walkable[:, 10] = False
    walkable[6:9, 10] = True  # a door three cells high
    grid = TileGrid(walkable, layout="hexagon", cell_size=(2.0, 2.0))
    opts = QueryOptions(size=2)
    assert grid.find_path((4, 7), (16, 7), options=opts).found
    grid.set_walkable([(10, 7)], False)
    assert not grid.find_path((4, 7), (16, 7), options=opts).found
    assert grid.find_path((4, 7), (16, 7)).found  # one-cell units still pass
    grid.set_walkable([(10, 7)], True)
    assert grid.find_path((4, 7), (16, 7), options=opts).found
    np.testing.assert_array_equal(grid.clearance, TileGrid(walkable, layout="hexagon").clearance)


@pytest.mark.parametrize("layer", [LAYERS[i] for i in (0, 12, 24, 35)], ids=layer_id)
def test_agents_block_where_footprints_meet(layer: dict[str, Any]) -> None:
    rng, walkable, weights, grid = _random_layer(layer, 11)
    walkable = np.ones_like(walkable)
    grid = TileGrid(walkable, layout=layout_of(layer), weights=weights, cell_size=layer["tile_size"])
    oracle = Oracle(layer)
    centre = next(i for i in range(oracle.w * oracle.h) if oracle.footprint(i, 2) is not None and i > 40)
    grid.place_agent(5, (centre % oracle.w, centre // oracle.w), 2)
    cover = oracle.footprint(centre, 2)
    assert cover is not None
    grid.place_agent(6, (0, 0), 2)  # at the edge: the part of its footprint inside the grid blocks
    inside = {n for n in oracle.sides[0] if n >= 0}
    assert all(grid.agents_on([n], besides=5) for n in inside)
    assert not grid.agents_on([n for n in range(oracle.w * oracle.h) if n not in inside | {0}], besides=5)
    grid.remove_agent(6)
    for size in (1, 2):
        closed = {
            i
            for i in range(oracle.w * oracle.h)
            if (f := oracle.footprint(i, size)) is not None and f & cover
        }
        blocked = oracle.graph(walkable, weights, size, grid.diagonal.value, frozenset(closed))
        fits = np.array(sorted(set(np.flatnonzero(grid.clearance.ravel() >= size).tolist()) - closed))
        starts = rng.choice(fits, size=10)
        best = dijkstra(blocked, indices=np.unique(starts))
        row = {s: k for k, s in enumerate(np.unique(starts).tolist())}
        for s in starts.tolist():
            for t in rng.choice(oracle.w * oracle.h, size=5).tolist():
                result = grid.find_path(
                    (s % oracle.w, s // oracle.w),
                    (t % oracle.w, t // oracle.w),
                    options=QueryOptions(size=size),
                )
                want = best[row[s], t]
                assert result.found == bool(np.isfinite(want)), (size, s, t)
                if result.found:
                    assert result.cost == pytest.approx(want, rel=1e-5)
        assert grid.agents_on([centre], size=size)
        assert not grid.agents_on([centre], besides=5, size=size)


@pytest.mark.parametrize("layer", [LAYERS[i] for i in (1, 14, 26, 33)], ids=layer_id)
def test_flow_fields_per_size_follow_to_the_oracles_distance(layer: dict[str, Any]) -> None:
    _, walkable, weights, grid = _random_layer(layer, 3)
    oracle = Oracle(layer)
    w = oracle.w
    for size in (2, 3):
        fits = np.flatnonzero(grid.clearance.ravel() >= size)
        if fits.size == 0:
            continue
        goal = int(fits[len(fits) // 2])
        field = LatticeField(grid, [(goal % w, goal // w)], tile_size=4, size=size)
        field.extend([(0, 0)])
        to_goal = dijkstra(oracle.graph(walkable, weights, size, grid.diagonal.value).T, indices=goal)
        for i in range(w * oracle.h):
            cost = field.cost_at((i % w, i // w))
            if not np.isfinite(to_goal[i]):
                assert cost is None or not np.isfinite(cost)
                continue
            assert cost == pytest.approx(to_goal[i], rel=1e-5)
            total, end, _ = field.follow((i % w, i // w))
            assert end == (goal % w, goal // w)
            assert total == pytest.approx(to_goal[i], rel=1e-5)


@pytest.mark.parametrize(
    "layout",
    [
        TileLayout("hexagon"),
        TileLayout("hexagon", offset_axis=1),
        TileLayout("isometric"),
        TileLayout("half_offset_square"),
    ],
    ids=str,
)
def test_a_radius_gets_the_smallest_footprint_that_holds_its_disc(layout: TileLayout) -> None:
    """Checked with shapely apart from the code: the union of the footprint's tiles."""
    cell_size = (32.0, 24.0)
    grid = TileGrid(np.ones((30, 30), bool), layout=layout, cell_size=cell_size)
    table = neighbour_table(layout)
    centre = (14, 14)
    for radius in (5.0, 12.0, 20.0, 33.0, 50.0, 77.0):
        k = grid.size_for_radius(radius)
        disc = shapely.Point(grid.cell_to_world(centre)).buffer(radius * (1 - 1e-6), quad_segs=64)
        for size, holds in ((k, True), (k - 1, False)):
            if size < 1:
                continue
            cells = {centre}
            for _ in range(size - 1):  # ring by ring, geometry.py's sides of each cell's class
                cells |= {
                    (x + int(dx), y + int(dy))
                    for x, y in cells
                    for dx, dy in table.sides[
                        (y if layout.parity_axis == 1 else x) % 2 if layout.parity_axis >= 0 else 0
                    ]
                }
            tiles = shapely.union_all([_tile(grid, layout, c, cell_size) for c in cells])
            assert tiles.contains(disc) == holds, (radius, size)


def _tile(grid: TileGrid, layout: TileLayout, cell: tuple[int, int], cell_size: tuple[float, float]) -> Any:
    """The tile of ``cell``, slightly grown, from Godot's outlines of each shape."""
    cx, cy = grid.cell_to_world(cell)
    w, h = cell_size[0] / 2, cell_size[1] / 2
    if layout.kind.value == "hexagon" and layout.offset_axis == 0:
        points = [(w, -h / 2), (w, h / 2), (0, h), (-w, h / 2), (-w, -h / 2), (0, -h)]
    elif layout.kind.value == "hexagon":
        points = [(w, 0), (w / 2, h), (-w / 2, h), (-w, 0), (-w / 2, -h), (w / 2, -h)]
    elif layout.kind.value == "isometric":
        points = [(w, 0), (0, h), (-w, 0), (0, -h)]
    else:
        points = [(w, -h), (w, h), (-w, h), (-w, -h)]
    return shapely.Polygon([(cx + x, cy + y) for x, y in points]).buffer(1e-6)
