"""The documentation as pages: the README is a short product page, and no relative link is broken.

A link in any Markdown page of the repository (README, CHANGELOG, docs/, bridge/, demo_project/)
that names a file must name one that exists, and a ``#fragment`` must be a heading of the page it
points to (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens). A source path
the prose names in backticks (``rpc/watchdog.gd``, ``bridge/wire/errors.py``) must exist, from the
repository root, from one of its rooms, or anywhere in them for a bare file name. Files moved
around in issue 43; this is what keeps the pages honest.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.godot_env import REPO

README_WORDS = 1000  # issue 43: a product page; the rest lives in docs/
PAGES = sorted(
    [
        REPO / "README.md",
        REPO / "CHANGELOG.md",
        *(REPO / "docs").rglob("*.md"),
        *(REPO / "bridge").rglob("*.md"),
        *(REPO / "demo_project").glob("*.md"),
    ]
)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# A path in backticks, res:// or not: a script, module, shell script or scene.
SOURCE = re.compile(r"`(res://)?([\w./-]+\.(?:py|gd|sh|tscn))`")
# Where a page's relative source paths start: the rooms, and the project roots res:// names.
BASES = (
    "",
    "python_core",
    "bridge",
    "addons",
    "addons/astar_bridge",
    "demo_project",
    "tests",
    "tools",
    "bench",
)
RES_BASES = ("", "demo_project", "tests/godot_project")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _prose(page: Path) -> str:
    """The page with its fenced code blocks blanked (code may hold brackets that are not links),
    its lines where they were."""
    return FENCE.sub(lambda block: "\n" * block.group(0).count("\n"), page.read_text())


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown page, a repeated heading numbered as GitHub does."""
    seen: Counter[str] = Counter()
    found = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", _prose(page), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
        found.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return found


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in LINK.findall(_prose(page)):
        if re.match(r"^[a-z]+:", target):
            continue  # a web address: not checked here
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file):
            broken.append(f"{target} (no such heading)")
    return broken


def missing_sources(page: Path, repo: Path = REPO) -> list[str]:
    text = _prose(page)
    missing = []
    for match in SOURCE.finditer(text):
        res, path = match.groups()
        places = [repo / base / path for base in (RES_BASES if res else BASES)] + [page.parent / path]
        if any(place.exists() for place in places):
            continue
        if "/" not in path and any(any((repo / base).rglob(path)) for base in BASES if base):
            continue
        missing.append(f"line {text[: match.start()].count(chr(10)) + 1}: {match.group(0)}")
    return missing


def test_the_pages_are_found() -> None:
    names = {page.relative_to(REPO).as_posix() for page in PAGES}
    assert {"README.md", "docs/architecture.md", "docs/benchmarks/README.md"} <= names, names


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    broken = broken_links(page)
    assert not broken, f"{page.relative_to(REPO)}: broken links: {broken}"


@pytest.mark.parametrize(
    # The CHANGELOG names files as they were when it was written.
    "page",
    [page for page in PAGES if page.name != "CHANGELOG.md"],
    ids=lambda page: page.relative_to(REPO).as_posix(),
)
def test_every_named_source_file_exists(page: Path) -> None:
    missing = missing_sources(page)
    assert not missing, f"{page.relative_to(REPO)} names files that do not exist (moved?): {missing}"


def test_the_source_checker_catches_a_moved_file(tmp_path: Path) -> None:
    (tmp_path / "bridge" / "wire").mkdir(parents=True)
    (tmp_path / "bridge" / "wire" / "errors.py").write_text("")
    page = tmp_path / "page.md"
    page.write_text("`bridge/wire/errors.py`, `wire/errors.py`, `errors.py` and `bridge/errors.py`\n")
    assert missing_sources(page, tmp_path) == ["line 1: `bridge/errors.py`"]


def test_the_checker_catches_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## Serving: why one `process`\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md#serving-why-one-process) [self](#page) [web](https://example.org/x)\n"
        "[gone](missing.md) [bad](other.md#nowhere) ![pic](pic.png)\n\n```\n[code](not-a-link.md)\n```\n"
    )
    assert broken_links(page) == [
        "missing.md (no such file)",
        "other.md#nowhere (no such heading)",
        "pic.png (no such file)",
    ]


def test_the_readme_is_a_product_page() -> None:
    words = len((REPO / "README.md").read_text().split())
    assert words < README_WORDS, f"README.md has {words} words: move the reference into docs/"
