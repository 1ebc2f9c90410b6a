"""msgpack-python produces exactly the golden bytes and reads them back (the wire's reference)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from tests.bridge.golden import GOLDEN, build, entries, expand_hex

ENTRIES = entries()


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_msgpack_packs_the_golden_bytes(entry: dict[str, Any]) -> None:
    value = build(entry["value"])
    single = entry["value"]["type"] == "float32"
    assert msgpack.packb(value, use_bin_type=True, use_single_float=single) == expand_hex(entry)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_msgpack_unpacks_the_golden_bytes(entry: dict[str, Any]) -> None:
    assert msgpack.unpackb(expand_hex(entry), raw=False, strict_map_key=False) == build(entry["value"])


def test_golden_file_covers_the_format_boundaries() -> None:
    by_name = {e["name"]: e for e in ENTRIES}
    # the classic codec bugs: 128 must be uint8 (not int8), fixstr stops at 31, floats 32 vs 64
    assert by_name["int 128"]["hex"] == "cc80"
    assert by_name["int -33"]["hex"] == "d0df"
    assert by_name["int 18446744073709551615"]["hex"] == "cf" + "ff" * 8
    assert by_name["float32 1.5"]["hex"] == "ca3fc00000"
    assert by_name["float64 0.1"]["hex"] == "cb3fb999999999999a"
    assert by_name["str len 31"]["hex"].startswith("bf")
    assert by_name["str len 32"]["hex"].startswith("d920")
    assert by_name["array len 65536"]["hex_prefix"] == "dd00010000"
    assert {e["format"] for e in ENTRIES} >= {
        "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "str8", "str16",
        "str32", "bin8", "bin16", "bin32", "array16", "array32", "fixmap", "map16",
    }  # fmt: skip
    assert GOLDEN.stat().st_size < 300_000
