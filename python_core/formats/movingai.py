"""Readers for the Moving AI grid benchmark files (``.map`` and ``.scen``, Sturtevant 2012).

Quick start::

    from python_core import GridGraph
    from python_core.formats.movingai import length_tolerance, read_scenarios
    grid = GridGraph.from_movingai("tests/data/movingai/arena.map")
    s = read_scenarios("tests/data/movingai/arena.map.scen")[0]
    assert abs(grid.find_path(s.start, s.goal).cost - s.optimal_length) <= length_tolerance(s.optimal_length)

Maps: header ``type octile`` / ``height H`` / ``width W`` / ``map``, then H rows of W characters;
``.``, ``G``, ``S`` are passable and ``@``, ``O``, ``T``, ``W`` blocked. Scenario lines have nine
tab-separated columns ``bucket map width height start_x start_y goal_x goal_y optimal_length``;
note that width comes before height there. The optimal lengths assume 8-connected moves, sqrt(2)
diagonals and no corner cutting (``DiagonalMode.ONLY_IF_NO_OBSTACLES``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

import numpy as np
import numpy.typing as npt

from python_core.errors import GraphFileError

__all__ = [
    "BLOCKED",
    "PASSABLE",
    "Scenario",
    "length_tolerance",
    "mask_from_rows",
    "read_map",
    "read_scenarios",
]

PASSABLE = ".GS"
"""Map characters of passable cells in the plain octile benchmark."""
BLOCKED = "@OTW"
"""Map characters of blocked cells (out of bounds, trees, water, swamp treated as walls)."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """One line of a ``.scen`` file.

    Attributes:
        bucket: difficulty bucket (column 1).
        map_name: basename of the map column (``maps/dao/arena.map`` -> ``arena.map``).
        width: map width (column 3; width comes before height).
        height: map height.
        start: ``(x, y)`` start cell.
        goal: ``(x, y)`` goal cell.
        optimal_length: the published optimal octile length (6 significant digits).
    """

    bucket: int
    map_name: str
    width: int
    height: int
    start: tuple[int, int]
    goal: tuple[int, int]
    optimal_length: float


def mask_from_rows(
    rows: Sequence[str], *, passable: str = PASSABLE, blocked: str = BLOCKED
) -> npt.NDArray[np.bool_]:
    """Turn text rows (one character per cell, top row first) into a walkable mask.

    Args:
        rows: equal-length strings.
        passable: characters of walkable cells.
        blocked: characters of blocked cells.

    Returns:
        ``(len(rows), len(rows[0]))`` bool array, True = walkable.

    Raises:
        GraphFileError: no rows, ragged rows, or a character in neither set (names it and its cell).

    Example:
        >>> mask_from_rows([".@", "T."]).tolist()
        [[True, False], [False, True]]
        >>> mask_from_rows([".", ".."])
        Traceback (most recent call last):
        ...
        python_core.errors.GraphFileError: row 1 has 2 characters, expected 1
    """
    if not rows or not rows[0]:
        raise GraphFileError("a grid needs at least one non-empty row")
    width = len(rows[0])
    for y, row in enumerate(rows):
        if len(row) != width:
            raise GraphFileError(f"row {y} has {len(row)} characters, expected {width}")
    codes = np.frombuffer("".join(rows).encode("utf-32-le"), dtype=np.uint32).reshape(len(rows), width)
    is_open = np.isin(codes, [ord(c) for c in passable])
    known = is_open | np.isin(codes, [ord(c) for c in blocked])
    if not known.all():
        y, x = (int(i) for i in np.argwhere(~known)[0])
        raise GraphFileError(f"unknown cell character {rows[y][x]!r} at ({x}, {y})")
    return is_open


def read_map(path: str | PathLike[str]) -> npt.NDArray[np.bool_]:
    """Read an octile ``.map`` file into a walkable mask (``GridGraph.from_movingai`` wraps it).

    Args:
        path: the file.

    Returns:
        ``(height, width)`` bool array, True = passable.

    Raises:
        GraphFileError: a malformed header, a row count or length that disagrees with it, or an
            unknown character.
        OSError: the file cannot be read.

    Example:
        >>> read_map("tests/data/movingai/arena.map").shape
        (49, 49)
    """
    lines = Path(path).read_text(encoding="ascii", errors="replace").splitlines()
    if len(lines) < 4 or lines[0].strip() != "type octile" or lines[3].strip() != "map":
        raise GraphFileError(f"{path}: expected header 'type octile' / height / width / 'map'")
    height, width = _header_int(path, lines[1], "height"), _header_int(path, lines[2], "width")
    rows = lines[4 : 4 + height]
    if len(rows) != height or any(len(row) != width for row in rows):
        raise GraphFileError(f"{path}: expected {height} rows of {width} characters")
    try:
        return mask_from_rows(rows)
    except GraphFileError as exc:
        raise GraphFileError(f"{path}: {exc}") from None


def _header_int(path: str | PathLike[str], line: str, key: str) -> int:
    parts = line.split()
    if len(parts) != 2 or parts[0] != key or not parts[1].isdigit() or int(parts[1]) == 0:
        raise GraphFileError(f"{path}: expected '{key} <positive int>', got {line!r}")
    return int(parts[1])


def read_scenarios(path: str | PathLike[str]) -> list[Scenario]:
    """Read a ``version 1`` scenario file.

    Args:
        path: the file.

    Returns:
        One :class:`Scenario` per line, in file order.

    Raises:
        GraphFileError: a wrong header or a line without nine well-formed columns (names the line).
        OSError: the file cannot be read.

    Example:
        >>> s = read_scenarios("tests/data/movingai/arena.map.scen")
        >>> len(s), s[0].map_name, s[0].width, s[0].height
        (160, 'arena.map', 49, 49)
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines or lines[0].split() not in (["version", "1"], ["version", "1.0"]):
        raise GraphFileError(f"{path}: expected header 'version 1'")
    scenarios = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cols = line.split("\t") if "\t" in line else line.split()
        try:
            if len(cols) != 9:
                raise ValueError(f"{len(cols)} columns, expected 9")
            bucket, width, height, sx, sy, gx, gy = (int(cols[i]) for i in (0, 2, 3, 4, 5, 6, 7))
            length = float(cols[8])
            if not math.isfinite(length) or length < 0:
                raise ValueError(f"bad optimal length {cols[8]!r}")
        except ValueError as exc:
            raise GraphFileError(f"{path}:{number}: {exc}") from None
        name = cols[1].replace("\\", "/").rsplit("/", 1)[-1]
        scenarios.append(Scenario(bucket, name, width, height, (sx, sy), (gx, gy), length))
    return scenarios


def length_tolerance(length: float) -> float:
    """How far a correct solver's cost may differ from a printed optimal length.

    The files print 6 significant digits, so the tolerance is one unit in the 6th digit,
    ``10 ** (floor(log10(L)) - 5)`` (half a unit is not enough: some values sit on a rounding
    boundary). Lengths ``<= 0`` (start == goal) get ``1e-5``.

    Args:
        length: the published optimal length.

    Returns:
        The tolerance.

    Example:
        >>> length_tolerance(2.82843), length_tolerance(100.113), length_tolerance(0.0)
        (1e-05, 0.001, 1e-05)
    """
    if length <= 0:
        return 1e-5
    return float(10.0 ** (math.floor(math.log10(length)) - 5))
