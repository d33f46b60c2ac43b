"""Where a command was typed, and which table is that place's: one rule for every command
that acts on "the game here" (docs/architecture.md §4, "A table's places").

A table is kept under a channel (``Table.channel_id``): the channel its lobby was posted in,
or, for an event's table, its own thread. In thread mode its game is played in a public thread
opened from its lobby, and Discord gives a thread opened from a message that message's id. So:

- in a channel, the table is the channel's own: its lobby, and its game wherever it is played
  (a player typing ``/kachuful score`` beside the lobby of a game played in its thread gets
  that game);
- in a thread, the table is the thread's own (an event's table, a game started in the thread)
  or the one whose lobby opened the thread (``lobby_id``).

The same rule finds open tables in memory (``OpenTables.session_at``), finished games in the
store (``bot/store/reads.py``: the last finished game, the history) and the channel whose
leaderboard a place shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import discord


class Located(Protocol):
    """A stored table, as far as its place goes (``bot.model.Table``, ``GameRef``)."""

    @property
    def channel_id(self) -> int: ...

    @property
    def message_id(self) -> int | None: ...


@dataclass(frozen=True)
class Place:
    """A channel, or a thread and the channel it is in (``parent_id``)."""

    id: int
    parent_id: int | None = None

    @property
    def lobby_id(self) -> int | None:
        """The lobby message a thread was opened from (its own id), for a thread."""
        return self.id if self.parent_id is not None else None

    def holds(self, table: Located) -> bool:
        """Whether this is a place of the table: its channel, or the thread its lobby opened."""
        if table.channel_id == self.id:
            return True
        return (
            self.parent_id is not None
            and table.channel_id == self.parent_id
            and table.message_id == self.id
        )


def place_of(interaction: discord.Interaction[Any]) -> Place | None:
    """Where an interaction came from (None outside a server's channel)."""
    # Imported here so that the change path (which needs only ``Place``) loads no discord.py.
    import discord

    if interaction.channel_id is None:
        return None
    channel = interaction.channel
    parent = channel.parent_id if isinstance(channel, discord.Thread) else None
    return Place(interaction.channel_id, parent)
