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
"""

from __future__ import annotations

import os
import sys

LOCATORS = "bundle_locator.BundleCacheLocator,UserWideCacheLocator"
"""Where numba looks for cached kernels, in order (the second is the user's own cache folder,
used only when the bundle's folder is not writable)."""


def prepare_environment() -> None:
    """Set numba's CPU and cache configuration."""
    os.environ.pop("NUMBA_CACHE_DIR", None)
    os.environ["NUMBA_CPU_NAME"] = "generic"
    os.environ.pop("NUMBA_CPU_FEATURES", None)
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = LOCATORS


def main(argv: list[str]) -> int:
    """Run ``bridge.cli`` with ``argv`` (without a leading ``-m bridge``)."""
    if argv[:2] == ["-m", "bridge"]:
        argv = argv[2:]
    from bridge.cli import main as cli_main  # noqa: PLC0415 (after the environment is set)

    return cli_main(argv)


if __name__ == "__main__":
    prepare_environment()
    sys.exit(main(sys.argv[1:]))
