"""Per-cluster pieces of one flat array: views on demand, replacements spliced in.

Quick start::

    import numpy as np
    from python_core.hpa.graph.pieces import Pieces
    tables = Pieces(2, 2, np.float64)           # two clusters, 2-D pieces
    tables[0], tables[1] = np.zeros((1, 1)), np.ones((2, 2))
    tables.splice()                             # flat = [0, 1, 1, 1, 1], offsets [0, 1, 5]
    tables[1][0, 0] = 7.0                       # a view: writes go into tables.flat

The compiled kernels read one flat array per kind (transitions, cost tables, trees) with per-cluster
offsets. A local update replaces the pieces of a few clusters; :meth:`Pieces.splice` then moves the
unchanged runs between them to their new offsets and writes the replacements (a handful of moves,
not one per cluster), and no per-cluster view is kept, so nothing has to be re-pointed afterwards.

The flat array is the head of a buffer with some room to spare (:data:`SPARE`), and a splice that
fits works in that buffer instead of a new array: a fresh array of a few hundred kilobytes is
fresh pages, and faulting them in took most of a splice (several times the copy itself). So the
old flat array's contents change in place, and a view of it taken before a splice is stale after it.
"""

from __future__ import annotations

import ctypes
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = ["SPARE", "Pieces"]

T = TypeVar("T", bound=np.generic)

SPARE = (64, 1 << 16)
"""A buffer that must grow gets ``total // SPARE[0]`` elements and ``SPARE[1]`` bytes to spare
(pages the process does not touch until a later splice needs them)."""


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
        self._buffer: npt.NDArray[T] = np.zeros(0, dtype=dtype)
        self.flat: npt.NDArray[T] = self._buffer[:0]
        self.off = np.zeros(count + 1, dtype=np.int64)
        self.rows = np.zeros(count, dtype=np.int64)
        self.cols = np.zeros(count, dtype=np.int64)
        self._new: dict[int, npt.NDArray[T]] = {}

    @classmethod
    def shaped(cls, rows: npt.NDArray[np.int64], cols: npt.NDArray[np.int64], dtype: type[T]) -> Pieces[T]:
        """2-D pieces of the given shapes laid out at once, their values zero (filled in place).

        Example:
            >>> p = Pieces.shaped(np.array([1, 2]), np.array([1, 2]), np.float64)
            >>> p.off.tolist(), p[1].shape
            ([0, 1, 5], (2, 2))
        """
        pieces = cls(rows.shape[0], 2, dtype)
        pieces.rows, pieces.cols = rows.astype(np.int64), cols.astype(np.int64)
        pieces.off = np.concatenate(([0], np.cumsum(pieces.rows * pieces.cols))).astype(np.int64)
        total = int(pieces.off[-1])
        pieces._buffer = np.zeros(total + total // SPARE[0] + SPARE[1] // pieces.dtype.itemsize, dtype=dtype)
        pieces.flat = pieces._buffer[:total]
        return pieces

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

    @property
    def nbytes(self) -> int:
        """Bytes of the buffer behind :attr:`flat`, its room to spare included."""
        return int(self._buffer.nbytes)

    def splice(self) -> None:
        """Put the replacements into the flat array, with the new offsets (see the module)."""
        if not self._new:
            return
        replaced = sorted(self._new)
        old_off = self.off
        for c in replaced:
            value = self._new[c]
            self.rows[c] = value.shape[0]
            if self.ndim == 2:
                self.cols[c] = value.shape[1]
        sizes = self.rows if self.ndim == 1 else self.rows * self.cols
        self.off = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        total = int(self.off[-1])
        # the unchanged runs: before the first replacement, between two, after the last
        starts = [0, *(c + 1 for c in replaced)]
        ends = [*replaced, len(self)]
        runs = [
            (int(old_off[a]), int(self.off[a]), int(old_off[b] - old_off[a]))
            for a, b in zip(starts, ends, strict=True)
        ]
        if total > self._buffer.shape[0]:  # a bigger buffer: copy everything over
            buffer = np.empty(total + total // SPARE[0] + SPARE[1] // self.dtype.itemsize, dtype=self.dtype)
            for old, new, size in runs:
                buffer[new : new + size] = self.flat[old : old + size]
            self._buffer = buffer
        else:  # in place: runs moving left in order, then those moving right from the last
            for old, new, size in [r for r in runs if r[1] < r[0]]:
                self._move(old, new, size)
            for old, new, size in reversed([r for r in runs if r[1] > r[0]]):
                self._move(old, new, size)
        self.flat = self._buffer[:total]
        for c in replaced:
            self.flat[self.off[c] : self.off[c + 1]] = self._new[c].ravel()
        self._new.clear()

    def _move(self, old: int, new: int, size: int) -> None:
        """Move ``size`` elements of the buffer from ``old`` to ``new`` (the ranges may overlap):
        one memmove, where numpy copies an overlapping move to the right element by element."""
        if size <= 0:
            return
        if min(old, new) < 0 or max(old, new) + size > self._buffer.shape[0]:
            raise IndexError(
                f"move of {size} from {old} to {new} outside a buffer of {self._buffer.shape[0]}"
            )
        item = self._buffer.itemsize
        base = self._buffer.ctypes.data
        ctypes.memmove(base + new * item, base + old * item, size * item)
