"""A table's post that Discord refuses for a missing permission is kept, not lost: it is not
marked delivered, the host is told once, privately, which permission to grant, and the post
goes out when the permission is back, with nothing posted twice."""

from __future__ import annotations

import collections

import discord
import pytest
import simcord
from simcord.backend.models import Overwrite
from simcord.enums import OverwriteType

from ..helpers import Table, start_game, world

pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store("Discord's permissions; the store takes no part"),
]


def _deny_sending(env: simcord.Env, channel: simcord.ChannelHandle) -> None:
    denied = discord.Permissions(send_messages=True).value
    env.backend.set_overwrite(
        channel.id,
        Overwrite(target_id=env.bot.user.id, type=OverwriteType.MEMBER, allow=0, deny=denied),
    )


async def _play_until_a_new_post_is_due(table: Table, before: int) -> None:
    """Click until the committed game owes the channel a message it has not delivered."""
    for _ in range(40):
        seat = table.game.turn
        member = table.member_at(seat)
        assert member is not None
        result = await table.act(member)
        assert result.acknowledged  # the click counts: the interaction needs no permission
        delivered = await table.env.bot.store.delivered(table.session.row.id)
        if len(delivered) > before and table.session.publisher.refused_in is not None:
            return
        if table.session.publisher.refused_in is not None:
            return
    raise AssertionError("no post was refused")


async def test_a_refused_post_waits_for_the_permission_and_the_host_is_told_once(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    host = members[0]
    table = await start_game(env, channel, members, max_hand=3)
    await env.settle()
    game_id = table.session.row.id
    before = dict(await env.bot.store.delivered(game_id))
    public_before = [m.id for m in table.public()]
    _deny_sending(env, channel)
    await _play_until_a_new_post_is_due(table, len(before))
    # Another click while refused: it counts, and the host is still told only once.
    for _ in range(1):
        seat = table.game.turn
        if seat is None:
            break
        member = table.member_at(seat)
        assert member is not None
        assert (await table.act(member)).acknowledged
    await env.advance_time(5)
    told = [m for m in host.user.dm_channel.history() if m.author.id == env.bot.user.id]
    assert len(told) == 1, [m.content for m in told]
    assert "Send Messages" in told[0].content and f"<#{channel.id}>" in told[0].content
    # Nothing new in the channel (a spent message may have been deleted: its own, allowed).
    assert [m.id for m in table.public() if m.id not in public_before] == []
    owed = table.session.publisher
    assert owed.refused_in == channel.id
    kept = await env.bot.store.delivered(game_id)
    assert set(kept) <= set(before)  # the refused post is not marked delivered

    env.backend.delete_overwrite(channel.id, env.bot.user.id)
    await env.advance_time(61)  # the publisher's next try
    await env.settle()
    assert owed.refused_in is None
    after = await env.bot.store.delivered(game_id)
    assert set(after) - set(before), "the kept posts were not delivered once allowed"
    posted = [m for m in table.public() if m.id not in public_before]
    assert posted, "the kept posts were not posted once allowed"
    # Each delivered key is one message: nothing was posted twice.
    counts = collections.Counter(done.message_id for done in after.values() if done.message_id)
    assert all(count == 1 for count in counts.values())
    await table.play_to_end()
    await env.settle()
    assert len([m for m in host.user.dm_channel.history() if m.author.id == env.bot.user.id]) == 1
