"""A fast game outruns Discord's 5 new messages in 5 s: while the channel catches up, the
newest public message still offers "Your hand", every trick still appears once and in order,
and the final standings follow the last card closely."""

from __future__ import annotations

import discord
import pytest
import simcord

from .helpers import Table, buttons, start_game, world
from .test_live_table import record_tricks, shown_tricks

HAND = "Your hand"
STEP = 0.25  # seconds between two moves: players clicking as fast as they can


def newest(table: Table) -> discord.Message:
    """The newest public message, not counting the turn ping (a line of text right under the
    table that mentions the player to act)."""
    for message in sorted(table.public(), key=lambda m: m.id, reverse=True):
        if not (message.mentions and not message.embeds and not message.components):
            return message
    raise AssertionError("no public message")


def offers_hand(message: discord.Message) -> bool:
    return any(b.label == HAND for b in buttons(message))


@pytest.mark.paced
async def test_the_newest_message_offers_the_hand_while_the_channel_catches_up(
    env: simcord.Env, virtual_pacing: None
) -> None:
    channel, members = world(env, "asha", "bilal", "chen", "dara")
    table = await start_game(env, channel, members, max_hand=3, players=4)
    await env.advance_time(6)
    while table.session is not None and table.session.row.status == "running":
        assert offers_hand(newest(table)), newest(table).content
        await table.act(table.member_at(table.game.turn))
        if table.session is None or table.session.row.status != "running":
            break
        await env.advance_time(STEP)
        assert offers_hand(newest(table)), newest(table).content
    last_card = env.now()
    while not any("final standings" in (e.title or "") for m in table.public() for e in m.embeds):
        await env.advance_time(STEP)
        assert (env.now() - last_card).total_seconds() <= 6.0, "final standings late"
    await env.advance_time(60)
    public = table.public()
    assert not any(offers_hand(m) for m in public)  # the game is over
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert shown_tricks(public) == record_tricks(stored.record)  # each trick once, in order
    titles = [e.title or "" for m in public for e in m.embeds]
    assert sum(t.startswith("Scores after deal") for t in titles) == 5
    # Fewer messages than one per trick: the game outran the channel, which folded.
    assert len(public) < 3 + sum(size + 2 for size in (3, 2, 1, 2, 3))
