"""A stored game as the table model (``bot.model.Table``): the one reading of a ``games`` row."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from bot.model import Table

from .schema import games
from .table_json import options_from_json, seat_from_json


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def iso(moment: datetime) -> str:
    """A moment as the store keeps it: ISO 8601 in UTC (text order is time order)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def dump(value: Any) -> str:
    """JSON as the store keeps it: compact, unescaped."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# The columns game_from_row reads, in its order (add a WHERE).
# No game has this id (they count from 1): the spare slots of a statement with a slot per game
# (the group commit's batch, a history page's results) name it.
NO_GAME_ID = 0

SELECT_GAME = sa.select(
    *(
        games.c[name]
        for name in [
            "id",
            "guild_id",
            "channel_id",
            "host_id",
            "status",
            "rules",
            "max_seats",
            "seed",
            "record",
            "seats",
            "message_id",
            "version",
            "created_at",
            "updated_at",
            "ended",
            "settled",
        ]
    )
)


def game_from_row(row: Sequence[Any]) -> Table:
    return Table(
        id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        host_id=row[3],
        status=row[4],
        options=options_from_json(json.loads(row[5])),
        max_seats=row[6],
        seed=row[7],
        record=json.loads(row[8]) if row[8] is not None else None,
        seats=[seat_from_json(item) for item in json.loads(row[9])],
        message_id=row[10],
        version=row[11],
        created_at=parse_time(row[12]),
        updated_at=parse_time(row[13]),
        ended=row[14],
        settled=bool(row[15]),
    )
