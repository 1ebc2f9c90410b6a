#!/usr/bin/env python3
"""The house report: how the tree of a checkout is laid out, for issue 43's before and after.

Prints, for the checkout at ``--root`` (default: this one):

- the largest source files (``.py``, ``.gd``) of each room: every folder directly under
  ``python_core/``, ``bridge/`` and ``addons/astar_bridge/`` (their loose files as one room each),
  and ``demo_project`` as one room (its symlinked ``addons/`` is the addon, not counted twice);
- every file over 450 lines in those rooms, then elsewhere (tests, tools, bench);
- the README's word count (as ``wc -w`` counts: runs of non-space);
- Python import loops in ``python_core`` and ``bridge``, typing-only imports included (a loop that
  only ``if TYPE_CHECKING:`` hides is still two modules that need each other).

The import walk is tests/core/layering.py's (of this checkout, whichever tree it reads), so the two
never disagree on how an import resolves. Usage::

    .venv/bin/python tools/house_report.py [--root DIR] [--top N]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
if str(HERE) not in sys.path:  # run as a script: the repository's packages (tests.core.layering)
    sys.path.insert(0, str(HERE))

from tests.core.layering import Module, cycles, load_modules  # noqa: E402

LIMIT = 450
SPLIT_ROOMS = ("python_core", "bridge", "addons/astar_bridge")  # one room per folder below these
WHOLE_ROOMS = ("demo_project",)
ELSEWHERE = ("tests", "tools", "bench")
SOURCE = (".py", ".gd")
PACKAGES = ("python_core", "bridge")


@dataclass(frozen=True)
class SourceFile:
    """One source file: its path from the root, its room, and its line count."""

    path: str
    room: str
    lines: int


def _sources(root: Path, folder: str) -> list[Path]:
    """Source files under ``root/folder``, symlinked folders not followed (the demo's addon link)."""
    top = root / folder
    if not top.is_dir():
        return []
    found: list[Path] = []
    stack = [top]
    while stack:
        here = stack.pop()
        for entry in sorted(here.iterdir()):
            if entry.is_symlink() or entry.name in {"__pycache__", ".godot"}:
                continue
            if entry.is_dir():
                stack.append(entry)
            elif entry.suffix in SOURCE:
                found.append(entry)
    return found


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def room_files(root: Path) -> list[SourceFile]:
    """Every source file of the four rooms' trees, with its room (``python_core/hpa``,
    ``python_core/`` for the package's loose files, ``demo_project``)."""
    out: list[SourceFile] = []
    for folder in SPLIT_ROOMS:
        for path in _sources(root, folder):
            rel = path.relative_to(root / folder).parts
            room = f"{folder}/{rel[0]}" if len(rel) > 1 else f"{folder}/"
            out.append(SourceFile(path.relative_to(root).as_posix(), room, _count_lines(path)))
    for folder in WHOLE_ROOMS:
        for path in _sources(root, folder):
            out.append(SourceFile(path.relative_to(root).as_posix(), folder, _count_lines(path)))
    return out


def other_files(root: Path) -> list[SourceFile]:
    """Source files outside the rooms (tests, tools, bench), each its top folder's."""
    return [
        SourceFile(path.relative_to(root).as_posix(), folder, _count_lines(path))
        for folder in ELSEWHERE
        for path in _sources(root, folder)
    ]


def readme_words(root: Path) -> int:
    """The README's word count, as ``wc -w`` gives it (0 when there is none)."""
    readme = root / "README.md"
    return len(readme.read_text(encoding="utf-8").split()) if readme.is_file() else 0


def _every_import(module: Module, modules: dict[str, Module]) -> Module:
    """``module`` depending on every module it imports, typing-only ones included; ``from a import
    b`` points at ``a.b`` where that module exists, else at ``a`` (layering.py's rule)."""
    targets: list[str] = []
    for base, names in module.imports:
        subs = [f"{base}.{n}" for n in names if f"{base}.{n}" in modules]
        targets.extend(subs or [base])
    return Module(module.name, module.path, module.imports, tuple(dict.fromkeys(targets)))


def import_loops(root: Path) -> list[list[str]]:
    """Import loops within each of python_core and bridge (each loop as its modules, first again
    at the end), typing-only imports included."""
    present = tuple(p for p in PACKAGES if (root / p).is_dir())
    parsed = load_modules(root, present)
    modules = {name: _every_import(module, parsed) for name, module in parsed.items()}
    return [loop for package in present for loop in cycles(modules, package)]


def report(root: Path, top: int) -> str:
    """The whole report as text."""
    rooms = room_files(root)
    lines = [f"House report for {root}", "", f"Largest files of each room (top {top}, lines):"]
    for room in sorted({f.room for f in rooms}):
        inside = sorted((f for f in rooms if f.room == room), key=lambda f: (-f.lines, f.path))
        total = sum(f.lines for f in inside)
        lines.append(f"  {room}  ({len(inside)} files, {total} lines)")
        lines += [f"    {f.lines:6d}  {f.path}" for f in inside[:top]]
    for title, files in (("in the rooms", rooms), ("elsewhere", other_files(root))):
        over = sorted((f for f in files if f.lines > LIMIT), key=lambda f: (-f.lines, f.path))
        lines += ["", f"Files over {LIMIT} lines {title}: {len(over)}"]
        lines += [f"  {f.lines:6d}  {f.path}" for f in over]
    lines += ["", f"README.md words: {readme_words(root)}"]
    loops = import_loops(root)
    lines += ["", f"Import loops (typing-only imports included): {len(loops)}"]
    lines += ["  " + " -> ".join(loop) for loop in loops]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--root", type=Path, default=HERE, help="the checkout to report on (default: this one)"
    )
    parser.add_argument("--top", type=int, default=3, help="files shown per room (default 3)")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    if not root.is_dir():
        parser.error(f"--root {args.root} is not a folder")
    if not any((root / p).is_dir() for p in (*PACKAGES, "addons/astar_bridge")):
        parser.error(f"--root {args.root} holds none of python_core/, bridge/, addons/astar_bridge/")
    if args.top < 1:
        parser.error(f"--top must be 1 or more, got {args.top}")
    sys.stdout.write(report(root, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
