"""Shared fixtures: the headless Godot (see tests/godot_env.py); how tests share out between the
test command's two pytest-xdist workers."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tests.godot_env import TEST_PROJECT, import_project, require_godot

ONE_AT_A_TIME = "godot"
"""The xdist group of tests that must not run beside each other: those that start Godot on the
repository's projects (they import and run the same project folders, whose .godot/ caches a second
Godot would rewrite, and several time a sidecar's start). They run in order on one worker; the other
tests share out over both, a module at a time (its first test compiles the kernels it needs, or loads
them from numba's cache: two workers splitting a module would both pay for that)."""

RELEASE = "release"
"""The group of the tests that build the sidecar bundle and the release zip and run them in projects
of their own (temporary folders): in order on one worker, beside the Godot group rather than after
it (the bundle's build is minutes of CPU). tests/addon/sidecar_builds.py makes one build at a time,
so test_export.py (Godot group: it exports the demo project) waits for it or reuses it."""

RELEASE_MODULES = frozenset(
    {
        "tests/addon/test_release.py",
        "tests/addon/test_release_read_only.py",
        "tests/addon/test_bundle_without_ray.py",
        "tests/tooling/test_bundle_packing.py",
    }
)
"""Test modules that build, or read, the sidecar bundle and start Godot only on projects of their own."""


GODOT_WORDS = ("mark.godot", "godot: str", "godot_test_project", "require_godot", "run_godot")
"""Words in a test module's source that say some test of it starts Godot (the mark, the fixture,
tests/godot_env.py's helpers)."""


@functools.cache
def xdist_group(root: Path, module: str) -> str:
    """The group of a test module (its path from ``root``): :data:`RELEASE` for the release tests,
    :data:`ONE_AT_A_TIME` when one of its tests starts Godot, else the module itself."""
    if module in RELEASE_MODULES:
        return RELEASE
    try:
        source = (root / module).read_text(encoding="utf-8")
    except OSError:  # not a file of ours
        return module
    return ONE_AT_A_TIME if any(word in source for word in GODOT_WORDS) else module


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """With ``--dist loadgroup``, the groups of :func:`xdist_group` (each on one worker, its tests in
    order). pytest-xdist's own loadgroup marks a test by suffixing ``item._nodeid``, which pytest
    9.2 no longer reads (a node's id is ``_id`` now): its groups are silently ignored."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group(config.rootpath, nodeid.split("::", 1)[0])

    return ByGroup(config, log)


@pytest.fixture(scope="session")
def godot() -> str:
    """The Godot command; a failure under CI=true when it cannot be had, else a skip."""
    return require_godot()


@pytest.fixture(scope="session")
def godot_test_project(godot: str) -> str:
    """tests/godot_project, imported once so its class_names resolve; yields the Godot command."""
    import_project(godot, TEST_PROJECT)
    return godot
