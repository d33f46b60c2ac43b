"""The open hand messages: which interaction (token, when issued, follow-up message,
language) shows each player their cards, so that a hand can be redrawn after a restart.
Written on the bookkeeping connection (see :func:`.base.bookkeeping`)."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from .base import StoreBase, bookkeeping, serialized
from .rows import iso as _iso
from .rows import parse_time
from .schema import hand_messages


class Hands(StoreBase):
    """Each player's open hand message, by game."""

    @bookkeeping
    async def save_hand(
        self,
        game_id: int,
        user_id: int,
        token: str,
        opened_at: datetime,
        message_id: int | None = None,
        language: str | None = None,
    ) -> None:
        """``message_id``: a follow-up message (None: the interaction's original response);
        ``language``: the player's, for redraws (bot.i18n)."""
        await self._book.execute(
            _SAVE_HAND,
            {
                "game_id": game_id,
                "user_id": user_id,
                "token": token,
                "opened_at": _iso(opened_at),
                "message_id": message_id,
                "language": language,
            },
        )

    @bookkeeping
    async def drop_hand(self, game_id: int, user_id: int) -> None:
        await self._book.execute(
            sa.delete(hand_messages).where(
                hand_messages.c.game_id == game_id, hand_messages.c.user_id == user_id
            )
        )

    @serialized
    async def open_hands(
        self, game_id: int
    ) -> dict[int, tuple[str, datetime, int | None, str | None]]:
        """user id -> (interaction token, when it was issued, follow-up message id or None,
        the player's language or None) of the game's open hands."""
        h = hand_messages.c
        rows = await self._db.execute(
            sa.select(h.user_id, h.token, h.opened_at, h.message_id, h.language).where(
                h.game_id == game_id
            )
        )
        return {
            int(row[0]): (
                str(row[1]),
                parse_time(row[2]),
                row[3] and int(row[3]),
                row[4] if isinstance(row[4], str) else None,
            )
            for row in rows
        }


# An upsert in the SQL both engines run.
_SAVE_HAND = sa.text(
    "INSERT INTO hand_messages (game_id, user_id, token, opened_at, message_id, language)"
    " VALUES (:game_id, :user_id, :token, :opened_at, :message_id, :language)"
    " ON CONFLICT (game_id, user_id) DO UPDATE SET token = excluded.token,"
    " opened_at = excluded.opened_at, message_id = excluded.message_id,"
    " language = excluded.language"
)
