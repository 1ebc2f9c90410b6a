"""The layering holds for every module of every package (rules: :mod:`tests.core.layering`), and the
checker itself reports a forbidden import, a private core import from the bridge and a cycle."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.core.layering import cycles, load_modules, rule_breaks, violations

ROOT = Path(__file__).resolve().parents[2]
MODULES = load_modules(ROOT, ("python_core", "bridge"))


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_every_package_is_walked() -> None:
    names = set(MODULES)
    assert {"python_core.grid.search.dispatch", "python_core.hpa.hierarchy", "bridge.wire.errors"} <= names
    assert len([n for n in names if n.startswith("python_core.")]) > 30


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_keeps_the_layering(name: str) -> None:
    assert list(rule_breaks(MODULES[name])) == []


@pytest.mark.parametrize("package", ["python_core", "bridge"])
def test_package_has_no_import_cycle(package: str) -> None:
    assert cycles(MODULES, package) == []


def test_the_check_sees_nested_and_from_imports(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {"python_core/sample.py": "def f():\n    import msgpack.fallback\n    from bridge.errors import X\n"},
    )
    assert violations(tmp_path) == [
        "python_core.sample imports msgpack.fallback",
        "python_core.sample imports bridge.errors",
    ]


def test_the_check_fails_when_a_core_module_adds_a_forbidden_import(tmp_path: Path) -> None:
    for package in ("python_core", "bridge"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    assert violations(tmp_path) == []
    dispatch = tmp_path / "python_core" / "grid" / "search" / "dispatch.py"
    dispatch.write_text(dispatch.read_text(encoding="utf-8") + "\nimport bridge\n", encoding="utf-8")
    table = tmp_path / "python_core" / "hpa" / "graph" / "distance_table.py"
    table.write_text(table.read_text(encoding="utf-8") + "\nimport asyncio\n", encoding="utf-8")
    assert violations(tmp_path) == [
        "python_core.grid.search.dispatch imports bridge",
        "python_core.hpa.graph.distance_table imports asyncio",
    ]


def test_msgpack_is_allowed_only_in_formats(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "python_core/__init__.py": "",
            "python_core/formats/__init__.py": "",
            "python_core/formats/graph_file.py": "import msgpack\n",
            "python_core/grid/codec.py": "from msgpack import packb\n",
        },
    )
    assert violations(tmp_path) == ["python_core.grid.codec imports msgpack"]


def test_the_bridge_may_not_import_private_core_modules(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "python_core/__init__.py": "",
            "python_core/_types.py": "",
            "python_core/grid/__init__.py": "",
            "python_core/grid/_x.py": "",
            "bridge/a.py": "from python_core._types import F64\n",
            "bridge/b.py": "import python_core.grid._x\n",
            "bridge/c.py": "from python_core import _types\n",
            "bridge/d.py": "from python_core.grid import GridGraph, __doc__\n",
        },
    )
    assert violations(tmp_path) == [
        "bridge.a imports private core python_core._types (F64)",
        "bridge.b imports private core python_core.grid._x",
        "bridge.c imports private core python_core (_types)",
    ]


def test_the_check_finds_cycles_late_and_typing_only_ones_included(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "python_core/__init__.py": "",
            "python_core/a.py": "from python_core import b\n",
            "python_core/b.py": "def late():\n    from python_core.a import x\n",
            "python_core/c.py": "import typing\nif typing.TYPE_CHECKING:\n    from python_core import d\n",
            "python_core/d.py": "import python_core.c\n",
            "bridge/e.py": "import typing\nif typing.TYPE_CHECKING:\n    from bridge.f import F\n",
            "bridge/f.py": "from bridge import e\n",
        },
    )
    assert violations(tmp_path) == [
        "import cycle: python_core.a -> python_core.b -> python_core.a",
        "import cycle: python_core.c -> python_core.d -> python_core.c",
        "import cycle: bridge.e -> bridge.f -> bridge.e",
    ]
