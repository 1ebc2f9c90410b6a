"""Regions, links and layers checked against Godot's NavigationServer2D on the same map.

Godot's own server (headless, ``navmap_oracle.gd``) is the oracle: where it finds a path ours finds
one too, no longer than its; where a layer mask or a one-way link changes its path, ours changes
the same way.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from python_core.navmesh.links import NavLink
from python_core.navmesh.navmap import NavMap, NavRegion
from python_core.result import PathStatus
from tests.godot_env import require_godot

ORACLE = Path(__file__).with_name("navmap_oracle.gd")


def _rect(x0: float, y0: float, x1: float, y1: float) -> dict[str, Any]:
    return {"vertices": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], "polygons": [[0, 1, 2, 3]]}


# A (1) is a 10x10 square; B1 (2) touches A's right edge along its lowest 2 units only and B2
# (3) touches B1 the same way: partial overlaps. C (6) lies 10 units right of B2, joined to it by
# nothing but a one-way link. D (4, 5, layer 2 only) is a shortcut from A's top to B2's top.
REGIONS: dict[int, dict[str, Any]] = {
    1: _rect(0, 0, 10, 10),
    2: _rect(10, 0, 14, 2),
    3: _rect(14, 0, 18, 25),
    4: {**_rect(0, 10, 4, 25), "layers": 2},
    5: {**_rect(4, 21, 14, 25), "layers": 2},
    6: _rect(28, 0, 38, 10),
}
LINK = {"start": [16.0, 8.0], "end": [30.0, 8.0], "bidirectional": False}


def _godot_paths(regions: dict[int, dict[str, Any]], links: list[dict[str, Any]],
                 queries: list[dict[str, Any]], tmp: Path) -> list[np.ndarray]:  # fmt: skip
    godot = require_godot()
    src, dst = tmp / "in.json", tmp / "out.json"
    src.write_text(json.dumps({"regions": list(regions.values()), "links": links, "queries": queries,
                               "edge_margin": 1.0, "link_radius": 4.0}))  # fmt: skip
    cmd = [godot, "--headless", "--script", str(ORACLE), "--", str(src), str(dst)]
    run = subprocess.run(
        cmd, capture_output=True, text=True, timeout=300, check=False, stdin=subprocess.DEVNULL
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert dst.exists(), run.stdout + run.stderr
    return [np.asarray(p, dtype=float).reshape(-1, 2) for p in json.loads(dst.read_text())["paths"]]


def _ours(regions: dict[int, dict[str, Any]], links: list[dict[str, Any]]) -> NavMap:
    nav = NavMap(dim=2, edge_margin=1.0, link_radius=4.0)
    for rid, r in regions.items():
        nav.set_region(rid, NavRegion(r["vertices"], r["polygons"], layers=r.get("layers", 1)))
    for lid, link in enumerate(links):
        nav.set_link(lid, NavLink(np.array(link["start"]), np.array(link["end"]),
                                  bidirectional=link.get("bidirectional", True)))  # fmt: skip
    return nav


def _length(path: np.ndarray) -> float:
    return float(np.linalg.norm(np.diff(path, axis=0), axis=1).sum())


def _reaches(path: np.ndarray, goal: list[float]) -> bool:
    return path.shape[0] >= 2 and math.dist(path[-1], goal) < 1e-3


QUERIES = [
    {"from": [5.0, 2.0], "to": [16.0, 20.0], "layers": 1},  # across the partial overlaps
    {"from": [5.0, 2.0], "to": [35.0, 5.0], "layers": 1},  # over the one-way link
    {"from": [35.0, 5.0], "to": [5.0, 2.0], "layers": 1},  # against it: unreachable
    {"from": [2.0, 8.0], "to": [16.0, 24.0], "layers": 1},  # the long way round, layer 1 only
    {"from": [2.0, 8.0], "to": [16.0, 24.0], "layers": 3},  # the shortcut on layer 2 allowed
]


@pytest.fixture(scope="module")
def godot_paths(tmp_path_factory: pytest.TempPathFactory) -> list[np.ndarray]:
    return _godot_paths(REGIONS, [LINK], QUERIES, tmp_path_factory.mktemp("oracle"))


def test_partial_overlap_joins_regions_as_godot_does(godot_paths: list[np.ndarray]) -> None:
    ours = _ours(REGIONS, [LINK]).mesh.find_path((5, 2), (16, 20), layers=1)
    assert _reaches(godot_paths[0], [16, 20])
    assert ours.found
    assert ours.cost <= _length(godot_paths[0]) + 1e-3


def test_region_joined_only_by_a_link(godot_paths: list[np.ndarray]) -> None:
    ours = _ours(REGIONS, [LINK]).mesh.find_path((5, 2), (35, 5), layers=1)
    assert _reaches(godot_paths[1], [35, 5])
    assert ours.found
    assert [16.0, 8.0] in ours.points.tolist()
    assert [30.0, 8.0] in ours.points.tolist()
    assert ours.cost <= _length(godot_paths[1]) + 1e-3


def test_one_way_link_is_not_walked_back(godot_paths: list[np.ndarray]) -> None:
    ours = _ours(REGIONS, [LINK]).mesh.find_path((35, 5), (5, 2), layers=1)
    assert not _reaches(godot_paths[2], [5, 2])  # Godot returns a path that stops short
    assert ours.status is PathStatus.NO_PATH


def test_a_layer_mask_changes_the_path_as_in_godot(godot_paths: list[np.ndarray]) -> None:
    nav = _ours(REGIONS, [LINK])
    long_way = nav.mesh.find_path((2, 8), (16, 24), layers=1)
    shortcut = nav.mesh.find_path((2, 8), (16, 24), layers=3)
    assert long_way.found
    assert shortcut.found
    g_long, g_short = _length(godot_paths[3]), _length(godot_paths[4])
    assert _reaches(godot_paths[3], [16, 24])
    assert _reaches(godot_paths[4], [16, 24])
    assert g_short < g_long - 1.0
    assert shortcut.cost < long_way.cost - 1.0
    assert long_way.cost <= g_long + 1e-3
    assert shortcut.cost <= g_short + 1e-3
    assert not (set(nav.region_polygons(4)) | set(nav.region_polygons(5))) & set(long_way.nodes.tolist())


def test_regions_apart_by_more_than_the_margin_stay_apart(tmp_path: Path) -> None:
    regions = {1: _rect(0, 0, 10, 10), 2: _rect(11.5, 0, 20, 10)}
    query = [{"from": [5.0, 5.0], "to": [15.0, 5.0], "layers": 1}]
    godot = _godot_paths(regions, [], query, tmp_path)
    assert not _reaches(godot[0], [15, 5])
    assert _ours(regions, []).mesh.find_path((5, 5), (15, 5)).status is PathStatus.NO_PATH
    near = {1: _rect(0, 0, 10, 10), 2: _rect(10.5, 0, 20, 10)}
    assert _reaches(_godot_paths(near, [], query, tmp_path)[0], [15, 5])
    assert _ours(near, []).mesh.find_path((5, 5), (15, 5)).found
