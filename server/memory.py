"""Giving freed memory back to the operating system.

Buffers of half-received frames are freed when their connections are dropped, but glibc keeps
the freed heap pages: 1,000 connections holding 30 KB each would leave the process 30 MB bigger
for good. ``malloc_trim(0)`` returns them; it is cheap when there is little to return, and the
server calls it on its maintenance tick (every ``store_retry`` seconds).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable


def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to do
        return None
    return trim


_TRIM = _malloc_trim()


def release_free_memory() -> None:
    """Return freed heap pages to the operating system, where the C library can."""
    if _TRIM is not None:
        _TRIM(0)
