"""Shared by the UI's HTTP tests (emulator/test_ui.py) and browser tests (ui/): their rules and a
fast way to fill a folder."""

from __future__ import annotations

import asyncio

import aiohttp

RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /uploads/{uid}/{file} {
      allow read: if request.auth != null;
      allow write: if request.auth != null && request.auth.uid == uid
                   && request.resource.size < 5 * 1024 * 1024;
    }
  }
}
"""
LIMIT = 5 * 1024 * 1024  # the rules' size limit


def fill(bucket_url: str, names: list[str], concurrency: int = 16) -> None:
    """Upload a one-byte object under each name as the admin, several requests at a time."""
    async def run() -> None:
        pending = iter(names)
        async with aiohttp.ClientSession(headers={"Authorization": "Bearer owner"}) as http:
            async def worker() -> None:
                for name in pending:
                    async with http.post(bucket_url, params={"name": name}, data=b"x") as response:
                        assert response.status == 200, await response.text()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
    asyncio.run(run())
