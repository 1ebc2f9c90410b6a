"""Save and load any graph as a versioned msgpack file (stdlib-only codec: no msgpack import).

The file is one msgpack map ``{"format": "astar-bridge-graph", "version": 1, "kind": "grid" |
"waypoints" | "navmesh", "graph": record}`` where ``record`` is the protocol's ``graph.load_*``
layout (see :mod:`python_core.records`), so a file's graph can be sent to the sidecar unchanged.

    save_graph("level1.agraph", grid)
    assert load_graph("level1.agraph").walkable.tolist() == grid.walkable.tolist()
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from python_core._msgpack_lite import MsgpackError, packb, unpackb
from python_core.errors import GraphFileError, InvalidGraphError
from python_core.records import GRAPH_KINDS, from_record, to_record

__all__ = ["FORMAT", "VERSION", "load_graph", "read_graph_record", "save_graph"]

FORMAT = "astar-bridge-graph"
VERSION = 1


def save_graph(path: str | os.PathLike[str], graph: object) -> None:
    """Write ``graph`` to ``path`` atomically (a temporary file renamed over it).

    Raises:
        TypeError: ``graph`` is not a python_core graph.
        OSError: the file cannot be written.
    """
    kind, record = to_record(graph)
    data = packb({"format": FORMAT, "version": VERSION, "kind": kind, "graph": record})
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
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise GraphFileError(f"cannot read graph file {os.fspath(path)!r}: {exc}") from exc
    try:
        document = unpackb(data)
    except MsgpackError as exc:
        raise GraphFileError(f"{os.fspath(path)!r} is not a msgpack graph file: {exc}") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise GraphFileError(f"{os.fspath(path)!r} is not an {FORMAT} file")
    if document.get("version") != VERSION:
        raise GraphFileError(
            f"graph file version {document.get('version')!r:.20} is not supported (want {VERSION})"
        )
    kind, record = document.get("kind"), document.get("graph")
    if kind not in GRAPH_KINDS or not isinstance(record, dict):
        raise GraphFileError(f"graph file kind {kind!r:.20} or its graph map is invalid")
    return str(kind), record


def load_graph(path: str | os.PathLike[str]) -> Any:
    """Read a graph file and build its graph.

    Raises:
        GraphFileError: as :func:`read_graph_record`, or the record describes an invalid graph.

    Example:
        >>> load_graph("/nonexistent.agraph")
        Traceback (most recent call last):
        ...
        python_core.errors.GraphFileError: cannot read graph file '/nonexistent.agraph': ...
    """
    kind, record = read_graph_record(path)
    try:
        return from_record(kind, record)
    except InvalidGraphError as exc:
        raise GraphFileError(f"{os.fspath(path)!r} describes an invalid {kind} graph: {exc}") from exc
