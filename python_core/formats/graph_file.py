"""Save and load any graph as a versioned msgpack file, written and read by msgpack-python.

The file is one msgpack map ``{"format": "astar-bridge-graph", "version": 1, "kind": "grid" |
"waypoints" | "navmesh", "graph": record}`` where ``record`` is the plain-dict layout of
:mod:`python_core.formats.records` (the same one the protocol's ``graph.load_*`` takes), so a file's
graph can be sent to the sidecar unchanged. Godot's exporter writes the same bytes. A grid with
obstacles adds ``"obstacles"`` (:mod:`python_core.formats.obstacle_record`): its record holds the
walls alone, so the loaded grid can still move or remove them.

    from python_core.formats.graph_file import load_graph, save_graph
    save_graph("level1.agraph", grid)
    assert load_graph("level1.agraph").walkable.tolist() == grid.walkable.tolist()
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import msgpack

from python_core.errors import GraphFileError, InvalidGraphError
from python_core.formats.obstacle_record import obstacles_from, obstacles_to
from python_core.formats.records import GRAPH_KINDS, from_record, to_record

__all__ = [
    "FORMAT",
    "MAX_DEPTH",
    "VERSION",
    "decode",
    "encode",
    "load_graph",
    "read_graph_record",
    "save_graph",
]

FORMAT = "astar-bridge-graph"
VERSION = 1
MAX_DEPTH = 64
"""Deepest nesting of arrays and maps a file may hold (a graph file needs three levels)."""


def encode(value: Any) -> bytes:
    """The msgpack bytes of ``value``: str as str, bytes as bin, the smallest form of each number.

    Raises:
        GraphFileError: a value msgpack cannot hold (an int outside 64 bits, an object).

    Example:
        >>> encode({"a": [1, b"\\x00"]}).hex()
        '81a1619201c40100'
    """
    try:
        return bytes(msgpack.packb(value, use_bin_type=True))
    except (TypeError, ValueError, OverflowError) as exc:
        raise GraphFileError(f"cannot encode {type(value).__name__} as msgpack: {exc}") from exc


def _refuse_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack extension type {code} is not part of a graph file")


def _check_nesting(value: Any, depth: int = 0) -> None:
    """Raise ValueError for nesting deeper than :data:`MAX_DEPTH` or a map key that is not
    str, int or bytes (the only keys a record uses)."""
    if depth > MAX_DEPTH:
        raise ValueError(f"nesting deeper than {MAX_DEPTH}")
    if isinstance(value, list):
        for item in value:
            _check_nesting(item, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, bool) or not isinstance(key, str | int | bytes):
                raise ValueError(f"map key of type {type(key).__name__} is not supported")
            _check_nesting(item, depth + 1)


def decode(data: bytes) -> Any:
    """Decode exactly one msgpack value (arrays as lists, bin as bytes, str as str).

    Raises:
        GraphFileError: truncated or trailing bytes, an extension or reserved type, invalid UTF-8,
            a map key that is not str / int / bytes, nesting deeper than :data:`MAX_DEPTH`.

    Example:
        >>> decode(bytes.fromhex("92c0c3"))
        [None, True]
    """
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=False, ext_hook=_refuse_ext)
        _check_nesting(value)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise GraphFileError(f"not a msgpack value: {exc}") from exc
    return value


def save_graph(path: str | os.PathLike[str], graph: object) -> None:
    """Write ``graph`` to ``path`` atomically (a temporary file renamed over it).

    Raises:
        TypeError: ``graph`` is not a python_core graph.
        OSError: the file cannot be written.
    """
    kind, record = to_record(graph)
    document: dict[str, Any] = {"format": FORMAT, "version": VERSION, "kind": kind, "graph": record}
    obstacles = obstacles_to(graph) if kind == "grid" else []
    if obstacles:
        document["obstacles"] = obstacles
    data = encode(document)
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_graph_record(path: str | os.PathLike[str]) -> tuple[str, dict[str, Any]]:
    """``(kind, record)`` from a graph file, without building the graph.

    Raises:
        GraphFileError: unreadable, not msgpack, not our format, or an unknown version or kind.
    """
    document = _read_document(path)
    return str(document["kind"]), document["graph"]


def load_graph(path: str | os.PathLike[str]) -> Any:
    """Read a graph file and build its graph (a grid with the obstacles it was saved with).

    Raises:
        GraphFileError: as :func:`read_graph_record`, or the record (or an obstacle) is invalid.

    Example:
        >>> load_graph("/nonexistent.agraph")
        Traceback (most recent call last):
        ...
        python_core.errors.GraphFileError: cannot read graph file '/nonexistent.agraph': ...
    """
    document = _read_document(path)
    kind = str(document["kind"])
    try:
        graph = from_record(kind, document["graph"])
        if kind == "grid" and "obstacles" in document:
            graph.update_obstacles(obstacles_from(document["obstacles"]))
    except InvalidGraphError as exc:
        raise GraphFileError(f"{os.fspath(path)!r} describes an invalid {kind} graph: {exc}") from exc
    return graph


def _read_document(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise GraphFileError(f"cannot read graph file {os.fspath(path)!r}: {exc}") from exc
    try:
        document = decode(data)
    except GraphFileError as exc:
        raise GraphFileError(f"{os.fspath(path)!r} is not a msgpack graph file: {exc}") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise GraphFileError(f"{os.fspath(path)!r} is not an {FORMAT} file")
    if document.get("version") != VERSION:
        raise GraphFileError(
            f"graph file version {document.get('version')!r:.20} is not supported (want {VERSION})"
        )
    if document.get("kind") not in GRAPH_KINDS or not isinstance(document.get("graph"), dict):
        raise GraphFileError(f"graph file kind {document.get('kind')!r:.20} or its graph map is invalid")
    return document
