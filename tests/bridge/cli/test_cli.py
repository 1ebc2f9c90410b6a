"""``python -m bridge serve`` / ``astar-bridge serve``: the announcement line, flags, clean exits."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bridge.cli.commands import _parser
from bridge.cli.serve import _config
from bridge.client.sidecar import start_sidecar
from bridge.serving.server import Server
from bridge.wire.protocol import PROTOCOL_VERSION
from tests.bridge.conftest import SpawnSidecar

SERVE = [sys.executable, "-m", "bridge", "serve", "--workers", "1", "--log-level", "WARNING"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_announces_exactly_one_json_line_then_exits_when_stdin_closes() -> None:
    process = subprocess.Popen(
        SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdout is not None
        assert process.stdin is not None
        event = json.loads(process.stdout.readline())
        assert set(event) == {"event", "host", "port", "token", "protocol"}
        assert event["event"] == "listening"
        assert event["host"] == "127.0.0.1"
        assert event["protocol"] == PROTOCOL_VERSION
        assert len(event["token"]) >= 32
        assert event["port"] > 0
        process.stdin.close()  # the game went away
        assert process.wait(20) == 0
        assert process.stdout.read() == b""  # nothing else ever goes to stdout
    finally:
        process.kill()
        process.wait()


def test_stdin_closed_right_after_the_announcement_exits_without_a_traceback() -> None:
    # The game can go away while the first kernels still load: the server then stops before the
    # rest of the warm-up is handed to its executor ("Executor shutdown has been called").
    for _ in range(3):
        process = subprocess.Popen(
            SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert process.stdout is not None
        assert process.stdin is not None
        assert json.loads(process.stdout.readline())["event"] == "listening"
        assert process.stderr is not None
        process.stdin.close()
        stderr = process.stderr.read()  # to its end: the sidecar exited
        assert process.wait(60) == 0
        assert b"Traceback" not in stderr, stderr.decode(errors="replace")
        assert b"RuntimeError" not in stderr, stderr.decode(errors="replace")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_exits_cleanly_on_signals(spawn_sidecar: SpawnSidecar, sig: signal.Signals) -> None:
    sidecar = spawn_sidecar("--workers", "1", "--no-stdin-watch")
    sidecar.process.send_signal(sig)
    assert sidecar.process.wait(20) == 0


def test_no_stdin_watch_keeps_serving_after_stdin_closes(spawn_sidecar: SpawnSidecar) -> None:
    sidecar = spawn_sidecar("--workers", "1", "--no-stdin-watch")
    assert sidecar.process.stdin is not None
    sidecar.process.stdin.close()
    with sidecar.connect() as client:  # a full round trip after stdin closed
        assert client.call("graph.list") == {"graphs": []}
    assert sidecar.process.poll() is None
    sidecar.process.terminate()
    assert sidecar.process.wait(20) == 0


def test_port_and_token_flags_are_used(spawn_sidecar: SpawnSidecar) -> None:
    port = _free_port()
    sidecar = spawn_sidecar("--workers", "1", "--port", str(port), "--token", "sesame")
    assert (sidecar.port, sidecar.token) == (port, "sesame")
    with sidecar.connect() as client:
        assert client.call("graph.list") == {"graphs": []}


def test_token_stdin_takes_the_token_from_stdin_and_keeps_it_off_the_command_line() -> None:
    secret = "not-in-ps-7f3a"
    process = subprocess.Popen(
        [*SERVE, "--token-stdin"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(f"{secret}\n".encode())
        process.stdin.flush()
        event = json.loads(process.stdout.readline())
        assert event["token"] == secret
        cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes()
        assert b"--token-stdin" in cmdline
        assert secret.encode() not in cmdline
        ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
        assert secret not in ps
        process.stdin.close()  # the token line does not stop the stdin watch; closing still does
        assert process.wait(20) == 0
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize(
    ("extra", "stdin", "message"),
    [
        ([], b"\n", b"empty first line"),
        (["--token", "x"], b"y\n", b"exclude each other"),
    ],
)
def test_token_stdin_refuses_an_empty_line_or_a_second_token(
    extra: list[str], stdin: bytes, message: bytes
) -> None:
    result = subprocess.run(
        [*SERVE, "--token-stdin", *extra], input=stdin, capture_output=True, timeout=60, check=False
    )
    assert result.returncode != 0
    assert result.stdout == b""
    assert message in result.stderr


def test_console_script_serves_too() -> None:
    script = Path(sys.executable).with_name("astar-bridge")
    if not script.exists():
        pytest.skip("the console script is not installed in this environment")
    with start_sidecar(python=sys.executable, stderr=subprocess.DEVNULL) as sidecar:  # module form
        assert sidecar.protocol == PROTOCOL_VERSION
    process = subprocess.Popen(
        [str(script), "serve", "--workers", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        assert process.stdin is not None
        assert json.loads(process.stdout.readline())["event"] == "listening"
        process.stdin.close()
        assert process.wait(20) == 0
    finally:
        process.kill()
        process.wait()


def test_non_loopback_address_needs_allow_remote() -> None:
    done = subprocess.run([*SERVE, "--host", "0.0.0.0"], capture_output=True, timeout=30, check=False)
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"--allow-remote" in done.stderr


def test_allow_remote_binds_the_given_address() -> None:
    with start_sidecar(
        "--workers", "1", "--host", "0.0.0.0", "--allow-remote", stderr=subprocess.DEVNULL
    ) as sidecar:
        assert sidecar.host == "0.0.0.0"
        with socket.create_connection(("127.0.0.1", sidecar.port), timeout=10):
            pass


def _children(pid: int) -> list[int]:
    """Child processes of ``pid`` (children of any of its threads)."""
    return [int(c) for f in Path(f"/proc/{pid}/task").glob("*/children") for c in f.read_text().split()]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_searches_run_in_the_sidecar_process_itself(spawn_sidecar: SpawnSidecar) -> None:
    """No worker processes to outlive a killed sidecar: searches run on its own threads."""
    sidecar = spawn_sidecar("--workers", "2", "--no-stdin-watch")
    with sidecar.connect() as client:
        client.load_grid("g", [[1] * 80] * 80)
        results = client.find_many([client.query("g", (0, 0), (79, 79 - i)) for i in range(64)])
    assert all(r["status"] == "found" for r in results)
    assert _children(sidecar.process.pid) == []


@pytest.mark.parametrize("option", ["--threads", "--workers"])
def test_threads_sets_the_search_threads_and_workers_is_its_old_name(option: str) -> None:
    server = Server(_config(_parser().parse_args(["serve", option, "3"])))
    try:
        assert server.config.threads == 3
        assert server.serving.threads == 3
    finally:
        server.handlers.fields.close()


def test_help_lists_threads_and_not_the_old_name() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bridge", "serve", "--help"], capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 0
    assert b"--threads" in done.stdout
    assert b"--workers" not in done.stdout


@pytest.mark.parametrize(("option", "deprecated"), [("--threads", False), ("--workers", True)])
def test_a_sidecar_serves_with_either_name_and_logs_the_old_one_as_deprecated(
    option: str, deprecated: bool
) -> None:
    with start_sidecar(option, "2", "--log-level", "WARNING", stderr=subprocess.PIPE) as sidecar:
        with sidecar.connect() as client:
            client.load_grid("g", [[1, 1, 1]])
            assert client.find("g", (0, 0), (2, 0))["status"] == "found"
        sidecar.stop()
        assert sidecar.process.stderr is not None
        stderr = sidecar.process.stderr.read()
    assert (b"--workers is deprecated: use --threads" in stderr) is deprecated
