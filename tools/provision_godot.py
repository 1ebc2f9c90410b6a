#!/usr/bin/env python3
"""Find or provision a Godot 4 binary and print the command that starts it.

Order: ``$GODOT`` if set, else a ``godot`` on PATH of version 4.3 or newer, else (Debian-family x86-64)
unpack Debian's sid ``godot`` package with its whole dependency closure into ``.godot/root`` and make
``.godot/godot``, a copy of its executable that starts on its own (no wrapper, no LD_LIBRARY_PATH).

That copy is patched with Debian's ``patchelf`` (unpacked beside the engine): its interpreter is the
root's dynamic loader and its DT_RPATH the root's library folders. A real executable, not a script that
calls the loader, is what ``OS.get_executable_path()`` must name: the editor's Run starts the game
with it. DT_RPATH rather than DT_RUNPATH, because only the executable's DT_RPATH is searched for the
libraries its libraries load; the few root libraries that carry a DT_RUNPATH of their own (which hides
the executable's) get the root's folders appended to it. Both live in the files, so the processes Godot
starts (the Python sidecar) inherit nothing.

The Debian mirror is read from this machine's apt sources (or ``$DEBIAN_MIRROR``); no host is written here.
Standard library only: this runs before the virtual environment exists.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
GODOT_DIR = PROJECT / ".godot"
ROOT = GODOT_DIR / "root"
EXECUTABLE = GODOT_DIR / "godot"
APT_DIR = GODOT_DIR / "apt"
LIB = ROOT / "usr/lib/x86_64-linux-gnu"
LIB_DIRS = [LIB, LIB / "pulseaudio"]  # libpulse's own libraries live in the second
LOADER = LIB / "ld-linux-x86-64.so.2"
# patchelf for a root unpacked before it was one of PACKAGES: its own closure, apart from the root.
PATCHELF_ROOT = GODOT_DIR / "patchelf"
MIN_VERSION = (4, 3)
KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
# The extra packages give the unpacked engine a software OpenGL driver for screenshots under Xvfb.
# patchelf makes the engine's executable start without a wrapper (module docstring).
PACKAGES = ["godot", "libgl1", "libegl1", "libglx-mesa0", "libegl-mesa0", "libgl1-mesa-dri", "patchelf"]


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


def download(packages: list[str]) -> list[Path]:
    """The .debs of ``packages`` and their whole dependency closure (nothing counts as installed)."""
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
    log(f"resolving Debian sid's {' '.join(packages)} and the dependency closure")
    apt("update")
    apt("install", "--download-only", "-y", *packages)
    debs = sorted((APT_DIR / "cache" / "archives").glob("*.deb"))
    if not debs:
        raise ProvisionError(f"apt downloaded no packages for {packages[0]}")
    return debs


def unpack(debs: list[Path], dest: Path) -> None:
    """Unpacks ``debs`` into a fresh ``dest`` (whole or not at all), then deletes them."""
    staging = dest.with_name(dest.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    log(f"unpacking {len(debs)} packages into {dest.name}")
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", str(deb), str(staging)], check=True)
    shutil.rmtree(dest, ignore_errors=True)
    staging.rename(dest)
    for deb in debs:  # no longer needed once unpacked; keep the folder small
        deb.unlink()


def elf_interpreter(path: Path) -> str | None:
    """The PT_INTERP of a 64-bit little-endian ELF file; None for any other file, or none."""
    try:
        with path.open("rb") as elf:
            header = elf.read(64)
            if len(header) < 64 or header[:4] != b"\x7fELF" or header[4:6] != b"\x02\x01":
                return None
            (table_offset,) = struct.unpack_from("<Q", header, 0x20)
            entry_size, entries = struct.unpack_from("<HH", header, 0x36)
            elf.seek(table_offset)
            table = elf.read(entry_size * entries)
            for index in range(entries):
                kind, _, offset, _, _, size = struct.unpack_from("<IIQQQQ", table, index * entry_size)
                if kind == 3:  # PT_INTERP
                    elf.seek(offset)
                    return elf.read(size).rstrip(b"\0").decode(errors="replace")
    except (OSError, struct.error):
        return None
    return None


def patchelf() -> list[str]:
    """The command that runs Debian's patchelf, through the loader of the root it was unpacked in."""
    if not (ROOT / "usr/bin/patchelf").is_file() and not (PATCHELF_ROOT / "usr/bin/patchelf").is_file():
        log("this Godot root was unpacked without patchelf; fetching it apart")
        unpack(download(["patchelf"]), PATCHELF_ROOT)
    root = ROOT if (ROOT / "usr/bin/patchelf").is_file() else PATCHELF_ROOT
    lib = root / "usr/lib/x86_64-linux-gnu"
    return [str(lib / "ld-linux-x86-64.so.2"), "--library-path", str(lib), str(root / "usr/bin/patchelf")]


def replace_patched(path: Path, tool: list[str], *args: str) -> None:
    """Patches a copy of ``path`` and renames it over ``path``: a running Godot keeps the old file."""
    copy = path.with_name(f".{path.name}.{os.getpid()}.patching")
    shutil.copy2(path, copy)
    try:
        subprocess.run([*tool, *args, str(copy)], check=True, stdout=subprocess.DEVNULL)
        copy.replace(path)
    finally:
        copy.unlink(missing_ok=True)


def widen_library_runpaths(tool: list[str]) -> None:
    """Gives every root library with a DT_RUNPATH the root's folders too: a library's DT_RUNPATH
    hides the executable's DT_RPATH from its own lookups (libpulse names the host's
    /usr/lib/x86_64-linux-gnu/pulseaudio, libLLVM $ORIGIN/../lib), which would then fall back to the
    host's libraries. Host folders are moved into the root; idempotent."""
    wanted = [str(folder) for folder in LIB_DIRS]
    for path in sorted(ROOT.glob("usr/lib/**/*.so*")):
        if path.is_symlink() or not path.is_file():
            continue
        printed = subprocess.run(
            [*tool, "--print-rpath", str(path)], capture_output=True, text=True, check=False
        )
        if printed.returncode != 0 or not printed.stdout.strip():
            continue  # not an ELF library, or no search path of its own
        old = printed.stdout.strip().split(":")
        new: list[str] = []
        for entry in old:
            if entry.startswith(("$ORIGIN", "${ORIGIN}", f"{ROOT}/")):
                new.append(entry)
            elif entry.startswith("/") and (ROOT / entry.lstrip("/")).is_dir():
                new.append(str(ROOT / entry.lstrip("/")))
            # else a folder outside this root (the host's, or a root moved since): dropped
        new += [folder for folder in wanted if folder not in new]
        if new != old:
            replace_patched(path, tool, "--set-rpath", ":".join(new))


def build_executable() -> None:
    """Makes ``.godot/godot``: the root's Godot with the root's loader as its interpreter and the
    root's folders as its DT_RPATH, tested before it replaces the old one in one rename."""
    tool = patchelf()
    log("patching the unpacked Godot into an executable that starts on its own")
    widen_library_runpaths(tool)
    staged = GODOT_DIR / f"godot.{os.getpid()}.new"
    shutil.copy2(ROOT / "usr/bin/godot", staged)
    try:
        rpath = ":".join(str(folder) for folder in LIB_DIRS)
        patch = [*tool, "--set-interpreter", str(LOADER), "--force-rpath", "--set-rpath", rpath]
        subprocess.run([*patch, str(staged)], check=True, stdout=subprocess.DEVNULL)
        if godot_version([str(staged)]) is None:
            raise ProvisionError(f"the patched Godot {staged} does not start")
        staged.replace(EXECUTABLE)
    finally:
        staged.unlink(missing_ok=True)


def ready_version() -> tuple[int, int] | None:
    """The version of ``.godot/godot`` when it is this root's patched executable and starts."""
    if elf_interpreter(EXECUTABLE) != str(LOADER):
        return None  # missing, the old shell launcher, or made for a root that has moved
    return godot_version([str(EXECUTABLE)])


@contextlib.contextmanager
def provisioning_lock() -> Iterator[None]:
    """One provisioning at a time: every test session and set-up runs this script."""
    GODOT_DIR.mkdir(exist_ok=True)
    with (GODOT_DIR / ".provision.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


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
    with provisioning_lock():
        version = ready_version()
        if version is None:
            if not (ROOT / "usr/bin/godot").is_file():
                unpack(download(PACKAGES), ROOT)
            build_executable()
            version = ready_version()
            if version is not None:
                log(f"Godot {version[0]}.{version[1]} ready at {EXECUTABLE}")
    if version is None or version < MIN_VERSION:
        raise ProvisionError(f"the unpacked Godot at {EXECUTABLE} does not print a 4.3+ version")
    return [str(EXECUTABLE)]


def main() -> int:
    try:
        print(find_godot()[0])
    except (ProvisionError, subprocess.CalledProcessError) as exc:
        print(f"error: cannot provide Godot 4: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
