"""Settings and the bot's own state: a channel's defaults for its next game, values the bot
keeps about itself (the last synced commands' digest), and the claims that let one process of
several act at a time (:meth:`State.claim_interval`)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from .base import StoreBase, first, serialized, writes
from .rows import dump as _dump
from .rows import iso as _iso
from .schema import bot_state

# claim_interval: moments as zero-padded milliseconds, and how far ahead a claim may be.
_MOMENT_DIGITS = 15
_CLAIM_SKEW_MS = 60_000


class State(StoreBase):
    """Channel settings, the bot's own values and interval claims."""

    async def channel_settings(self, channel_id: int) -> dict[str, Any]:
        """This channel's defaults for its next game (empty when none were set); read on the
        read-only connection, so /kachuful start never waits on the writer for them."""
        return await self.reads.channel_settings(channel_id)

    @serialized
    @writes
    async def set_channel_settings(
        self, *, guild_id: int, channel_id: int, settings: dict[str, Any], updated_by: int
    ) -> None:
        """Replace this channel's defaults (checked by the caller: bot.channel_settings)."""
        await self._db.execute(
            _SET_CHANNEL_SETTINGS,
            {
                "channel_id": channel_id,
                "guild_id": guild_id,
                "settings": _dump(settings),
                "updated_by": updated_by,
                "updated_at": _iso(self._clock()),
            },
        )

    @serialized
    async def bot_state(self, key: str) -> str | None:
        """A value the bot kept about itself (e.g. the last synced commands' digest)."""
        query = sa.select(bot_state.c.value).where(bot_state.c.key == key)
        value = first(await self._db.execute(query))
        return None if value is None else str(value)

    @serialized
    async def set_bot_state(self, key: str, value: str) -> None:
        await self._db.execute(
            _SET_BOT_STATE, {"key": key, "value": value, "updated_at": _iso(self._clock())}
        )

    @serialized
    @writes
    async def claim_interval(self, key: str, now_ms: int, spacing_ms: int) -> int:
        """Claim the moment ``now_ms`` (milliseconds since the epoch) under ``key`` if the last
        claim is at least ``spacing_ms`` old; returns 0 when claimed, else how many
        milliseconds remain. Every process sharing the database sees one claim win: a
        compare-and-set (an upsert whose update only happens when the stored moment is old
        enough), in SQL that SQLite and PostgreSQL both run. A claim more than a minute in
        the future (a clock set wrong) does not block the others forever."""
        # Fixed-width digits: text order is number order, in every engine and collation.
        moment = f"{now_ms:0{_MOMENT_DIGITS}d}"
        changed = (
            await self._db.execute(
                _CLAIM,
                {
                    "key": key,
                    "value": moment,
                    "updated_at": _iso(self._clock()),
                    "old_enough": f"{max(0, now_ms - spacing_ms):0{_MOMENT_DIGITS}d}",
                    "too_new": f"{now_ms + _CLAIM_SKEW_MS:0{_MOMENT_DIGITS}d}",
                },
            )
        ).rowcount
        if changed:
            return 0
        value = first(
            await self._db.execute(sa.select(bot_state.c.value).where(bot_state.c.key == key))
        )
        last = int(value) if value is not None and str(value).isdigit() else now_ms
        return max(1, last + spacing_ms - now_ms)


# Upserts in the SQL both engines run.
_SET_CHANNEL_SETTINGS = sa.text(
    "INSERT INTO channel_settings (channel_id, guild_id, settings, updated_by, updated_at)"
    " VALUES (:channel_id, :guild_id, :settings, :updated_by, :updated_at)"
    " ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id,"
    " settings = excluded.settings, updated_by = excluded.updated_by,"
    " updated_at = excluded.updated_at"
)
_SET_BOT_STATE = sa.text(
    "INSERT INTO bot_state (key, value, updated_at) VALUES (:key, :value, :updated_at)"
    " ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at"
)
_CLAIM = sa.text(
    "INSERT INTO bot_state (key, value, updated_at) VALUES (:key, :value, :updated_at)"
    " ON CONFLICT (key) DO UPDATE SET value = excluded.value,"
    " updated_at = excluded.updated_at"
    " WHERE bot_state.value <= :old_enough OR bot_state.value > :too_new"
)
