"""Cards drawn as cards, through the real bot: the private hand and the public trick carry a
picture drawn off the event loop, the finished trick keeps its own, and the channel setting
turns them off."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from typing import Any

import discord
import pytest
import simcord
from PIL import Image

import bot.ui.payloads

from ..helpers import Table, start_game, validate_all_requests, world

pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store("pictures of the cards; the store takes no part"),
]


def picture(env: simcord.Env, message: discord.Message, name: str) -> Image.Image:
    """The message's attached picture ``name``, as Discord would serve it."""
    [attachment] = [a for a in message.attachments if a.filename == name]
    data = env.backend.cdn.get(attachment.url)
    assert data is not None
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image


@pytest.fixture
def drawing_threads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """For each picture drawn: whether it was drawn on the event loop's thread."""
    on_loop: list[bool] = []
    loop_thread = threading.get_ident()
    real = bot.ui.payloads.draw

    def recording(description: Any) -> bytes:
        on_loop.append(threading.get_ident() == loop_thread)
        return real(description)

    monkeypatch.setattr(bot.ui.payloads, "draw", recording)
    yield on_loop


async def test_the_hand_and_the_trick_are_pictures_drawn_off_the_loop(
    env: simcord.Env, drawing_threads: list[bool]
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    member = await table.bid_all()
    hand = await table.open_hand(member)
    [embed] = hand.embeds
    assert embed.image.url is not None and embed.image.url.endswith("hand.png")
    assert embed.description  # the text stays beside the picture
    width, height = picture(env, hand, "hand.png").size
    assert 0 < width <= 1100 and 0 < height <= 700
    watcher = table.member_at((table.game.turn + 2) % 3)  # not next to play either
    assert watcher is not None
    watched = await table.open_hand(watcher)
    [kept] = watched.attachments
    await table.act(member)  # the first card of the first trick
    await env.advance_time(5)  # past a watcher's redraw interval
    # The watcher's hand was redrawn (the trick changed), its cards were not: the picture it
    # has is kept, not uploaded again.
    redrawn = table.hand(watcher)
    assert redrawn.embeds[0].to_dict() != watched.embeds[0].to_dict()
    assert [a.id for a in redrawn.attachments] == [kept.id]
    live = next(m for m in reversed(table.public()) if "Trick 1 of" in (m.content or ""))
    first = picture(env, live, "trick.png")
    while table.game.deals[0].trick_winners == []:
        await table.act(table.member_at(table.game.turn))
    done = next(m for m in table.public() if m.id == live.id)
    assert "takes it" in (done.content or "")
    # The finished trick's message keeps a picture of its own: three cards and a winner.
    assert picture(env, done, "trick.png").tobytes() != first.tobytes()
    assert len(done.attachments) == 1
    assert drawing_threads and not any(drawing_threads)
    validate_all_requests(env)


async def test_a_channel_can_turn_pictures_off(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    mods = channel.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = channel.guild.add_member(env.create_user("mod"), roles=[mods])
    answer = await mod.slash(channel, "kachuful-settings", pictures=False)
    assert answer.response is not None and "Card pictures" in str(
        answer.response.embeds[0].to_dict()
    )
    table: Table = await start_game(env, channel, members, max_hand=2)
    member = await table.bid_all()
    hand = await table.open_hand(member)
    await table.act(member)
    assert not hand.embeds[0].image.url
    assert all(not m.attachments for m in table.public())
    assert all(not m.attachments for m in table.seen_by(member) if m.flags.ephemeral)
