"""python_core never imports bridge, msgpack, socket or asyncio (checked by parsing its imports)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "python_core"
FORBIDDEN = {"bridge", "msgpack", "socket", "asyncio", "socketserver", "selectors"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {name.split(".")[0] for name in names}


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_module_imports_only_allowed_packages(path: Path) -> None:
    assert not (_imports(path) & FORBIDDEN), f"{path.name} imports {_imports(path) & FORBIDDEN}"


def test_the_check_sees_nested_and_from_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    import msgpack.fallback\n    from bridge.errors import X\n")
    assert _imports(sample) == {"msgpack", "bridge"}
