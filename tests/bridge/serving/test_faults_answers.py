"""Answers bounded before they are built, and one validation for every method (issue 37, rows 5-9):
a tile named many times, paths past ``--max-answer-bytes``, peers that never read past
``--max-unread-bytes``, a cell past int64 in ``field.request``, a bogus heuristic in a packed batch."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import select
import socket

import msgpack
import numpy as np
import pytest

from bridge.client import BridgeError, Client
from bridge.client.sidecar import Sidecar
from bridge.methods.handlers import Handlers
from bridge.serving.connection import WRITE_PIECE_BYTES, ClientProtocol
from bridge.serving.local import LocalServing
from bridge.wire.protocol import Limits
from tests.bridge.attacks import attacker, packed_request, serpentine, serpentine_end
from tests.bridge.conftest import SpawnSidecar
from tests.bridge.faults import closed_within, read_answers, request


def _code(caught: pytest.ExceptionInfo[BridgeError]) -> str:
    return str(caught.value.to_wire()["code"])


def _field(client: Client, graph_id: str, size: int) -> dict:
    client.load_grid(graph_id, np.ones((size, size)))
    answer: dict = client.call(
        "field.request",
        {"graph": graph_id, "goals": [[0, 0]], "starts": [[size - 1, size - 1], [0, size - 1]]},
    )
    return answer


def test_a_tile_named_more_than_once_is_refused(client: Client) -> None:
    field = _field(client, "tiles-twice", 32)
    tile = field["tiles"][0]
    with pytest.raises(BridgeError) as caught:
        client.call("field.tiles", {"field": field["field"], "tiles": [tile] * 1000})
    assert _code(caught) == "bad_request"
    assert "more than once" in caught.value.message
    with pytest.raises(BridgeError) as caught:  # ids past the field's tiles: excess, refused
        client.call("field.tiles", {"field": field["field"], "tiles": [tile, 10**6]})
    assert _code(caught) == "bad_request"
    once = client.call("field.tiles", {"field": field["field"], "tiles": [tile]})
    assert len(once["directions"]) == field["tile_size"] ** 2


def test_tiles_past_the_answer_cap_are_too_large(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--threads", "1", "--max-answer-bytes", "4096")
    with sidecar.connect() as client:
        field = _field(client, "capped", 64)
        everything = {"field": field["field"], "tiles": field["tiles"], "costs": True}  # 5 B a cell
        with pytest.raises(BridgeError) as caught:
            client.call("field.tiles", everything)
        assert _code(caught) == "too_large"
        assert caught.value.data["limit"] == 4096
        starts = [[63, 63], [0, 63], [63, 0], [32, 32]]  # four tiles: 5,120 bytes
        with pytest.raises(BridgeError) as caught:  # fetched with the request: the same cap
            client.call(
                "field.request",
                {"graph": "capped", "goals": [[0, 0]], "starts": starts, "fetch": True, "costs": True},
            )
        assert _code(caught) == "too_large"
        assert (
            len(client.call("field.tiles", {"field": field["field"], "tiles": field["tiles"][:4]})["tiles"])
            == 4
        )


def test_paths_past_the_answer_cap_are_too_large_and_the_sidecar_goes_on(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--threads", "2", "--max-answer-bytes", "1000000")
    width, height = 128, 127  # a corridor of about 8,000 cells: 130 KB a path
    end = serpentine_end(width, height)
    with sidecar.connect() as client:
        client.load_grid("corridor", serpentine(width, height), diagonal="never")
        one = client.find("corridor", (0, 0), end)
        assert one["status"] == "found"
        assert len(one["nodes"]) > 8 * 7000  # under the cap alone
        starts, goals = np.zeros((30, 2)), np.tile(end, (30, 1))  # 480 bytes of endpoints, 4 MB of paths
        with pytest.raises(BridgeError) as caught:
            client.call("path.find_packed", packed_request("corridor", starts, goals))
        assert _code(caught) == "too_large"
        assert caught.value.data["limit"] == 1_000_000
        queries = [{"graph": "corridor", "start": [0, 0], "goal": list(end)}] * 30
        with pytest.raises(BridgeError) as caught:
            client.find_many(queries)
        assert _code(caught) == "too_large"
        few = client.call("path.find_packed", packed_request("corridor", starts[:5], goals[:5]))
        assert bytes(few["status"]) == bytes(5)  # all found: within the cap, answered as before
        assert client.find("corridor", (0, 0), (5, 0))["status"] == "found"


def test_the_oldest_slow_reader_is_cut_first_past_the_unread_cap(spawn_sidecar: SpawnSidecar) -> None:
    # Each answer is 8.9 MB (100,000 paths of 4 points); the kernel takes 2-3 MB of it for a peer
    # that does not read, the sidecar keeps the rest: two such peers pass 8 MB, one does not.
    sidecar = spawn_sidecar("--threads", "2", "--max-unread-bytes", "8000000")
    with sidecar.connect() as owner:
        owner.load_grid("tiny", np.ones((4, 4)))
    starts, goals = np.zeros((100_000, 2)), np.full((100_000, 2), 3)
    peers = []
    try:
        for i in range(3):  # each asks, then never reads
            peer = attacker(sidecar, receive_buffer=4096)
            peer.sendall(request(i + 1, "path.find_packed", packed_request("tiny", starts, goals)))
            assert select.select([peer], [], [], 120)[0], "no answer began"  # written, left unread
            peers.append(peer)
        oldest, middle, newest = peers
        assert closed_within(oldest, 10) < 10
        assert closed_within(middle, 10) < 10
        answers, closed = read_answers(newest, 1)  # the newest reader still gets its whole answer
        assert not closed
        assert answers[0][2] is None
        assert len(answers[0][3]["status"]) == len(starts)
        _still_serves(sidecar)
    finally:
        for peer in peers:
            peer.close()


def _still_serves(sidecar: Sidecar) -> None:
    with sidecar.connect() as client:
        assert client.find("tiny", (0, 0), (3, 3))["status"] == "found"


@pytest.mark.parametrize("coordinate", [2**63, 2**64 - 1, -(2**63) - 0, 2**31])
def test_a_field_cell_past_every_grid_is_out_of_bounds_as_in_path_find(
    client: Client, coordinate: int
) -> None:
    client.load_grid("huge-cell", np.ones((8, 8)))
    for key in ("goals", "starts"):
        cells = {"goals": [[0, 0]], "starts": [[1, 1]]}
        cells[key] = [[coordinate, 0]]
        with pytest.raises(BridgeError) as caught:
            client.call("field.request", {"graph": "huge-cell", **cells})
        assert _code(caught) == "out_of_bounds", key
    with pytest.raises(BridgeError) as caught:
        client.call("path.find", {"graph": "huge-cell", "start": [coordinate, 0], "goal": [1, 1]})
    assert _code(caught) == "out_of_bounds"


def test_a_bad_options_map_is_the_packed_requests_error(client: Client) -> None:
    client.load_grid("packed-options", np.ones((8, 8)))
    ends = np.zeros((1000, 2))
    for options in ({"heuristic": "bogus"}, {"heuristic": 3}, {"max_expansions": -1}, {"colour": 1}):
        with pytest.raises(BridgeError) as caught:
            client.call("path.find_packed", packed_request("packed-options", ends, ends, **options))
        assert _code(caught) == "bad_request", options
    with pytest.raises(BridgeError) as caught:  # the same rule as path.find
        client.call(
            "path.find",
            {"graph": "packed-options", "start": [0, 0], "goal": [1, 1], "options": {"heuristic": "bogus"}},
        )
    assert _code(caught) == "bad_request"
    good = client.call(
        "path.find_packed", packed_request("packed-options", ends[:3], ends[:3], heuristic="octile")
    )
    assert bytes(good["status"]) == bytes(3)


def test_a_large_answer_is_held_and_given_to_the_transport_a_piece_at_a_time() -> None:
    # A peer that does not read: the answer waits as its own bytes (counted as unread), and the
    # transport, which copies what it is given, gets at most about a piece of it at a time.
    big = {"data": bytes(range(256)) * (24 * 4096)}  # 24 MiB
    received = asyncio.run(_one_unread_notification(big))
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(received)
    assert list(unpacker) == [[2, "big", [big]], [2, "small", [{"after": True}]]]  # whole, in order


@pytest.mark.parametrize("megabytes", [0, 3])
def test_an_answer_given_as_pieces_arrives_whole_and_in_order(megabytes: int) -> None:
    # A packed answer leaves as its arrays (one writelines, or held past a write piece): the peer
    # reads the same bytes as from one buffer, and what was sent after it, after it.
    big = {"data": bytes(range(256)) * (megabytes * 4096 + 3)}
    whole = msgpack.packb([2, "big", [big]], use_bin_type=True)
    cuts = [0, 1, len(whole) // 3, len(whole) // 3, len(whole) - 5, len(whole)]  # an empty piece too
    pairs = enumerate(itertools.pairwise(cuts))
    pieces = [whole[a:b] if i % 2 else memoryview(whole)[a:b] for i, (a, b) in pairs]
    received = asyncio.run(_one_unread_notification(big, pieces))
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(received)
    assert list(unpacker) == [[2, "big", [big]], [2, "small", [{"after": True}]]]


async def _one_unread_notification(
    params: dict[str, bytes], pieces: list[bytes | memoryview] | None = None
) -> bytes:
    limits = Limits()
    serving = LocalServing(limits, threads=1)
    handlers = Handlers(serving, limits, token="t")
    registry: set[ClientProtocol] = set()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: ClientProtocol(handlers, serving, limits, registry), "127.0.0.1", 0
    )
    peer = socket.socket()
    peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    peer.connect(server.sockets[0].getsockname()[:2])
    try:
        while not registry:
            await asyncio.sleep(0.01)
        (connection,) = registry
        assert connection.session is not None
        if pieces is None:
            connection.session.notify("big", params)
        else:  # the same notification, encoded ahead and given as pieces
            connection.session.send(pieces)
        connection.session.notify("small", {"after": True})  # queued behind the held answer
        await asyncio.sleep(0.2)
        transport = connection.transport
        assert transport is not None
        assert transport.get_write_buffer_size() <= 2 * WRITE_PIECE_BYTES
        assert connection.unread() > len(params["data"]) - 3 * WRITE_PIECE_BYTES  # held count as unread
        peer.setblocking(False)
        received = bytearray()
        while connection.unread() or transport.get_write_buffer_size():
            await asyncio.sleep(0.001)
            with contextlib.suppress(BlockingIOError):
                received += peer.recv(1 << 20)
        peer.settimeout(5)
        with contextlib.suppress(TimeoutError):
            while len(received) < len(params["data"]) + 40:
                received += peer.recv(1 << 20)
        return bytes(received)
    finally:
        peer.close()
        server.close()
        await server.wait_closed()
