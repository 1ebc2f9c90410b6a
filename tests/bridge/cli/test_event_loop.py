"""``serve --loop``: the sidecar runs on uvloop where it is installed, else on asyncio's own loop."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys

import pytest

from bridge.cli.serve import event_loop_runner
from bridge.client.sidecar import start_sidecar

HAVE_UVLOOP = importlib.util.find_spec("uvloop") is not None


def test_asyncio_is_asyncio_s_own_runner() -> None:
    assert event_loop_runner("asyncio") == ("asyncio", asyncio.run)


def test_auto_takes_uvloop_where_it_is_installed_else_asyncio() -> None:
    name, _ = event_loop_runner("auto")
    assert name == ("uvloop" if HAVE_UVLOOP else "asyncio")


def test_auto_falls_back_and_uvloop_fails_when_uvloop_cannot_be_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # an import of it raises ImportError
    assert event_loop_runner("auto") == ("asyncio", asyncio.run)
    with pytest.raises(ValueError, match="uvloop is not installed"):
        event_loop_runner("uvloop")


@pytest.mark.parametrize("loop", ["asyncio", "auto", pytest.param("uvloop", marks=pytest.mark.skipif(
    not HAVE_UVLOOP, reason="uvloop is not installed (Windows)"))])  # fmt: skip
def test_a_sidecar_on_each_loop_answers_and_logs_which(loop: str) -> None:
    with start_sidecar("--loop", loop, "--log-level", "INFO", stderr=subprocess.PIPE) as sidecar:
        with sidecar.connect() as client:
            client.load_grid("g", [[1] * 20] * 20, hierarchy={"cluster_size": 8})
            exact = client.find("g", (0, 0), (19, 13))
            hierarchical = client.find("g", (0, 0), (19, 13), hierarchical=True)
            assert hierarchical["cost"] == pytest.approx(exact["cost"])
            assert client.find("g", (3, 4), (3, 4), hierarchical=True)["cost"] == 0.0
        sidecar.stop()
        assert sidecar.process.stderr is not None
        stderr = sidecar.process.stderr.read()
    expected = event_loop_runner(loop)[0]
    assert f"event loop: {expected}".encode() in stderr


def test_an_unknown_loop_is_refused() -> None:
    command = [sys.executable, "-m", "bridge", "serve", "--loop", "trio"]
    done = subprocess.run(command, capture_output=True, timeout=60, check=False)
    assert done.returncode == 2
    assert b"--loop" in done.stderr
