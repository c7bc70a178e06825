"""Bundled Firebase Storage emulator (the v0 REST protocol, the GCS JSON API) with Firebase Auth
(`identity/`). Run with `python -m fbstorage.emulator`.

Importing this package needs aiohttp and google-crc32c, not the compiled fbstorage library.
"""
