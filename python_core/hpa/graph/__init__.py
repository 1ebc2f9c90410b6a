"""HPA* construction: from a grid's cells to the abstract graph and its tables.

Borders become transitions (``entrances``), exact searches inside each cluster price them
(``cluster_search``) and keep their trees (``cluster_trees``), and ``abstract_graph`` holds the
result as flat arrays spliced per cluster (``pieces``), with component labels (``components``),
an all-pairs table for small graphs (``distance_table``) and level 2's regions (``upper_level``).
"""
