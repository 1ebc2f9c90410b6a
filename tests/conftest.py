"""Shared fixtures: the headless Godot (see tests/godot_env.py)."""

from __future__ import annotations

import pytest

from tests.godot_env import TEST_PROJECT, import_project, require_godot


@pytest.fixture(scope="session")
def godot() -> str:
    """The Godot command; a failure under CI=true when it cannot be had, else a skip."""
    return require_godot()


@pytest.fixture(scope="session")
def godot_test_project(godot: str) -> str:
    """tests/godot_project, imported once so its class_names resolve; yields the Godot command."""
    import_project(godot, TEST_PROJECT)
    return godot
