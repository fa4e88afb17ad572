"""Pure logic of vaultheat: no aiohttp, no CLI library, no global state."""
