"""Whether this bot process is its SQLite file's only one: a lock file beside the database.

The first bot process on a file holds the lock for its life; it is then the file's only writer, so it may
trust what it read and wrote itself (``bot.outside_writes``) instead of asking the database for the rows'
versions before every change. Another bot process on the same file (shards split over processes, a rolling
deploy) finds the lock held and announces itself in the file before it writes anything; the holder sees the
file grow at its next change and asks the database from then on, as every process does where several share
a file. The kernel lets go of the lock when its process ends, however it ends.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # not on POSIX: no lock, so no process is trusted as the only writer
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)


def lock_path(database_path: Path) -> Path:
    return database_path.with_name(database_path.name + ".lock")


@dataclass(eq=False)
class WriterLock:
    path: Path
    fd: int
    size: int = 0  # the file's size when taken: it grows when another process announces itself

    def alone(self) -> bool:
        """No other bot process has announced itself since the lock was taken."""
        return self.fd >= 0 and os.fstat(self.fd).st_size == self.size

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the file lets go of its lock
            self.fd = -1


def try_hold(database_path: Path) -> WriterLock | None:
    """The file's writer lock, if no other holder has it now; ``None`` otherwise (or where there are no
    file locks)."""
    if fcntl is None:
        return None
    path = lock_path(database_path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    held = f"{os.getpid()}\n".encode()  # who holds it, for whoever looks
    os.write(fd, held)
    return WriterLock(path, fd, len(held))


def announce(database_path: Path) -> None:
    """Tell the holder that another bot process uses the file too (it grows by this process's id)."""
    with open(lock_path(database_path), "a") as file:
        file.write(f"{os.getpid()} too\n")


def holder(database_path: Path) -> str:
    """The process id the lock file names (empty when it names none)."""
    try:
        return lock_path(database_path).read_text().strip()
    except OSError:
        return ""


def hold(database_path: Path) -> WriterLock | None:
    """The file's writer lock when this is the first bot process on it; else ``None``, after announcing
    this one (and where the platform has no file locks)."""
    if fcntl is None:
        return None
    found = try_hold(database_path)
    if found is None:
        log.warning(
            "another Fray process (pid %s) uses %s: both read the database before every change (SQLite "
            "is made for one bot process; several are better served by PostgreSQL)",
            holder(database_path).split("\n")[0] or "?",
            database_path,
        )
        announce(database_path)
    return found
