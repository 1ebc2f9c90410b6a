"""HPA* component labels through local changes (python_core.hpa.repair.label_patches.patch_labels and the
sealed-cell shortcut of AbstractGraph.apply_changes): after every change, reachability equals a
flood fill of the changed grid, and the patched labels split each cluster exactly as labelling it
afresh does."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from scipy import ndimage

from python_core.grid import DiagonalMode, GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.hpa.graph import abstract_graph
from python_core.hpa.graph.components import label_clusters
from python_core.hpa.repair.label_patches import patch_labels

MODES = list(DiagonalMode)
DIAG = {
    DiagonalMode.NEVER: 0,
    DiagonalMode.ALWAYS: 1,
    DiagonalMode.AT_LEAST_ONE_WALKABLE: 2,
    DiagonalMode.ONLY_IF_NO_OBSTACLES: 3,
}


def caves(seed: int, size: int) -> npt.NDArray[np.bool_]:
    """Open blobs in solid rock: many cells are sealed (no open neighbour), others lie on edges."""
    rng = np.random.default_rng(seed)
    noise = ndimage.gaussian_filter(rng.random((size, size)), 2.0)
    return np.asarray(noise > np.quantile(noise, 0.55)) | (rng.random((size, size)) > 0.97)


def same_partition(a: npt.NDArray[np.int16], b: npt.NDArray[np.int16]) -> bool:
    """Whether two labellings put the same cells together (walls -1 in both)."""
    if not np.array_equal(a < 0, b < 0):
        return False
    pairs = {(int(x), int(y)) for x, y in zip(a[a >= 0], b[b >= 0], strict=True)}
    return len(pairs) == len({p[0] for p in pairs}) == len({p[1] for p in pairs})


def flood_labels(grid: GridGraph) -> npt.NDArray[np.int32]:
    # Only "always" lets a diagonal connect what 4-neighbour steps cannot (the others need a side).
    structure = np.ones((3, 3)) if grid.diagonal is DiagonalMode.ALWAYS else None
    labels, _ = ndimage.label(grid.walkable, structure=structure)
    return np.asarray(labels)


@pytest.mark.parametrize("mode", MODES)
def test_patched_labels_split_clusters_like_fresh_ones(mode: DiagonalMode) -> None:
    """One changed cell per cluster at a time, on random grids: where patch_labels says it patched,
    the labels partition the cluster like label_clusters does; where it refused, the change did
    split or merge (or could have), and the caller relabels."""
    rng = np.random.default_rng(5 + MODES.index(mode))
    size, csize, diag = 48, 8, DIAG[mode]
    walk = (rng.random(size * size) > 0.3).astype(np.uint8)
    labels = np.full(size * size, -1, dtype=np.int16)
    ncx = size // csize
    clusters = np.arange(ncx * ncx, dtype=np.int64)
    counts = label_clusters(walk, size, size, csize, diag, labels, clusters)
    patched = refused = 0
    for _ in range(60):
        # one cell in each of a few clusters
        chosen = rng.choice(clusters, 6, replace=False)
        cells = np.array(
            [
                (c // ncx * csize + rng.integers(csize)) * size + c % ncx * csize + rng.integers(csize)
                for c in chosen
            ]
        )
        walk[cells] ^= 1
        done = patch_labels(walk, size, size, csize, diag, labels, counts, cells)
        fresh = labels.copy()
        fresh_counts = counts.copy()
        fresh_counts[chosen] = label_clusters(walk, size, size, csize, diag, fresh, chosen)
        for c, ok in zip(chosen.tolist(), done.tolist(), strict=True):
            x0, y0 = c % ncx * csize, c // ncx * csize
            rows = (np.arange(y0, y0 + csize)[:, None] * size + np.arange(x0, x0 + csize)).ravel()
            if ok:
                patched += 1
                assert same_partition(labels[rows], fresh[rows]), (mode, c)
                assert counts[c] >= fresh_counts[c]  # numbers may stay unused, never collide
                assert labels[rows].max() < counts[c]
            else:
                refused += 1
        labels[:] = fresh  # as the caller does for the refused ones (and harmless for the rest)
        counts[:] = fresh_counts
    assert patched > 100
    assert refused > 0


@pytest.mark.parametrize("mode", MODES)
def test_reachability_follows_single_and_batch_toggles(mode: DiagonalMode) -> None:
    """Caves with sealed cells; single toggles (patched labels), batches (several per cluster),
    toggles back: after each, is_reachable equals a flood fill of the grid as it is now."""
    grid = GridGraph(caves(31 + MODES.index(mode), 64), diagonal=mode)
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    rng = np.random.default_rng(7)
    for step in range(30):
        count = 1 if step % 3 else 25
        cells = np.stack((rng.integers(0, 64, count), rng.integers(0, 64, count)), axis=1)
        before = grid.walkable[cells[:, 1], cells[:, 0]].copy()
        hpa.set_walkable(cells, ~before)
        if step % 5 == 4:
            hpa.set_walkable(cells, before)
        flood = flood_labels(grid)
        open_cells = np.argwhere(grid.walkable)
        for a, b in rng.integers(0, len(open_cells), (60, 2)).tolist():
            (ya, xa), (yb, xb) = open_cells[a], open_cells[b]
            expected = flood[ya, xa] == flood[yb, xb]
            assert hpa.is_reachable((int(xa), int(ya)), (int(xb), int(yb))) == expected, (step, mode)


def test_sealed_cells_open_and_close_without_touching_the_graph() -> None:
    """A cell in solid rock opens: a component of its own (unreachable from elsewhere, reachable
    from itself); it closes again: the cluster's label count is back where it was; the abstract
    graph never changed."""
    walk = np.zeros((16, 16), dtype=bool)
    walk[2:6, 2:14] = True
    grid = GridGraph(walk, diagonal="only_if_no_obstacles")
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    nodes, dist = hpa.graph.node_cell.copy(), hpa.graph.dist_flat.copy()
    count = hpa.graph.comp_count.copy()
    hpa.set_walkable([(4, 12)], True)
    assert not hpa.is_reachable((3, 3), (4, 12))
    assert hpa.is_reachable((4, 12), (4, 12))
    assert hpa.find_path((4, 12), (3, 3)).status.value == "no_path"
    assert (
        hpa.graph.comp_count[hpa.graph.cluster_of(12 * 16 + 4)]
        == count[hpa.graph.cluster_of(12 * 16 + 4)] + 1
    )
    hpa.set_walkable([(4, 12)], False)
    assert np.array_equal(hpa.graph.comp_count, count)
    assert np.array_equal(hpa.graph.node_cell, nodes)
    assert np.array_equal(hpa.graph.dist_flat, dist)


@pytest.mark.parametrize("mode", MODES)
def test_global_component_ids_stand_only_while_the_local_components_do(
    mode: DiagonalMode, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update that keeps the nodes, the crossings and every cluster's local components keeps
    the global component ids without the union-find; after every single toggle here (cuts, joins,
    patches, sealed cells) the ids equal a union-find over the graph as it is now, and both the
    kept and the redone paths ran."""
    grid = GridGraph(caves(41 + MODES.index(mode), 64), diagonal=mode)
    hpa = HierarchicalGrid(grid, cluster_size=8).build()
    graph = hpa.graph
    runs = {"union-find": 0}
    real = abstract_graph.component_ids

    def counted(*args: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
        runs["union-find"] += 1
        return real(*args)

    monkeypatch.setattr(abstract_graph, "component_ids", counted)
    rng = np.random.default_rng(3)
    kept = 0
    for _ in range(120):
        cell = (int(rng.integers(0, 64)), int(rng.integers(0, 64)))
        before = runs["union-find"]
        hpa.set_walkable([cell], not grid.walkable[cell[1], cell[0]])
        kept += runs["union-find"] == before
        offsets = np.concatenate(([0], np.cumsum(graph.comp_count)))
        assert np.array_equal(graph.comp_off, offsets)
        arrays = (graph.node_cell, graph.node_cluster, graph.labels, graph.inter_off, graph.inter_dst)
        fresh = real(offsets, *arrays)
        assert np.array_equal(graph.comp_id, fresh), cell
    assert 0 < kept < 120, kept
