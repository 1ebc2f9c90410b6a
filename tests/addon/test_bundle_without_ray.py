"""The self-contained sidecar leaves Ray out: ``serve --ray`` (the ray extra, 240 MB) is for gateways
run from a Python install (docs/scale-out.md), and tools/sidecar/sidecar.spec collects every bridge
module except bridge.serving.ray, whose imports would pull Ray in."""

from __future__ import annotations

import ast

from tests.addon.sidecar_builds import sidecar_bundle
from tests.godot_env import REPO

PYZ_TOC = REPO / "build" / "pyinstaller" / "sidecar" / "PYZ-00.toc"
"""The freeze's list of the Python modules in the bundle's archive (tools/bundle.py's work folder)."""


def frozen_modules() -> set[str]:
    _archive, entries = ast.literal_eval(PYZ_TOC.read_text())
    return {str(entry[0]) for entry in entries}


def test_the_bundle_holds_no_ray_module_or_library() -> None:
    bundle = sidecar_bundle()
    ray_files = [path for path in bundle.rglob("*") if path.name in {"ray", "_raylet.so", "raylet"}]
    assert ray_files == []
    modules = frozen_modules()
    assert "bridge.serving.local" in modules  # the list is the bundle's
    assert sorted(m for m in modules if m == "ray" or m.startswith(("ray.", "bridge.serving.ray"))) == []
