"""A hierarchical grid batch on the search thread (path.find_packed's chunk and path.find_many's)
runs as one kernel call that stops once its paths hold a step's worth of cells (the answer budget's
cap / BYTES_PER_PATH_CELL), not a few queries at a time: with a cap that cuts a chunk into several
steps, the answers are the uncapped ones, each as its own path.find would give it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bridge.methods.hierarchy_params import HierarchySpec, HierarchyState
from bridge.methods.kinds import KINDS
from bridge.methods.queries import encode_result
from bridge.methods.registry import GraphEntry, Registry
from bridge.serving.batches import run_chunk
from bridge.serving.packed import PackedBatch, run_packed_chunk
from bridge.wire.answers import AnswerBudget
from python_core.formats.records import to_record
from python_core.grid import GridGraph

WALK = np.ones((48, 64), dtype=bool)
WALK[20, 2:60] = False
WALK[5:40, 30] = False
COUNT = 30


@pytest.fixture(scope="module")
def registry() -> Registry:
    kind, record = to_record(GridGraph(WALK, diagonal="only_if_no_obstacles"))
    graph = KINDS[kind].open(dict(record))
    spec = HierarchySpec(cluster_size=8)
    graph.build_hierarchy(spec.options())
    registry = Registry(max_graphs=2)
    registry.put(GraphEntry("g", KINDS[kind], graph, hierarchy=HierarchyState(spec, built=True)))
    return registry


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    cells = np.argwhere(WALK)[:, ::-1].astype(np.int32)
    return cells[rng.choice(len(cells), COUNT)], cells[rng.choice(len(cells), COUNT)]


def _packed(registry: Registry, cap: int) -> dict[str, Any]:
    starts, goals = _pairs()
    batch = PackedBatch("g", starts, goals, {"hierarchical": True})
    budget = AnswerBudget(cap, "path.find_packed")
    return run_packed_chunk(batch, range(COUNT), registry=registry, shared={"g"}, cap=10**7, default=None,
                            budget=budget)  # fmt: skip


def test_a_packed_chunk_cut_into_steps_keeps_every_answer(registry: Registry) -> None:
    whole = _packed(registry, 64 << 20)
    cells = int(whole["counts"].sum())
    assert cells > 300  # 30 paths of dozens of cells
    stepped = _packed(registry, 20 * cells)  # fits the answer (~17 bytes a cell), in 3 steps
    for key in ("status", "costs", "expanded", "counts", "nodes", "points"):
        np.testing.assert_array_equal(stepped[key], whole[key], err_msg=key)
    nav = registry.get("g").graph
    starts, goals = _pairs()
    for i in (0, COUNT // 2, COUNT - 1):  # each as its own query
        one = nav.find_path(tuple(starts[i]), tuple(goals[i]), hierarchical=True)
        assert whole["costs"][i] == pytest.approx(one.cost)


def test_a_find_many_chunk_cut_into_steps_answers_as_path_find(registry: Registry) -> None:
    starts, goals = _pairs()
    items = [
        {"graph": "g", "start": s.tolist(), "goal": g.tolist(), "options": {"hierarchical": True}}
        for s, g in zip(starts, goals, strict=True)
    ]
    nav = registry.get("g").graph
    expected = [
        encode_result(nav.find_path(tuple(s), tuple(g), hierarchical=True), 2)
        for s, g in zip(starts, goals, strict=True)
    ]
    cells = sum(len(e["nodes"]) // 8 for e in expected)
    for cap in (64 << 20, 24 * cells):  # one step, and steps of a half of the cells
        budget = AnswerBudget(cap, "path.find_many")
        got = run_chunk(items, range(COUNT), registry=registry, shared={"g"}, cap=10**7, default=None,
                        budget=budget)  # fmt: skip
        assert got == expected
