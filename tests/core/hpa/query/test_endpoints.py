"""HPA* endpoint insertion (python_core.hpa.query.endpoints): the bucket-queue Dijkstra gives the
heap Dijkstra's costs (rect_search is the oracle) under every diagonal rule, forwards and
backwards, on one weight and on weights within its span, inside a rectangle of a larger grid; its
tree is a shortest-path tree; it stops once its stops are settled; it declines weights spread
wider than BUCKET_SPAN; and insert_endpoint's costs and paths agree with the oracle on a real map."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from python_core.grid import GridGraph
from python_core.hpa.graph.cluster_search import new_scratch, rect_search
from python_core.hpa.query.endpoints import BUCKET_SPAN, bucket_dijkstra, insert_endpoint
from python_core.hpa.query.smoothing import path_cost

DIAGS = (0, 1, 2, 3)  # never, always, at least one side walkable, no corner cutting
WIDTH, HEIGHT = 23, 19
RECT = (3, 2, 16, 14)  # x0, y0, lw, lh: a rectangle inside the grid, as a cluster is
MAPS = Path(__file__).resolve().parents[3] / "data" / "movingai"


KINDS = ("weighted", "one weight", "one weight, not declared")
"""Grids by weights: random 1-3; 2.0 on every open cell (walls 7.0: never entered), told to
bucket_dijkstra as its ``one_weight`` or not (0.0: it reads the weights as on any grid)."""


def grid(seed: int, weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    walk = (rng.random(WIDTH * HEIGHT) >= 0.25).astype(np.uint8)
    weights = rng.integers(1, 4, WIDTH * HEIGHT).astype(float) if weighted else np.where(walk, 2.0, 7.0)
    return walk, weights


def one_weight(kind: str) -> float:
    return 2.0 if kind == "one weight" else 0.0


Scratch = tuple[np.ndarray, np.ndarray, np.ndarray]


def both(  # noqa: PLR0917
    walk: np.ndarray, weights: np.ndarray, diag: int, source: int, reverse: int, stops: np.ndarray, one: float
) -> tuple[Scratch, Scratch, int]:
    x0, y0, lw, lh = RECT
    args = (walk, weights, WIDTH, x0, y0, lw, lh, diag, 1.0, 1.0, source)
    heap, bucket = new_scratch(lw * lh), new_scratch(lw * lh)
    rect_search(*args, -1, reverse, 1.0, *heap, stops)
    settled = bucket_dijkstra(*args, reverse, *bucket, stops, one)
    return heap, bucket, settled


def sources(walk: np.ndarray) -> list[int]:
    x0, y0, lw, lh = RECT
    cells = [(y0 + y) * WIDTH + x0 + x for y in range(lh) for x in range(lw)]
    return [c for c in cells if walk[c]][::7]


@pytest.mark.parametrize(("diag", "kind", "reverse"), list(itertools.product(DIAGS, KINDS, (0, 1))))
def test_whole_rectangle_costs_match_the_heap_search(diag: int, kind: str, reverse: int) -> None:
    weighted = kind == "weighted"
    walk, weights = grid(diag + 10 * weighted, weighted)
    x0, y0, lw, _ = RECT
    none = np.zeros(0, np.int64)
    for source in sources(walk):
        (hd, _, hc), (bd, bp, bc), settled = both(
            walk, weights, diag, source, reverse, none, one_weight(kind)
        )
        assert settled == int(np.count_nonzero(hc == 1))
        assert np.array_equal(hc, bc)
        assert np.allclose(hd, bd, rtol=1e-12)  # inf where unreachable in both
        src = (source // WIDTH - y0) * lw + source % WIDTH - x0
        for cell in np.flatnonzero(bc == 1):  # a shortest-path tree: every parent link is a step
            if cell == src:
                continue
            p = int(bp[cell])
            a, b = (p, int(cell)) if not reverse else (int(cell), p)
            glob = [(c // lw + y0) * WIDTH + c % lw + x0 for c in (a, b)]
            step = float(path_cost(np.array(glob, np.int64), weights, WIDTH, 1.0, 1.0))
            assert math.isclose(bd[cell], bd[p] + step, rel_tol=1e-12)


@pytest.mark.parametrize(("diag", "one"), list(itertools.product(DIAGS, (2.0, 0.0))))
def test_it_stops_once_its_stops_are_settled(diag: int, one: float) -> None:
    walk, weights = grid(40 + diag, False)
    _, _, lw, lh = RECT
    rng = np.random.default_rng(diag)
    for source in sources(walk):
        stops = rng.choice(lw * lh, 4, replace=False).astype(np.int64)
        (hd, _, hc), (bd, _, bc), settled = both(walk, weights, diag, source, 0, stops, one)
        assert np.allclose(hd[stops], bd[stops], rtol=1e-12)
        assert np.array_equal(hc[stops], bc[stops])  # 1 where reachable, 0 where not: no 2 left
        assert settled <= int(np.count_nonzero(walk))


def test_weights_spread_wider_than_the_span_are_declined() -> None:
    walk, _ = grid(3, False)
    weights = np.ones(WIDTH * HEIGHT)
    x0, y0, lw, lh = RECT
    weights[(y0 + 1) * WIDTH + x0 + 1] = BUCKET_SPAN  # sqrt(2) x 16 over a 1-cost step: too wide
    walk[(y0 + 1) * WIDTH + x0 + 1] = 1
    dist, parent, closed = new_scratch(lw * lh)
    source = y0 * WIDTH + x0 + 5
    walk[source] = 1
    args = (walk, weights, WIDTH, x0, y0, lw, lh, 3, 1.0, 1.0, source, 0, dist, parent, closed)
    assert bucket_dijkstra(*args, np.zeros(0, np.int64), 0.0) == -1
    assert np.all(dist == np.inf)  # nothing written: the caller's heap search starts clean


def test_insert_endpoint_matches_the_heap_search_on_a_real_map() -> None:
    grid_ = GridGraph.from_movingai(MAPS / "den312d.map")
    walk = np.ascontiguousarray(grid_.walkable.ravel(), dtype=np.uint8)
    weights = np.ones(walk.shape[0])
    width, height, size = grid_.width, grid_.height, 16
    rng = np.random.default_rng(5)
    open_cells = np.flatnonzero(walk)
    for picked in rng.choice(open_cells, 60, replace=False):
        cell = int(picked)
        x0, y0 = cell % width // size * size, cell // width // size * size
        lw, lh = min(size, width - x0), min(size, height - y0)
        inside = [(y0 + y) * width + x0 + x for y in range(lh) for x in range(lw)]
        stops = np.array([c for c in inside if walk[c]][::5], dtype=np.int64)
        for reverse, one in itertools.product((0, 1), (1.0, 0.0)):
            tree = insert_endpoint(
                walk, weights, width, x0, y0, lw, lh, 3, 1.0, 1.0, cell, reverse, 1.0, stops, one
            )
            dist, parent, closed = new_scratch(lw * lh)
            rect_search(
                walk, weights, width, x0, y0, lw, lh, 3, 1.0, 1.0, cell, -1, reverse, 1.0, dist, parent,
                closed, np.zeros(0, np.int64),
            )  # fmt: skip
            local = (stops // width - y0) * lw + stops % width - x0
            assert np.allclose(tree.costs, dist[local], rtol=1e-12)
            for stop, cost in zip(stops, tree.costs, strict=True):
                if cost < math.inf:  # the tree's path costs what it says
                    path = tree.path_to(int(stop), width)
                    path = path[::-1] if reverse else path
                    assert math.isclose(float(path_cost(path, weights, width, 1.0, 1.0)), cost, rel_tol=1e-9)
