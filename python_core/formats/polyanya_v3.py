"""Reader for Polyanya ``.mesh`` files in format version 3 (traversable faces become the navmesh).

Quick start::

    from python_core.formats.polyanya_v3 import load_polyanya_v3_mesh
    mesh = load_polyanya_v3_mesh("../shared/benchmarks/mesh/v3/scene_mp_2p_01.mesh")

Format v3: the lines ``mesh``, ``3``, ``V F``; V vertex lines ``x y``; F face lines
``traversable n v1..vn nb1..nbn`` with 1-based vertex indices (the neighbours are not needed: the
mesh finds adjacency from shared edges). Faces with ``traversable`` 0 are obstacles and left out.
"""

from __future__ import annotations

import os

import numpy as np

from python_core.errors import GraphFileError, InvalidGraphError
from python_core.navmesh import NavMesh

__all__ = ["load_polyanya_v3_mesh", "parse_polyanya_v3"]


def parse_polyanya_v3(text: str, source: str = "<text>") -> tuple[np.ndarray, list[list[int]]]:
    """``(vertices, traversable polygons)`` of a v3 file's text (0-based indices).

    Raises:
        GraphFileError: a wrong header, a short file or a malformed number (the message says where).
    """
    tokens = text.split()
    if tokens[:2] != ["mesh", "3"] or len(tokens) < 4:
        raise GraphFileError(f"{source}: expected the header 'mesh' / '3' / 'V F'")
    try:
        nv, nf = int(tokens[2]), int(tokens[3])
        pos = 4
        verts = np.asarray(tokens[pos : pos + 2 * nv], dtype=np.float64).reshape(nv, 2)
        pos += 2 * nv
        polygons: list[list[int]] = []
        for face in range(nf):
            walk, n = int(tokens[pos]), int(tokens[pos + 1])
            ids = [int(t) - 1 for t in tokens[pos + 2 : pos + 2 + n]]
            if len(ids) != n:
                raise ValueError(f"face {face} ends early")
            pos += 2 + 2 * n
            if walk:
                polygons.append(ids)
    except (ValueError, IndexError) as exc:
        raise GraphFileError(f"{source}: malformed v3 mesh: {exc}") from exc
    return verts, polygons


def load_polyanya_v3_mesh(path: str | os.PathLike[str]) -> NavMesh:
    """Read a v3 ``.mesh`` file into a 2D :class:`NavMesh` of its traversable faces.

    Raises:
        GraphFileError: unreadable or malformed file, or invalid polygons.
    """
    source = os.fspath(path)
    try:
        with open(source, encoding="ascii") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise GraphFileError(f"{source}: cannot read: {exc}") from exc
    verts, polygons = parse_polyanya_v3(text, source)
    try:
        return NavMesh(verts, polygons)
    except InvalidGraphError as exc:
        raise GraphFileError(f"{source}: {exc}") from exc
