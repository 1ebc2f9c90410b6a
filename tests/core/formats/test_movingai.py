"""Moving AI readers, and every scenario line of the copied maps against its published optimum."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from python_core.errors import GraphFileError
from python_core.formats.movingai import Scenario, length_tolerance, mask_from_rows, read_map, read_scenarios
from python_core.grid import GridGraph
from python_core.result import PathResult

DATA = Path(__file__).resolve().parents[2] / "data" / "movingai"
SQRT2 = math.sqrt(2.0)


def independent_mask(path: Path) -> np.ndarray:
    """The map parsed without python_core: rows after the 4-line header, '.', 'G', 'S' passable."""
    rows = path.read_text().splitlines()[4:]
    return np.array([[c in ".GS" for c in row] for row in rows], dtype=bool)


def path_problems(mask: np.ndarray, scenario: Scenario, result: PathResult) -> list[str]:
    """Everything wrong with a returned path: endpoints, adjacency, walls, corner cutting, cost."""
    width = mask.shape[1]
    cells = [(int(n) % width, int(n) // width) for n in result.nodes]
    problems = []
    if not cells or cells[0] != scenario.start or cells[-1] != scenario.goal:
        return [f"endpoints {cells[:1]}..{cells[-1:]} != {scenario.start}..{scenario.goal}"]
    if not np.array_equal(result.points, np.array(cells, dtype=float)):
        problems.append("points do not match nodes")
    cost = 0.0
    for (x0, y0), (x1, y1) in itertools.pairwise(cells):
        dx, dy = x1 - x0, y1 - y0
        if max(abs(dx), abs(dy)) != 1:
            problems.append(f"step {(x0, y0)} -> {(x1, y1)} is not to a neighbour")
        if not mask[y1, x1]:
            problems.append(f"{(x1, y1)} is blocked")
        if dx and dy and not (mask[y0, x1] and mask[y1, x0]):
            problems.append(f"{(x0, y0)} -> {(x1, y1)} cuts a corner")
        cost += SQRT2 if dx and dy else 1.0
    if not math.isclose(cost, result.cost, rel_tol=1e-9):
        problems.append(f"recomputed cost {cost} != reported {result.cost}")
    return problems


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "every"),
    [("arena", 1), ("den312d", 1), ("maze-100-1", 1), ("lak303d", 1), ("den520d", 32)],
)
def test_every_scenario_line_is_optimal_and_valid(name: str, every: int) -> None:
    grid = GridGraph.from_movingai(DATA / f"{name}.map")
    mask = independent_mask(DATA / f"{name}.map")
    scenarios = read_scenarios(DATA / f"{name}.map.scen")[::every]
    failures = []
    for line, s in enumerate(scenarios):
        result = grid.find_path(s.start, s.goal)
        if abs(result.cost - s.optimal_length) > length_tolerance(s.optimal_length):
            failures.append(f"line {line * every + 2}: cost {result.cost} != {s.optimal_length}")
        failures += [f"line {line * every + 2}: {p}" for p in path_problems(mask, s, result)]
    assert failures == []


def test_read_map_matches_an_independent_parse() -> None:
    for name in ["arena", "den312d", "maze-100-1"]:
        assert np.array_equal(read_map(DATA / f"{name}.map"), independent_mask(DATA / f"{name}.map"))


def test_passable_counts_match_the_benchmark_readme() -> None:
    counts = {"arena": 2054, "den312d": 2445, "den520d": 28178, "lak303d": 14784, "maze-100-1": 4999}
    for name, count in counts.items():
        assert int(read_map(DATA / f"{name}.map").sum()) == count


def test_read_scenarios_reads_width_before_height() -> None:
    scenarios = read_scenarios(DATA / "den312d.map.scen")
    assert len(scenarios) == 320
    first = scenarios[0]
    assert (first.map_name, first.width, first.height) == ("den312d.map", 65, 81)
    assert isinstance(first.bucket, int)
    assert all(s.width == 65 and s.height == 81 for s in scenarios)
    with pytest.raises(AttributeError):
        first.bucket = 3  # type: ignore[misc]


def test_length_tolerance_is_one_unit_in_the_sixth_digit() -> None:
    assert length_tolerance(2.82843) == pytest.approx(1e-5)
    assert length_tolerance(99.9) == pytest.approx(1e-4)
    assert length_tolerance(100.113) == pytest.approx(1e-3)
    assert length_tolerance(1007.22) == pytest.approx(1e-2)
    assert length_tolerance(0.0) == pytest.approx(1e-5)


@pytest.mark.parametrize(
    "text",
    [
        "type octile\nheight 2\nwidth 2\n..\n..\n",  # no 'map' line
        "type tile\nheight 1\nwidth 1\nmap\n.\n",
        "type octile\nheight x\nwidth 1\nmap\n.\n",
        "type octile\nheight 2\nwidth 2\nmap\n..\n",  # a row short
        "type octile\nheight 1\nwidth 2\nmap\n.\n",  # a row too narrow
        "type octile\nheight 1\nwidth 2\nmap\n.?\n",  # unknown character
    ],
)
def test_malformed_maps_raise_graph_file_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.map"
    path.write_text(text)
    with pytest.raises(GraphFileError):
        read_map(path)


@pytest.mark.parametrize(
    "text",
    [
        "version 2\n",
        "version 1\n0\tm.map\t2\t2\t0\t0\t1\n",  # 7 columns
        "version 1\n0\tm.map\t2\t2\t0\t0\t1\tx\t1.0\n",
        "version 1\n0\tm.map\t2\t2\t0\t0\t1\t1\tnan\n",
    ],
)
def test_malformed_scenarios_raise_graph_file_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.scen"
    path.write_text(text)
    with pytest.raises(GraphFileError):
        read_scenarios(path)


def test_scenario_map_column_is_compared_by_basename(tmp_path: Path) -> None:
    path = tmp_path / "ok.scen"
    path.write_text("version 1\n3\tmaps/dao/x.map\t4\t2\t0\t1\t3\t0\t3.41421\n\n")
    assert read_scenarios(path) == [Scenario(3, "x.map", 4, 2, (0, 1), (3, 0), 3.41421)]


def test_mask_from_rows_names_unknown_characters() -> None:
    with pytest.raises(GraphFileError, match=r"'#' at \(1, 1\)"):
        mask_from_rows(["..", ".#"])
