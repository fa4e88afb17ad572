"""vaultheat: local, private semantic search and related notes for Obsidian vaults."""

__version__ = "0.1.0"
