"""What a failed database call means, and logging each storage incident once.

Two kinds of failure are expected in operation and each has its own answer to players:

* busy (:class:`StoreBusy`): another process held the database locked past the busy timeout;
  trying again in a moment may succeed.
* unavailable (:class:`StoreUnavailable`): the database cannot be written at all for now: the
  disk is full, the file system reports an I/O error, the file or its folder became read-only.
  Nothing is corrupted (SQLite rolls the write back) and writes succeed again once the
  operator frees space or fixes the file system.

Anything else a database call raises is a bug or damage and keeps its traceback. Which of an
engine's errors is which is its driver's to say (``Driver.classify``, asked through
:func:`bot.store.drivers.classify`).

A failure of either kind is not one event but an incident: every click while the disk is full
fails the same way. :class:`FailureLog` logs the first failure of an incident as one line (and
the first of another kind during it), counts the rest silently, and logs one line when the
next write succeeds.
"""

from __future__ import annotations

import logging
from typing import Literal

log = logging.getLogger("bot.store")

Kind = Literal["busy", "unavailable"]


class StoreError(Exception):
    """The database could not be opened or used."""


class StoreBusy(StoreError):
    """The database stayed locked (by another process) past the busy timeout; nothing of the
    write was committed, and trying again later may succeed."""

    kind: Kind = "busy"


class StoreUnavailable(StoreError):
    """The database cannot be written now (disk full, I/O error, read-only); nothing of the
    write was committed, and writes succeed again once the cause is fixed."""

    kind: Kind = "unavailable"


class ChannelBusy(StoreError):
    """The channel already has an open game (lobby or running)."""

    def __init__(self, game_id: int | None) -> None:
        super().__init__(f"channel already has open game {game_id}")
        self.game_id = game_id


class StaleWrite(StoreError):
    """save_game found another version in the database than the one it was based on."""


def is_expected(error: BaseException) -> bool:
    """Whether ``error`` is a storage failure already logged by :class:`FailureLog`."""
    return isinstance(error, StoreBusy | StoreUnavailable)


class FailureLog:
    """Storage failures, logged once per incident (see the module's docstring)."""

    def __init__(self) -> None:
        self.failed_writes = 0  # in the current incident; 0: none under way
        self._logged: set[Kind] = set()

    def failed(self, failure: StoreBusy | StoreUnavailable, writes: int = 1) -> None:
        self.failed_writes += writes
        if failure.kind in self._logged:
            return
        self._logged.add(failure.kind)
        if failure.kind == "busy":
            log.warning(
                "storage busy: %s; changes are refused (nothing changed) until it is free",
                failure,
            )
        else:
            log.error(
                "storage cannot be written: %s; every change is refused (nothing changed) "
                "until it can be written again; further failures are counted, not logged",
                failure,
            )

    def wrote(self) -> None:
        """A write was committed: the incident (if any) is over."""
        if not self.failed_writes:
            return
        log.warning("storage writable again after %d failed writes", self.failed_writes)
        self.failed_writes = 0
        self._logged.clear()
