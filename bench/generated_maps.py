"""Generated benchmark grids (fixed seeds) and random queries on them.

from bench.generated_maps import open_scattered, random_blocked, rooms_and_doors, random_queries
mask = rooms_and_doors()           # (2048, 2048) bool, True = walkable
mask = random_blocked()            # (256, 256), 25% of the cells blocked at random: JPS prunes little
weights = terrain_weights(mask.shape)  # 1-4 on 8 x 8 patches
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "GENERATED",
    "open_scattered",
    "random_blocked",
    "random_queries",
    "rooms_and_doors",
    "terrain_weights",
]

Mask = npt.NDArray[np.bool_]


def open_scattered(size: int = 2048, *, seed: int = 7) -> Mask:
    """Open ground with scattered obstacles: 5% single cells plus 600 random blocks up to 24x24."""
    rng = np.random.default_rng(seed)
    mask = rng.random((size, size)) >= 0.05
    for _ in range(600):
        h, w = rng.integers(2, 25, size=2)
        y, x = rng.integers(0, size - 25, size=2)
        mask[y : y + h, x : x + w] = False
    return mask


def rooms_and_doors(size: int = 2048, *, room: int = 64, seed: int = 11) -> Mask:
    """Square rooms of ``room`` cells separated by 1-cell walls, each wall with 1-2 doors of 4 cells."""
    rng = np.random.default_rng(seed)
    mask = np.ones((size, size), dtype=bool)
    mask[::room, :] = False
    mask[:, ::room] = False
    for wall in range(room, size, room):
        for begin in range(0, size, room):
            for _ in range(int(rng.integers(1, 3))):
                door = begin + 1 + int(rng.integers(0, room - 5))
                mask[wall, door : door + 4] = True  # a door in a horizontal wall
            for _ in range(int(rng.integers(1, 3))):
                door = begin + 1 + int(rng.integers(0, room - 5))
                mask[door : door + 4, wall] = True  # a door in a vertical wall
    return mask


def random_blocked(size: int = 256, *, blocked: float = 0.25, seed: int = 5) -> Mask:
    """Every cell blocked with probability ``blocked``: short straight runs, so JPS prunes little."""
    rng = np.random.default_rng(seed)
    return np.asarray(rng.random((size, size)) >= blocked)


def terrain_weights(shape: tuple[int, int], *, block: int = 8, seed: int = 1) -> npt.NDArray[np.int64]:
    """Integer weights 1-4 constant over ``block`` x ``block`` patches (terrain: road, grass, mud...)."""
    rng = np.random.default_rng(seed)
    h, w = shape
    coarse = rng.integers(1, 5, size=(-(-h // block), -(-w // block)))
    return np.asarray(np.kron(coarse, np.ones((block, block), dtype=np.int64))[:h, :w])


GENERATED = {"random256": random_blocked, "open2048": open_scattered, "rooms2048": rooms_and_doors}
"""Map name -> generator."""


def random_queries(mask: Mask, count: int, *, seed: int = 3) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``count`` (start, goal) pairs of walkable cells, half of them at least half the map apart."""
    rng = np.random.default_rng(seed)
    ys, xs = np.nonzero(mask)
    size = max(mask.shape)
    pairs: list[tuple[tuple[int, int], tuple[int, int]]] = []
    while len(pairs) < count:
        i, j = rng.integers(0, len(xs), size=2)
        a, b = (int(xs[i]), int(ys[i])), (int(xs[j]), int(ys[j]))
        far = max(abs(a[0] - b[0]), abs(a[1] - b[1])) >= size // 2
        if far or len(pairs) % 2:
            pairs.append((a, b))
    return pairs
