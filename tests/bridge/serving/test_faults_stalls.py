"""No client stalls another (issue 37, rows 1, 3 and 4): while one client's big work runs, another
client's one-step ``path.find`` and the addon's heartbeat (``graph.list``) are answered, round
trip after round trip, before that work is answered. On a sidecar whose event loop waited for the
work, the bystander's first answer came only once the work was done, its answer on its heels."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import msgpack
import numpy as np
import pytest

from bridge.client import BridgeError
from tests.bridge.attacks import (
    Bystander,
    answered,
    answers_waiting,
    attacker,
    flood,
    move_update,
    quad_region,
    walled_goal,
    whole_map_field,
)
from tests.bridge.conftest import SpawnSidecar
from tests.bridge.faults import read_answers, request

TRIPS = 5
"""Bystander round trips that must all come back while the attack's work still runs."""


def test_field_tiles_and_an_unrelated_drop_do_not_wait_for_a_field_being_built(
    spawn_sidecar: SpawnSidecar,
) -> None:
    sidecar = spawn_sidecar("--threads", "2")
    size = 2048  # a whole-map field: seconds of work on the field thread
    with sidecar.connect(timeout=300) as owner:
        owner.load_grid("big", np.ones((size, size), dtype=np.uint8))
        owner.load_grid("unrelated", np.ones((4, 4)))
    bystander = Bystander(sidecar)
    try:
        with attacker(sidecar, timeout=300) as builder:
            builder.sendall(request(1, "field.request", whole_map_field("big", size)))
            time.sleep(0.5)  # the field thread has taken the build
            # the cache's lock is held by the build: neither of these may wait for it on the loop
            probe = bystander.client
            unknown = probe.send("field.tiles", {"field": "f999", "tiles": [0]})
            drop = probe.send("graph.drop", {"id": "unrelated"})
            bystander.trips(TRIPS)
            assert not answered(builder), "the bystander was answered only once the field was built"
            assert probe.receive(drop) == {"id": "unrelated"}
            with pytest.raises(BridgeError) as caught:
                probe.receive(unknown)
            assert caught.value.to_wire()["code"] == "unknown_point"
            answer = read_answers(builder, 1)[0][0]
            assert answer[2] is None
            assert answer[3]["computed"] == (size // 16) ** 2
    finally:
        bystander.close()


def test_a_navmesh_region_move_on_a_big_map_runs_off_the_event_loop(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--threads", "2")
    side = 160  # 25,600 polygons: under the old 65,536-node line, so once updated on the loop
    moves = 12  # a move re-stitches only the moved region: several, so the work outlasts the trips
    with sidecar.connect(timeout=300) as owner:
        regions = [quad_region(1, side), quad_region(2, 4, offset=side + 10)]
        assert owner.load_navmap("mesh", regions)["nodes"] >= side * side
    bystander = Bystander(sidecar)
    try:
        with attacker(sidecar, timeout=300) as mover:
            for msgid in range(1, moves + 1):  # the big region, back and forth
                mover.sendall(request(msgid, "graph.update", move_update("mesh", 1, (-1.0) ** msgid)))
            time.sleep(0.2)  # the first update is read and under way
            bystander.trips(TRIPS)
            waiting = answers_waiting(mover)
            assert waiting < moves, "the bystander was answered only once every move was rebuilt"
            answers = read_answers(mover, moves)[0]
            assert [answer[2] for answer in answers] == [None] * moves
            assert answers[-1][3]["version"] == moves + 1
    finally:
        bystander.close()


def test_a_flood_of_small_queries_does_not_hold_up_another_client(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--threads", "2")
    size, count = 100, 20_000
    with sidecar.connect() as owner:
        owner.load_grid("walled", walled_goal(size), diagonal="never")
    bystander = Bystander(sidecar)
    try:
        with attacker(sidecar, timeout=300) as flooder:
            sender = threading.Thread(
                target=_send_all, args=(flooder, flood("walled", size, count)), daemon=True
            )
            sender.start()
            first = read_answers(flooder, 1)[0][0]
            assert first[3]["status"] == "budget_exhausted"  # each query runs to its budget
            bystander.trips(TRIPS)
            flooder.setblocking(False)
            seen = 1 + _count_buffered(flooder)
            # the old sidecar answered a whole read of the flood (thousands of queries) before
            # each of the bystander's requests; now it waits a slice (a few ms) at most
            assert seen < 1000, f"{seen} of the flood's answers came before the bystander's {TRIPS} trips"
    finally:
        bystander.close()


def _send_all(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the test closed the socket first
        sock.sendall(data)


def _count_buffered(sock: socket.socket) -> int:
    """Whole answers already on ``sock`` (non-blocking), counted by their msgpack framing."""
    unpacker = msgpack.Unpacker(raw=False)
    while True:
        try:
            data = sock.recv(1 << 20)
        except BlockingIOError:
            break
        if not data:
            break
        unpacker.feed(data)
    return sum(1 for _ in unpacker)
