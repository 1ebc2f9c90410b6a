"""The self-contained sidecar and the release zip, each built once per test session.

``tools/bundle.sh`` builds the bundle (about 1 minute on a quiet 2-core machine with a cold kernel
cache, 3-5 at a load of 6; an up-to-date bundle is reused in about a second) and
``tools/release.sh`` zips it with the addon (about 15 s more). Several test modules need them, so
the builds are cached here, in the process, not per module.
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.godot_env import REPO

BUILD_TIMEOUT = 1800


def _run(command: list[str]) -> str:
    out = subprocess.run(
        command,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@functools.cache
def sidecar_bundle() -> Path:
    """The bundle for this platform, built (or found up to date) by ``tools/bundle.sh``: one build at
    a time across the test command's workers (two at once rewrote each other's files)."""
    began = time.monotonic()
    lock_path = REPO / "build" / ".bundle-build.lock"
    lock_path.parent.mkdir(exist_ok=True)
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        stdout = _run(["bash", str(REPO / "tools" / "bundle.sh")])
    found = re.search(r"^\[bundle\] (\S+): (\d+) MB", stdout, re.MULTILINE)
    assert found, stdout
    print(f"\nsidecar bundle ready in {time.monotonic() - began:.0f} s: {found.group(0)}")
    return Path(found.group(1))


@functools.cache
def release_zip() -> Path:
    """``astar-bridge-<version>-<platform>.zip`` made by ``tools/release.sh`` in a scratch folder."""
    sidecar_bundle()  # the same build, timed on its own
    out = Path(tempfile.mkdtemp(prefix="astar-bridge-release-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)  # 78 MB a session
    began = time.monotonic()
    stdout = _run(["bash", str(REPO / "tools" / "release.sh"), "--out", str(out)])
    found = re.search(r"^\[release\] (\S+\.zip): (\d+) MB", stdout, re.MULTILINE)
    assert found, stdout
    print(f"\nrelease zip ready in {time.monotonic() - began:.0f} s: {found.group(0)}")
    return Path(found.group(1))
