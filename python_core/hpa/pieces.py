"""Per-cluster pieces of one flat array: views on demand, replacements spliced in.

Quick start::

    import numpy as np
    from python_core.hpa.pieces import Pieces
    tables = Pieces(2, 2, np.float64)           # two clusters, 2-D pieces
    tables[0], tables[1] = np.zeros((1, 1)), np.ones((2, 2))
    tables.splice()                             # flat = [0, 1, 1, 1, 1], offsets [0, 1, 5]
    tables[1][0, 0] = 7.0                       # a view: writes go into tables.flat

The compiled kernels read one flat array per kind (transitions, cost tables, trees) with per-cluster
offsets. A local update replaces the pieces of a few clusters; :meth:`Pieces.splice` then builds the
new flat array from the old one's unchanged runs and the replacements (a handful of slices, not one
per cluster), and no per-cluster view is kept, so nothing has to be re-pointed afterwards.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = ["Pieces"]

T = TypeVar("T", bound=np.generic)


class Pieces(Generic[T]):
    """``count`` pieces of ``ndim`` (1 or 2) dimensions laid back to back in :attr:`flat`.

    Args:
        count: number of pieces (clusters).
        ndim: 1 (a piece is ``(rows,)``) or 2 (``(rows, cols)``).
        dtype: the flat array's dtype.

    Example:
        >>> p = Pieces(2, 1, np.int64)
        >>> p[1] = np.array([5, 6]); p.splice(); p.flat.tolist(), p.off.tolist(), p[1].tolist()
        ([5, 6], [0, 0, 2], [5, 6])
    """

    def __init__(self, count: int, ndim: int, dtype: type[T]) -> None:
        self.ndim = ndim
        self.dtype = np.dtype(dtype)
        self.flat: npt.NDArray[T] = np.zeros(0, dtype=dtype)
        self.off = np.zeros(count + 1, dtype=np.int64)
        self.rows = np.zeros(count, dtype=np.int64)
        self.cols = np.zeros(count, dtype=np.int64)
        self._new: dict[int, npt.NDArray[T]] = {}

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    def __getitem__(self, c: int) -> npt.NDArray[T]:
        """Piece ``c``: its replacement if one waits, else a view into :attr:`flat`."""
        if c in self._new:
            return self._new[c]
        piece = self.flat[self.off[c] : self.off[c + 1]]
        return piece if self.ndim == 1 else piece.reshape(self.rows[c], self.cols[c])

    def __setitem__(self, c: int, value: npt.NDArray[T]) -> None:
        """Replace piece ``c`` (kept apart until :meth:`splice`)."""
        self._new[c] = value

    def discard(self, c: int) -> npt.NDArray[T]:
        """Take back a waiting replacement of piece ``c`` (the flat array keeps the old piece)."""
        return self._new.pop(c)

    @property
    def pending(self) -> bool:
        """Whether replacements wait for :meth:`splice`."""
        return bool(self._new)

    def splice(self) -> None:
        """Build the flat array with the replacements in place, and the new offsets."""
        if not self._new:
            return
        parts: list[npt.NDArray[T]] = []
        prev = 0
        for c in sorted(self._new):
            value = self._new[c]
            parts.append(self.flat[self.off[prev] : self.off[c]])
            parts.append(value.ravel())
            self.rows[c] = value.shape[0]
            if self.ndim == 2:
                self.cols[c] = value.shape[1]
            prev = c + 1
        parts.append(self.flat[self.off[prev] :])
        self.flat = np.concatenate(parts).astype(self.dtype, copy=False)
        sizes = self.rows if self.ndim == 1 else self.rows * self.cols
        self.off = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        self._new.clear()
