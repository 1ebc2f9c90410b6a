"""With CI=true a missing Godot fails the run; on a developer machine it only skips."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.godot_env import REPO

NEEDS_GODOT = """
def test_needs_godot(godot):
    assert godot
"""


def run_inner_pytest(ci: str) -> subprocess.CompletedProcess[str]:
    """Run a one-test pytest with Godot pointed nowhere; it lives under tests/ to see conftest.py."""
    inner = REPO / "tests" / "tooling" / f"_inner_{os.getpid()}_{ci or 'local'}"
    inner.mkdir()
    test_file = inner / "test_inner.py"
    test_file.write_text(NEEDS_GODOT)
    env = {**os.environ, "GODOT": "/nonexistent/godot", "CI": ci}
    try:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
            capture_output=True, text=True, env=env, cwd=REPO, check=False,
        )  # fmt: skip
    finally:
        test_file.unlink()
        inner.rmdir()


def test_ci_true_without_godot_fails_loudly() -> None:
    result = run_inner_pytest("true")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "CI=true and Godot is unavailable" in result.stdout
    assert "/nonexistent/godot" in result.stdout


def test_without_ci_a_missing_godot_skips() -> None:
    result = run_inner_pytest("")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 skipped" in result.stdout
