"""Large batches split over threads: contiguous parts of the states evaluated at once.

A compiled solver's batch functions are reentrant and cffi releases the GIL while
one runs, so the parts of a batch run in parallel on a pool of threads shared by
every solver. Each state is computed by the same C function on the same numbers
whatever the split, so the results are bit-identical to one thread's; a failed
state's index is its index in the whole batch. A batch is split only where each
thread gets at least `MIN_STATES` states: smaller batches run in the calling
thread and pay nothing for threads.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, List, Optional, Tuple

from .errors import SettingError

#: Fewest states per thread: below this, starting a thread costs more than it saves.
MIN_STATES = 2048

#: The environment variable that sets the default number of threads.
ENVIRONMENT = "RBDGEN_THREADS"

_pool: Optional[ThreadPoolExecutor] = None
_lock = threading.Lock()


def cores() -> int:
    """The cores this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


def default_threads() -> int:
    """``RBDGEN_THREADS`` where set (a positive integer; otherwise a `SettingError`), else every core (`cores`)."""
    value = os.environ.get(ENVIRONMENT)
    if value is None:
        return cores()
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise SettingError(f"{ENVIRONMENT}={value!r}: expected a positive integer (the threads a batch may use); "
                           f"fix it or unset it")
    return count


def count(threads: Optional[int]) -> int:
    """The threads a call asks for: ``threads``, checked, or `default_threads` for None."""
    if threads is None:
        return default_threads()
    if not isinstance(threads, int) or isinstance(threads, bool):
        raise TypeError(f"threads: expected a positive integer or None, got {threads!r}")
    if threads < 1:
        raise ValueError(f"threads: expected a positive integer or None, got {threads}")
    return threads


def parts(n: int, threads: int) -> List[Tuple[int, int]]:
    """``[(start, stop), ...]``: ``n`` states in contiguous parts, at most ``threads`` of at least `MIN_STATES`."""
    k = max(1, min(threads, n // MIN_STATES))
    return [(n * i // k, n * (i + 1) // k) for i in range(k)]


def run(fn: Callable[[int, int], int], n: int, threads: Optional[int]) -> int:
    """``fn(start, stop)`` over the parts of ``n`` states; returns the first non-zero result in state order."""
    split = parts(n, count(threads))
    if len(split) == 1:
        return fn(0, n)
    results = list(_executor().map(lambda part: fn(*part), split))
    return next((r for r in results if r), 0)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(cores(), default_threads()), thread_name_prefix="rbdgen")
        return _pool


def _forget_pool() -> None:
    """In a forked child: the parent's pool threads do not exist there; the next split starts a new pool."""
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)
