"""The quality gates, as tests: ruff, mypy --strict, gdlint, gdformat and a strict Godot parse check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.godot_env import DEMO_PROJECT, REPO, TEST_PROJECT
from tests.tooling.godot_parse_check import parse_check

BIN = Path(sys.executable).parent


def gdscript_files() -> list[str]:
    """Every .gd of the repository, each once (linked folders are not followed)."""
    found: list[str] = []
    for path in sorted(REPO.rglob("*.gd")):
        relative = path.relative_to(REPO)
        parts = relative.parts
        if any(p.startswith(".") for p in parts) or any(p.is_symlink() for p in path.parents):
            continue
        found.append(str(relative))
    return found


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)


def assert_ok(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, f"{' '.join(result.args)}\n{result.stdout}\n{result.stderr}"


def test_ruff_check() -> None:
    assert_ok(run(str(BIN / "ruff"), "check", "."))


def test_ruff_format() -> None:
    assert_ok(run(str(BIN / "ruff"), "format", "--check", "."))


def test_mypy_strict() -> None:
    assert_ok(run(sys.executable, "-m", "mypy", "--strict", "python_core", "bridge"))


def test_gdlint() -> None:
    files = gdscript_files()
    assert files, "no .gd files found"
    assert_ok(run(str(BIN / "gdlint"), *files))


def test_gdformat() -> None:
    assert_ok(run(str(BIN / "gdformat"), "--check", *gdscript_files()))


@pytest.mark.godot
@pytest.mark.parametrize("project", [TEST_PROJECT, DEMO_PROJECT], ids=["addon+tests", "demo"])
def test_godot_parse_check_is_clean(godot: str, project: Path, tmp_path: Path) -> None:
    if not (project / "project.godot").exists():
        pytest.fail(f"{project} has no project.godot")
    loaded, errors, log = parse_check(godot, project, tmp_path / "strict")
    assert loaded > 0, log
    assert not errors, "\n".join(errors)
