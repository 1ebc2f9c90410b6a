"""The frozen sidecar's main program: ``astar-bridge-sidecar serve ...`` (or ``warm-up``).

It takes the same arguments as ``astar-bridge`` (``bridge.cli``); a leading ``-m bridge`` is
dropped, so a game that was told to run ``<python> -m bridge serve`` can be pointed at the frozen
program instead. Before numba is imported it fixes how kernels are compiled and cached so that the
kernels compiled when the bundle was built are found again on a player's machine:

* ``NUMBA_CPU_NAME=generic``: code for any CPU of the platform, not only the build machine's (numba
  keys cached code by CPU name and features, so the build and the player must agree);
* ``NUMBA_CACHE_LOCATOR_CLASSES``: :class:`bundle_locator.BundleCacheLocator` first, which files
  the cache by paths relative to the bundle, so a moved or copied bundle still finds it;
* ``NUMBA_CACHE_DIR`` is ignored (a player's own setting would hide the shipped cache).

The sidecar runs its searches on threads of its own process, so nothing is spawned from the frozen
program.

The bundle ships its two largest libraries (LLVM, OpenBLAS) compressed with zstd, listed in
``_internal/packed.json`` (tools/bundle.py packs them): the first start unpacks them in place, once,
before numpy and numba load them, and deletes the compressed copies. Later starts find them
unpacked and skip this.

A bundle whose folder it cannot write (a read-only install), or one marked ``run-from-cache`` (the
copy inside a release's addon folder, which a first start must not change), runs from a copy in the
user's cache folder instead (:func:`cached_copy`): copied once per bundle version, unpacked there,
then started in place of this process. The copy carries the shipped kernel cache, so nothing
compiles; when no copy can be made it exits with a message saying what to do, never a traceback.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

LOCATORS = "bundle_locator.BundleCacheLocator,UserWideCacheLocator"
"""Where numba looks for cached kernels, in order (the second is the user's own cache folder,
used only when the bundle's folder is not writable)."""


def prepare_environment() -> None:
    """Set numba's CPU and cache configuration."""
    os.environ.pop("NUMBA_CACHE_DIR", None)
    os.environ["NUMBA_CPU_NAME"] = "generic"
    os.environ.pop("NUMBA_CPU_FEATURES", None)
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = LOCATORS


PACKED = "packed.json"
"""The list of packed libraries, ``{path relative to the bundle's _internal: unpacked bytes}``."""


def unpack_libraries(root: Path) -> None:
    """Unpack every library of ``root/packed.json`` that is not unpacked yet (first start only).

    Each is written to a temporary name and renamed into place, so a start that is killed half-way,
    or two first starts at once, never leave a truncated library; exits with a clear message when
    the folder is not writable or a packed library is missing or damaged.
    """
    manifest = root / PACKED
    if not manifest.is_file():
        return
    began = time.perf_counter()
    unpacked = 0
    for relative, size in json.loads(manifest.read_text()).items():
        target = root / relative
        packed = target.with_name(target.name + ".zst")
        if _unpacked(target, size):
            if packed.exists():  # a copy of a started bundle, or an export over one
                _remove(packed)
            continue
        part = target.with_name(f".{target.name}.{os.getpid()}.part")
        import zstandard  # noqa: PLC0415 (only on a first start)

        try:
            with packed.open("rb") as source, part.open("wb") as sink:
                zstandard.ZstdDecompressor().copy_stream(source, sink)
            if part.stat().st_size != size:  # a truncated file ends the stream without an error
                raise zstandard.ZstdError(f"{packed.name} unpacks to {part.stat().st_size} bytes, not {size}")
            os.chmod(part, 0o755)
            os.replace(part, target)
        except (OSError, zstandard.ZstdError) as error:
            with contextlib.suppress(OSError):  # a read-only folder refuses the cleanup too
                part.unlink(missing_ok=True)
            if not _unpacked(target, size):  # not another first start that won the race
                why = "The sidecar's folder must be writable (see docs/shipping.md)."
                if not packed.exists() or not isinstance(error, OSError):
                    why = "The bundle is incomplete or damaged: copy the astar-bridge-sidecar folder again."
                sys.exit(f"astar-bridge-sidecar: cannot unpack {relative} in {root}: {error}. {why}")
        _remove(packed)
        unpacked += 1
    if unpacked:
        seconds = time.perf_counter() - began
        print(
            f"astar-bridge-sidecar: first start, {unpacked} libraries unpacked in {seconds:.1f} s",
            file=sys.stderr,
        )


LINKS = "links.json"
"""Symbolic links a zip could not carry, ``{path relative to the bundle's folder: link text}``
(tools/release.py lists them)."""


def restore_links(root: Path) -> None:
    """Make again the links of ``root/../_internal/links.json`` that are missing (a release zip
    carries none); a link that cannot be made is left to the loader, which then reports it."""
    try:
        links: dict[str, str] = json.loads((root / LINKS).read_text())
    except (OSError, ValueError):
        return
    bundle = root.parent
    for relative, text in links.items():
        link = bundle / relative
        if not (link.exists() or link.is_symlink()):
            with contextlib.suppress(OSError):
                link.symlink_to(text)


def _remove(packed: Path) -> None:
    with contextlib.suppress(OSError):  # another first start removed it, or Windows holds it open
        packed.unlink()


def _unpacked(target: Path, size: int) -> bool:
    return target.is_file() and target.stat().st_size == size


NAME = "astar-bridge-sidecar"
RUN_FROM_CACHE = "run-from-cache"
"""A file in the bundle's folder (beside ``bundle.json``): never unpack or write in place."""
COMPLETE = ".complete"
"""Written last into a cached copy: a copy without it was cut short and is made again."""


def cache_home() -> Path:
    """The user's cache folder: ``%LOCALAPPDATA%``, ``~/Library/Caches``, else ``$XDG_CACHE_HOME``
    or ``~/.cache`` (the home folder from the user database when ``HOME`` is unset, as under
    ``env -i``)."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"])
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def is_writable(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (tried, not ``os.access``, which says yes to
    root on a read-only mount)."""
    probe = folder / f".write-probe.{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError:
        return False
    with contextlib.suppress(OSError):
        probe.unlink()
    return True


def bundle_key(bundle: Path) -> str:
    """Names one bundle version: its ``bundle.json`` (sources hash, platform, Python), else the
    program's size and time stamp."""
    try:
        stamp = (bundle / "bundle.json").read_bytes()
    except OSError:
        program = Path(sys.executable).stat()
        stamp = f"{program.st_size}-{program.st_mtime_ns}".encode()
    return hashlib.sha256(stamp).hexdigest()[:16]


def cached_copy(bundle: Path) -> Path:
    """A complete copy of ``bundle`` in the user's cache, made once per bundle version; exits with
    a message when it cannot be made. First starts at once take turns (a lock file beside the
    copy): the rename alone let one start remove, as a half copy, the copy another had just put in
    place and was starting from."""
    target = cache_home() / "astar-bridge" / f"sidecar-{bundle_key(bundle)}" / NAME
    if (target / COMPLETE).is_file():
        return target
    try:
        with _copy_lock(target.parent):
            if (target / COMPLETE).is_file():  # another first start made it while this one waited
                return target
            _copy_to(bundle, target)
    except OSError as error:
        sys.exit(
            f"{NAME}: its folder {bundle} is read-only, and copying it to {target.parent} failed:"
            f" {error}. Make one of the two writable (XDG_CACHE_HOME names another cache folder)."
        )
    print(f"{NAME}: {bundle} is read-only: running from a copy in {target}", file=sys.stderr)
    return target


@contextlib.contextmanager
def _copy_lock(folder: Path) -> Iterator[None]:
    """Held while one start makes the copy in ``folder`` (made if missing); without ``fcntl``
    (Windows) the temporary name and the rename alone keep a copy whole."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl  # noqa: PLC0415 (POSIX only)
    except ImportError:
        yield
        return
    with (folder / ".copy.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _copy_to(bundle: Path, target: Path) -> None:
    """Copy ``bundle`` to a temporary name beside ``target`` and rename it into place (a killed
    start leaves no half copy under ``target``'s name)."""
    part = target.with_name(f".{NAME}.{os.getpid()}.part")
    try:
        shutil.rmtree(part, ignore_errors=True)
        shutil.copytree(
            bundle,
            part,
            symlinks=True,
            ignore=shutil.ignore_patterns(RUN_FROM_CACHE, Path(sys.executable).name),
            copy_function=_link_or_copy,
        )
        for folder in (part, *(path for path in part.rglob("*") if path.is_dir())):
            os.chmod(folder, 0o755)  # a copy of a read-only tree is read-only too
        program = part / Path(sys.executable).name
        shutil.copyfile(sys.executable, program)  # a real copy: the bootloader finds its folder
        os.chmod(program, 0o755)
        (part / COMPLETE).touch()
        shutil.rmtree(target, ignore_errors=True)  # an incomplete copy of a start that was killed
        os.replace(part, target)
    except OSError:
        shutil.rmtree(part, ignore_errors=True)
        raise


def _link_or_copy(source: str, target: str) -> None:
    """A hard link where the file system allows one (no time, no space: nothing in the copy is
    ever written in place; unpacking and numba write new files), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def run_from_cache_if_needed(root: Path, argv: list[str]) -> None:
    """Start the cached copy in place of this process when this bundle must not be written."""
    bundle = Path(sys.executable).resolve().parent
    if not getattr(sys, "frozen", False):
        return
    if not (bundle / RUN_FROM_CACHE).exists() and is_writable(root):
        return
    copy = cached_copy(bundle)
    program = copy / Path(sys.executable).name
    sys.stdout.flush()
    sys.stderr.flush()
    if sys.platform == "win32":  # execv there starts a new process and this one exits at once
        import subprocess  # noqa: PLC0415

        sys.exit(subprocess.call([str(program), *argv]))
    os.execv(program, [str(program), *argv])


def main(argv: list[str]) -> int:
    """Run ``bridge.cli`` with ``argv`` (without a leading ``-m bridge``)."""
    if argv[:2] == ["-m", "bridge"]:
        argv = argv[2:]
    from bridge.cli.commands import main as cli_main  # noqa: PLC0415 (after the environment is set)

    return cli_main(argv)


if __name__ == "__main__":
    prepare_environment()
    internal = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parent))
    run_from_cache_if_needed(internal, sys.argv[1:])
    restore_links(internal)
    unpack_libraries(internal)
    sys.exit(main(sys.argv[1:]))
