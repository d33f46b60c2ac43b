"""Games, their rows: a lobby opened (one open game a channel), the public message
remembered, a game read back by id, channel or status, settled once its messages are all
delivered, stopped without being read, and its results. The writes of a move and of the
finish are :mod:`.moves`."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa

from bot.model import HISTORY_POST_KEYS, OPEN_STATUSES, GameStatus, Seat, Table, TableOptions
from bot.shards import ALL_SHARDS, Shards

from .base import StoreBase, first, serialized, writes
from .drivers import INTEGRITY_ERRORS, transaction
from .failures import ChannelBusy
from .rows import SELECT_GAME, game_from_row
from .rows import dump as _dump
from .rows import iso as _iso
from .schema import games, hand_messages, posts
from .schema import results as results_table
from .table_json import options_to_json, seat_to_json
from .values import GameRef, ResultRow

log = logging.getLogger("bot.store")


class Games(StoreBase):
    """A game's row from its lobby to its settling."""

    @serialized
    @writes
    async def create_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        options: TableOptions,
        max_seats: int,
        seats: Sequence[Seat],
        lobby_token: str | None = None,
    ) -> Table:
        """Open a lobby. Raises :class:`ChannelBusy` if the channel has an open game.
        ``lobby_token``: the interaction that is about to answer with the lobby."""
        now = self._clock()
        insert = (
            sa.insert(games)
            .values(
                guild_id=guild_id,
                channel_id=channel_id,
                host_id=host_id,
                status="lobby",
                rules=_dump(options_to_json(options)),
                max_seats=max_seats,
                seats=_dump([seat_to_json(seat) for seat in seats]),
                version=0,
                created_at=_iso(now),
                updated_at=_iso(now),
                settled=0,
                lobby_token=lobby_token,
            )
            .returning(games.c.id)
        )
        try:
            async with transaction(self._db):
                game_id = first(await self._db.execute(insert))
        except INTEGRITY_ERRORS:
            busy = sa.select(games.c.id).where(
                games.c.channel_id == channel_id, games.c.status.in_(OPEN_STATUSES)
            )
            found = first(await self._db.execute(busy))
            raise ChannelBusy(None if found is None else int(found)) from None
        assert game_id is not None
        return Table(
            id=int(game_id),
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            status="lobby",
            options=options,
            max_seats=max_seats,
            seats=list(seats),
            created_at=now,
            updated_at=now,
            settled=False,
        )

    @serialized
    @writes
    async def set_message_id(self, game_id: int, message_id: int | None) -> None:
        """Remember the current public table message (does not change the move counter)."""
        await self._db.execute(
            sa.update(games)
            .where(games.c.id == game_id)
            .values(message_id=message_id, lobby_token=None)
        )

    @serialized
    async def lobby_token(self, game_id: int) -> str | None:
        """The token of the interaction that answered with this game's lobby, while the
        lobby's message id is not stored yet (see migration 0006)."""
        token = first(
            await self._db.execute(
                sa.select(games.c.lobby_token).where(
                    games.c.id == game_id, games.c.message_id.is_(None)
                )
            )
        )
        return None if token is None else str(token)

    @serialized
    async def load_game(self, game_id: int) -> Table | None:
        row = (await self._db.execute(SELECT_GAME.where(games.c.id == game_id))).first()
        return game_from_row(row) if row else None

    @serialized
    async def open_game_in_channel(self, channel_id: int) -> Table | None:
        query = SELECT_GAME.where(
            games.c.channel_id == channel_id, games.c.status.in_(OPEN_STATUSES)
        )
        row = (await self._db.execute(query)).first()
        return game_from_row(row) if row else None

    @serialized
    async def latest_game_in_channel(
        self, channel_id: int, statuses: Sequence[GameStatus] = ("finished",)
    ) -> Table | None:
        query = (
            SELECT_GAME.where(games.c.channel_id == channel_id, games.c.status.in_(statuses))
            .order_by(games.c.id.desc())
            .limit(1)
        )
        row = (await self._db.execute(query)).first()
        return game_from_row(row) if row else None

    @serialized
    async def games_with_status(self, *statuses: GameStatus) -> list[Table]:
        """The games with one of ``statuses``; a row that cannot be read is left out (and
        logged by id), so one damaged row never hides the others."""
        rows, _ = await self._readable_games(statuses, ALL_SHARDS)
        return rows

    @serialized
    async def open_games(self, shards: Shards = ALL_SHARDS) -> tuple[list[Table], list[GameRef]]:
        """Every open game (lobby or running) of ``shards``' servers, and the bare columns of
        those whose row cannot be read."""
        return await self._readable_games(OPEN_STATUSES, shards)

    @serialized
    async def unsettled_games(self, shards: Shards = ALL_SHARDS) -> list[Table]:
        """Finished or stopped games of ``shards``' servers whose public messages are not all
        delivered yet."""
        query = SELECT_GAME.where(
            games.c.settled == 0,
            games.c.status.in_(("finished", "stopped")),
            shards.condition(games.c.guild_id),
        ).order_by(games.c.id)
        games_read = []
        for row in await self._db.execute(query):
            try:
                games_read.append(game_from_row(row))
            except Exception as error:
                log.error(
                    "game %s: its stored row cannot be read (%s)", row[0], type(error).__name__
                )
        return games_read

    @serialized
    @writes
    async def settle(self, game_id: int) -> None:
        """Every public message of a finished or stopped game has been delivered: its
        delivery bookkeeping is no longer needed, but for the message its history entry links
        to (the final standings, or a stopped game's closing notice), about half of what a
        game would otherwise keep on disk (docs/scaling.md, "Disk")."""
        await self._db.execute(sa.update(games).where(games.c.id == game_id).values(settled=1))
        await self._db.execute(sa.delete(hand_messages).where(hand_messages.c.game_id == game_id))
        await self._db.execute(
            sa.delete(posts).where(
                posts.c.game_id == game_id, posts.c.key.not_in(HISTORY_POST_KEYS)
            )
        )

    async def _readable_games(
        self, statuses: Sequence[GameStatus], shards: Shards
    ) -> tuple[list[Table], list[GameRef]]:
        query = SELECT_GAME.where(
            games.c.status.in_(statuses), shards.condition(games.c.guild_id)
        ).order_by(games.c.id)
        games_read: list[Table] = []
        damaged: list[GameRef] = []
        for row in await self._db.execute(query):
            try:
                games_read.append(game_from_row(row))
            except Exception as error:
                # Only the kind of error: a record's text holds every hand.
                log.error(
                    "game %s: its stored row cannot be read (%s)", row[0], type(error).__name__
                )
                try:
                    damaged.append(
                        GameRef(
                            id=int(row[0]),
                            guild_id=int(row[1]),
                            channel_id=int(row[2]),
                            host_id=int(row[3]),
                            message_id=None if row[10] is None else int(row[10]),
                        )
                    )
                except (TypeError, ValueError):
                    continue
        return games_read, damaged

    @serialized
    @writes
    async def stop_open_game(self, game_id: int) -> bool:
        """Mark an open game stopped without reading it (for a row that cannot be used);
        returns whether it was open. No result is written."""
        stop = (
            sa.update(games)
            .where(games.c.id == game_id, games.c.status.in_(OPEN_STATUSES))
            .values(status="stopped", version=games.c.version + 1, updated_at=_iso(self._clock()))
        )
        async with transaction(self._db):
            changed = (await self._db.execute(stop)).rowcount
        return changed == 1

    @serialized
    async def results_for_game(self, game_id: int) -> list[ResultRow]:
        r = results_table.c
        rows = await self._db.execute(
            sa.select(r.seat, r.user_id, r.score, r.won, r.bids_exact, r.bids)
            .where(r.game_id == game_id)
            .order_by(r.seat)
        )
        return [
            ResultRow(
                seat=row[0],
                user_id=row[1],
                score=row[2],
                won=bool(row[3]),
                bids_exact=row[4],
                bids=row[5],
            )
            for row in rows
        ]
