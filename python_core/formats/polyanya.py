"""Readers for Polyanya ``.mesh`` (format v2) files and their Moving AI style scenario files.

Quick start::

    from python_core.formats.polyanya import load_polyanya_mesh, read_mesh_scenarios
    mesh = load_polyanya_mesh("tests/data/mesh/arena.mesh")
    queries = read_mesh_scenarios("tests/data/mesh/arena.anyangle.scen")
    q = queries[0]
    assert mesh.find_path(q.start, q.goal).found

Format v2: the lines ``mesh``, ``2``, ``V P``; V vertex lines ``x y n p[0..n-1]`` (polygons around the
vertex, -1 = obstacle); P polygon lines ``n v[0..n-1] p[0..n-1]``, where ``p[i]`` is the neighbour
across edge ``(v[i-1], v[i])`` (-1 = obstacle). Indices are 0-based; tokens are whitespace-separated.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from python_core._types import F64
from python_core.errors import GraphFileError, InvalidGraphError
from python_core.navmesh import NavMesh

__all__ = ["MeshScenario", "PolyanyaMesh", "load_polyanya_mesh", "parse_polyanya_mesh", "read_mesh_scenarios"]


@dataclass(frozen=True, slots=True)
class PolyanyaMesh:
    """The raw content of a ``.mesh`` file.

    Attributes:
        vertices: ``(V, 2)`` float64.
        polygons: vertex index lists, in file order.
        neighbours: per polygon, the file's neighbour across edge ``(v[i-1], v[i])`` (-1: none).
    """

    vertices: F64
    polygons: list[list[int]]
    neighbours: list[list[int]]


@dataclass(frozen=True, slots=True)
class MeshScenario:
    """One query line of a scenario file (columns 1-9; width comes before height).

    Attributes:
        bucket: column 1.
        map_name: column 2 (as written, e.g. ``maps/dao/arena.map``).
        width, height: columns 3-4.
        start, goal: columns 5-6 and 7-8 as mesh points.
        length: column 9 (octile length in ``*.scen``, any-angle optimum in ``arena.anyangle.scen``).
    """

    bucket: int
    map_name: str
    width: int
    height: int
    start: tuple[float, float]
    goal: tuple[float, float]
    length: float


class _Tokens:
    """Whitespace tokens with position-aware errors."""

    def __init__(self, text: str, source: str) -> None:
        self._tokens = text.split()
        self._pos = 0
        self._source = source

    def take(self, what: str) -> str:
        if self._pos >= len(self._tokens):
            raise GraphFileError(f"{self._source}: file ends early, expected {what}")
        self._pos += 1
        return self._tokens[self._pos - 1]

    def int(self, what: str, lo: int | None = None, hi: int | None = None) -> int:
        tok = self.take(what)
        try:
            value = int(tok)
        except ValueError:
            raise GraphFileError(f"{self._source}: {what} must be an integer, got {tok!r}") from None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise GraphFileError(f"{self._source}: {what} = {value} is outside {lo}..{hi}")
        return value

    def float(self, what: str) -> float:
        tok = self.take(what)
        try:
            return float(tok)
        except ValueError:
            raise GraphFileError(f"{self._source}: {what} must be a number, got {tok!r}") from None

    def at_end(self) -> bool:
        return self._pos == len(self._tokens)


def parse_polyanya_mesh(text: str, source: str = "<mesh>") -> PolyanyaMesh:
    """Parse the text of a v2 ``.mesh`` file, checking counts and index ranges.

    Args:
        text: the file content.
        source: a name for error messages.

    Returns:
        The raw mesh.

    Raises:
        GraphFileError: wrong header or version, bad numbers, indices out of range, trailing data.

    Example:
        >>> m = parse_polyanya_mesh("mesh 2 3 1  0 0 1 0  1 0 1 0  0 1 1 0  3 0 1 2 -1 -1 -1")
        >>> m.polygons, m.vertices.shape
        ([[0, 1, 2]], (3, 2))
    """
    tok = _Tokens(text, source)
    if tok.take("'mesh'") != "mesh":
        raise GraphFileError(f"{source}: not a Polyanya mesh (first token must be 'mesh')")
    version = tok.take("the version")
    if version != "2":
        raise GraphFileError(f"{source}: unsupported mesh version {version!r} (only 2 is read)")
    nv = tok.int("the vertex count", 0)
    npoly = tok.int("the polygon count", 0)
    verts = np.zeros((nv, 2))
    for i in range(nv):
        verts[i] = (tok.float(f"x of vertex {i}"), tok.float(f"y of vertex {i}"))
        for _ in range(tok.int(f"neighbour count of vertex {i}", 0)):
            tok.int(f"a polygon around vertex {i}", -1, npoly - 1)
    polygons: list[list[int]] = []
    neighbours: list[list[int]] = []
    for p in range(npoly):
        n = tok.int(f"vertex count of polygon {p}", 3)
        polygons.append([tok.int(f"a vertex of polygon {p}", 0, nv - 1) for _ in range(n)])
        neighbours.append([tok.int(f"a neighbour of polygon {p}", -1, npoly - 1) for _ in range(n)])
    if not tok.at_end():
        raise GraphFileError(f"{source}: unexpected data after {npoly} polygons")
    return PolyanyaMesh(verts, polygons, neighbours)


def _cross_check(raw: PolyanyaMesh, mesh: NavMesh, source: str) -> None:
    """The file's neighbour lists must agree with the adjacency found from shared edges."""
    for p, (poly, nbrs) in enumerate(zip(raw.polygons, raw.neighbours, strict=True)):
        ours = mesh.polygon(p)
        found = {
            frozenset((int(ours[i]), int(ours[(i + 1) % len(ours)]))): int(
                mesh.neighbours[mesh.poly_ptr[p] + i]
            )
            for i in range(len(ours))
        }
        for i, q in enumerate(nbrs):
            edge = frozenset((poly[i - 1], poly[i]))
            if found.get(edge, -2) != q:
                raise GraphFileError(
                    f"{source}: polygon {p} names neighbour {q} across edge {sorted(edge)}, "
                    f"but the shared edges give {found.get(edge)}"
                )


def load_polyanya_mesh(path: str | os.PathLike[str], *, cross_check: bool = True) -> NavMesh:
    """Read a v2 ``.mesh`` file into a 2D :class:`NavMesh` (adjacency from shared edges).

    Args:
        path: the file.
        cross_check: also compare the file's own neighbour lists with the computed adjacency.

    Returns:
        The navmesh; polygon ``i`` is the file's polygon ``i``.

    Raises:
        GraphFileError: unreadable or malformed file, invalid polygons, or adjacency disagreement.

    Example:
        >>> load_polyanya_mesh("tests/data/mesh/arena.mesh").polygon_count
        120
    """
    source = os.fspath(path)
    try:
        with open(source, encoding="ascii") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise GraphFileError(f"{source}: cannot read: {exc}") from exc
    raw = parse_polyanya_mesh(text, source)
    try:
        mesh = NavMesh(raw.vertices, raw.polygons)
    except InvalidGraphError as exc:
        raise GraphFileError(f"{source}: {exc}") from exc
    if cross_check:
        _cross_check(raw, mesh, source)
    return mesh


def read_mesh_scenarios(path: str | os.PathLike[str]) -> list[MeshScenario]:
    """Read a ``version 1`` scenario file (9 tab-separated columns).

    Args:
        path: the file.

    Returns:
        One :class:`MeshScenario` per line, in file order.

    Raises:
        GraphFileError: a missing header or a malformed line (the message gives its number).

    Example:
        >>> read_mesh_scenarios("tests/data/mesh/arena.anyangle.scen")[0].goal
        (1.0, 12.0)
    """
    source = os.fspath(path)
    try:
        with open(source, encoding="ascii") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise GraphFileError(f"{source}: cannot read: {exc}") from exc
    if not lines or lines[0].split() != ["version", "1"]:
        raise GraphFileError(f"{source}: expected the header 'version 1'")
    out: list[MeshScenario] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cols = line.split("\t")
        try:
            if len(cols) != 9:
                raise ValueError(f"{len(cols)} columns instead of 9")
            sx, sy, gx, gy, length = (float(c) for c in (cols[4], cols[5], cols[6], cols[7], cols[8]))
            out.append(
                MeshScenario(int(cols[0]), cols[1], int(cols[2]), int(cols[3]), (sx, sy), (gx, gy), length)
            )
        except ValueError as exc:
            raise GraphFileError(f"{source}: line {number}: {exc}") from None
    return out
