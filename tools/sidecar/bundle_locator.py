"""A numba cache locator for the frozen sidecar that survives moving the bundle.

numba's own locators file a kernel's cache under a hash of its source folder's absolute path, so
a bundle copied to another folder (or another machine) misses every cached kernel and compiles
them again. This one keys the cache by the source folder's path relative to the bundle's root
(``sys._MEIPASS``, else the folder above the source), under the cache folder python_core chose
(``numba.config.CACHE_DIR``, inside the bundle), and stamps a kernel's source by its content.
"""

from __future__ import annotations

import hashlib
import os
import sys
from typing import Any

from numba.core import config
from numba.core.caching import UserProvidedCacheLocator

__all__ = ["BundleCacheLocator"]


def bundle_root() -> str:
    """The folder the bundled sources live in (the frozen program's ``_internal``)."""
    root = getattr(sys, "_MEIPASS", None)
    return os.path.abspath(root or os.path.dirname(os.path.dirname(__file__)))


def relative_subpath(py_file: str, root: str) -> str:
    """``<folder name>_<sha1 of the folder's path relative to root>``, like numba's, minus the
    absolute path."""
    folder = os.path.dirname(os.path.abspath(py_file))
    relative = os.path.relpath(folder, root).replace(os.sep, "/")
    hashed = hashlib.sha1(relative.encode()).hexdigest()
    return f"{os.path.basename(folder)}_{hashed}"


class BundleCacheLocator(UserProvidedCacheLocator):  # type: ignore[misc]
    """Cache path relative to the bundle; source stamp = the source file's SHA-256."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(config.CACHE_DIR, relative_subpath(py_file, bundle_root()))

    def get_source_stamp(self) -> str:
        with open(self._py_file, "rb") as source:
            return hashlib.sha256(source.read()).hexdigest()
