"""Process tuning for upload throughput.

asyncio reads sockets into a fresh 256 KiB bytes object per recv(). glibc serves allocations that
size with mmap() (its threshold adapts only up to the first free), so every piece of every
upload costs page faults and zeroing: about 400,000 faults and 1 s of kernel time per GiB, which
capped uploads near 400 MiB/s. Raising the mmap threshold keeps those buffers in the heap.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
M_MMAP_THRESHOLD = -3


def keep_large_buffers_in_heap() -> bool:
    """Tune glibc malloc; returns False (and changes nothing) on other C libraries."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, 16 << 20) and mallopt(M_TRIM_THRESHOLD, 8 << 20)
                and mallopt(M_TOP_PAD, 1 << 20))
