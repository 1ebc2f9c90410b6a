"""The two doors of a grid search, as the ``find`` fixture: a test that takes ``find`` runs on both.

``reference`` is the plain-Python specification (:func:`python_core.grid.search.reference.find_path`),
``find_path`` the door users call (:meth:`GridGraph.find_path`, the compiled dispatch); both must give
the same statuses, costs and errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from python_core.grid import GridGraph
from python_core.grid.search import reference
from python_core.result import PathResult, QueryOptions

Finder = Callable[..., PathResult]


def _door(
    grid: GridGraph, start: Sequence[int], goal: Sequence[int], *, options: QueryOptions | None = None
) -> PathResult:
    return grid.find_path(start, goal, options=options)


@pytest.fixture(params=["reference", "find_path"], scope="module")
def find(request: pytest.FixtureRequest) -> Finder:
    """The reference A* or the compiled door (module scope: hypothesis tests may take it too)."""
    return reference.find_path if request.param == "reference" else _door
