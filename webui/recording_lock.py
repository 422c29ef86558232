"""One augur at a time on a recording folder: a lock file held for the life of the process.

Why: two ``augur run`` at one table (on two ports, or one started and forgotten) would both
resume the recording's last game and write their commits into it, each tracking the other's
states as moves. The folder's lock file is held locked while the process runs, with the
process id written in it so that the one refused can say who holds it. The operating system
drops the lock with the process, however it ends (a crash, a kill, a power cut), so a stale
lock never blocks the next game.

POSIX systems lock the whole file (``flock``). Windows has no ``flock``; there the lock is
``msvcrt``'s lock on one byte far past the process id, where it stops no one reading the id.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from tracker.errors import GameError

#: The file in a recording folder that the augur recording into it holds locked (its process id inside).
RECORDING_LOCK = "augur.lock"

#: Where Windows' one-byte lock lies in the lock file: far past the process id written at its
#: start, since a region locked there cannot be read by another process.
WINDOWS_LOCK_OFFSET = 1 << 20

#: The lock files this process holds, by folder: kept open for the process's life.
_HELD: dict[Path, TextIO] = {}


def _lock_now(handle: TextIO) -> bool:
    """Lock the open lock file ``handle`` for this process without waiting; False when another
    process holds it."""
    try:
        import fcntl
    except ImportError:
        import msvcrt                       # Windows
        handle.seek(WINDOWS_LOCK_OFFSET)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def hold_recording(folder: Path) -> None:
    """Lock the recording ``folder`` for this process (for as long as it runs; again is a no-op),
    or raise GameError, in one line naming the process that holds it, when another augur does."""
    folder = folder.resolve()
    if folder in _HELD:
        return
    folder.mkdir(parents=True, exist_ok=True)
    handle = open(folder / RECORDING_LOCK, "a+", encoding="utf-8")
    if not _lock_now(handle):
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        raise GameError(f"{folder} is being recorded by another augur{f' (process {holder})' if holder else ''}: "
                        f"stop it, or give another --record")
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    _HELD[folder] = handle
