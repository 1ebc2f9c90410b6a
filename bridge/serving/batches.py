"""One chunk of a ``path.find_many``, run on a search thread: validated query by query, the alike
queries answered by one ``Navigator.find_many`` call, every query answering for itself.

    budget = AnswerBudget(64 << 20, "path.find_many")
    answers = run_chunk(items, range(0, 32), registry=registry, shared={"g"}, cap=10**7, default=None,
                        budget=budget)
"""

from __future__ import annotations

from typing import Any, TypeGuard

import numpy as np

from bridge.methods.queries import Query, encode_result, parse_query, resolve_ends, run_query
from bridge.methods.registry import Registry
from bridge.wire.answers import BYTES_PER_PATH_CELL, AnswerBudget, step_queries
from bridge.wire.errors import BridgeError, UnknownGraphError, from_exception
from python_core.navigation import Navigator
from python_core.navigation.grid import GridNavigator
from python_core.navigation.navmesh import NavMeshNavigator
from python_core.navmesh.batch import MeshBatch
from python_core.path_batch import STATUS_ORDER, PathBatch

__all__ = ["grid_answers", "mesh_answers", "results_bytes", "run_chunk"]


def run_chunk(
    items: list[Any],
    indices: range,
    *,
    registry: Registry,
    shared: set[str],
    cap: int,
    default: int | None,
    budget: AnswerBudget,
) -> list[dict[str, Any]]:
    """The answers of ``items[indices]``, in order: a result map, or ``{"status": "error", ...}``.
    Only graphs in ``shared`` (those the batch holds a read share of) are read. Answers are counted
    in ``budget`` as they are made (``too_large`` past its cap), a few queries at a time on a big
    graph (see :func:`~bridge.wire.answers.step_queries`)."""
    answers: list[dict[str, Any]] = []
    queries: list[tuple[int, Query]] = []
    for i in indices:
        try:
            query = parse_query(items[i], registry, cap, f"queries[{i}]", default=default)
            if query.graph_id not in shared:
                raise UnknownGraphError(query.graph_id)
        except BridgeError as exc:
            answers.append({"status": "error", "error": exc.to_wire()})
            continue
        answers.append({})
        queries.append((len(answers) - 1, query))
    for slots, group in _alike(queries):
        graph = registry.get(group[0].graph_id).graph
        # a grid's hierarchical batch stops by itself once its paths hold a step's worth of cells
        # (one call for the group on any map); others go a few queries at a time on a big graph
        step = len(group) if _capped(graph, group[0]) else step_queries(graph.node_count, budget.cap)
        max_cells = max(1, budget.cap // BYTES_PER_PATH_CELL)
        lo = 0
        while lo < len(group):
            results = _run_group(graph, group[lo : lo + step], max_cells)
            budget.add(results_bytes(results))
            for slot, answer in zip(slots[lo : lo + len(results)], results, strict=True):
                answers[slot] = answer
            lo += max(1, len(results))
    return answers


def results_bytes(results: list[dict[str, Any]]) -> int:
    """About the wire bytes of ``path.find_many`` results: their paths, and a few dozen per map."""
    return sum(64 + len(r.get("points", b"")) + len(r.get("nodes", b"")) for r in results)


def _alike(queries: list[tuple[int, Query]]) -> list[tuple[list[int], list[Query]]]:
    """Queries grouped by graph, options and flags (a batch call takes one of each), first seen
    first; with the slots their answers go to."""
    groups: dict[tuple[Any, ...], tuple[list[int], list[Query]]] = {}
    for slot, query in queries:
        key = (query.graph_id, query.options, query.hierarchical, query.corridor)
        slots, group = groups.setdefault(key, ([], []))
        slots.append(slot)
        group.append(query)
    return list(groups.values())


def _capped(graph: Navigator[Any], query: Query) -> TypeGuard[GridNavigator]:
    """Whether a group like ``query`` runs as a grid hierarchy's batch that stops by itself at a
    cell cap (``find_batch``'s ``max_cells``)."""
    return isinstance(graph, GridNavigator) and query.hierarchical and not query.corridor


def _run_group(graph: Navigator[Any], group: list[Query], max_cells: int) -> list[dict[str, Any]]:
    """Answers of queries that share a graph, options and flags: one batch call (a navmesh's
    ``find_batch``, whose funnel mode runs the whole batch in one compiled call, its answer maps
    made at the end; a grid hierarchy's ``find_batch``, one compiled call that releases the GIL,
    stopped early once its paths hold ``max_cells`` cells: then the answers of the first few
    only), or one query at a time when some query of the group fails (each then answers for
    itself)."""
    first = group[0]
    if len(group) > 1 and _capped(graph, first):
        try:
            ends = [resolve_ends(graph, q) for q in group]
            found = graph.find_batch(
                np.array([start for start, _ in ends], dtype=np.int64).reshape(-1, 2),
                np.array([goal for _, goal in ends], dtype=np.int64).reshape(-1, 2),
                first.options,
                hierarchical=True,
                max_cells=max_cells,
            )
        except Exception:  # a bad pair: let each query say what is wrong with it
            return [_run_one(graph, query) for query in group]
        return grid_answers(found)
    if len(group) > 1 and isinstance(graph, NavMeshNavigator) and not (first.hierarchical or first.corridor):
        try:
            batch = graph.find_batch(
                np.array([q.start for q in group], dtype=np.float64),
                np.array([q.goal for q in group], dtype=np.float64),
                first.options,
            )
        except Exception:  # a bad option or pair: let each query say what is wrong with it
            pass
        else:
            return mesh_answers(batch, graph.dim)
    elif len(group) > 1:
        try:
            ends = [resolve_ends(graph, q) for q in group]
            results = graph.find_many(
                [start for start, _ in ends],
                [goal for _, goal in ends],
                first.options,
                hierarchical=first.hierarchical,
                corridor=first.corridor,
            )
        except Exception:  # a bad pair: let each query say what is wrong with it
            pass
        else:
            return [encode_result(result, graph.dim) for result in results]
    return [_run_one(graph, query) for query in group]


def mesh_answers(batch: MeshBatch, dim: int) -> list[dict[str, Any]]:
    """Each query's result map of a navmesh batch, as :func:`encode_result` makes it from that
    query's own ``find_path`` (the same bytes): the arrays are converted once, then sliced."""
    points = batch.points.reshape(-1, dim).astype(_F32_LE).tobytes()
    nodes = batch.nodes.astype(_I64_LE, copy=False).tobytes()
    row, node = 4 * dim, 8
    offsets, node_offsets = batch.offsets.tolist(), batch.node_offsets.tolist()
    return [
        {
            "status": _STATUS_NAMES[code],
            "points": points[offsets[i] * row : offsets[i + 1] * row],
            "nodes": nodes[node_offsets[i] * node : node_offsets[i + 1] * node],
            "cost": cost,
            "expanded": expanded,
        }
        for i, (code, cost, expanded) in enumerate(
            zip(batch.status.tolist(), batch.costs.tolist(), batch.expanded.tolist(), strict=True)
        )
    ]


def grid_answers(batch: PathBatch) -> list[dict[str, Any]]:
    """Each query's result map of a grid batch, as :func:`encode_result` makes it from that
    query's own result (the same bytes): the arrays are converted once, then sliced."""
    points = batch.points.reshape(-1, 2).astype(_F32_LE).tobytes()
    nodes = batch.nodes.astype(_I64_LE, copy=False).tobytes()
    offsets = batch.offsets.tolist()
    return [
        {
            "status": _STATUS_NAMES[code],
            "points": points[offsets[i] * 8 : offsets[i + 1] * 8],
            "nodes": nodes[offsets[i] * 8 : offsets[i + 1] * 8],
            "cost": cost,
            "expanded": expanded,
        }
        for i, (code, cost, expanded) in enumerate(
            zip(batch.status.tolist(), batch.costs.tolist(), batch.expanded.tolist(), strict=True)
        )
    ]


_STATUS_NAMES = tuple(status.value for status in STATUS_ORDER)
_F32_LE, _I64_LE = np.dtype("<f4"), np.dtype("<i8")


def _run_one(graph: Navigator[Any], query: Query) -> dict[str, Any]:
    """One query on a search thread; its error becomes its entry (a batch goes on)."""
    try:
        return run_query(graph, query)
    except Exception as exc:
        return {"status": "error", "error": from_exception(exc).to_wire()}
