"""The engine's own tile geometry, dumped by Godot (tests/data/tile_layouts/dump_tile_layouts.gd):
the oracle the layout tests compare against. Regenerate with (from the repository)::

    godot --headless --script tests/data/tile_layouts/dump_tile_layouts.gd -- \
        tests/data/tile_layouts/godot_dump.json
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from python_core.grid.layouts import TileLayout, TileShape

DUMP = Path(__file__).resolve().parents[3] / "data" / "tile_layouts" / "godot_dump.json"
SHAPES = [TileShape.SQUARE, TileShape.ISOMETRIC, TileShape.HALF_OFFSET_SQUARE, TileShape.HEXAGON]
"""``TileSet.TileShape`` values 0-3 in order."""


@functools.cache
def dump() -> dict[str, Any]:
    """The whole dump (read once)."""
    data: dict[str, Any] = json.loads(DUMP.read_text())
    return data


def layers() -> list[dict[str, Any]]:
    """Every dumped layer (shape, layout, offset axis, tile size, per-cell data)."""
    layers_: list[dict[str, Any]] = dump()["layers"]
    return layers_


def layer_id(layer: dict[str, Any]) -> str:
    """A readable test id: ``hexagon-3-1`` (shape, layout, axis)."""
    return f"{SHAPES[layer['shape']].value}-{layer['layout']}-{layer['offset_axis']}"


def layout_of(layer: dict[str, Any]) -> TileLayout:
    """The layer's :class:`TileLayout`, its grid's cell (0, 0) at the dump region's corner."""
    x, y = dump()["region"][:2]
    return TileLayout(
        SHAPES[layer["shape"]], layout=layer["layout"], offset_axis=layer["offset_axis"], map_origin=(x, y)
    )
