"""What a replica holds (bridge/serving/ray/holder.py), in process: a graph built from its snapshot and
brought to a revision by its log, each log item applied exactly once, the least recently used graphs
dropped past the budget and rebuilt when asked for again; and the replica's routing and batch cuts."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from bridge.methods.hierarchy_params import HierarchySpec
from bridge.methods.registry import GraphEntry
from bridge.serving import entries
from bridge.serving.ray.graphs import BUILD, UPDATE, GraphRef, GraphState, Target
from bridge.serving.ray.holder import GraphHolder
from bridge.serving.ray.pool import ReplicaPool
from bridge.serving.ray.replica import ReplicaActor
from bridge.serving.ray.spread import pieces
from bridge.wire.errors import BridgeError
from bridge.wire.protocol import Limits
from python_core.errors import AStarError


def _ref(graph_id: str = "g", generation: int = 1, width: int = 6) -> GraphRef:
    record = {"width": width, "height": 2, "cells": b"\x01" * (2 * width), "diagonal": "never"}
    return GraphRef(graph_id, generation, "grid", record, None)


def _wall(x: int, y: int = 0) -> tuple[str, Any]:
    return (UPDATE, {"id": "g", "cells": np.array([[x, y]], "<i4").tobytes(), "walkable": False})


def _place(agent: int, x: int) -> tuple[str, Any]:
    """A change that fails when applied twice (the agent exists then)."""
    return (UPDATE, {"id": "g", "agents": [{"op": "place", "agent": agent, "cell": [x, 1]}]})


def _entry(got: GraphEntry | int) -> GraphEntry:
    assert isinstance(got, GraphEntry), got
    return got


def test_the_log_is_applied_up_to_the_revision_and_each_item_once() -> None:
    holder, ref = GraphHolder(1 << 30), _ref()
    log = (_wall(2), _place(7, 4), _wall(3))
    entry = _entry(holder.entry(Target(ref, 2, 0, log[:2])))
    assert entry.version == 3
    assert not entry.graph.grid.walkable[0, 2]
    assert entry.graph.grid.walkable[0, 3]
    # the same revision again, then the next one from a log that starts earlier: nothing twice
    # (placing agent 7 again would raise)
    assert _entry(holder.entry(Target(ref, 2, 0, log[:2]))).version == 3
    entry = _entry(holder.entry(Target(ref, 3, 1, log[1:])))
    assert entry.version == 4
    assert not entry.graph.grid.walkable[0, 3]
    assert holder.held() == {"g": (1, 3)}


def test_a_holder_without_the_start_of_the_log_says_what_it_has() -> None:
    holder, ref = GraphHolder(1 << 30), _ref()
    log = (_wall(2), _wall(3))
    assert holder.entry(Target(ref, 2, 1, log[1:])) == 0  # restarted: nothing held
    assert _entry(holder.entry(Target(ref, 1, 0, log[:1]))).version == 2
    assert _entry(holder.entry(Target(ref, 2, 1, log[1:]))).version == 3
    # a new load of the id (generation 2) is built afresh from its own snapshot
    assert holder.entry(Target(_ref(generation=2), 1, 1, (_wall(4),))) == 0
    fresh = _entry(holder.entry(Target(_ref(generation=2), 0, 0, ())))
    assert fresh.version == 1
    assert fresh.graph.grid.walkable[0, 2]


def test_least_recently_used_graphs_go_past_the_budget_and_come_back_from_the_log() -> None:
    one = entries.footprint(_entry(GraphHolder(1 << 30).entry(Target(_ref("a"), 0, 0, ()))))
    holder = GraphHolder(budget_bytes=2 * one)
    log = (_place(5, 0),)
    for graph_id in ("a", "b"):
        holder.entry(Target(_ref(graph_id), 1, 0, log))
    holder.entry(Target(_ref("a"), 1, 0, log))  # a is now the most recently used
    holder.entry(Target(_ref("c"), 0, 0, ()))
    assert sorted(holder.held()) == ["a", "c"]
    assert holder.evicted == 1
    assert holder.entry(Target(_ref("b"), 1, 1, ())) == 0  # gone: the gateway sends the whole log
    again = _entry(holder.entry(Target(_ref("b"), 1, 0, log)))
    assert again.version == 2
    assert again.graph.describe()["agents"] == 1
    # one graph larger than the budget is still held while it is the one asked for
    small = GraphHolder(budget_bytes=1)
    assert _entry(small.entry(Target(_ref("big", width=64), 0, 0, ()))).graph.node_count == 128
    assert list(small.held()) == ["big"]


def test_a_refused_change_leaves_nothing_half_applied() -> None:
    holder, ref = GraphHolder(1 << 30), _ref()
    assert _entry(holder.apply(Target(ref, 0, 0, ()), _place(1, 0))).version == 2
    with pytest.raises((BridgeError, AStarError)):
        holder.apply(Target(ref, 1, 0, (_place(1, 0),)), _place(1, 2))  # agent 1 exists
    assert holder.held() == {}  # rebuilt from the log when next asked for
    assert _entry(holder.entry(Target(ref, 1, 0, (_place(1, 0),)))).version == 2


def test_after_a_refused_change_a_target_from_the_believed_revision_is_answered_behind() -> None:
    """The gateway still believes the replica holds revision 2 after a refusal made it forget the
    graph: a target from there (no snapshot) is answered ``behind`` (0), never from a graph rebuilt
    without the log items before it; the full target then has every item."""
    holder, ref = GraphHolder(1 << 30), _ref()
    log = (_place(1, 0), _wall(3))
    assert _entry(holder.entry(Target(ref, 2, 0, log))).version == 3
    with pytest.raises((BridgeError, AStarError)):
        holder.apply(Target(ref, 2, 2, ()), _place(1, 2))  # agent 1 exists
    believed = Target(dataclasses.replace(ref, snapshot=None), 2, 2, ())
    assert holder.entry(believed) == 0
    assert holder.apply(believed, _wall(4)) == 0
    entry = _entry(holder.entry(Target(ref, 2, 0, log)))
    assert (entry.version, dict(entry.graph.grid.agents)) == (3, {1: (0, 1)})
    assert not entry.graph.grid.walkable[0, 3]


def test_a_hierarchy_build_is_a_log_item() -> None:
    record = {"width": 64, "height": 64, "cells": b"\x01" * 64 * 64, "diagonal": "never"}
    ref = GraphRef("h", 1, "grid", record, None)
    holder = GraphHolder(1 << 30)
    entry = _entry(holder.apply(Target(ref, 0, 0, ()), (BUILD, HierarchySpec(cluster_size=16))))
    assert entry.hierarchy is not None
    assert entry.hierarchy.built
    assert entry.graph.has_hierarchy
    assert entry.version == 1  # a build is not a wire version


def test_a_replica_answers_behind_errors_and_queries_as_plain_data() -> None:
    replica = ReplicaActor(Limits(), 1 << 30, resolve=lambda value: value, warm=False)
    ref = _ref()
    wall = _wall(2)
    assert replica.find(Target(ref, 1, 1, ()), {"graph": "g", "start": [0, 0], "goal": [5, 0]}) == (
        "behind",
        {"g": 0},
    )
    kind, answer = replica.find(Target(ref, 1, 0, (wall,)), {"graph": "g", "start": [0, 0], "goal": [5, 0]})
    assert kind == "ok"
    assert answer["status"] == "found"
    assert answer["cost"] == 7.0
    kind, error = replica.find(Target(ref, 1, 0, (wall,)), {"graph": "g", "start": [0, 0], "goal": [9, 0]})
    assert kind == "error"
    assert error["code"] == "out_of_bounds"
    stream = list(replica.apply(Target(ref, 1, 0, (wall,)), _wall(3)))
    assert stream[-1][0] == "ok"
    assert stream[-1][1]["answer"] == {"id": "g", "version": 3}
    assert stream[-1][1]["info"]["version"] == 3


def test_routing_spreads_a_graphs_pieces_and_retries_elsewhere() -> None:
    pool = ReplicaPool([None, None, None])
    order = pool.route("level-1")
    assert order == pool.route("level-1")
    assert order[0] != order[1]
    firsts = {pool.route("level-1", k)[0] for k in range(3)}
    assert firsts == {0, 1, 2}  # a batch's pieces go to every replica
    homes = {pool.route(f"map-{i}")[0] for i in range(32)}
    assert homes == {0, 1, 2}  # graphs spread over the replicas
    assert ReplicaPool([None]).route("g") == [0, 0]  # alone: the restarted replica again
    state = GraphState(_ref(), {}, 0, log=["a", "b"])
    pool.note(1, state.target(1))
    assert pool.base(1, "g", 1, 2) == 2
    assert pool.base(1, "g", 2, 2) == 0
    assert pool.base(0, "g", 1, 2) == 0
    assert state.target(1).missing(1) == ("b",)
    assert state.target(5).base == 2
    assert pieces(0, 2) == 0
    assert pieces(3, 2) == 3
    assert pieces(100, 2) == 4
    assert pieces(10_000, 2) == 10
