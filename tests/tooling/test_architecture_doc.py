"""docs/architecture.md's map of the rooms against the real tree.

The page's "The rooms" section holds one tree (a fenced block, two spaces per level): a folder is
written ``name/`` followed by its job on the same line; files are written with their extension,
one or more per line, followed by their job; a description wraps onto lines indented past the names
(deeper than 10 spaces). For the four rooms the page maps (python_core, bridge, the addon, the
demo), every folder that holds anything must be named and every named folder and file must exist;
where the page lists a folder's files, it lists all its .py / .gd files (``__init__.py`` may be
left out). Issue 43 found the addon's tree naming 5 of its 13 top-level files.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.godot_env import REPO

PAGE = REPO / "docs" / "architecture.md"
ROOTS = ("python_core", "bridge", "addons/astar_bridge", "demo_project")
SOURCES = (".py", ".gd")
NAME = re.compile(r"^[\w.-]+(?:/[\w.-]+)*/?$")
CONTINUATION = 10  # a line indented deeper than this continues a description


def doc_tree(text: str) -> tuple[dict[str, str], set[str]]:
    """The folders the page's tree names (path -> job; a job wrapped onto more lines ends in
    " ...") and the files it names (paths)."""
    heading = re.search(r"^## The rooms$", text, re.M)
    assert heading is not None, "docs/architecture.md has no '## The rooms' section"
    section = text[heading.end() :]
    block = re.search(r"^```[^\n]*\n(.*?)^```", section, re.M | re.S)
    assert block is not None, "docs/architecture.md: no tree under '## The rooms'"
    folders: dict[str, str] = {}
    files: set[str] = set()
    stack: list[str] = []
    folder = ""  # the folder named on the line before, if it was one
    for line in block.group(1).splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() and indent > CONTINUATION and folder:
            folders[folder] += " ..."
        if not line.strip() or indent > CONTINUATION:
            folder = ""
            continue
        folder = ""
        names, _, job = re.split(r"( {3,}|$)", line.strip(), maxsplit=1)
        tokens = names.split()
        if not all(NAME.match(token) for token in tokens):
            continue  # a placeholder such as sidecar/<platform>/: made by a build, not in the tree
        del stack[indent // 2 :]
        if tokens[0].endswith("/"):
            assert len(tokens) == 1, f"one folder per line: {line!r}"
            path = "/".join([*stack, tokens[0].rstrip("/")])
            folders[path] = job.strip()
            folder = path
            stack.append(tokens[0].rstrip("/"))
        else:
            files.update("/".join([*stack, token]) for token in tokens)
    return folders, files


def real_tree() -> tuple[set[str], dict[str, set[str]]]:
    """The folders under ROOTS that hold anything, and each one's .py / .gd files."""
    folders: set[str] = set()
    sources: dict[str, set[str]] = {}
    for root in ROOTS:
        for folder in [REPO / root, *(REPO / root).rglob("*")]:
            if not folder.is_dir() or folder.is_symlink() or _hidden(folder):
                continue
            entries = [entry for entry in folder.iterdir() if not _hidden(entry)]
            if not any(entry.is_file() or entry.is_symlink() or _holds_files(entry) for entry in entries):
                continue  # left empty by a move (or holding only caches)
            path = folder.relative_to(REPO).as_posix()
            folders.add(path)
            sources[path] = {
                f"{path}/{entry.name}" for entry in entries if entry.is_file() and entry.suffix in SOURCES
            }
    return folders, sources


def _hidden(path: Path) -> bool:
    return any(part.startswith(".") or part == "__pycache__" for part in path.relative_to(REPO).parts)


def _holds_files(folder: Path) -> bool:
    if not folder.is_dir() or folder.is_symlink():
        return False
    return any(not _hidden(entry) and (entry.is_file() or entry.is_symlink()) for entry in folder.rglob("*"))


@pytest.fixture(scope="module")
def trees() -> tuple[dict[str, str], set[str], set[str], dict[str, set[str]]]:
    named_folders, named_files = doc_tree(PAGE.read_text())
    folders, sources = real_tree()
    return named_folders, named_files, folders, sources


def test_every_room_is_named_with_its_job(
    trees: tuple[dict[str, str], set[str], set[str], dict[str, set[str]]],
) -> None:
    named, _, folders, _ = trees
    missing = sorted(folders - set(named))
    assert not missing, f"docs/architecture.md does not name these rooms: {missing}"
    jobless = sorted(path for path, job in named.items() if not job)
    assert not jobless, f"docs/architecture.md names these rooms without their job: {jobless}"
    long = sorted(path for path, job in named.items() if job.endswith(" ..."))
    assert not long, f"docs/architecture.md: say these rooms' jobs in one line: {long}"


def test_every_named_room_and_file_exists(
    trees: tuple[dict[str, str], set[str], set[str], dict[str, set[str]]],
) -> None:
    named_folders, named_files, _, _ = trees
    gone = sorted(path for path in named_folders if not (REPO / path).exists())
    assert not gone, f"docs/architecture.md names rooms that do not exist: {gone}"
    gone_files = sorted(path for path in named_files if not (REPO / path).exists())
    assert not gone_files, f"docs/architecture.md names files that do not exist: {gone_files}"


def test_a_room_whose_files_are_listed_has_all_of_them(
    trees: tuple[dict[str, str], set[str], set[str], dict[str, set[str]]],
) -> None:
    _, named_files, _, sources = trees
    unlisted = []
    for folder, files in sources.items():
        listed = {path for path in named_files if path.rsplit("/", 1)[0] == folder}
        if listed:
            unlisted += sorted(path for path in files - listed if not path.endswith("/__init__.py"))
    assert not unlisted, f"docs/architecture.md lists some files of their rooms but not these: {unlisted}"


def test_the_reader_follows_the_tree() -> None:
    """The parser on a small tree: nesting, several files on a line, wrapped jobs, placeholders."""
    text = """## The rooms

```text
pkg/                          the package
  a.py  b.py                  two modules
                              (wrapped: c.py here is a description)
  sub/                        a room
    d.gd                      a script
  build/<platform>/           made by a build
other/                        another, whose job
                              takes two lines
```
"""
    folders, files = doc_tree(text)
    assert folders == {"pkg": "the package", "pkg/sub": "a room", "other": "another, whose job ..."}
    assert files == {"pkg/a.py", "pkg/b.py", "pkg/sub/d.gd"}
