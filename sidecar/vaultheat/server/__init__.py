"""The localhost JSON API the Obsidian plugin talks to (aiohttp over ``vaultheat.engine``)."""
