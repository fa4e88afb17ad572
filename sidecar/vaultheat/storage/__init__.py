"""Files of the index on disk: the vector index and the crash-safe writes everything uses.

Storage modules may import numpy and hnswlib but nothing from the shells (HTTP, CLI).
"""
