"""The GDScript runner itself: a failing assertion, a parse error and an empty folder all fail.

Each case runs the real runner on a throw-away project holding a fixture script written here, so no
broken .gd ever sits in the repository (where the lint and parse gates would trip on it).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.godot_env import TEST_PROJECT
from tests.tooling.gdscript_runner import run_gdscript_tests

PASSING = """extends "res://runner/gd_test.gd"


func test_passes() -> void:
	assert_eq(2 + 2, 4)
"""

FAILING = """extends "res://runner/gd_test.gd"


func test_passes() -> void:
	assert_true(true)


func test_fails() -> void:
	assert_eq(2 + 2, 5, "arithmetic")
"""

BROKEN = """extends "res://runner/gd_test.gd"


func test_never_runs() -> void
	assert_true(true)
"""


def make_project(tmp_path: Path, scripts: dict[str, str]) -> Path:
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    shutil.copy(TEST_PROJECT / "project.godot", project / "project.godot")
    shutil.copytree(TEST_PROJECT / "runner", project / "runner")
    for name, text in scripts.items():
        (project / "tests" / name).write_text(text)
    return project


@pytest.mark.godot
def test_passing_fixture_reports_one_pass(godot: str, tmp_path: Path) -> None:
    outcome = run_gdscript_tests(godot, make_project(tmp_path, {"test_ok.gd": PASSING}))
    assert (outcome.passed, outcome.failed, outcome.returncode) == (1, 0, 0), outcome.output


@pytest.mark.godot
def test_failing_assertion_fails_with_file_and_line(godot: str, tmp_path: Path) -> None:
    outcome = run_gdscript_tests(godot, make_project(tmp_path, {"test_bad.gd": FAILING}))
    assert (outcome.passed, outcome.failed) == (1, 1), outcome.output
    assert outcome.returncode != 0
    assert "res://tests/test_bad.gd:9: expected 5 (int), got 4 (int) (arithmetic)" in outcome.output


@pytest.mark.godot
def test_parse_error_fails_the_run(godot: str, tmp_path: Path) -> None:
    scripts = {"test_ok.gd": PASSING, "test_broken.gd": BROKEN}
    outcome = run_gdscript_tests(godot, make_project(tmp_path, scripts))
    assert outcome.returncode != 0, outcome.output
    assert outcome.failed >= 1
    assert "test_broken.gd" in outcome.output
    assert any("Parse Error" in line for line in outcome.errors)


@pytest.mark.godot
def test_zero_tests_is_a_failure(godot: str, tmp_path: Path) -> None:
    outcome = run_gdscript_tests(godot, make_project(tmp_path, {}))
    assert (outcome.passed, outcome.failed) == (0, 0)
    assert outcome.returncode != 0, "a run of zero tests must not pass"


RUNTIME_ERROR = """extends "res://runner/gd_test.gd"


func test_calls_a_missing_method() -> void:
	var target: Object = RefCounted.new()
	target.call("no_such_method")
	assert_true(true)
"""


@pytest.mark.godot
def test_runtime_script_error_fails_the_test(godot: str, tmp_path: Path) -> None:
    outcome = run_gdscript_tests(godot, make_project(tmp_path, {"test_err.gd": RUNTIME_ERROR}))
    assert (outcome.passed, outcome.failed) == (0, 1), outcome.output
    assert "engine error during the test" in outcome.output
    assert outcome.returncode != 0
