"""App Check (docs/emulator.md, "App Check"; facts in docs/reference/app-check.md): the token
exchange a client's provider calls, the tokens the emulator signs and publishes keys for, and the
enforcement of those tokens on the Firebase (v0) API."""
