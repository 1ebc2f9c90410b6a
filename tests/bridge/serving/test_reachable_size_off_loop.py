"""``path.reachable`` for a unit size whose hierarchy layer is not built yet builds it on a search
thread, never on the sidecar's event loop (a layer costs seconds on a big map, holding every
client up); once built, reachability is answered inline again."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from bridge.client import Client
from python_core.grid import GridGraph
from python_core.hpa import sizes
from tests.bridge.serving.test_radius_off_loop import served

__all__ = ["served"]


def test_a_new_size_layer_is_built_on_a_search_thread(
    served: tuple[Client, threading.Thread], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, loop_thread = served
    built_on: list[threading.Thread] = []
    real = sizes.eroded_grid

    def recorded(grid: GridGraph, k: int) -> GridGraph:
        built_on.append(threading.current_thread())
        return real(grid, k)

    monkeypatch.setattr(sizes, "eroded_grid", recorded)
    open_map = np.ones((16, 16), dtype=bool)
    open_map[8, :15] = False  # a wall with a one-cell gap at its right end
    client.load_grid("cave", open_map, hierarchy={"cluster_size": 8})
    answers: list[Any] = [client.reachable("cave", (0, 0), (0, 15), size=2) for _ in range(3)]
    assert answers == [False, False, False]  # a 2 x 2 unit does not fit through the gap
    assert client.reachable("cave", (0, 0), (0, 15)) is True
    assert len(built_on) == 1  # once, then kept
    assert built_on[0] is not loop_thread
