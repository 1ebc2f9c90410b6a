"""python_core.huge_pages: big arrays in fresh memory advised for 2 MiB pages, and the all-pairs
tables of a hierarchy made there."""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np
import pytest

from python_core.grid import GridGraph
from python_core.hpa import HierarchicalGrid
from python_core.huge_pages import HUGE_FROM, HUGE_PAGE, huge_empty

ADVISED = hasattr(mmap, "MADV_HUGEPAGE")
THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def _mapped_by_us(array: np.ndarray) -> bool:
    """Whether ``array`` lies in one of this module's maps (its base chain ends in an mmap)."""
    base = array
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return isinstance(base, mmap.mmap) or (
        isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)  # frombuffer's export
    )


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.float64])
def test_big_arrays_are_aligned_and_usable(dtype: type) -> None:
    shape = (1500, 1500)
    array = huge_empty(shape, dtype)
    assert array.shape == shape
    assert array.dtype == np.dtype(dtype)
    assert array.flags.c_contiguous
    assert array.flags.writeable
    array[:] = 0
    array[-1, -1] = 7  # the last element is inside the map
    assert int(array[-1, -1]) == 7
    if ADVISED:
        assert _mapped_by_us(array)
        assert array.ctypes.data % HUGE_PAGE == 0  # starts on a huge page


def test_small_arrays_come_from_numpy() -> None:
    small = huge_empty(HUGE_FROM // 8 - 1, np.float64)
    assert small.base is None
    assert small.shape == (HUGE_FROM // 8 - 1,)
    assert huge_empty(3, np.int64).base is None


def test_an_array_outlives_the_names_of_its_map() -> None:
    """The map stays open while any view of it lives (no use after unmap)."""
    view = huge_empty(HUGE_FROM, np.uint8)[10:20]
    view[:] = 5
    del_later = [huge_empty(HUGE_FROM, np.uint8) for _ in range(3)]  # other maps come and go
    del del_later
    assert view.tolist() == [5] * 10


@pytest.mark.skipif(
    not ADVISED or not THP.exists() or "[never]" in THP.read_text(), reason="no transparent huge pages here"
)
def test_a_touched_big_array_is_backed_by_huge_pages() -> None:
    """Where the system offers transparent huge pages, a filled 32 MiB array grows this process's
    huge-page memory (the point of the module: a cold read misses the TLB far less)."""

    def huge_kib() -> int:
        for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1])
        return 0

    before = huge_kib()
    array = huge_empty((2048, 4096), np.float32)
    array[:] = 1.0
    # at least half: a fragmented machine may fall back to small pages for a few
    assert huge_kib() - before >= 16 * 1024, "no huge pages behind a filled 32 MiB array"


@pytest.mark.skipif(not ADVISED, reason="no MADV_HUGEPAGE on this system")
def test_a_hierarchy_keeps_its_all_pairs_tables_in_huge_pages() -> None:
    """A map whose abstract graph keeps an all-pairs table big enough (2 MiB or more per array)
    has both arrays in advised maps, and its paths stay near-optimal (the table is read as before)."""
    rng = np.random.default_rng(3)
    walkable = rng.random((256, 256)) > 0.1
    hpa = HierarchicalGrid(
        GridGraph(walkable, diagonal="only_if_no_obstacles"), cluster_size=32, table_budget=64 << 20
    ).build()
    graph = hpa._graph
    assert graph.pair_dist.nbytes >= HUGE_FROM, "the test map's table is too small to be mapped"
    assert _mapped_by_us(graph.pair_dist)
    assert _mapped_by_us(graph.pair_pred)
    grid = GridGraph(walkable, diagonal="only_if_no_obstacles")
    open_cells = np.argwhere(walkable)
    for k in range(0, len(open_cells) - 1, len(open_cells) // 12):  # a dozen queries across the map
        (sy, sx), (gy, gx) = open_cells[k], open_cells[-1 - k]
        start, goal = (int(sx), int(sy)), (int(gx), int(gy))
        found, exact = hpa.find_path(start, goal), grid.find_path(start, goal)
        assert found.found == exact.found
        if exact.found:
            assert exact.cost - 1e-6 <= found.cost <= 1.05 * exact.cost + 1e-6
