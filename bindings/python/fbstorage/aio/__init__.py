"""fbstorage for asyncio: the sync API's surface, with operations as coroutines.

::

    async with fbstorage.aio.Storage("my-app.appspot.com") as storage:
        ref = storage.reference("images/space.jpg")
        metadata = await ref.put_file("space.jpg")        # or keep the task: observe, pause, cancel
        data = await ref.get_data()

The library does the transfers on its own threads and reports through completion callbacks,
which reach the event loop with ``call_soon_threadsafe``: no thread per operation, and the
loop never waits for the network.
"""

from __future__ import annotations

from .app_check import AppCheck
from .auth import Auth
from .reference import StorageReference
from .storage import Storage
from .task import DownloadTask, StorageTask, UploadTask

__all__ = ["AppCheck", "Auth", "DownloadTask", "Storage", "StorageReference", "StorageTask", "UploadTask"]
