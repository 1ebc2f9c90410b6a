"""Finding and running the headless Godot that the tests use.

Godot comes from ``$GODOT`` or ``tools/provision_godot.py``. When it cannot be had, tests that need it
skip on a developer machine but fail with ``CI=true``: CI must never pass by skipping the engine.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TEST_PROJECT = REPO / "tests" / "godot_project"
DEMO_PROJECT = REPO / "demo_project"


class GodotUnavailableError(RuntimeError):
    """No Godot 4.3+ could be found or provisioned."""


@functools.lru_cache(maxsize=1)
def find_godot() -> str:
    """The Godot command, provisioning it if needed; raises GodotUnavailableError with the reason."""
    out = subprocess.run(
        [sys.executable, str(REPO / "tools" / "provision_godot.py")],
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if out.returncode != 0 or not out.stdout.strip():
        raise GodotUnavailableError(out.stderr.strip() or "provision_godot.py printed nothing")
    return out.stdout.strip().splitlines()[-1]


def require_godot() -> str:
    """Godot for a test: skip without it, except under CI=true where its absence is a failure."""
    try:
        return find_godot()
    except GodotUnavailableError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and Godot is unavailable: {exc}", pytrace=False)
        pytest.skip(f"Godot unavailable: {exc}")


def run_godot(
    godot: str,
    project: Path,
    args: list[str],
    *,
    timeout: float = 300,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run headless Godot in ``project``; stdout and stderr merged into ``stdout``."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("LD_LIBRARY_PATH", None)
    return subprocess.run(
        [godot, "--headless", "--path", str(project), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
        env=full_env,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def import_project(godot: str, project: Path) -> None:
    """Let Godot scan the project once, so class_name scripts resolve in --script runs."""
    result = run_godot(godot, project, ["--import"], timeout=300)
    if result.returncode != 0:
        raise AssertionError(f"godot --import failed in {project}:\n{result.stdout}")


ENGINE_ERROR_MARKERS = ("SCRIPT ERROR", "Parse Error", "ERROR:", "WARNING:")


def engine_errors(output: str) -> list[str]:
    """Lines of Godot output that report an error or warning."""
    return [line for line in output.splitlines() if any(m in line for m in ENGINE_ERROR_MARKERS)]


def run_demo(godot: str, args: list[str]) -> list[str]:
    """The lines of a headless demo run (``run_demo.gd`` with ``args``), which must exit 0 and
    print no script error or warning."""
    run = ["--fixed-fps", "60", "--script", "res://headless/run_demo.gd", "--", *args]
    result = run_godot(godot, DEMO_PROJECT, run, timeout=180)
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stdout
    bad = [line for line in lines if "SCRIPT ERROR" in line or "WARNING" in line or "ERROR:" in line]
    assert not bad, "\n".join(bad)
    return lines


def summary_rows(lines: list[str]) -> dict[str, str]:
    """The demo's summary table as {row name: value} ({"NPCs": "10", "goals given": ...}); with
    several levels, a row name's last value."""
    rows: dict[str, str] = {}
    for line in lines:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 2:
            rows[cells[0]] = cells[1]
    return rows
