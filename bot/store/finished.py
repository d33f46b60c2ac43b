"""A finished game's seats as every aggregate needs them (:class:`FinishedSeat`), and the
figures one seat adds to a row of totals; shared by the all-time aggregates (:mod:`.results`)
and the period boards (:mod:`.periods`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

from .values import DealLine

SERVER = 0  # the channel_id of a server-wide aggregate row


@dataclass(frozen=True)
class FinishedSeat:
    """One seat as the aggregates need it (name and level resolved, place computed)."""

    seat: int
    user_id: int | None
    name: str
    level: str | None
    score: int
    won: bool
    place: int
    bids_exact: int
    bids: int
    deals: tuple[DealLine, ...]


def many(db: Connection, statement: sa.Executable, rows: Sequence[dict[str, Any]]) -> None:
    if rows:  # an empty list would run the statement once, without parameters
        db.execute(statement, list(rows))


def figures(guild_id: int, scope: int, seat: FinishedSeat) -> dict[str, Any]:
    """One seat's figures of a game, as a row of a server's (scope 0) or channel's totals."""
    return {
        "guild_id": guild_id,
        "channel_id": scope,
        "user_id": seat.user_id,
        "wins": int(seat.won),
        "score_sum": seat.score,
        "bids_exact": seat.bids_exact,
        "bids": seat.bids,
    }
