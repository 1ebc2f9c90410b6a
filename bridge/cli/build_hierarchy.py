"""``python -m bridge build-hierarchy MAP``: build HPA* for a map in-process, with a progress bar.

    python -m bridge build-hierarchy tests/data/movingai/den312d.map --cluster-size 16

The bar goes to stderr while the hierarchy builds; then one summary line (size, clusters, build
seconds, bytes) goes to stdout. ``MAP`` is a MovingAI ``.map`` or a grid graph file
(:mod:`python_core.formats.graph_file`); a grid file with a hexagonal, isometric or half-offset
``layout`` gets :class:`~python_core.hpa.lattice.LatticeHierarchy` (one level).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from python_core.errors import AStarError
from python_core.formats.graph_file import load_graph
from python_core.grid import GridGraph
from python_core.grid.layouts import TileGrid
from python_core.hpa import HierarchicalGrid
from python_core.hpa.lattice import LatticeHierarchy

__all__ = ["ProgressBar", "add_parser", "run"]

BAR_WIDTH = 30


class ProgressBar:
    """``[#####-----]  42%  126/300`` on one terminal line, redrawn at most every 1 % / 100 ms."""

    def __init__(self, stream: TextIO, label: str = "building") -> None:
        self.stream = stream
        self.label = label
        self._shown = -1
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        percent = 100 * done // max(1, total)
        now = time.monotonic()
        if done < total and (percent == self._shown or now - self._last < 0.1):
            return
        self._shown, self._last = percent, now
        filled = BAR_WIDTH * done // max(1, total)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {percent:3d}%  {done}/{total}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``build-hierarchy`` subcommand."""
    parser = commands.add_parser("build-hierarchy", help="build HPA* for a map, with a progress bar")
    parser.add_argument("map", type=Path, help="a MovingAI .map or a grid graph file")
    parser.add_argument("--cluster-size", type=int, default=32, help="cluster side in cells (default 32)")
    parser.add_argument("--levels", type=int, default=1, help="abstraction levels, 1 or 2 (default 1)")
    parser.add_argument(
        "--region-clusters", type=int, default=16, help="clusters per level-2 region side (default 16)"
    )
    parser.add_argument("--diagonal", default="only_if_no_obstacles", help="diagonal rule for .map files")


def _grid(path: Path, diagonal: str) -> GridGraph:
    if path.suffix == ".map":
        return GridGraph.from_movingai(path, diagonal=diagonal)
    graph = load_graph(path)
    if not isinstance(graph, GridGraph):
        raise ValueError(f"{path} holds a {type(graph).__name__}, not a grid")
    return graph


def run(args: argparse.Namespace) -> int:
    """Build and report; returns the exit status (2 on a bad map or option)."""
    try:
        grid = _grid(args.map, args.diagonal)
        hpa: HierarchicalGrid | LatticeHierarchy
        if isinstance(grid, TileGrid) and grid.layout.lattice:
            if args.levels != 1:
                raise ValueError(
                    f"HPA* on a {grid.layout.kind.value} layout has one level, got {args.levels}"
                )
            hpa = LatticeHierarchy(grid, cluster_size=args.cluster_size)
        else:
            hpa = HierarchicalGrid(
                grid, cluster_size=args.cluster_size, levels=args.levels, region_clusters=args.region_clusters
            )
    except (OSError, ValueError, AStarError) as exc:
        sys.stderr.write(f"build-hierarchy: {exc}\n")
        return 2
    if isinstance(hpa, LatticeHierarchy):  # a hexagonal, isometric or half-offset layout
        bar = ProgressBar(sys.stderr)
        bar(0, 1)
        hpa.build()
        bar(1, 1)
        kind = grid.layout.kind.value if isinstance(grid, TileGrid) else ""
        sys.stdout.write(
            f"{args.map.name}: {grid.width}x{grid.height} {kind}, cluster_size "
            f"{args.cluster_size}, {hpa.graph.cluster_count} clusters, built in {hpa.build_seconds:.3f} s, "
            f"{hpa.nbytes / 1024:.1f} KiB\n"
        )
        return 0
    hpa.build(progress=ProgressBar(sys.stderr))
    sys.stdout.write(
        f"{args.map.name}: {grid.width}x{grid.height}, cluster_size {args.cluster_size}, "
        f"{hpa.graph.cluster_count} clusters"
        + (f", {hpa.upper.region_count} regions" if hpa.upper is not None else "")
        + f", built in {hpa.build_seconds:.3f} s, "
        f"{hpa.nbytes / 1024:.1f} KiB\n"
    )
    return 0
