"""The build options of :class:`~python_core.hpa.HierarchicalGrid`, checked in one place.

Quick start::

    from python_core.hpa.build_options import check_build_options
    check_build_options(cluster_size=32, levels=1, region_clusters=16, long_entrance=6,
                        tree_budget=0, table_budget=0, exact_check=4.0, merge_span=16)
"""

from __future__ import annotations

import math

from python_core.errors import InvalidGraphError

__all__ = ["check_build_options"]


def _integer(name: str, value: object, low: int, high: float = math.inf) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        bound = f">= {low}" if high == math.inf else f"in [{low}, {int(high)}]"
        raise InvalidGraphError(f"{name} must be an integer {bound}, got {value!r}")


def check_build_options(
    *,
    cluster_size: object,
    levels: object,
    region_clusters: object,
    long_entrance: object,
    tree_budget: object,
    table_budget: object,
    exact_check: object,
    merge_span: object,
    defer_tables: object = None,
) -> None:
    """Raise :class:`InvalidGraphError` naming the first bad option and its value.

    Example:
        >>> check_build_options(cluster_size=2, levels=1, region_clusters=16, long_entrance=6,
        ...                     tree_budget=0, table_budget=0, exact_check=4.0, merge_span=0)
        Traceback (most recent call last):
        ...
        python_core.errors.InvalidGraphError: cluster_size must be an integer in [4, 180], got 2
    """
    _integer("cluster_size", cluster_size, 4, 180)
    if isinstance(levels, bool) or not isinstance(levels, int) or levels not in (1, 2):
        raise InvalidGraphError(f"levels must be 1 or 2, got {levels!r}")
    _integer("region_clusters", region_clusters, 2)
    _integer("long_entrance", long_entrance, 1)
    _integer("tree_budget", tree_budget, 0)
    _integer("table_budget", table_budget, 0)
    if merge_span is not None:
        _integer("merge_span", merge_span, 0)
    if defer_tables is not None and not isinstance(defer_tables, bool):
        raise InvalidGraphError(f"defer_tables must be None, True or False, got {defer_tables!r}")
    if (
        isinstance(exact_check, bool)
        or not isinstance(exact_check, int | float)
        or not 0 <= exact_check < math.inf
    ):
        raise InvalidGraphError(f"exact_check must be a finite number >= 0, got {exact_check!r}")
