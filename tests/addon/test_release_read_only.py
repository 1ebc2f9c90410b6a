"""A sidecar installed where its user cannot write: it runs from a copy in the user's cache folder,
compiles nothing, and when no copy can be made says so in one line, never with a traceback.

The bundle (tests/addon/sidecar_builds.py) is copied and made read-only (``chmod -R a-w``); as
root a mode stops nothing, so the sidecar then runs as ``nobody``. ``warm-up --expect-cached``
loads every kernel and exits 1 if any had to be compiled: timing-free evidence that nothing was.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.addon.sidecar_builds import sidecar_bundle

pytestmark = [pytest.mark.slow]

NAME = "astar-bridge-sidecar"
NOBODY = 65534


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A folder another user can enter (pytest's own temporary folders are private to us)."""
    folder = Path(tempfile.mkdtemp(prefix="read-only-sidecar-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(stat.S_IRWXU)
    shutil.rmtree(folder)


def _as_user(command: list[str]) -> list[str]:
    """``command`` as a user the read-only modes apply to (root ignores them)."""
    if os.geteuid() != 0:
        return command
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]


def _writable_by_user(folder: Path) -> Path:
    folder.mkdir(parents=True)
    if os.geteuid() == 0:
        os.chown(folder, NOBODY, NOBODY)
    return folder


def _read_only_copy(scratch: Path, *, started: bool) -> Path:
    bundle = scratch / "install" / NAME
    shutil.copytree(sidecar_bundle(), bundle, symlinks=True)
    if started:  # a first start in place unpacked its libraries before it was made read-only
        command = [str(bundle / NAME), "warm-up"]
        first = subprocess.run(command, capture_output=True, text=True, env={}, check=False)
        assert first.returncode == 0, first.stdout + first.stderr
    subprocess.run(["chmod", "-R", "a-w", str(bundle)], check=True)
    return bundle


def _warm_up(bundle: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _as_user([str(bundle / NAME), "warm-up", "--expect-cached"]),
        capture_output=True,
        text=True,
        env={"XDG_CACHE_HOME": str(cache)},
        timeout=300,
        check=False,
    )


def _listing(folder: Path) -> list[tuple[str, int]]:
    return sorted((p.relative_to(folder).as_posix(), p.lstat().st_size) for p in folder.rglob("*"))


@pytest.mark.parametrize("started", [False, True], ids=["never-started", "started-once"])
def test_read_only_install_runs_from_a_cached_copy_and_compiles_nothing(scratch: Path, started: bool) -> None:
    bundle = _read_only_copy(scratch, started=started)
    before = _listing(bundle)
    cache = _writable_by_user(scratch / "cache")
    first = _warm_up(bundle, cache)
    assert first.returncode == 0, first.stdout + first.stderr
    assert " 0 compiled" in first.stdout, first.stdout
    assert f"{bundle} is read-only: running from a copy in {cache}/astar-bridge/" in first.stderr
    again = _warm_up(bundle, cache)  # the copy is made once, and its kernels stay loaded
    assert again.returncode == 0, again.stdout + again.stderr
    assert " 0 compiled" in again.stdout, again.stdout
    assert "running from a copy" not in again.stderr, again.stderr
    assert _listing(bundle) == before


def test_read_only_install_without_a_writable_cache_says_what_to_do(scratch: Path) -> None:
    bundle = _read_only_copy(scratch, started=False)
    cache = scratch / "no-cache"
    cache.mkdir()
    cache.chmod(0o555)
    out = _warm_up(bundle, cache / "inside")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    assert f"its folder {bundle} is read-only, and copying it to {cache}/inside/" in out.stderr
    assert "Make one of the two writable" in out.stderr, out.stderr


def test_two_first_starts_at_once_share_one_complete_copy(scratch: Path) -> None:
    """Two games (or an editor and its game) starting the read-only sidecar together: each makes
    its copy under a temporary name, one wins the rename, both run, nothing compiles."""
    bundle = _read_only_copy(scratch, started=False)
    cache = _writable_by_user(scratch / "cache")
    command = _as_user([str(bundle / NAME), "warm-up", "--expect-cached"])
    env = {"XDG_CACHE_HOME": str(cache)}
    starts = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    for start in starts:
        out, err = start.communicate(timeout=300)
        assert start.returncode == 0, out + err
        assert " 0 compiled" in out, out
    copies = [path.name for path in (cache / "astar-bridge").iterdir()]
    assert len(copies) == 1, copies
    assert not list((cache / "astar-bridge").rglob("*.part")), "a half copy was left behind"
