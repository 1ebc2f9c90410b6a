"""tools/setup.sh, run again after the test command's own set-up: it installs nothing, and its
warm-up only loads the kernels, in a few lines. (A fresh clone's first run is measured by hand:
docs/development.md, "First run".)"""

from __future__ import annotations

import hashlib
import subprocess

import pytest

from python_core.warm_up_jobs import KERNEL_SIGNATURES
from tests.godot_env import REPO


def set_up(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "tools/setup.sh", *args], cwd=REPO, capture_output=True, text=True, timeout=900, check=False
    )


def test_an_unknown_option_is_refused_before_anything_runs() -> None:
    out = set_up("--everything")
    assert out.returncode == 2
    assert out.stderr == "[setup] error: unknown option '--everything' (known: --dev, --bench, --ray)\n"


def test_a_second_set_up_installs_nothing_and_only_loads_the_kernels() -> None:
    stamp = (REPO / ".venv" / ".astar-bridge-installed").read_text().splitlines()
    pyproject = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    if stamp[:1] != [pyproject] or "dev" not in (stamp[1:2] or [""])[0].split():
        pytest.skip("pyproject.toml changed since the last set-up: run bash tools/test.sh (it sets up first)")
    out = set_up("--dev")
    assert out.returncode == 0, out.stderr
    total = f"{KERNEL_SIGNATURES} of {KERNEL_SIGNATURES}"
    assert "[setup] installing" not in out.stderr
    # Godot's lines, and the closing line of a set-up that took 10 s or more (a loaded machine)
    lines = [line for line in out.stderr.splitlines() if not line.startswith(("[godot]", "[setup] ready"))]
    assert lines[0] == f"[warm-up] loading pathfinding kernels: {total} in the cache"
    assert lines[1].startswith(f"[warm-up] pathfinding kernels ready: {total} in the cache")
    assert lines[2].startswith("warm-up: ")
    assert " 0 compiled" in lines[2]
    assert len(lines) == 3, out.stderr
