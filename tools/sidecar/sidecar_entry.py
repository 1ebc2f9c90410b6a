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
unpacked and skip this. The bundle's folder must be writable (numba's shipped cache needs that too).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
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


def _remove(packed: Path) -> None:
    with contextlib.suppress(OSError):  # another first start removed it, or Windows holds it open
        packed.unlink()


def _unpacked(target: Path, size: int) -> bool:
    return target.is_file() and target.stat().st_size == size


def main(argv: list[str]) -> int:
    """Run ``bridge.cli`` with ``argv`` (without a leading ``-m bridge``)."""
    if argv[:2] == ["-m", "bridge"]:
        argv = argv[2:]
    from bridge.cli import main as cli_main  # noqa: PLC0415 (after the environment is set)

    return cli_main(argv)


if __name__ == "__main__":
    prepare_environment()
    unpack_libraries(Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parent)))
    sys.exit(main(sys.argv[1:]))
