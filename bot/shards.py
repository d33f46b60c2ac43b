"""Which servers this process serves: Discord puts each server (guild) on one gateway shard,
``(guild_id >> 22) % shard_count``, and a process holds some of the shards.

Every table belongs to a server, so a process restores, drives and publishes exactly the
tables of its own shards' servers; another process, sharing the database, serves the rest.
:meth:`Shards.condition` is the one test of that, for everything that reads the stored tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlalchemy as sa

if TYPE_CHECKING:
    from bot.config import Settings


def shard_of(guild_id: int, shard_count: int) -> int:
    """The gateway shard of a server (Discord's own formula)."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True)
class Shards:
    """The shards of this process: ``count`` across every process (None: unsharded) and the
    ``ids`` this one holds (None: all of them)."""

    count: int | None = None
    ids: frozenset[int] | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Shards:
        ids = settings.shard_ids
        return cls(settings.shard_count, frozenset(ids) if ids is not None else None)

    @property
    def sharded(self) -> bool:
        return self.count is not None

    def condition(self, guild_id: sa.ColumnElement[int]) -> sa.ColumnElement[bool]:
        """The condition on a ``guild_id`` column that keeps the rows of the servers this
        process serves: Discord's formula in SQL, so a process reads only its own shards'
        rows."""
        if self.count is None or self.ids is None:
            return sa.true()
        # A literal shift: PostgreSQL shifts a BIGINT by an INTEGER only.
        shard = guild_id.op(">>")(sa.literal_column("22")) % self.count
        return shard.in_(sorted(self.ids))

    def describe(self) -> str:
        """For the log: which shards this process holds."""
        if self.count is None:
            return "unsharded"
        held = sorted(self.ids) if self.ids is not None else range(self.count)
        return f"shards {','.join(str(i) for i in held)} of {self.count}"


ALL_SHARDS = Shards()  # an unsharded process: every server
