"""Which origins are the emulator's own (the cross-site policy's knowledge, cross_site.py)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from aiohttp import web

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = ("", "0.0.0.0", "::")
# Sec-Fetch-Site values a request without Origin may carry: a browser sends `none` when the user
# typed the address; a page of another port of this host is `same-site`.
TRUSTED_FETCH_SITES = ("same-origin", "none")


def host_is_own(host: str, bind_host: str) -> bool:
    """Whether a host name (no port) names this server: a loopback name or the address listened
    on; any name when listening on every interface. Refuses a rebinding of a foreign name onto
    127.0.0.1."""
    if bind_host in WILDCARD_HOSTS:
        return True
    name = host.strip("[]").lower()
    return name in LOOPBACK_HOSTS or name == bind_host.strip("[]").lower()


def parse_origin(text: str) -> str:
    """`scheme://host[:port]` as a browser serializes it (lower case, no default port, no path);
    ValueError otherwise. For --cors-allow-origin."""
    parts = urlsplit(text.strip())
    port = parts.port  # raises ValueError for a bad one
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment or parts.username is not None:
        raise ValueError(f"not an origin (scheme://host[:port]): {text!r}")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host}" + (f":{port}" if port not in (None, default) else "")


@dataclass
class CrossSitePolicy:
    """Which origins are the emulator's own: its ports (storage, Auth, UI, added as they open) on
    a host that names this server, the port a request arrived on, and those allowed explicitly."""
    bind_host: str = ""
    own_ports: set[int] = field(default_factory=set)
    allowed_origins: frozenset[str] = frozenset()

    def is_own(self, origin: str, request: web.Request) -> bool:
        if origin in self.allowed_origins:
            return True
        try:
            parts = urlsplit(origin)
            port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or port is None:
            return False  # `null` (a sandboxed frame, a file: page) is nobody's own
        return self._origin_host_is_own(parts.hostname) and (port in self.own_ports or port == _local_port(request))

    def _origin_host_is_own(self, name: str) -> bool:
        """Stricter than host_is_own: listening on every interface, a page's host must still be a
        loopback name or an address, never another name (a rebinding needs one)."""
        if name in LOOPBACK_HOSTS or name == self.bind_host.strip("[]").lower():
            return True
        return self.bind_host in WILDCARD_HOSTS and _is_address(name)

    def foreign(self, request: web.Request) -> bool:
        """Whether a browser sent this from a page that is not the emulator's own."""
        origin = request.headers.get("Origin")
        if origin is None:
            fetch_site = request.headers.get("Sec-Fetch-Site")
            return fetch_site is not None and fetch_site not in TRUSTED_FETCH_SITES
        return not self.is_own(origin, request)


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _local_port(request: web.Request) -> int | None:
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    return sockname[1] if isinstance(sockname, tuple) and len(sockname) >= 2 else None
