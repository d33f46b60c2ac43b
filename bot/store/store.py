"""Persistence: every SQL statement of the bot lives in this package (see its ``__init__``).

:class:`Store` is the store callers hold (typed as :class:`~.protocol.GameStore`): the
concerns, each a module of its own, put together on the same connections (:mod:`.base`),
opened, migrated and closed here:

* games and moves: :mod:`.games` (a game's row from lobby to settling), :mod:`.moves` (a
  move's write in a group commit, the finish with its results and aggregates);
* posts and hands, the publisher's bookkeeping: :mod:`.posts`, :mod:`.hands`;
* settings and the bot's own state: :mod:`.state`;
* results and boards: :mod:`.results`, :mod:`.periods` (writer side), :mod:`.reads` (the
  read-only connection);
* the club (:mod:`.club`, :mod:`.seasons`), learning (:mod:`.learning`) and score pads
  (:mod:`.scorepads`), each reached through a property and run by :meth:`Store.run`.

One engine of two, chosen by what :meth:`Store.open` is given (``Settings.database``): an
SQLite file in WAL mode (the default) or a PostgreSQL database, both under SQLAlchemy Core 2.
What the engines truly do differently is in :mod:`.drivers`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import club as _club
from . import learning as _learning
from . import migrate as _migrate
from . import reads as _reads
from . import scorepads as _scorepads
from . import seasons as _seasons
from .base import is_busy, serialized, utcnow
from .drivers import DATABASE_ERRORS, Driver, Opened, classify, driver_for, open_role
from .failures import StoreError
from .games import Games
from .hands import Hands
from .moves import Moves
from .posts import Posts
from .state import State

if TYPE_CHECKING:
    from .protocol import GameStore

log = logging.getLogger("bot.store")


class Store(Games, Moves, Posts, Hands, State):
    """The bot's database. Create with :meth:`open`; close with :meth:`close`."""

    @property
    def club(self) -> _club.Club:
        """Events (club play): bot/store/club.py."""
        return _club.Club(self.run, self._clock)

    @property
    def seasons(self) -> _seasons.Seasons:
        """Seasons and their champions: bot/store/seasons.py."""
        return _seasons.Seasons(self.run, self._clock)

    @property
    def reviews(self) -> _learning.Reviews:
        """Stored reviews of finished games: bot/store/learning.py."""
        return _learning.Reviews(self.run, self._clock)

    @property
    def practice(self) -> _learning.Practices:
        """Practice deals: bot/store/learning.py."""
        return _learning.Practices(self.run, self._clock)

    @property
    def scorepads(self) -> _scorepads.ScorePads:
        """Score pads of games played with a real deck: bot/store/scorepads.py."""
        return _scorepads.ScorePads(self.run, self._clock)

    def describe(self) -> str:
        """Where the data is, for logs (a URL without its password)."""
        return self._driver.describe(self.url) if self.url is not None else str(self.path)

    @classmethod
    async def open(cls, path: str | Path, *, clock: Callable[[], datetime] | None = None) -> Store:
        """Open (creating the SQLite file and its folder if needed) and apply pending
        migrations. ``path``: the SQLite file, or a ``postgresql://`` URL (an existing
        database). Three connections: the writer (game moves, under the store's lock), the
        bookkeeping (delivered posts, hand messages) and the reader (leaderboards): a move's
        commit never waits behind a read or the bookkeeping."""
        driver = driver_for(path)
        await driver.prepare(path)
        url = driver.url_of(path)
        return await cls._open(driver, path, Path(path) if url is None else Path(), url, clock)

    @classmethod
    async def _open(
        cls,
        driver: Driver,
        target: str | Path,
        path: Path,
        url: str | None,
        clock: Callable[[], datetime] | None,
    ) -> Store:
        shown = driver.describe(target)
        opened: list[Opened] = []
        try:
            opened.append(await open_role(driver, target, "writer"))
            store = cls(opened[0], path, clock or utcnow, url=url)
            await store.migrate()
            opened.append(await open_role(driver, target, "bookkeeping"))
            store._bookkeeper = opened[1]
            store._book = opened[1].conn
            opened.append(await open_role(driver, target, "reader"))
            store._reads = _reads.Reads(opened[2], clock=store._clock, expire=store.expire_periods)
        except (*DATABASE_ERRORS, OSError) as error:  # type: ignore[misc]
            for role in opened:
                await role.close()
            reason = (
                "it is locked by another process"
                if is_busy(error)
                else " ".join(str(getattr(error, "orig", None) or error).split())
                or type(error).__name__
            )
            # A server that cannot be reached is told as such (the SQLite file is "opened").
            verb = driver.failed_to_open if not opened else "cannot open the database"
            raise StoreError(f"{verb} {shown}: {reason}") from None
        except BaseException:
            for role in opened:
                await role.close()
            raise
        return store

    @serialized
    async def close(self) -> None:
        """Fold SQLite's WAL into the database file and close (idempotent): a stopped bot
        leaves one self-contained file to back up or move."""
        if self._closed:
            return
        self._closed = True
        if self._mover is not None and not self._mover.done():
            # The moves already handed in are committed before the connection goes.
            with contextlib.suppress(Exception):
                await self._mover
        if self._reads is not None:
            # First: a reader's open snapshot would keep the checkpoint from emptying the WAL.
            await self._reads.close()
        if self._bookkeeper is not None:
            async with self._book_lock:
                await self._bookkeeper.close()
        try:
            await self._driver.before_close(self._db)
        except DATABASE_ERRORS as error:
            log.warning("database checkpoint at close failed: %s", error)
        await self._writer.close()

    @serialized
    async def check_writable(self) -> None:
        """Take the database's write lock and let it go (for the health check); raises
        :class:`StoreBusy` if another process holds it, :class:`StoreUnavailable` if the file
        has become read-only, :class:`StoreError` for anything else."""
        try:
            await self._driver.check_writable(self._db)
        except DATABASE_ERRORS as error:
            if classify(error) is not None:
                raise
            raise StoreError(f"the database cannot be written: {error}") from None

    @serialized
    async def pragma(self, name: str) -> Any:
        """The value of one SQLite connection setting (journal_mode, synchronous...)."""
        return await self._driver.pragma(self._db, name)

    @serialized
    async def journal_mode(self) -> str:
        return await self._driver.journal_mode(self._db)

    async def schema_version(self) -> int:
        return max(await self._db.run_sync(_migrate.recorded), default=0)

    async def migrate(self) -> list[int]:
        """Apply every migration newer than the database; return the versions applied."""
        async with self._driver.migrating(self._db):
            return await self._db.run_sync(_migrate.upgrade, self._driver, None, self._clock())


if TYPE_CHECKING:
    # mypy: the store has every operation callers may use.
    _STORE_IS_A_GAME_STORE: type[GameStore] = Store
