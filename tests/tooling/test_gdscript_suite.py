"""Every GDScript test under tests/gdscript, run inside the real headless engine."""

from __future__ import annotations

import pytest

from tests.godot_env import TEST_PROJECT
from tests.tooling.gdscript_runner import assert_clean_run, run_gdscript_tests


@pytest.mark.godot
def test_every_gdscript_test_passes_in_headless_godot(godot_test_project: str) -> None:
    outcome = run_gdscript_tests(godot_test_project, TEST_PROJECT)
    print(outcome.output)
    assert_clean_run(outcome)
