"""Searches run on worker processes: a long one does not hold up short ones, answers may come back out
of order, and updates stay ordered relative to the queries sent after them."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from bridge.client import Client
from bridge.client.sidecar import Sidecar

SIZE = 512


@pytest.fixture(scope="module")
def long_grid(sidecar: Sidecar) -> str:
    """A 512 x 512 grid whose far corner is walled off: a zero-heuristic search expands it all."""
    walkable = np.ones((SIZE, SIZE), dtype=bool)
    walkable[SIZE - 3, SIZE - 3 :] = False
    walkable[SIZE - 3 :, SIZE - 3] = False
    with sidecar.connect() as client:
        client.load_grid("conc-long", walkable)
        client.load_grid("conc-short", np.ones((8, 8), dtype=bool))
    return "conc-long"


def _long_query(graph: str) -> dict[str, object]:
    return Client.query(graph, (0, 0), (SIZE - 1, SIZE - 1), heuristic="zero")


def test_a_long_search_does_not_delay_a_short_one_from_another_client(
    sidecar: Sidecar, long_grid: str
) -> None:
    finished: list[str] = []
    with sidecar.connect() as slow, sidecar.connect() as fast:
        long_id = slow.send("path.find", _long_query(long_grid))
        slow.info(long_grid)  # answered after the long search was queued: it is running now
        waiter = threading.Thread(target=lambda: (slow.receive(long_id), finished.append("long")))
        waiter.start()
        for _ in range(5):
            assert fast.find("conc-short", (0, 0), (7, 7))["status"] == "found"
        finished.append("short x5")
        waiter.join(60)
    assert finished == ["short x5", "long"]


def test_answers_on_one_connection_may_come_back_out_of_order(sidecar: Sidecar, long_grid: str) -> None:
    with sidecar.connect() as client:
        long_id = client.send("path.find", _long_query(long_grid))
        short_id = client.send("path.find", Client.query("conc-short", (0, 0), (7, 7)))
        while short_id not in client._answers:  # read until the short answer is in
            client._read()
        assert long_id not in client._answers
        assert client.receive(long_id)["status"] == "no_path"


def test_updates_are_ordered_before_later_queries_on_every_worker(sidecar: Sidecar) -> None:
    with sidecar.connect() as client:
        client.load_grid("conc-door", np.ones((3, 3), dtype=bool), diagonal="never")
        door = np.array([[1, 0], [1, 1], [1, 2]], dtype="<i4").tobytes()
        expected, ids = [], []
        for i in range(40):
            closed = i % 2 == 0
            client.send("graph.update", {"id": "conc-door", "cells": door, "walkable": not closed})
            ids.append(client.send("path.find", Client.query("conc-door", (0, 0), (2, 0))))
            expected.append("no_path" if closed else "found")
        assert [client.receive(i)["status"] for i in ids] == expected


def test_thirty_two_concurrent_clients_all_get_right_answers(sidecar: Sidecar, long_grid: str) -> None:
    def work(seed: int) -> list[float]:
        rng = np.random.default_rng(seed)
        with sidecar.connect() as client:
            return [
                client.find("conc-short", (0, 0), tuple(int(v) for v in rng.integers(0, 8, 2)))["cost"]
                for _ in range(20)
            ]

    with ThreadPoolExecutor(32) as pool:
        results = list(pool.map(work, range(32)))
    for seed, costs in enumerate(results):
        rng = np.random.default_rng(seed)
        for cost in costs:
            x, y = (int(v) for v in rng.integers(0, 8, 2))
            assert cost == pytest.approx(max(x, y) + (2**0.5 - 1) * min(x, y))
