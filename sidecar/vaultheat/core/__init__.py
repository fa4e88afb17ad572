"""Logic of vaultheat: no aiohttp, no CLI library, no global state, no storage class, no SQL.

The index is read only through the protocols in ``ports.py`` (``vaultheat.storage`` implements
them) and models only through ``vaultheat.providers.base``; ``tests/architecture`` keeps it so.
"""
