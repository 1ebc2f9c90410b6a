"""Shared fixtures: the headless Godot (see tests/godot_env.py); how tests share out between the
test command's two pytest-xdist workers."""

from __future__ import annotations

import pytest

from tests.godot_env import TEST_PROJECT, import_project, require_godot

ONE_AT_A_TIME = "godot"
"""The xdist group of tests that must not run beside each other: those that start Godot (they
import and run the same project folders, whose .godot/ caches a second Godot would rewrite, and
several time a sidecar's start) and those that build or use the sidecar bundle (tools/bundle.sh
builds into the repository's build/ folder). They run in order on one worker; the other tests
share out over both, a module at a time (its first test compiles the kernels it needs, or loads them
from numba's cache: two workers splitting a module would both pay for that)."""

BUNDLE_MODULES = frozenset(
    {
        "tests/addon/test_export.py",
        "tests/addon/test_release.py",
        "tests/addon/test_release_read_only.py",
        "tests/tooling/test_bundle_packing.py",
    }
)
"""Test modules that build, or read, the repository's sidecar bundle."""


def xdist_group(item: pytest.Item) -> str:
    """``item``'s group: :data:`ONE_AT_A_TIME` when it starts Godot (the ``godot`` mark or fixture)
    or uses the sidecar bundle, else its module's path."""
    try:
        module = item.path.relative_to(item.config.rootpath).as_posix()
    except ValueError:  # collected from outside the repository
        module = item.path.as_posix()
    fixtures = getattr(item, "fixturenames", ())
    godot = item.get_closest_marker("godot") is not None or "godot" in fixtures
    return ONE_AT_A_TIME if godot or module in BUNDLE_MODULES else module


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test its xdist group (``--dist loadgroup`` keeps a group on one worker, in
    order); without xdist the mark does nothing."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(xdist_group(item)))


@pytest.fixture(scope="session")
def godot() -> str:
    """The Godot command; a failure under CI=true when it cannot be had, else a skip."""
    return require_godot()


@pytest.fixture(scope="session")
def godot_test_project(godot: str) -> str:
    """tests/godot_project, imported once so its class_names resolve; yields the Godot command."""
    import_project(godot, TEST_PROJECT)
    return godot
