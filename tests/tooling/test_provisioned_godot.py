"""The Godot the tests use can start itself again, as the editor's Run does, and what it starts
inherits no library path.

The editor runs the game with ``OS.get_executable_path()`` and ``--path <project> ...``. The old
provisioned launcher ran Godot through its dynamic loader, which is what that path then named, and
the loader refused ``--path`` (``ld-linux-x86-64.so.2: unrecognized option '--path'``).
tools/provision_godot.py now makes a real executable whose interpreter and DT_RPATH point into its
root, so nothing has to be passed down to the processes it starts (the Python sidecar).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.godot_env import REPO, run_godot

pytestmark = [pytest.mark.godot]

# A tools script, not a package: loaded from its file.
_SPEC = importlib.util.spec_from_file_location("provision_godot", REPO / "tools" / "provision_godot.py")
assert _SPEC is not None
assert _SPEC.loader is not None
provision_godot = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(provision_godot)

PROJECT = 'config_version=5\n\n[application]\nconfig/name="{name}"\n'

# The editor's Run in small: start this very executable on another project and read what it says.
PARENT = """extends SceneTree


func _initialize() -> void:
	var out: Array = []
	var args := PackedStringArray(["--headless", "--path", "{child}", "--script", "res://child.gd"])
	var code: int = OS.execute(OS.get_executable_path(), args, out, true)
	print("parent: child exit %d" % code)
	for text: Variant in out:
		for line: String in str(text).split("\\n"):
			print("parent: child said %s" % line)
	quit()
"""

CHILD = """extends SceneTree


func _initialize() -> void:
	var name: String = ProjectSettings.get_setting("application/config/name")
	print("child: started by its own executable in %s" % name)
	quit()
"""

# What a process started by Godot sees: its environment's library path and the C library it loaded.
SIDECAR_VIEW = """extends SceneTree


func _initialize() -> void:
	var out: Array = []
	var code: int = OS.execute("{python}", ["-c", "{code}"], out, true)
	print("probe: python exit %d" % code)
	for text: Variant in out:
		for line: String in str(text).split("\\n"):
			print("probe: %s" % line)
	quit()
"""

PYTHON_CODE = (
    "import os;"
    "print('LD_LIBRARY_PATH', os.environ.get('LD_LIBRARY_PATH', '<unset>'));"
    "maps = open('/proc/self/maps').read().split();"
    "print('libc', sorted({p for p in maps if '/libc.so' in p}))"
)


def _project(where: Path, name: str, script: str, text: str) -> Path:
    where.mkdir(parents=True)
    (where / "project.godot").write_text(PROJECT.format(name=name))
    (where / script).write_text(text)
    return where


def test_godot_starts_its_own_executable_again_as_the_editor_does(godot: str, tmp_path: Path) -> None:
    child = _project(tmp_path / "child", "the child project", "child.gd", CHILD)
    parent = _project(tmp_path / "parent", "parent", "parent.gd", PARENT.replace("{child}", str(child)))
    result = run_godot(godot, parent, ["--script", "res://parent.gd"], timeout=120)
    assert result.returncode == 0, result.stdout
    assert "parent: child exit 0" in result.stdout, result.stdout
    said = "parent: child said child: started by its own executable in the child project"
    assert said in result.stdout, result.stdout


def test_a_process_godot_starts_inherits_no_library_path(godot: str, tmp_path: Path) -> None:
    script = SIDECAR_VIEW.replace("{python}", sys.executable).replace("{code}", PYTHON_CODE)
    project = _project(tmp_path / "view", "view", "view.gd", script)
    result = run_godot(godot, project, ["--script", "res://view.gd"], timeout=120)
    lines = [line for line in result.stdout.splitlines() if line.startswith("probe: ")]
    assert "probe: python exit 0" in lines, result.stdout
    assert "probe: LD_LIBRARY_PATH <unset>" in lines, lines
    libc = next(line for line in lines if line.startswith("probe: libc "))
    assert "/libc.so" in libc, libc
    assert ".godot/root" not in libc, libc  # the host's C library, not the one unpacked for Godot


def test_provisioned_executable_names_its_root_loader(godot: str) -> None:
    if Path(godot) != provision_godot.EXECUTABLE:
        pytest.skip(f"Godot is {godot}, not the provisioned executable")
    assert provision_godot.elf_interpreter(provision_godot.EXECUTABLE) == str(provision_godot.LOADER)
    assert provision_godot.ready_version() is not None


def test_elf_interpreter_reads_executables_and_rejects_other_files(tmp_path: Path) -> None:
    python = Path(sys.executable).resolve()
    interpreter = provision_godot.elf_interpreter(python)
    assert interpreter is not None
    assert "ld-linux" in interpreter or "ld-musl" in interpreter, interpreter
    launcher = tmp_path / "godot"
    launcher.write_text('#!/bin/sh\nexec ld-linux-x86-64.so.2 godot "$@"\n')  # the old launcher
    assert provision_godot.elf_interpreter(launcher) is None
    assert provision_godot.elf_interpreter(tmp_path / "missing") is None
    (tmp_path / "short").write_bytes(b"\x7fELF\x02\x01")
    assert provision_godot.elf_interpreter(tmp_path / "short") is None
