"""Names every python_core module shares: numpy array aliases, kernel outcomes, diagonal modes.

Quick start::

    from python_core._types import DIAG_CODES, F64, SEARCH_FOUND, DiagonalMode
    assert DIAG_CODES[DiagonalMode.NEVER] == 0 and SEARCH_FOUND == 0

Private to the core (the leading underscore): the bridge and users take :class:`DiagonalMode` from
:mod:`python_core.grid` or :mod:`python_core`, and never need the kernels' integer codes.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

__all__ = [
    "DIAG_ALWAYS",
    "DIAG_AT_LEAST_ONE_WALKABLE",
    "DIAG_CODES",
    "DIAG_NEVER",
    "DIAG_ONLY_IF_NO_OBSTACLES",
    "F32",
    "F64",
    "I16",
    "I32",
    "I64",
    "SEARCH_BUDGET",
    "SEARCH_FOUND",
    "SEARCH_NO_PATH",
    "U8",
    "B",
    "DiagonalMode",
]

# Array aliases, by element type: the compiled kernels are typed by the dtypes they are given.
U8 = npt.NDArray[np.uint8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

# Outcomes every search kernel returns (grid A*, JPS, CSR A*): small ints, as numba returns them.
SEARCH_FOUND = 0
SEARCH_NO_PATH = 1
SEARCH_BUDGET = 2


class DiagonalMode(str, Enum):
    """When a diagonal step from (x, y) to (x+dx, y+dy) is allowed, as Godot's ``DIAGONAL_MODE_*``.

    The rule looks at the two orthogonal cells (x+dx, y) and (x, y+dy) the step squeezes between.
    """

    ALWAYS = "always"
    """Ignore them (corner cutting allowed). Godot's default."""
    NEVER = "never"
    """No diagonal steps: 4-connected."""
    AT_LEAST_ONE_WALKABLE = "at_least_one_walkable"
    """At least one of them must be walkable."""
    ONLY_IF_NO_OBSTACLES = "only_if_no_obstacles"
    """Both must be walkable (no corner cutting); the Moving AI benchmark rule."""


# The kernels' integer code of each mode; the order makes ``NEVER`` the only 4-connected one.
DIAG_NEVER = 0
DIAG_ALWAYS = 1
DIAG_AT_LEAST_ONE_WALKABLE = 2
DIAG_ONLY_IF_NO_OBSTACLES = 3

DIAG_CODES: Mapping[DiagonalMode, int] = MappingProxyType(
    {
        DiagonalMode.NEVER: DIAG_NEVER,
        DiagonalMode.ALWAYS: DIAG_ALWAYS,
        DiagonalMode.AT_LEAST_ONE_WALKABLE: DIAG_AT_LEAST_ONE_WALKABLE,
        DiagonalMode.ONLY_IF_NO_OBSTACLES: DIAG_ONLY_IF_NO_OBSTACLES,
    }
)
"""The one table from :class:`DiagonalMode` to the code the compiled kernels take."""
