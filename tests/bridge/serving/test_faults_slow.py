"""Slow and idle clients, too many clients, wrong tokens: each is cut off by its own limit while the
sidecar keeps serving everyone else."""

from __future__ import annotations

import dataclasses
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import bridge
from bridge.cli.commands import _parser
from bridge.cli.serve import _config
from bridge.client.sidecar import Sidecar
from bridge.wire.protocol import Limits
from tests.bridge.conftest import SpawnSidecar
from tests.bridge.faults import closed_within, connect, hello, read_answers, request, send_quietly

TIMEOUTS = ("--threads", "1", "--read-timeout", "1", "--hello-timeout", "2")


def _served(sidecar: Sidecar) -> None:
    with sidecar.connect() as client:
        client.load_grid("slow-g", np.ones((3, 3)))
        assert client.find("slow-g", (0, 0), (2, 2))["status"] == "found"


def test_an_incomplete_message_is_cut_off_after_the_read_timeout(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar(*TIMEOUTS)
    with connect(sidecar) as sock:
        sock.sendall(hello(sidecar))
        assert read_answers(sock, 1)[0][0][2] is None
        sock.sendall(request(1, "graph.list", {})[:-1])  # all but its last byte, forever
        _served(sidecar)  # others are served meanwhile
        closed_within(sock, 20)


def test_a_message_trickled_byte_by_byte_is_cut_off_too(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar(*TIMEOUTS)
    with connect(sidecar) as sock:
        sock.sendall(hello(sidecar))
        assert read_answers(sock, 1)[0][0][2] is None
        data = request(1, "graph.info", {"id": "x" * 200})
        sent = 0
        began = time.monotonic()
        while sent < len(data) and time.monotonic() - began < 20:  # a byte every 0.1 s: 20 s in all
            if not send_quietly(sock, data[sent : sent + 1]):
                break
            sent += 1
            time.sleep(0.1)
        assert sent < len(data), "the whole trickled message was accepted"
        closed_within(sock, 20)


def test_a_connection_without_hello_is_closed_after_the_hello_timeout(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar(*TIMEOUTS)
    with connect(sidecar) as idle, connect(sidecar) as chatty:
        for i in range(5):  # requests before hello do not keep a connection alive
            chatty.sendall(request(i, "graph.list", {}))
            assert read_answers(chatty, 1)[0][0][2]["code"] == "unauthorized"
        closed_within(idle, 20)
        closed_within(chatty, 20)
    _served(sidecar)


def test_a_wrong_token_is_answered_then_the_connection_closes(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--threads", "1")
    with connect(sidecar) as sock:
        guesses = b"".join(hello(sidecar, i, token=f"{i:032x}") for i in range(1000))
        send_quietly(sock, guesses)
        answers, closed = read_answers(sock)
    assert closed
    assert len(answers) == 1
    assert answers[0][2]["code"] == "unauthorized"
    _served(sidecar)


def test_connections_past_the_cap_are_closed_and_a_freed_place_is_reused(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--threads", "1", "--max-connections", "4")
    held = [sidecar.connect() for _ in range(4)]
    try:
        with connect(sidecar) as extra:
            closed_within(extra, 20)
        held.pop().close()
        for _ in range(100):  # the server notices the close at its own pace: retry, bounded
            try:
                _served(sidecar)
                break
            except ConnectionError:
                time.sleep(0.05)
        else:
            pytest.fail("no connection was served after one of four was closed")
    finally:
        for client in held:
            client.close()


@pytest.mark.parametrize("option", ["--read-timeout", "--hello-timeout", "--max-connections", "--max-depth"])
def test_serve_refuses_a_limit_that_is_not_positive(option: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bridge", "serve", option, "0", "--no-stdin-watch"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert option[2:].replace("-", "_").encode() in done.stderr
    assert done.stdout == b""  # never announced


def test_a_peer_that_never_reads_its_answers_is_closed_past_the_buffer_cap(
    spawn_sidecar: SpawnSidecar,
) -> None:
    sidecar = spawn_sidecar("--threads", "1", "--max-buffered-bytes", "200000")
    with sidecar.connect() as owner:
        owner.load_grid("slow-line", np.ones((1, 2000)), diagonal="never")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel holds little for us
    sock.settimeout(20)
    with sock:
        sock.connect((sidecar.host, sidecar.port))
        sock.sendall(hello(sidecar))
        assert read_answers(sock, 1)[0][0][2] is None
        find = {"graph": "slow-line", "start": [0, 0], "goal": [1999, 0]}  # 32 KB per path
        # A read's requests are handled a slice at a time and not at all while the peer leaves its
        # answers unread, so many small answers never pile up: one answer of 320 KB is what passes
        # the cap. 20 of them: 6 MB nobody reads.
        for i in range(20):
            if not send_quietly(sock, request(i + 1, "path.find_many", {"queries": [find] * 10})):
                break
        time.sleep(2)  # the answers pile up in the sidecar meanwhile
        answers, closed = read_answers(sock)
    assert closed
    assert len(answers) < 20
    _served(sidecar)


def test_every_limit_is_a_serve_option_and_a_protocol_row() -> None:
    table = (Path(bridge.__file__).parent / "PROTOCOL.md").read_text()
    rows = table[table.index("## Limits") :]
    for limit in dataclasses.fields(Limits):
        option = "--" + limit.name.replace("_", "-")
        assert f"`{option}`" in rows, option
        doubled = getattr(Limits(), limit.name) * 2
        assert main_args(option, str(doubled)) == doubled


def main_args(option: str, value: str) -> object:
    """The limit ``serve`` passes to the server when given ``option value``."""
    limits = _config(_parser().parse_args(["serve", option, value])).limits
    return getattr(limits, option[2:].replace("-", "_"))
