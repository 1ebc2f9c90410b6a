"""``path.find`` parameters -> a :class:`Query`, and a query -> a wire result map.

Parsing runs when the query's turn on its graph comes (the graph cannot change under it); running
runs on the event loop or a search thread of the serving layer.

    from bridge.methods.queries import Query, encode_result
    from python_core import PathResult, PathStatus, QueryOptions
    q = Query("g", (0, 0), (3, 2), QueryOptions())
    assert encode_result(PathResult(PathStatus.NO_PATH), 2)["status"] == "no_path"
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from bridge.methods.hierarchy_params import HierarchyState, check_query_flags
from bridge.methods.params import Params, is_vector, unit_size
from bridge.methods.registry import GraphEntry, Registry
from bridge.wire.errors import BadRequestError, GraphRejectedError, UnsupportedError, short_repr
from python_core import PathResult, PathStatus, QueryOptions
from python_core.grid.search import dispatch
from python_core.grid.search.heuristics import HEURISTICS
from python_core.navigation import EndpointForm, Navigator
from python_core.navigation.grid import GridNavigator

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

__all__ = [
    "Endpoint",
    "Query",
    "answer_bytes",
    "encode_answer",
    "encode_result",
    "parse_query",
    "parse_reachable",
    "resolve_ends",
    "run_query",
    "sized",
    "with_budget",
]

Endpoint = tuple[float, ...] | int
"""A position (2 or 3 numbers), a grid cell (2 ints) or a waypoint id."""

PATH_OPTION_KEYS = (
    "heuristic",
    "allow_partial",
    "max_expansions",
    "agent",
    "ignore_agents",
    "optimal",
    "navigation_layers",
    "size",
    "radius",
)
"""The search options (QueryOptions' fields)."""
OPTION_KEYS = (*PATH_OPTION_KEYS, "hierarchical", "corridor")
"""Every key of a query's ``options``: the search options, then the two that choose the method."""
HEURISTIC_NAMES = tuple(HEURISTICS)
"""Every graph type takes these names (a navmesh searches with the straight distance whatever it is)."""


@dataclass(slots=True)
class Query:
    """One validated query: its graph's id, endpoints, options and flags. Not frozen: one is made
    per request, and a frozen dataclass's ``__init__`` costs a microsecond (a tenth of a trivial
    request's work); nothing changes a query once made."""

    graph_id: str
    start: Endpoint
    goal: Endpoint
    options: QueryOptions
    hierarchical: bool = False
    corridor: bool = False
    reachable: bool = False
    cells: bool = False
    """The endpoints are grid cells (``"cells": true`` on a grid placed in the world, or any grid in
    cells): the graph's nodes as they are, with no :meth:`Navigator.resolve`."""
    smooth: bool | None = None
    """Whether the grid's hierarchy smooths its paths, as it was built (``hierarchy.smooth``): set by
    the parse of a usual hierarchical query, which :func:`run_query` then answers the short way
    (:meth:`~python_core.hpa.HierarchicalGrid.find_plain`); None: the navigator's own way."""


def parse_options(options: Params, cap: int, default: int | None = None) -> QueryOptions:
    """Validate ``options``; the expansion budget is capped at ``cap`` (absent means ``default``,
    or ``cap`` when no default is given)."""
    options.only(*PATH_OPTION_KEYS)
    heuristic = options.text("heuristic", choices=HEURISTIC_NAMES) if options.has("heuristic") else None
    fallback = cap if default is None else default
    budget = options.integer("max_expansions", minimum=0) if options.has("max_expansions") else fallback
    agent = options.agent_id("agent") if options.has("agent") else None
    layers = (
        options.integer("navigation_layers", minimum=0, maximum=0xFFFFFFFF)
        if options.has("navigation_layers")
        else None
    )
    size, radius = unit_size(options)
    return QueryOptions(
        heuristic=heuristic,
        allow_partial=options.flag("allow_partial"),
        max_expansions=min(budget, cap),
        agent=agent,
        ignore_agents=options.flag("ignore_agents"),
        optimal=options.flag("optimal") if options.has("optimal") else None,  # unset: the mesh's choice
        layers=layers,
        size=size,
        radius=radius,
    )


def _endpoint(params: Params, key: str, form: EndpointForm) -> Endpoint:
    value = params.raw(key)
    if form.cells and type(value) is list and len(value) == 2:
        x, y = value
        if type(x) is int and type(y) is int:  # the common case, checked without the general rules
            return (x, y)
    if form.ids and isinstance(value, int) and not isinstance(value, bool):
        return value
    if form.cells:
        if not is_vector(value, (2,)) or any(float(v) != int(v) for v in value):
            raise BadRequestError(
                f"{params.where}: {key!r} must be a cell [x, y] of integers, got {short_repr(value)}",
                {"field": key},
            )
        return (int(value[0]), int(value[1]))
    return params.vector(key, (form.size,))


def parse_query(
    raw: Any, registry: Registry, cap: int, where: str = "path.find", *, default: int | None = None
) -> Query:
    """Validate one ``path.find`` parameter map against the loaded graphs; a query without a budget
    gets ``default`` expansions (``cap`` when None), none gets more than ``cap``.

    Raises:
        BadRequestError: a field is missing or of the wrong type or size.
        UnknownGraphError: no graph under ``graph``.
    """
    if type(raw) is dict and raw.keys() <= _QUERY_FIELDS:
        quick = _quick_query(raw, registry, cap, default, where)
        if quick is not None:
            return quick
    if not isinstance(raw, dict):
        raise BadRequestError(f"{where}: a query must be a map, got {type(raw).__name__}")
    params = Params(raw, where)
    params.only(*_QUERY_FIELDS)
    entry = registry.get(params.text("graph"))
    form = entry.graph.endpoints
    cells = params.flag("cells")
    if cells:
        if not isinstance(entry.graph, GridNavigator):
            raise UnsupportedError(
                f"{where}: 'cells' is for grids only; {entry.graph_id!r} is a {entry.kind.name}",
                {"field": "cells"},
            )
        form = _CELLS
    start, goal = _endpoint(params, "start", form), _endpoint(params, "goal", form)
    options, hierarchical, corridor = parse_options_map(raw.get("options"), entry, cap, default, where)
    return Query(entry.graph_id, start, goal, options, hierarchical, corridor, cells=cells)


_QUERY_FIELDS = frozenset(("graph", "start", "goal", "cells", "options"))


def _quick_query(
    raw: dict[str, Any], registry: Registry, cap: int, default: int | None, where: str
) -> Query | None:
    """The common query, checked without the general rules: a loaded grid's id and two cells of
    ints on a grid whose endpoints are cells (no ``"cells"`` flag), or a navmesh's two positions
    (:func:`_quick_positions`). None for anything else, which
    :func:`parse_query` then checks field by field (and names what is wrong)."""
    graph_id = raw.get("graph")
    entry = registry.find(graph_id) if type(graph_id) is str else None
    if entry is None or raw.get("cells") is not None:
        return None
    form = entry.graph.endpoints
    if not form.cells:
        return _quick_positions(raw, entry, cap, default, where) if not form.ids else None
    start, goal = raw.get("start"), raw.get("goal")
    if type(start) is not list or type(goal) is not list or len(start) != 2 or len(goal) != 2:
        return None
    (sx, sy), (gx, gy) = start, goal
    if type(sx) is not int or type(sy) is not int or type(gx) is not int or type(gy) is not int:
        return None
    options, hierarchical, corridor = parse_options_map(raw.get("options"), entry, cap, default, where)
    state = entry.hierarchy
    smooth = state.spec.smooth if hierarchical and state is not None else None
    # cells of a grid in cells are its nodes already (what resolve_ends would give back)
    return Query(entry.graph_id, (sx, sy), (gx, gy), options, hierarchical, corridor, False, True, smooth)


def _quick_positions(
    raw: dict[str, Any], entry: GraphEntry, cap: int, default: int | None, where: str
) -> Query | None:
    """The common query on a graph of positions (a navmesh, a grid placed in the world): two
    positions of its dimension, plain finite numbers, as :meth:`Params.vector` gives them but
    without its rules (a ``path.find_many`` on a small mesh spent a third of its time parsing).
    None for anything else."""
    size = entry.graph.endpoints.size
    start, goal = raw.get("start"), raw.get("goal")
    if type(start) is not list or type(goal) is not list or len(start) != size or len(goal) != size:
        return None
    ends: list[float] = []
    for v in (*start, *goal):
        kind = type(v)
        if kind is float:
            if not math.isfinite(v):
                return None
            ends.append(v)
        elif kind is int and -_EXACT <= v <= _EXACT:  # a huge int goes by the rules (and their error)
            ends.append(float(v))
        else:
            return None
    options, hierarchical, corridor = parse_options_map(raw.get("options"), entry, cap, default, where)
    return Query(entry.graph_id, tuple(ends[:size]), tuple(ends[size:]), options, hierarchical, corridor)


_EXACT = 2**53
"""Ints up to this size are floats exactly."""
_CELLS = EndpointForm(size=2, cells=True)
"""A grid's endpoints given as cells (``"cells": true``), whether or not the grid is placed in the world."""


def parse_options_map(
    given: Any, entry: GraphEntry, cap: int, default: int | None, where: str
) -> tuple[QueryOptions, bool, bool]:
    """A query's ``options`` map (None: the defaults) for ``entry``'s graph: its search options and
    its ``hierarchical`` and ``corridor`` flags.

    Raises:
        BadRequestError: an unknown key, a value of the wrong type, flags the graph cannot serve.
    """
    if given is None or (type(given) is dict and not given):  # the defaults, with the server's cap
        return _default_options(cap if default is None else min(default, cap)), False, False
    hpa_only = type(given) is dict and len(given) == 1 and given.get("hierarchical") is True
    if hpa_only and entry.hierarchy is not None:  # a game's usual HPA* query: what the rules give it
        return _default_options(cap if default is None else min(default, cap)), True, False
    # A batch's queries mostly share one options map: validated once, then looked up.
    key = _options_key(given, entry.hierarchy is not None, cap, default)
    parsed = _PARSED.get(key) if key is not None else None
    if parsed is None:
        parsed = _parse_flags_and_options(
            Params({"options": given}, where).sub("options"), entry.hierarchy, cap, default
        )
        if key is not None:
            if len(_PARSED) >= _PARSED_KEPT:
                _PARSED.clear()
            _PARSED[key] = parsed
    return parsed


_PARSED: dict[tuple[Any, ...], tuple[QueryOptions, bool, bool]] = {}
"""Options maps already validated (read and written by every search thread: single dict operations)."""
_PARSED_KEPT = 256


def _options_key(given: Any, hierarchy: bool, cap: int, default: int | None) -> tuple[Any, ...] | None:
    """A key for an options map of plain scalars (with their types: ``1`` is not ``True``), or None."""
    if type(given) is not dict or len(given) > len(OPTION_KEYS):
        return None
    items = []
    for name, value in given.items():
        if type(value) not in _SCALARS:
            return None
        items.append((name, type(value), value))
    return (hierarchy, cap, default, *sorted(items))


_SCALARS = (bool, int, float, str)


def _parse_flags_and_options(
    options: Params, hierarchy: HierarchyState | None, cap: int, default: int | None
) -> tuple[QueryOptions, bool, bool]:
    options.only(*OPTION_KEYS)
    hierarchical, corridor = options.flag("hierarchical"), options.flag("corridor")
    check_query_flags(hierarchical, corridor, hierarchy, options.where)
    if hierarchical and options.flag("optimal"):  # the hierarchy's paths are near-optimal only
        raise BadRequestError(
            f"{options.where}: 'optimal' and 'hierarchical' exclude each other", {"field": "optimal"}
        )
    plain = Params({k: v for k, v in options.values.items() if k in PATH_OPTION_KEYS}, options.where)
    return parse_options(plain, cap, default), hierarchical, corridor


@functools.lru_cache(maxsize=8)
def _default_options(budget: int) -> QueryOptions:
    """The options of a query that gives none (frozen, so one object serves every such query)."""
    return QueryOptions(max_expansions=budget)


def parse_reachable(raw: Any, registry: Registry) -> Query:
    """Validate a ``path.reachable`` parameter map: a grid with a hierarchy, two endpoints, and
    optionally ``options`` with the unit's ``size`` or ``radius``.

    Raises:
        BadRequestError: a field is missing or of the wrong type or size.
        UnknownGraphError: no graph under ``graph``.
        UnsupportedError: the graph has no hierarchy (build one with ``graph.build_hierarchy``).
    """
    if not isinstance(raw, dict):
        raise BadRequestError(f"path.reachable: params must be a map, got {type(raw).__name__}")
    params = Params(raw, "path.reachable")
    params.only("graph", "start", "goal", "options")
    unit = params.sub("options")
    unit.only("size", "radius")
    size, radius = unit_size(unit)
    entry = registry.get(params.text("graph"))
    if entry.hierarchy is None:
        raise UnsupportedError(
            f"path.reachable: graph {entry.graph_id!r} has no hierarchy; load it with 'hierarchy' "
            "or call graph.build_hierarchy first",
            {"graph": entry.graph_id},
        )
    return Query(
        graph_id=entry.graph_id,
        start=_endpoint(params, "start", entry.graph.endpoints),
        goal=_endpoint(params, "goal", entry.graph.endpoints),
        options=QueryOptions(size=size, radius=radius),
        reachable=True,
    )


def encode_result(result: PathResult, dim: int) -> dict[str, Any]:
    """A result as the wire map: points as float32 (pairs or triples), nodes as int64, LE."""
    return encode_answer(result.status, result.points, result.nodes, result.cost, result.expanded, dim)


def encode_answer(  # noqa: PLR0917 (a result's fields, in their order)
    status: PathStatus, points: F64, nodes: I64, cost: float, expanded: int, dim: int
) -> dict[str, Any]:
    """:func:`encode_result` of ``PathResult(status, points, nodes, cost, expanded)``, from the
    fields (a grid's exact search gives them without making the result)."""
    if points.dtype is not _F64 or points.ndim != 2 or points.shape[1] != dim:  # the core's form, usually
        points = np.asarray(points, dtype=_F64).reshape(-1, dim)
    return {
        "status": status._value_,  # the member's own field: no enum descriptor call
        "points": points.astype(_F32_LE).tobytes(),
        "nodes": (nodes if nodes.dtype is _I64_LE else np.asarray(nodes, dtype=_I64_LE)).tobytes(),
        "cost": float(cost),
        "expanded": int(expanded),
    }


_F64, _F32_LE, _I64_LE = np.dtype(np.float64), np.dtype("<f4"), np.dtype("<i8")


def answer_bytes(answer: dict[str, Any]) -> int:
    """About the wire bytes of one :func:`encode_result` map."""
    return 64 + len(answer.get("points", b"")) + len(answer.get("nodes", b""))


def run_query(graph: Navigator[Any], query: Query, budget: int | None = None) -> dict[str, Any]:
    """Run ``query`` on ``graph`` and encode the outcome; ``budget`` lowers its expansion budget
    (the inline attempt of a query).

    python_core errors propagate; a hierarchical query on a graph without a built hierarchy is
    ``invalid_graph``.
    """
    start, goal = (query.start, query.goal) if query.cells else resolve_ends(graph, query)
    options = query.options if budget is None else with_budget(query.options, budget)
    if type(graph) is GridNavigator and not (query.hierarchical or query.reachable or query.corridor):
        # what the navigator runs for an exact query, as the wire's record at once (no PathResult)
        return dispatch.find_record(graph.grid, start, goal, options)  # type: ignore[arg-type]
    smooth = query.smooth  # set on a usual hierarchical query only (see _plain_hierarchical)
    if smooth is not None and query.hierarchical and not query.corridor and type(graph) is GridNavigator:
        plain = _plain_hierarchical(graph, start, goal, options, smooth)
        if plain is not None:
            return plain
    if (query.hierarchical or query.reachable) and not graph.has_hierarchy:
        raise GraphRejectedError(f"graph {query.graph_id!r} has no built hierarchy")
    if query.reachable:
        return {"reachable": bool(graph.is_reachable(start, goal, sized(query.options)))}
    result = graph.find_path(start, goal, options, hierarchical=query.hierarchical, corridor=query.corridor)
    return encode_result(result, graph.dim)


def _plain_hierarchical(
    graph: GridNavigator, start: Any, goal: Any, options: QueryOptions, smooth: bool
) -> dict[str, Any] | None:
    """:meth:`GridNavigator.find_path`'s hierarchical answer, encoded, to a usual query (see
    :meth:`~python_core.hpa.HierarchicalGrid.find_plain`), or None for any other: the navigator's
    rule for agents kept (one standing on the path past its start: the exact search answers)."""
    hpa = graph.hierarchy
    found = None if hpa is None else hpa.find_plain(start, goal, options, smooth)
    if found is None:
        return None
    nodes = found.nodes
    if not options.ignore_agents and len(nodes) >= 2 and graph.grid.agents_on(nodes[1:]):
        found = graph.find_path(start, goal, options)  # what the navigator answers then
    return encode_answer(found.status, found.points, found.nodes, found.cost, found.expanded, 2)


def resolve_ends(graph: Navigator[Any], query: Query) -> tuple[Any, Any]:
    """The query's start and goal as ``graph``'s nodes: cells (``query.cells``, already checked
    whole by the parse; the search checks they lie in the grid) go as they are, positions and ids
    through :meth:`Navigator.resolve` (for a sized unit on a grid, to the anchor whose footprint
    centre is nearest)."""
    if query.cells:
        return query.start, query.goal
    unit = sized(query.options)
    return graph.resolve(query.start, unit), graph.resolve(query.goal, unit)


def sized(options: QueryOptions) -> QueryOptions | None:
    """``options`` when they name a unit size or radius, else None (what :meth:`Navigator.resolve`
    and :meth:`Navigator.is_reachable` take: one-cell units need no options)."""
    return options if options.size != 1 or options.radius is not None else None


def with_budget(options: QueryOptions, budget: int) -> QueryOptions:
    """``options`` with ``budget`` expansions at most (kept: most queries share a few options
    objects, and each inline attempt asks again)."""
    key = (id(options), budget)  # by identity: hashing the options' nine fields cost ~0.5 us a call
    kept = _BUDGETED.get(key)
    if kept is not None and kept[0] is options:  # a kept entry holds its options: its id stays unique
        return kept[1]
    current = options.max_expansions
    capped = options if current is not None and current <= budget else replace(options, max_expansions=budget)
    if len(_BUDGETED) >= _BUDGETED_KEPT:
        _BUDGETED.clear()
    _BUDGETED[key] = (options, capped)
    return capped


_BUDGETED: dict[tuple[int, int], tuple[QueryOptions, QueryOptions]] = {}
"""(id of options, budget) -> (those options, capped): read and written by every search thread
(single dict operations)."""
_BUDGETED_KEPT = 256
