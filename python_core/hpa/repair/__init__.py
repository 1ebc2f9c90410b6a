"""HPA* local updates: what a change to walls or weights redoes, and only that.

``local_updates`` decides which clusters and borders a change touches; ``tree_repair`` keeps
their cached trees, ``label_patches`` their component labels and ``table_repair`` the all-pairs
table, each repairing in place what a fresh build would compute.
"""
