"""The import rules between python_core and the bridge, checked by parsing every module's imports.

Rules (what :func:`violations` reports):

- python_core (every module of every sub-package) never imports ``bridge``, ``socket``, ``asyncio``,
  ``socketserver`` or ``selectors``, and imports ``msgpack`` only inside ``python_core.formats``.
- the bridge never imports a private core module. *Private* means a dotted path below
  ``python_core`` with a part that starts with one underscore (``python_core._types``,
  ``python_core.grid._x``), or a name starting with one underscore taken from a core module
  (``from python_core.grid import _helper``, ``from python_core import _types``). Dunder names
  (``__version__``) are not private.
- no import cycle among the modules of python_core, nor among those of the bridge. Every import
  counts: at module level, late inside a function (a late import is how a circle hides) and under
  ``if TYPE_CHECKING:`` (a loop that only typing hides is still two modules that need each other).
  ``from a.b import c`` points at the module ``a.b.c`` when there is one, else at ``a.b`` (its
  ``__init__``).

    from tests.core.layering import violations
    assert violations(Path("."), ("python_core", "bridge")) == []
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CORE", "FORBIDDEN", "Module", "cycles", "load_modules", "rule_breaks", "violations"]

CORE = "python_core"
BRIDGE = "bridge"
FORBIDDEN = frozenset({"bridge", "msgpack", "socket", "asyncio", "socketserver", "selectors"})
MSGPACK_ALLOWED_IN = "python_core.formats"


@dataclass(frozen=True)
class Module:
    """One parsed module: its dotted name, every module it imports anywhere (with the names taken
    from it), and the modules it depends on (those imports resolved to modules, typing-only ones
    included)."""

    name: str
    path: Path
    imports: tuple[tuple[str, tuple[str, ...]], ...]  # (module, names) for every import statement
    depends: tuple[str, ...]  # modules this one imports, at run time or for type checking


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute module an ``ImportFrom`` names (relative imports resolved against ``module``)."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _targets(name: str, node: ast.stmt, is_package: bool) -> list[tuple[str, tuple[str, ...]]]:
    if isinstance(node, ast.Import):
        return [(alias.name, ()) for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [(_resolve(name, node, is_package), tuple(alias.name for alias in node.names))]
    return []


def load_modules(root: Path, packages: tuple[str, ...]) -> dict[str, Module]:
    """Every module of ``packages`` (folders under ``root``), parsed, by dotted name."""
    modules: dict[str, Module] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            name = _module_name(root, path)
            is_package = path.name == "__init__.py"
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            every = [
                t
                for node in ast.walk(tree)
                if isinstance(node, ast.stmt)
                for t in _targets(name, node, is_package)
            ]
            modules[name] = Module(name, path, tuple(every), tuple(_pointed(m, n) for m, n in every))
    return {name: _with_submodules(module, modules) for name, module in modules.items()}


def _pointed(module: str, names: tuple[str, ...]) -> str:
    return module if not names else f"{module}\0{','.join(names)}"


def _with_submodules(module: Module, modules: dict[str, Module]) -> Module:
    """Resolve ``from a import b`` to the module ``a.b`` where one exists (else ``a`` itself)."""
    targets: list[str] = []
    for entry in module.depends:
        base, _, names = entry.partition("\0")
        subs = [f"{base}.{n}" for n in names.split(",") if names and f"{base}.{n}" in modules]
        targets.extend(subs or [base])
    return Module(module.name, module.path, module.imports, tuple(dict.fromkeys(targets)))


def _private(parts: list[str]) -> bool:
    return any(p.startswith("_") and not p.startswith("__") for p in parts)


def rule_breaks(module: Module) -> Iterator[str]:
    in_core = module.name == CORE or module.name.startswith(CORE + ".")
    in_bridge = module.name == BRIDGE or module.name.startswith(BRIDGE + ".")
    for imported, names in module.imports:
        top = imported.split(".")[0]
        if in_core and top in FORBIDDEN:
            allowed = top == "msgpack" and (module.name + ".").startswith(MSGPACK_ALLOWED_IN + ".")
            if not allowed:
                yield f"{module.name} imports {imported}"
        if in_bridge and top == CORE:
            parts = imported.split(".")[1:]
            if _private(parts) or any(_private([n]) for n in names):
                shown = f"{imported} ({', '.join(names)})" if names else imported
                yield f"{module.name} imports private core {shown}"


def cycles(modules: dict[str, Module], package: str = CORE) -> list[list[str]]:
    """Import cycles among the modules of ``package`` (each as the modules around it), by a DFS."""
    inside = {n: m for n, m in modules.items() if n == package or n.startswith(package + ".")}
    state: dict[str, int] = {}  # 1: on the DFS stack, 2: done
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(name: str) -> None:
        state[name] = 1
        stack.append(name)
        for target in inside[name].depends:
            if target not in inside:
                continue
            if state.get(target) == 1:
                found.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[name] = 2

    for name in sorted(inside):
        if name not in state:
            visit(name)
    return found


def violations(root: Path, packages: tuple[str, ...] = (CORE, BRIDGE)) -> list[str]:
    """Every broken rule of the module docstring, as sentences (empty when the layering holds)."""
    modules = load_modules(root, packages)
    broken = [line for module in modules.values() for line in rule_breaks(module)]
    for package in packages:
        broken += ["import cycle: " + " -> ".join(cycle) for cycle in cycles(modules, package)]
    return broken
