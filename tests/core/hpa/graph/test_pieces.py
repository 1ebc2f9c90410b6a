"""Pieces: per-cluster pieces of one flat array, spliced in place where the buffer has room."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from python_core.hpa.graph import pieces as pieces_module
from python_core.hpa.graph.pieces import Pieces


def _random_piece(rng: np.random.Generator, ndim: int, dtype: type[np.generic]) -> npt.NDArray[np.generic]:
    rows = int(rng.integers(0, 5))
    shape = (rows,) if ndim == 1 else (rows, int(rng.integers(1, 4)))
    return rng.integers(0, 250, size=shape).astype(dtype)


@pytest.mark.parametrize(("ndim", "dtype"), [(1, np.int64), (2, np.uint8), (2, np.float64)])
def test_splices_match_the_concatenated_pieces(
    ndim: int, dtype: type[np.generic], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random replacements (pieces growing, shrinking, emptied; runs moving left and right,
    in the same buffer or a bigger one) leave the flat array, the offsets and every piece equal
    to the pieces laid back to back."""
    monkeypatch.setattr(pieces_module, "SPARE", (16, 2))  # little room: buffers grow now and then
    rng = np.random.default_rng(7)
    count = 24
    pieces: Pieces[np.generic] = Pieces(count, ndim, dtype)
    truth = [_random_piece(rng, ndim, dtype) for _ in range(count)]
    for c, value in enumerate(truth):
        pieces[c] = value
    moved = {"left": 0, "right": 0, "in place": 0, "grown": 0}
    for step in range(300):
        before = pieces.flat.base
        old_off = pieces.off.copy()
        for c in rng.choice(count, size=int(rng.integers(1, 6)), replace=False).tolist():
            truth[c] = _random_piece(rng, ndim, dtype)
            pieces[c] = truth[c]
        pieces.splice()
        expected = np.concatenate([t.ravel() for t in truth])
        np.testing.assert_array_equal(pieces.flat, expected)
        sizes = [t.size for t in truth]
        np.testing.assert_array_equal(pieces.off, np.concatenate(([0], np.cumsum(sizes))))
        for c, value in enumerate(truth):
            np.testing.assert_array_equal(pieces[c], value)
        if step:
            shift = pieces.off - old_off
            moved["left"] += int((shift < 0).any())
            moved["right"] += int((shift > 0).any())
            moved["in place" if pieces.flat.base is before else "grown"] += 1
    assert min(moved.values()) > 0, moved  # every path of the splice ran


def test_a_splice_that_fits_reuses_the_buffer() -> None:
    """No fresh array (and so no fresh pages) while the pieces fit the buffer; a view taken
    before sees the new contents, as the module says."""
    pieces: Pieces[np.uint8] = Pieces(3, 2, np.uint8)
    for c in range(3):
        pieces[c] = np.full((2, 4), c, dtype=np.uint8)
    pieces.splice()
    buffer, view = pieces.flat.base, pieces.flat
    assert pieces.nbytes >= buffer.nbytes > pieces.flat.nbytes  # room to spare
    pieces[0] = np.full((3, 4), 9, dtype=np.uint8)  # grows: the rest moves right
    pieces.splice()
    assert pieces.flat.base is buffer
    assert pieces.flat.tolist() == [9] * 12 + [1] * 8 + [2] * 8
    assert view.tolist() == [9] * 12 + [1] * 8 + [2] * 4
    pieces[1] = np.zeros((0, 4), dtype=np.uint8)  # emptied: the last moves left
    pieces.splice()
    assert pieces.flat.base is buffer
    assert pieces.flat.tolist() == [9] * 12 + [2] * 8
    assert pieces[1].shape == (0, 4)
