"""Graph files, and their msgpack codec (msgpack-python) meeting the golden bytes and refusing bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from python_core import GraphFileError
from python_core.csr.waypoints import WaypointGraph
from python_core.formats.graph_file import FORMAT, decode, encode, load_graph, read_graph_record, save_graph
from python_core.formats.records import to_record
from python_core.grid import GridGraph
from python_core.navmesh import NavMesh
from tests.bridge.golden import build, entries, expand_hex

ENTRIES = entries()

VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.binary(max_size=300),
    lambda inner: st.lists(inner, max_size=20) | st.dictionaries(st.text(max_size=10), inner, max_size=20),
    max_leaves=40,
)


def _has_float32(desc: dict[str, Any]) -> bool:
    """Whether a golden description holds a float32 (graph files write every float as float64)."""
    return "float32" in repr(desc)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_graph_file_codec_matches_the_golden_bytes(entry: dict[str, Any]) -> None:
    data = expand_hex(entry)
    if not _has_float32(entry["value"]):
        assert encode(build(entry["value"])) == data
    assert decode(data) == build(entry["value"])


@settings(max_examples=200, deadline=None)
@given(value=VALUES)
def test_graph_file_codec_round_trips_what_msgpack_writes(value: Any) -> None:
    ours = encode(value)
    assert ours == msgpack.packb(value, use_bin_type=True)
    assert msgpack.unpackb(ours, raw=False, strict_map_key=False) == value
    assert decode(msgpack.packb(value, use_bin_type=True)) == value


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xc1",
        b"\xc6\xff\xff\xff\xff",
        b"\xdd\xff\xff\xff\xff",
        b"\xa5abc",
        b"\x01\x02",
        b"\xd4\x01\x00",
        b"\xa2\xff\xfe",
        b"\x91" * 100 + b"\xc0",
    ],
    ids=[
        "empty",
        "reserved",
        "bin32 4GB",
        "array32 4G",
        "truncated str",
        "trailing",
        "ext",
        "bad utf8",
        "deep",
    ],
)
def test_graph_file_decoder_refuses_bad_bytes(data: bytes) -> None:
    with pytest.raises(GraphFileError):
        decode(data)


def test_graph_file_codec_refuses_what_a_graph_file_cannot_hold() -> None:
    for bad in (2**64, -(2**63) - 1, object(), {1.5: 2}):
        with pytest.raises(GraphFileError):
            decode(encode(bad))


def _graphs() -> list[object]:
    walkable = np.ones((5, 7), dtype=bool)
    walkable[2, 1:6] = False
    return [
        GridGraph(walkable, diagonal="only_if_no_obstacles", weights=np.full((5, 7), 1.5), cell_size=2.0),
        WaypointGraph.from_arrays(
            [1, 2, 3], [[0, 0], [1, 0], [1, 1]], None, [[1, 2], [2, 3]], bidirectional=[True, False]
        ),
        NavMesh([[0, 0, 0], [2, 0, 0], [2, 0, 2], [0, 0, 2]], [[0, 1, 2, 3]]),
    ]


@pytest.mark.parametrize("graph", _graphs(), ids=["grid", "waypoints", "navmesh"])
def test_save_then_load_gives_the_same_record(tmp_path: Path, graph: object) -> None:
    path = tmp_path / "level.agraph"
    save_graph(path, graph)
    assert to_record(load_graph(path)) == to_record(graph)
    document = msgpack.unpackb(path.read_bytes(), raw=False)  # msgpack reads our file
    assert (document["format"], document["version"], document["kind"]) == (FORMAT, 1, to_record(graph)[0])
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_a_file_written_by_msgpack_loads(tmp_path: Path) -> None:
    kind, record = to_record(_graphs()[0])
    path = tmp_path / "by-msgpack.agraph"
    path.write_bytes(
        msgpack.packb({"format": FORMAT, "version": 1, "kind": kind, "graph": record}, use_bin_type=True)
    )
    assert read_graph_record(path) == (kind, record)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"not msgpack at all \xc1", "not a msgpack"),
        (encode({"format": "other", "version": 1}), "not an"),
        (encode({"format": FORMAT, "version": 2, "kind": "grid", "graph": {}}), "version"),
        (encode({"format": FORMAT, "version": 1, "kind": "hex", "graph": {}}), "kind"),
        (encode({"format": FORMAT, "version": 1, "kind": "grid", "graph": {"width": 1}}), "invalid grid"),
    ],
)
def test_bad_files_raise_graph_file_error(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "bad.agraph"
    path.write_bytes(content)
    with pytest.raises(GraphFileError, match=words):
        load_graph(path)


def test_a_missing_file_raises_graph_file_error(tmp_path: Path) -> None:
    with pytest.raises(GraphFileError, match="cannot read"):
        load_graph(tmp_path / "nope.agraph")
