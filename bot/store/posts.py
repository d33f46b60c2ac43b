"""What was delivered to Discord (the publisher's bookkeeping): each public message of a
game by key, with its channel, id and digest. Written on the bookkeeping connection (see
:func:`.base.bookkeeping`), so that it never waits behind a move's commit."""

from __future__ import annotations

import sqlalchemy as sa

from .base import StoreBase, bookkeeping, serialized
from .schema import posts
from .values import Delivered


class Posts(StoreBase):
    """The public messages delivered for each game."""

    @serialized
    async def delivered(self, game_id: int) -> dict[str, Delivered]:
        """The public messages delivered for a game so far, by key."""
        query = sa.select(posts.c.key, posts.c.channel_id, posts.c.message_id, posts.c.digest)
        rows = await self._db.execute(query.where(posts.c.game_id == game_id))
        return {row[0]: Delivered(int(row[1]), int(row[2]), str(row[3])) for row in rows}

    @bookkeeping
    async def mark_delivered(self, game_id: int, key: str, delivered: Delivered) -> None:
        await self._book.execute(
            _MARK_DELIVERED,
            {
                "game_id": game_id,
                "key": key,
                "channel_id": delivered.channel_id,
                "message_id": delivered.message_id,
                "digest": delivered.digest,
            },
        )

    @bookkeeping
    async def forget_delivered(self, game_id: int, key: str) -> None:
        await self._book.execute(
            sa.delete(posts).where(posts.c.game_id == game_id, posts.c.key == key)
        )


# An upsert in the SQL both engines run (the stored row's columns named with their table,
# which PostgreSQL needs beside ``excluded``).
_MARK_DELIVERED = sa.text(
    "INSERT INTO posts (game_id, key, channel_id, message_id, digest)"
    " VALUES (:game_id, :key, :channel_id, :message_id, :digest)"
    " ON CONFLICT (game_id, key) DO UPDATE SET channel_id = excluded.channel_id,"
    " message_id = excluded.message_id, digest = excluded.digest"
)
