"""Readers of tests/data/msgpack_golden.json (schema: tests/data/msgpack_golden.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "msgpack_golden.json"


def entries() -> list[dict[str, Any]]:
    """Every golden entry, in file order."""
    data: list[dict[str, Any]] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


def build(desc: dict[str, Any], float32: Callable[[float], Any] = float) -> Any:
    """The Python value a description stands for (float32 values passed through ``float32``)."""
    kind = desc["type"]
    if kind == "nil":
        return None
    if kind in ("bool", "float64"):
        return desc["value"]
    if kind == "float32":
        return float32(desc["value"])
    if kind == "int":
        return int(desc["value"])
    if kind == "str":
        return desc["value"] if "value" in desc else desc["repeat"] * desc["count"]
    if kind == "bin":
        if "hex" in desc:
            return bytes.fromhex(desc["hex"])
        return bytes.fromhex(desc["repeat_hex"]) * desc["count"]
    if kind == "array":
        if "items" in desc:
            return [build(d, float32) for d in desc["items"]]
        return [build(desc["repeat"], float32) for _ in range(desc["count"])]
    if kind == "map":
        return {build(k, float32): build(v, float32) for k, v in desc["entries"]}
    raise ValueError(f"unknown golden type {kind!r}")


def expand_hex(entry: dict[str, Any]) -> bytes:
    """The exact bytes of an entry: ``hex``, or ``hex_prefix`` + ``hex_repeat`` * ``repeat_count``."""
    if "hex" in entry:
        return bytes.fromhex(entry["hex"])
    return bytes.fromhex(entry["hex_prefix"]) + bytes.fromhex(entry["hex_repeat"]) * entry["repeat_count"]
