"""python_core.path_batch: a batch's arrays hold each query's answer, and replacing answers keeps
the others exactly (the HPA* batch replaces the few it answers a second time)."""

from __future__ import annotations

import numpy as np
import pytest

from python_core.path_batch import STATUS_ORDER, PathBatch
from python_core.result import PathResult, PathStatus


def _path(first: int, count: int, dim: int = 2) -> PathResult:
    nodes = np.arange(first, first + count, dtype=np.int64)
    points = np.repeat(nodes[:, None].astype(np.float64), dim, axis=1) + 0.5
    return PathResult(PathStatus.FOUND, points, nodes, float(count), count * 3)


def _same(a: PathResult, b: PathResult) -> bool:
    return (
        a.status is b.status
        and a.cost == b.cost
        and a.expanded == b.expanded
        and a.nodes.tolist() == b.nodes.tolist()
        and a.points.tolist() == b.points.reshape(-1, a.points.shape[1] if a.points.size else 2).tolist()
    )


RESULTS = [
    _path(0, 3),
    PathResult(PathStatus.NO_PATH),
    _path(100, 1),
    PathResult(PathStatus.BUDGET_EXHAUSTED, expanded=9),
    _path(200, 5),
    PathResult(PathStatus.PARTIAL, _path(300, 2).points, _path(300, 2).nodes, 2.0, 1),
]


def test_a_batch_of_results_gives_each_back() -> None:
    batch = PathBatch.from_results(RESULTS)
    assert len(batch) == len(RESULTS)
    assert batch.offsets.tolist() == [0, 3, 3, 4, 4, 9, 11]
    assert batch.statuses() == [r.status for r in RESULTS]
    assert [STATUS_ORDER[c] for c in batch.status.tolist()] == batch.statuses()
    for i, r in enumerate(RESULTS):
        assert _same(batch.result(i), r)
    assert all(_same(a, b) for a, b in zip(batch.results(), RESULTS, strict=True))


@pytest.mark.parametrize(
    "replace",
    [{0: 1}, {5: 0}, {1: 4, 2: 3}, {0: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2}, {4: 1, 0: 3}],
    ids=["first", "last", "neighbours", "every one", "out of order"],
)
def test_replaced_answers_change_and_the_rest_stay(replace: dict[int, int]) -> None:
    batch = PathBatch.from_results(RESULTS)
    new = {
        i: _path(1000 + 10 * i, count) if count else PathResult(PathStatus.NO_PATH)
        for i, count in replace.items()
    }
    got = batch.replaced(new)
    want = [new.get(i, r) for i, r in enumerate(RESULTS)]
    assert all(_same(got.result(i), r) for i, r in enumerate(want))
    assert got.offsets[-1] == len(got.nodes) == len(got.points)
    assert batch.replaced({}) is batch
    assert all(_same(batch.result(i), r) for i, r in enumerate(RESULTS))  # the original is untouched


def test_three_dimensional_points_and_empty_batches() -> None:
    batch = PathBatch.from_results([_path(0, 2, dim=3), PathResult(PathStatus.NO_PATH)], dim=3)
    assert batch.points.shape == (2, 3)
    assert _same(batch.replaced({1: _path(7, 1, dim=3)}).result(1), _path(7, 1, dim=3))
    empty = PathBatch.from_results([PathResult(PathStatus.NO_PATH)] * 2, dim=3)
    assert empty.points.shape == (0, 3)
    assert empty.offsets.tolist() == [0, 0, 0]
    assert len(PathBatch.from_results([])) == 0
