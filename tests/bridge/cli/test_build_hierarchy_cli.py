"""``python -m bridge build-hierarchy``: a progress bar on stderr, one summary line on stdout."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np

from bridge.cli.build_hierarchy import ProgressBar
from python_core.formats.graph_file import save_graph
from python_core.grid.layouts import TileGrid, TileLayout

MAP = Path(__file__).resolve().parents[2] / "data" / "movingai" / "lak303d.map"


def test_builds_a_map_with_a_bar_on_stderr_and_a_summary_on_stdout() -> None:
    command = [sys.executable, "-m", "bridge", "build-hierarchy", str(MAP), "--cluster-size", "16"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "100%" in done.stderr
    assert "169/169" in done.stderr
    assert done.stdout.startswith("lak303d.map: 194x194, cluster_size 16, 169 clusters, built in ")


def test_a_missing_map_or_a_bad_cluster_size_exits_2() -> None:
    base = [sys.executable, "-m", "bridge", "build-hierarchy"]
    for args in (["missing.map"], [str(MAP), "--cluster-size", "2"]):
        done = subprocess.run(base + args, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 2
        assert "build-hierarchy:" in done.stderr


def test_a_hex_grid_file_gets_the_lattice_hierarchy(tmp_path: Path) -> None:
    walkable = np.ones((20, 24), dtype=bool)
    walkable[10, 2:22] = False
    path = tmp_path / "hexes.astargraph"
    save_graph(path, TileGrid(walkable, layout=TileLayout("hexagon"), cell_size=(32.0, 28.0)))
    command = [sys.executable, "-m", "bridge", "build-hierarchy", str(path), "--cluster-size", "8"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "100%" in done.stderr
    assert done.stdout.startswith("hexes.astargraph: 24x20 hexagon, cluster_size 8, 9 clusters, built in ")
    levels = subprocess.run(
        [*command, "--levels", "2"], capture_output=True, text=True, timeout=300, check=False
    )
    assert levels.returncode == 2
    assert "has one level" in levels.stderr


def test_the_bar_redraws_on_whole_percents_and_ends_the_line() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream)
    for done in range(1, 1001):
        bar(done, 1000)
    text = stream.getvalue()
    assert text.endswith("100%  1000/1000\n")
    assert text.count("\r") <= 101
