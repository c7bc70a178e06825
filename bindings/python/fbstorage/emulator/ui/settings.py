"""What one run's UI knows: its CSRF token, where the storage API is, its request log."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from aiohttp import web

from ..identity.paths import IDENTITY_TOOLKIT
from ..origins import host_is_own
from .activity import ActivityLog



@dataclass
class UiSettings:
    bind_host: str
    activity: ActivityLog = field(default_factory=ActivityLog)
    #: Sent by the page in X-UI-Token on every request that changes something: another site's
    #: page cannot read it (the UI sends no CORS headers), so it cannot forge those requests.
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    storage_url: str | None = None  # None: the page's own origin (the UI under /ui on the storage port)
    storage_app: web.Application | None = None  # to see whether the Auth emulator is served there

    def serves_identity(self) -> bool:
        """Whether the Auth emulator's API (emulator/identity) is on the storage port."""
        return self.storage_app is not None and any(
            resource.canonical.startswith(IDENTITY_TOOLKIT) for resource in self.storage_app.router.resources())

    def host_allowed(self, host: str) -> bool:
        """Whether a Host header names this server: loopback names or the bound address (any name
        when bound to all interfaces). Refuses DNS rebinding of a foreign name onto 127.0.0.1."""
        return host_is_own(host.rsplit(":", 1)[0] if not host.endswith("]") else host, self.bind_host)


SETTINGS = web.AppKey("fbstorage_ui_settings", UiSettings)
