"""tools/house_report.py on a small made-up checkout: rooms, long files, README words, import
loops (one that only typing hides included), and clear refusals of a bad --root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.godot_env import REPO

REPORT = REPO / "tools" / "house_report.py"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPORT), *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    write(tmp_path / "README.md", "A pathfinding   sidecar\nfor Godot.\n")
    write(tmp_path / "python_core" / "__init__.py", "")
    write(tmp_path / "python_core" / "grid" / "__init__.py", "")
    write(tmp_path / "python_core" / "grid" / "graph.py", "from python_core.grid import search\n")
    typing_only = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from python_core.grid import graph\n"
    )
    write(tmp_path / "python_core" / "grid" / "search.py", typing_only)
    write(tmp_path / "python_core" / "hpa" / "big.py", "x = 1\n" * 451)
    write(tmp_path / "bridge" / "__init__.py", "")
    write(tmp_path / "bridge" / "wire.py", "import python_core\n")
    write(tmp_path / "addons" / "astar_bridge" / "api" / "path_query.gd", "extends RefCounted\n" * 3)
    write(tmp_path / "demo_project" / "main.gd", "extends Node\n")
    (tmp_path / "demo_project" / "addons").mkdir()
    (tmp_path / "demo_project" / "addons" / "astar_bridge").symlink_to(tmp_path / "addons" / "astar_bridge")
    write(tmp_path / "tests" / "test_long.py", "y = 2\n" * 500)
    return tmp_path


def test_the_report_lists_rooms_long_files_words_and_a_typing_only_loop(checkout: Path) -> None:
    done = run("--root", str(checkout))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "  python_core/hpa  (1 files, 451 lines)\n       451  python_core/hpa/big.py\n" in out
    assert "  addons/astar_bridge/api  (1 files, 3 lines)" in out
    assert "  demo_project  (1 files, 1 lines)" in out  # the symlinked addon is not counted again
    assert "Files over 450 lines in the rooms: 1\n     451  python_core/hpa/big.py\n" in out
    assert "Files over 450 lines elsewhere: 1\n     500  tests/test_long.py\n" in out
    assert "README.md words: 5\n" in out
    assert "Import loops (typing-only imports included): 1\n" in out
    assert "python_core.grid.graph -> python_core.grid.search -> python_core.grid.graph" in out


def test_a_root_that_is_no_checkout_is_refused(tmp_path: Path) -> None:
    missing = run("--root", str(tmp_path / "nowhere"))
    assert missing.returncode == 2
    assert "is not a folder" in missing.stderr
    empty = run("--root", str(tmp_path))
    assert empty.returncode == 2
    assert "holds none of python_core/, bridge/, addons/astar_bridge/" in empty.stderr
    assert run("--root", str(tmp_path), "--top", "0").returncode == 2
