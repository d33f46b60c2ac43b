"""Reads for player statistics, history, export and channel settings, and (from
:mod:`.boards`) the leaderboards: the read-only side of the store, made by
:meth:`Store.open`.

They run on their own read-only connection (:mod:`.reader`). In WAL mode a reader sees the last
committed state and neither waits for the writer nor makes it wait, and aiosqlite runs each
connection in its own thread: a leaderboard being read never delays a move being committed,
and no read takes the writer's lock.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from bot.model import HISTORY_POST_KEYS, Table
from bot.result_pages import (
    HistoryEntry,
    HistoryPage,
    HistorySeat,
    PlayerGame,
    PlayerStats,
    SplitStat,
)

from . import reader
from .boards import PERIODS, SCOPES, SORTS, Boards
from .reader import PAGE_SIZE, page_count
from .rows import NO_GAME_ID, SELECT_GAME, game_from_row
from .schema import games

__all__ = ["PAGE_SIZE", "PERIODS", "SCOPES", "SORTS", "Reads", "in_place"]

TREND_GAMES = 10


def in_place(channel_id: int, parent_id: int | None) -> sa.ColumnElement[bool]:
    """The games of a place (bot/places.py): those kept under it and, in a thread, the one
    whose lobby opened it (a thread opened from a message takes that message's id). Written
    as the channel among two, then which of them, so that the channel's index finds both."""
    if parent_id is None:
        return games.c.channel_id == channel_id
    return sa.and_(
        games.c.channel_id.in_((channel_id, parent_id)),
        sa.or_(games.c.channel_id == channel_id, games.c.message_id == channel_id),
    )


def _place_sql(thread: bool, place: str, parent: str) -> str:
    """:func:`in_place` as SQL text, for the statements written as text: ``place`` and
    ``parent`` name their parameters."""
    if not thread:
        return f"g.channel_id = {place}"
    return (
        f"g.channel_id IN ({place}, {parent})"
        f" AND (g.channel_id = {place} OR g.message_id = {place})"
    )


class Reads(Boards):
    """The read-only side of the store (made by :meth:`Store.open`)."""

    async def player_stats(self, *, guild_id: int, user_id: int) -> PlayerStats | None:
        """A player's figures in a server, or None if they never finished a game there."""
        totals = await self._one(
            "SELECT name, games, wins, avg_score, best_score, best_game_id, exact_rate"
            " FROM player_totals WHERE guild_id = :p1 AND channel_id = 0 AND user_id = :p2",
            (guild_id, user_id),
        )
        if totals is None:
            return None
        rated = await self._one(
            "SELECT ordinal FROM ratings WHERE guild_id = :p1 AND user_id = :p2",
            (guild_id, user_id),
        )
        ordinal = float(rated[0]) if rated else None
        rank = None
        if ordinal is not None:
            ahead = await self._one(
                "SELECT COUNT(*) FROM ratings WHERE guild_id = :p1 AND ordinal > :p2",
                (guild_id, ordinal),
            )
            rank = int(ahead[0]) + 1
        everyone = await self._one(
            "SELECT COUNT(*) FROM player_totals WHERE guild_id = :p1 AND channel_id = 0",
            (guild_id,),
        )
        trend = await self._all(
            "SELECT ordinal FROM rating_history WHERE guild_id = :p1 AND user_id = :p2"
            " ORDER BY game_id DESC LIMIT :p3",
            (guild_id, user_id, TREND_GAMES),
        )
        deals = await self._all(
            "SELECT hand_size, trump, deals, exact, zero_bids, zero_exact, points"
            " FROM deal_totals WHERE guild_id = :p1 AND user_id = :p2",
            (guild_id, user_id),
        )
        by_size: dict[int, list[int]] = {}
        by_trump: dict[str, list[int]] = {}
        zero_bids = zero_exact = 0
        for size, suit, count, exact, zeros, zeros_exact, points in deals:
            for bucket in (
                by_size.setdefault(size, [0, 0, 0]),
                by_trump.setdefault(suit, [0, 0, 0]),
            ):
                bucket[0] += count
                bucket[1] += exact
                bucket[2] += points
            zero_bids += zeros
            zero_exact += zeros_exact
        return PlayerStats(
            user_id=user_id,
            name=str(totals[0]),
            games=int(totals[1]),
            wins=int(totals[2]),
            average_score=float(totals[3]),
            best_score=int(totals[4]),
            best_game_id=int(totals[5]),
            exact_bid_rate=None if totals[6] is None else float(totals[6]),
            zero_bids=zero_bids,
            zero_exact=zero_exact,
            rating=ordinal,
            rating_rank=rank,
            rated_players=int(everyone[0]) if everyone else 0,
            trend=[float(row[0]) for row in reversed(trend)],
            by_hand_size=[SplitStat(str(k), *v) for k, v in sorted(by_size.items())],
            by_trump=[SplitStat(k, *v) for k, v in sorted(by_trump.items())],
        )

    async def rating_history(
        self, *, guild_id: int, user_id: int, limit: int = 500
    ) -> list[tuple[int, float]]:
        """A player's rating (ordinal) after each of their last ``limit`` rated games in a
        server, oldest first, by game id (the primary key's order: one index range)."""
        rows = await self._all(
            "SELECT game_id, ordinal FROM rating_history WHERE guild_id = :p1 AND user_id = :p2"
            " ORDER BY game_id DESC LIMIT :p3",
            (guild_id, user_id, limit),
        )
        return [(int(game), float(ordinal)) for game, ordinal in reversed(rows)]

    async def player_games(
        self, *, guild_id: int, user_id: int, limit: int = reader.PAGE_SIZE
    ) -> list[PlayerGame]:
        """A player's last finished games in a server, newest first (results_guild_user_game)."""
        rows = await self._all(
            "SELECT game_id, finished_at, score, place, won FROM results"
            " WHERE guild_id = :p1 AND user_id = :p2 ORDER BY game_id DESC LIMIT :p3",
            (guild_id, user_id, limit),
        )
        return [
            PlayerGame(int(game), datetime.fromisoformat(finished), int(score), place, bool(won))
            for game, finished, score, place, won in rows
        ]

    # ------------------------------------------------------------------ history and export

    # The link of a game: its final standings (or, stopped, its closing notice) as delivered
    # by the publisher (posts, migration 0002), else its table message.
    _HISTORY = (
        "SELECT g.id, g.status, g.created_at, g.updated_at,"
        " COALESCE(p.message_id, g.message_id), g.seats, COALESCE(p.channel_id, g.channel_id)"
        " FROM games AS g LEFT JOIN posts AS p ON p.game_id = g.id"
        " AND p.key = CASE g.status WHEN 'finished' THEN :p1 ELSE :p2 END"
        " WHERE {place} AND g.status IN ('finished', 'stopped')"
        " ORDER BY g.id DESC LIMIT :p4 OFFSET :p5"
    )
    # A channel's games, and a thread's (bot/places.py): :p6 the thread's channel.
    HISTORY_SQL = _HISTORY.format(place=_place_sql(False, ":p3", ":p6"))
    HISTORY_IN_THREAD_SQL = _HISTORY.format(place=_place_sql(True, ":p3", ":p6"))

    # The results of a page's finished games: a slot per game of a page (a spare slot names no
    # game), so that the statement is one text run on the driver (direct.py), not an IN list
    # SQLAlchemy builds at each read (which cost the page a quarter more).
    HISTORY_RESULTS_SQL = (
        "SELECT game_id, name, user_id, score, won FROM results WHERE game_id IN ("
        + ", ".join(f":p{slot}" for slot in range(1, reader.PAGE_SIZE + 1))
        + ") ORDER BY game_id, seat"
    )

    async def history(
        self, *, channel_id: int, page: int = 0, parent_id: int | None = None
    ) -> HistoryPage:
        """A place's finished and stopped games, newest first: a channel's, or a thread's
        (``parent_id``: its channel; bot/places.py)."""
        thread = parent_id is not None
        more = (parent_id,) if thread else ()
        count_row = await self._one(
            f"SELECT COUNT(*) FROM games AS g WHERE {_place_sql(thread, ':p1', ':p2')}"
            " AND g.status IN ('finished', 'stopped')",
            (channel_id, *more),
        )
        count = int(count_row[0]) if count_row else 0
        pages = page_count(count)
        page = min(max(page, 0), pages - 1)
        games = await self._all(
            self.HISTORY_IN_THREAD_SQL if thread else self.HISTORY_SQL,
            (*HISTORY_POST_KEYS, channel_id, reader.PAGE_SIZE, page * reader.PAGE_SIZE, *more),
        )
        finished = [row[0] for row in games if row[1] == "finished"]
        results: dict[int, list[HistorySeat]] = {}
        if finished:
            spare = (NO_GAME_ID,) * (reader.PAGE_SIZE - len(finished))
            for game_id, name, user_id, score, won in await self._all(
                self.HISTORY_RESULTS_SQL, (*finished, *spare)
            ):
                results.setdefault(game_id, []).append(
                    HistorySeat(str(name or "?"), user_id, int(score), bool(won))
                )
        entries = []
        for game_id, status, created, updated, message_id, seats_text, link_channel in games:
            seats = results.get(game_id)
            if seats is None:
                seats = [
                    HistorySeat(str(seat.get("name", "?")), seat.get("user_id"), None, False)
                    for seat in _json_list(seats_text)
                ]
            entries.append(
                HistoryEntry(
                    game_id=game_id,
                    status=status,
                    started_at=datetime.fromisoformat(created),
                    ended_at=datetime.fromisoformat(updated),
                    message_id=message_id,
                    link_channel_id=link_channel,
                    seats=seats,
                )
            )
        return HistoryPage(page=page, pages=pages, games=count, entries=entries)

    async def game(self, game_id: int) -> Table | None:
        """A stored game, read on the read-only connection (export of any game)."""
        row = await self._one(SELECT_GAME.where(games.c.id == game_id))
        return game_from_row(row) if row else None

    async def latest_closed_game(
        self, channel_id: int, parent_id: int | None = None
    ) -> Table | None:
        """A place's last finished game: a channel's, or a thread's (``parent_id``: its
        channel; bot/places.py)."""
        row = await self._one(
            SELECT_GAME.where(
                in_place(channel_id, parent_id),
                # Both conditions: the first is the partial index's (games_channel_closed).
                games.c.status.in_(("finished", "stopped")),
                games.c.status == "finished",
            )
            .order_by(games.c.id.desc())
            .limit(1)
        )
        return game_from_row(row) if row else None

    async def board_channel(self, channel_id: int, parent_id: int | None = None) -> int:
        """The channel whose leaderboard a place shows: a thread's own, unless a table's lobby
        opened it (its games count under the lobby's channel; bot/places.py)."""
        if parent_id is None:
            return channel_id
        row = await self._one(
            sa.select(games.c.id)
            .where(games.c.channel_id == parent_id, games.c.message_id == channel_id)
            .limit(1)
        )
        return channel_id if row is None else parent_id

    # ------------------------------------------------------------------ channel settings

    async def channel_settings(self, channel_id: int) -> dict[str, Any]:
        row = await self._one(
            "SELECT settings FROM channel_settings WHERE channel_id = :p1", (channel_id,)
        )
        if row is None:
            return {}
        value = json.loads(row[0])
        return value if isinstance(value, dict) else {}


def _json_list(text: str | None) -> list[dict[str, Any]]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
