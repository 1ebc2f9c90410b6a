#!/usr/bin/env python3
"""Find or provision a Godot 4 binary and print the command that starts it.

Order: ``$GODOT`` if set, else a ``godot`` on PATH of version 4.3 or newer, else (Debian-family x86-64)
unpack Debian's sid ``godot`` package with its whole dependency closure into ``.godot/root`` and write
``.godot/godot`` a launcher that starts it through that root's own dynamic loader.

The Debian mirror is read from this machine's apt sources (or ``$DEBIAN_MIRROR``); no host is written here.
Standard library only: this runs before the virtual environment exists.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
GODOT_DIR = PROJECT / ".godot"
ROOT = GODOT_DIR / "root"
LAUNCHER = GODOT_DIR / "godot"
APT_DIR = GODOT_DIR / "apt"
MIN_VERSION = (4, 3)
KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
# The extra packages give the unpacked engine a software OpenGL driver for screenshots under Xvfb.
PACKAGES = ["godot", "libgl1", "libegl1", "libglx-mesa0", "libegl-mesa0", "libgl1-mesa-dri"]


class ProvisionError(RuntimeError):
    """Godot could not be found or provisioned; the message says what to do."""


def log(message: str) -> None:
    print(f"[godot] {message}", file=sys.stderr, flush=True)


def godot_version(command: list[str]) -> tuple[int, int] | None:
    """Run ``--version`` and return (major, minor), or None when it does not print a 4.x version."""
    try:
        out = subprocess.run(
            [*command, "--headless", "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"^(\d+)\.(\d+)", out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "")
    if not match or match.group(1) != "4":
        return None
    return int(match.group(1)), int(match.group(2))


def debian_mirror() -> str:
    """The first Debian archive URI of this machine's apt sources (not the security archive)."""
    if os.environ.get("DEBIAN_MIRROR"):
        return os.environ["DEBIAN_MIRROR"].rstrip("/")
    texts: list[str] = []
    for path in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]:
        if path.is_file() and path.suffix in ("", ".list", ".sources"):
            texts.append(path.read_text(errors="replace"))
    uris: list[str] = []
    for text in texts:
        for raw in text.splitlines():
            line = raw.strip()
            if line.startswith("#"):
                continue
            if line.startswith("URIs:"):
                uris.extend(line.split()[1:])
            elif line.startswith("deb "):
                parts = [p for p in line.split() if not p.startswith("[") and not p.endswith("]")]
                if len(parts) >= 2:
                    uris.append(parts[1])
    for uri in uris:
        if uri.rstrip("/").endswith("/debian"):
            return uri.rstrip("/")
    raise ProvisionError(
        "no Debian archive found in /etc/apt sources; install Godot 4.3+ and set GODOT=/path/to/godot, "
        "or set DEBIAN_MIRROR to a Debian archive URI"
    )


def apt(*args: str) -> None:
    sources = APT_DIR / "sources.list"
    options = [
        "-o", f"Dir::State={APT_DIR / 'state'}",
        "-o", f"Dir::State::status={APT_DIR / 'status'}",
        "-o", f"Dir::Cache={APT_DIR / 'cache'}",
        "-o", f"Dir::Etc::SourceList={sources}",
        "-o", f"Dir::Etc::SourceParts={APT_DIR / 'parts'}",
        "-o", f"Dir::Etc::Preferences={APT_DIR / 'preferences'}",
        "-o", f"Dir::Etc::PreferencesParts={APT_DIR / 'parts'}",
        "-o", "APT::Architecture=amd64",
        "-o", "APT::Architectures::=amd64",
        "-o", "APT::Install-Recommends=false",
        "-o", "Debug::NoLocking=true",
        "-o", "Acquire::Languages=none",
    ]  # fmt: skip
    subprocess.run(["apt-get", "-qq", *options, *args], check=True, stdout=sys.stderr)


def unpack_from_debian() -> None:
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        raise ProvisionError("no apt-get/dpkg here: install Godot 4.3+ and set GODOT=/path/to/godot")
    if os.uname().machine != "x86_64":
        raise ProvisionError(f"unpacking Debian's godot is only done on x86_64, not {os.uname().machine}")
    mirror = debian_mirror()
    for sub in ("state/lists/partial", "cache/archives/partial", "parts"):
        (APT_DIR / sub).mkdir(parents=True, exist_ok=True)
    (APT_DIR / "status").write_text("")
    signed = f"signed-by={KEYRING}" if KEYRING.exists() else "trusted=yes"
    (APT_DIR / "sources.list").write_text(f"deb [{signed}] {mirror} sid main\n")
    log("resolving Debian sid's godot and its dependency closure")
    apt("update")
    apt("install", "--download-only", "-y", *PACKAGES)
    debs = sorted((APT_DIR / "cache" / "archives").glob("*.deb"))
    if not debs:
        raise ProvisionError("apt downloaded no packages for godot")
    staging = GODOT_DIR / "root.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    log(f"unpacking {len(debs)} packages")
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", str(deb), str(staging)], check=True)
    shutil.rmtree(ROOT, ignore_errors=True)
    staging.rename(ROOT)
    # The .debs are no longer needed once unpacked; keep the folder small.
    for deb in debs:
        deb.unlink()


def write_launcher() -> None:
    lib = ROOT / "usr/lib/x86_64-linux-gnu"
    LAUNCHER.write_text(
        "#!/bin/sh\n"
        "# Starts the unpacked Godot through its own loader. No LD_LIBRARY_PATH: a Python sidecar\n"
        "# started by Godot would inherit it and load the wrong C library.\n"
        f'exec "{lib}/ld-linux-x86-64.so.2" --library-path "{lib}:{lib}/pulseaudio" '
        f'"{ROOT}/usr/bin/godot" "$@"\n'
    )
    LAUNCHER.chmod(0o755)


def find_godot() -> list[str]:
    env = os.environ.get("GODOT")
    if env:
        if godot_version([env]) is None:
            raise ProvisionError(f"GODOT={env!r} does not run or does not print a Godot 4.x version")
        return [env]
    on_path = shutil.which("godot")
    if on_path:
        version = godot_version([on_path])
        if version is not None and version >= MIN_VERSION:
            return [on_path]
        log(f"{on_path} is not Godot 4.3+ ({version}); provisioning our own")
    if LAUNCHER.exists() and godot_version([str(LAUNCHER)]) is not None:
        return [str(LAUNCHER)]
    GODOT_DIR.mkdir(exist_ok=True)
    unpack_from_debian()
    write_launcher()
    version = godot_version([str(LAUNCHER)])
    if version is None or version < MIN_VERSION:
        raise ProvisionError(f"the unpacked Godot at {LAUNCHER} does not print a 4.3+ version")
    log(f"Godot {version[0]}.{version[1]} ready at {LAUNCHER}")
    return [str(LAUNCHER)]


def main() -> int:
    try:
        print(find_godot()[0])
    except (ProvisionError, subprocess.CalledProcessError) as exc:
        print(f"error: cannot provide Godot 4: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
