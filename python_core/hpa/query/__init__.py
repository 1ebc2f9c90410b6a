"""HPA* queries: from a start and a goal to the cells of a path.

A query inserts its ends into their clusters (``endpoints``), searches the abstract graph
(``abstract_search``, level 2's ``upper_search``) or runs end to end in one compiled call over the
cached trees (``tree_query``), refines the chain of transitions into cells (``refine``), and may
tighten it by a corridor search (``corridor``) and straight-line shortcuts (``smoothing``).
"""
