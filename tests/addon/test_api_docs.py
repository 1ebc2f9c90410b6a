"""docs/api.md against the scripts it documents, read as text (no Godot needed).

Every public method of the autoload and of the result and request classes has a ``##`` doc comment
and a line on the page with the script's own signature (preload aliases written as the class names
a game uses); the page names no method the script lacks; every autoload method states what it
returns on failure (or that it never fails); the page lists every signal, public member and
``Status`` value. A page that claims ``AStarBridgePathResult.error`` (a script error to read) fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.godot_env import REPO

ADDON = REPO / "addons" / "astar_bridge"
PAGE = REPO / "docs" / "api.md"
# The scripts' preload aliases -> the names a game's script uses.
ALIASES = {
    "BridgeResult": "AStarBridgeResult",
    "EditRequest": "AStarBridgeEditRequest",
    "PathQuery": "AStarBridgePathQuery",
    "PathResult": "AStarBridgePathResult",
    "PathRequest": "AStarBridgePathRequest",
    "FlowField": "AStarBridgeFlowField",
    "SidecarLink.Phase": "AStarBridge.Phase",
}
SCRIPTS = [
    "astar_bridge.gd",
    "api/bridge_result.gd",
    "api/path_query.gd",
    "api/path_result.gd",
    "api/path_request.gd",
    "api/edit_request.gd",
]
FUNC = re.compile(r"^(static )?func (\w+)\((.*?)\)\s*(?:->\s*([\w.\[\]]+))?\s*:", re.M | re.S)


@dataclass(frozen=True)
class Method:
    name: str
    signature: str  # as the page writes it
    documented: bool  # a ## comment right above


def _type(name: str) -> str:
    for alias, full in ALIASES.items():
        name = re.sub(rf"(?<![\w.]){re.escape(alias)}(?![\w])", full, name)
    return name


def public_methods(script: Path) -> list[Method]:
    text = script.read_text()
    methods = []
    for match in FUNC.finditer(text):
        static, name, params, returns = match.groups()
        if name.startswith("_"):
            continue
        params = re.sub(r"\(\s+", "(", " ".join(params.split())).rstrip(", ")
        signature = f"{static or ''}{name}({_type(params)}) -> {_type(returns or 'void')}"
        before = text[: match.start()].rstrip("\n").splitlines()
        methods.append(Method(name, signature, bool(before) and before[-1].startswith("##")))
    return methods


def page_section(script: str) -> str:
    """The page's section whose heading names ``addons/astar_bridge/<script>``."""
    text = PAGE.read_text()
    heading = re.search(rf"^## .*`addons/astar_bridge/{re.escape(script)}`.*$", text, re.M)
    assert heading is not None, f"docs/api.md has no section for {script}"
    rest = text[heading.end() :]
    following = re.search(r"^## ", rest, re.M)
    return rest[: following.start()] if following else rest


def _spans(section: str) -> list[str]:
    """Code spans that look like a signature: ``name(...) -> Type``."""
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+\) -> [^`]+)`", section)]


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_public_method_has_a_doc_comment(script: str) -> None:
    missing = [m.name for m in public_methods(ADDON / script) if not m.documented]
    assert not missing, f"{script}: public methods without a ## doc comment: {missing}"


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_page_lists_each_method_with_the_scripts_signature(script: str) -> None:
    spans = _spans(page_section(script))
    declared = {m.signature for m in public_methods(ADDON / script)}
    missing = sorted(declared - set(spans))
    assert not missing, f"docs/api.md lacks (or misstates) these {script} signatures: {missing}"
    stale = sorted(set(spans) - declared)
    assert not stale, f"docs/api.md names {script} methods the script does not have: {stale}"


def test_every_autoload_method_states_its_failure() -> None:
    """In its own bullet, or in the paragraph that introduces its list (the loads, the edits)."""
    blocks = page_section("astar_bridge.gd").split("\n\n")
    said = re.compile(r"on\s+failure|never\s+fails", re.I)
    unstated = []
    for method in public_methods(ADDON / "astar_bridge.gd"):
        at = next(i for i, block in enumerate(blocks) if f"`{method.name}(" in block)
        items = re.split(r"^- ", blocks[at], flags=re.M)
        own = next(item for item in items if item.startswith(f"`{method.name}("))
        intro = next((b for b in reversed(blocks[:at]) if not b.startswith(("- ", "#"))), "")
        if not said.search(own) and not said.search(intro):
            unstated.append(method.name)
    assert not unstated, f"docs/api.md says nothing of these methods' failures: {unstated}"


@pytest.mark.parametrize(
    ("script", "pattern"),
    [
        ("astar_bridge.gd", r"^signal (\w+)"),
        ("api/bridge_result.gd", r"^var (\w+)"),
        ("api/path_query.gd", r"^var (\w+)"),
        ("api/path_result.gd", r"^var (\w+)"),
        ("api/path_request.gd", r"^(?:var|signal) (\w+)"),
        ("api/edit_request.gd", r"^(?:var|signal) (\w+)"),
    ],
)
def test_the_page_lists_every_signal_and_member(script: str, pattern: str) -> None:
    names = re.findall(pattern, (ADDON / script).read_text(), re.M)
    assert names, script
    section = page_section(script)
    missing = [name for name in names if not re.search(rf"`{name}\b", section)]
    assert not missing, f"docs/api.md does not name these of {script}: {missing}"


def test_the_page_lists_the_status_values_and_no_error_member() -> None:
    text = (ADDON / "api/path_result.gd").read_text()
    body = text[text.index("enum Status {") : text.index("}", text.index("enum Status {"))]
    values = re.findall(r"^\t([A-Z_]+),", body, re.M)
    assert values == ["FOUND", "PARTIAL", "NO_PATH", "BUDGET_EXHAUSTED", "ERROR"], values
    section = page_section("api/path_result.gd")
    line = next(line for line in section.split("\n\n") if line.startswith("`Status` values"))
    assert re.findall(r"`([A-Z_]+)`", line) == values, line
    for doc in (PAGE, REPO / "README.md", REPO / "CHANGELOG.md"):
        assert not re.search(r"PathResult\.error\b", doc.read_text()), f"{doc.name} names a .error member"


def test_the_docs_name_only_autoload_members_that_exist() -> None:
    """``AStarBridge.<name>`` anywhere in the README or docs/ is a method, signal, member or
    constant of the autoload."""
    script = (ADDON / "astar_bridge.gd").read_text()
    names = set(re.findall(r"^(?:static )?(?:func|signal|var|const) (\w+)", script, re.M))
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    unknown = [
        f"{page.name}: AStarBridge.{name}"
        for page in pages
        for name in re.findall(r"\bAStarBridge\.(\w+)", page.read_text())
        if name not in names
    ]
    assert not unknown, f"the docs name what the autoload does not have: {unknown}"


def test_the_page_lists_the_phase_values() -> None:
    """``get_phase()`` returns a SidecarLink.Phase (runtime/sidecar_link.gd): the page names each."""
    enum = re.search(r"^enum Phase \{([^}]*)\}", (ADDON / "runtime" / "sidecar_link.gd").read_text(), re.M)
    assert enum is not None
    values = re.findall(r"[A-Z_]+", enum.group(1))
    section = page_section("astar_bridge.gd")
    line = next(item for item in re.split(r"^- ", section, flags=re.M) if item.startswith("`get_phase("))
    missing = [value for value in values if f"`{value}`" not in line]
    assert not missing, f"docs/api.md's get_phase() does not name {missing}"
