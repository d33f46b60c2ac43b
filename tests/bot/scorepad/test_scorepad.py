"""/kachuful-scorepad (docs/scorepad.md): a game played with a real deck, its bids and tricks
entered with buttons on one public message, every entry checked, the score kept, the final
standings with the chart; results counted once, apart from online games or with them as the
server chooses; refusals change nothing; a crash loses and doubles nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import discord
import pytest
import simcord

from bot.client import KachufulBot
from bot.store.scorepads import ScorePads
from tests.bot.helpers import buttons, world
from tests.bot.review.helpers import forge, texts

pytestmark = pytest.mark.both_backends


def pad_message(channel: simcord.ChannelHandle) -> discord.Message:
    return next(m for m in reversed(channel.history()) if not m.flags.ephemeral and m.embeds)


def pad_button(message: discord.Message, prefix: str, value: int | None = None) -> str:
    for b in buttons(message):
        cid = b.custom_id or ""
        if cid.startswith(prefix) and (value is None or cid.endswith(f":{value}")):
            return cid
    raise AssertionError(f"no {prefix} {value} in {[b.custom_id for b in buttons(message)]}")


async def click(member: Any, channel: Any, prefix: str, value: int | None = None) -> Any:
    message = pad_message(channel)
    return await member.click(message, custom_id=pad_button(message, prefix, value))


async def opened(env: simcord.Env) -> tuple[Any, list[Any]]:
    channel, members = world(env, "asha", "bilal", "chen")
    asha, bilal, chen = members
    answer = await asha.slash(channel, "kachuful-scorepad", max_hand=2, schedule="down")
    assert not answer.ephemeral
    for member in (bilal, chen):
        await click(member, channel, "kf:sj:")
    await click(asha, channel, "kf:ss:")
    return channel, members


async def play_deal_one(channel: Any, members: list[Any]) -> None:
    """Two cards, asha deals: bilal bids 1, chen 0, asha 0; bilal took 2, the others 0."""
    asha, bilal, chen = members
    await click(bilal, channel, "kf:sb:", 1)
    await click(chen, channel, "kf:sb:", 0)
    await click(asha, channel, "kf:sb:", 0)
    await click(bilal, channel, "kf:st:", 2)
    await click(chen, channel, "kf:st:", 0)
    await click(asha, channel, "kf:st:", 0)


async def play_deal_two(channel: Any, members: list[Any]) -> None:
    """One card, bilal deals: chen bids 0, asha 1, bilal 1 (1 + 1 ≠ 1... allowed); asha took it."""
    asha, bilal, chen = members
    await click(chen, channel, "kf:sb:", 0)
    await click(asha, channel, "kf:sb:", 1)
    await click(bilal, channel, "kf:sb:", 1)
    await click(asha, channel, "kf:st:", 1)
    await click(bilal, channel, "kf:st:", 0)
    await click(chen, channel, "kf:st:", 0)


async def test_a_real_deck_game_is_scored_deal_by_deal(env: simcord.Env) -> None:
    channel, members = await opened(env)
    asha, bilal, chen = members
    shown = texts(pad_message(channel))
    assert "Score pad · deal 1 of 2 · 2 cards" in shown and "🂠 asha deals." in shown
    assert "bilal to bid." in shown
    # Out of turn: told privately, nothing changes.
    wrong = await click(chen, channel, "kf:sb:", 0)
    assert wrong.ephemeral and "bilal's turn" in wrong.response.content
    await click(bilal, channel, "kf:sb:", 1)
    await click(chen, channel, "kf:sb:", 0)
    # The dealer may not make the bids add up to 2: the 1 is greyed out, and a forged click
    # of it is refused.
    message = pad_message(channel)
    one = next(
        b for b in buttons(message) if (b.custom_id or "").startswith("kf:sb:") and b.label == "1"
    )
    assert one.disabled
    forged = await forge(env, asha, message, one.custom_id)
    assert forged.ephemeral and "do not allow that bid" in forged.response.content
    await click(asha, channel, "kf:sb:", 0)
    assert "click the number of tricks you took" in texts(pad_message(channel))
    await click(bilal, channel, "kf:st:", 2)
    too_many = await click(chen, channel, "kf:st:", 1)
    assert too_many.ephemeral and "makes 3 tricks, and this deal has 2" in too_many.response.content
    await click(chen, channel, "kf:st:", 0)
    await click(asha, channel, "kf:st:", 0)
    shown = texts(pad_message(channel))
    assert "Score pad · deal 2 of 2 · 1 card" in shown and "🂠 bilal deals." in shown
    assert "asha: 10" in shown and "chen: 10" in shown and "bilal: 0" in shown
    await play_deal_two(channel, members)
    final = pad_message(channel)
    shown = texts(final)
    assert "final standings" in shown and "1\\. asha — 21 🏆" in shown
    assert "Counted apart from online games" in shown
    assert final.attachments and final.attachments[0].filename == "kachuful-scorepad.png"
    assert not buttons(final)
    pad = await env.bot.store.scorepads.load(1)
    assert pad is not None and pad.status == "finished" and pad.board == "apart"
    assert pad.record is not None and "not by the bot" in pad.record["cards"]
    exported = await chen.slash(channel, "kachuful export", scorepad=pad.id)
    [document] = [json.loads(await f.read()) for f in exported.response.attachments]
    assert exported.ephemeral and document == pad.record
    assert document["format"] == "kachuful-scorepad/1"
    missing = await chen.slash(channel, "kachuful export", scorepad=99)
    assert missing.ephemeral and "no such score pad" in missing.response.content
    # Counted apart: on the real-deck board, not on the online one.
    real = await asha.slash(channel, "kachuful leaderboard", scope="server", cards="real")
    assert "asha" in texts(real.response) and "bilal" in texts(real.response)
    assert "the bot dealt none of these cards" in texts(real.response)
    online = await env.bot.store.reads.leaderboard(
        guild_id=env.guild.id, channel_id=channel.id, scope="server"
    )
    assert online.rows == []


async def test_a_server_may_count_its_pads_with_online_games(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    managers = env.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    meera = env.guild.add_member(env.create_user("meera"), roles=[managers])
    # The managers' command is hidden from the other members, and refused in code to a member
    # the server lets see it.
    assert "kachuful-scorepad-boards" not in members[1].available_commands(channel)
    assert "kachuful-scorepad-boards" in meera.available_commands(channel)
    assert "kachuful-scorepad" in members[1].available_commands(channel)
    with pytest.raises(simcord.SetupError):
        await members[1].slash(channel, "kachuful-scorepad-boards", boards="together")
    command = env.backend.find_command("kachuful-scorepad-boards", None)
    assert command is not None
    env.guild.set_command_permissions(int(command["id"]), {members[1]: True})
    refused = await members[1].slash(channel, "kachuful-scorepad-boards", boards="together")
    assert refused.ephemeral and "Manage Server" in refused.response.content
    chosen = await meera.slash(channel, "kachuful-scorepad-boards", boards="together")
    assert chosen.ephemeral and "same boards as online games" in chosen.response.content
    asha, bilal, chen = members
    await asha.slash(channel, "kachuful-scorepad", max_hand=2, schedule="down")
    for member in (bilal, chen):
        await click(member, channel, "kf:sj:")
    await click(asha, channel, "kf:ss:")
    await play_deal_one(channel, members)
    await play_deal_two(channel, members)
    assert "with its online games" in texts(pad_message(channel))
    online = await asha.slash(channel, "kachuful leaderboard", scope="server")
    shown = texts(online.response)
    assert "asha" in shown and "Includes games played with a real deck" in shown


async def test_lobby_refusals_change_nothing(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    asha, bilal, chen = members
    await asha.slash(channel, "kachuful-scorepad")
    second = await bilal.slash(channel, "kachuful-scorepad")
    assert second.ephemeral and "one at a time" in second.response.content
    elsewhere = env.guild.create_text_channel("other")
    turned = await bilal.slash(elsewhere, "kachuful-scorepad", trump="turned")
    assert turned.ephemeral and "except blind bids, the forehead deal and the turned trump" in (
        turned.response.content
    )
    assert await env.bot.store.scorepads.active_in(elsewhere.id) is None
    early = await click(asha, channel, "kf:ss:")
    assert early.ephemeral and "at least 3 players (players so far: 1)" in early.response.content
    await click(bilal, channel, "kf:sj:")
    again = await click(bilal, channel, "kf:sj:")
    assert again.ephemeral and "already" in again.response.content
    not_host = await click(bilal, channel, "kf:ss:")
    assert not_host.ephemeral and "Only the host" in not_host.response.content
    outsider = await click(chen, channel, "kf:sl:")
    assert outsider.ephemeral and "not playing" in outsider.response.content
    pad = await env.bot.store.scorepads.load(1)
    assert pad is not None and [s.name for s in pad.seats] == ["asha", "bilal"]
    await click(asha, channel, "kf:sx:")
    assert "stopped; nothing was counted" in texts(pad_message(channel))


async def test_a_crash_as_a_pad_ends_counts_it_once(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, make_bot: Callable[[], KachufulBot]
) -> None:
    channel, members = await opened(env)
    asha, bilal, chen = members
    await play_deal_one(channel, members)
    await click(chen, channel, "kf:sb:", 0)
    await click(asha, channel, "kf:sb:", 1)
    await click(bilal, channel, "kf:sb:", 1)
    await click(asha, channel, "kf:st:", 1)
    await click(bilal, channel, "kf:st:", 0)
    original = ScorePads.save
    died: list[bool] = []

    async def dies(self: ScorePads, pad: Any, **kwargs: Any) -> bool:
        if not died:
            died.append(True)
            await original(self, pad, **kwargs)
            raise asyncio.CancelledError  # the process stops before the message is edited
        return await original(self, pad, **kwargs)

    monkeypatch.setattr(ScorePads, "save", dies)
    stale = pad_message(channel)
    last = pad_button(stale, "kf:st:", 0)
    await chen.click(stale, custom_id=last)
    # The pad is saved finished, its message still asks for chen's count.
    assert "final standings" not in texts(pad_message(channel))
    await env.restart_bot(make_bot())
    # At start the bot draws the message again from the saved pad: nobody needs to click.
    final = pad_message(channel)
    assert final.id == stale.id and "final standings" in texts(final)
    assert final.attachments and not buttons(final)
    pad = await env.bot.store.scorepads.load(1)
    assert pad is not None and pad.shown == pad.version
    # The old button is gone from the message; a forged click of it changes nothing.
    forged = await forge(env, chen, final, last)
    assert forged.ephemeral
    board = await env.bot.store.reads.leaderboard(
        guild_id=-env.guild.id, channel_id=channel.id, scope="server"
    )
    games = {row.name: row.games for row in board.rows}
    assert games == {"asha": 1, "bilal": 1, "chen": 1}


async def test_a_pad_whose_message_was_never_posted_is_posted_at_start(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, make_bot: Callable[[], KachufulBot]
) -> None:
    """The process dies after the pad is stored, before its message goes out: the channel
    would hold a pad nobody can see (and no second one). At start it is posted."""
    channel, members = world(env, "asha", "bilal", "chen")
    original = ScorePads.shown_on
    calls: list[bool] = []

    async def never(self: ScorePads, pad: Any, message_id: int) -> None:
        calls.append(True)
        raise asyncio.CancelledError  # dies before it is marked shown

    monkeypatch.setattr(ScorePads, "shown_on", never)
    await members[0].slash(channel, "kachuful-scorepad")
    # Simulate the post itself lost too: the message is deleted from the channel.
    for message in channel.history():
        if message.embeds:
            env.backend.delete_message(channel.id, message.id)
    monkeypatch.setattr(ScorePads, "shown_on", original)
    assert calls and not [m for m in channel.history() if m.embeds]
    await env.restart_bot(make_bot())
    posted = pad_message(channel)
    assert "Score pad (real cards)" in texts(posted)
    await click(members[1], channel, "kf:sj:")
    pad = await env.bot.store.scorepads.load(1)
    assert pad is not None and [s.name for s in pad.seats] == ["asha", "bilal"]
    assert pad.shown == pad.version and pad.message_id == posted.id


async def test_a_pad_posted_just_before_a_crash_is_not_posted_again(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, make_bot: Callable[[], KachufulBot]
) -> None:
    """The process dies after answering /kachuful-scorepad with the pad, before storing its
    message's id (found by benchmarks/kill_loop.py): at start the bot finds that message
    through the answer's token instead of posting a second pad."""
    channel, members = world(env, "asha", "bilal", "chen")

    async def dies(self: ScorePads, pad: Any, message_id: int) -> None:
        raise asyncio.CancelledError  # the message is out, its id not stored

    monkeypatch.setattr(ScorePads, "shown_on", dies)
    await members[0].slash(channel, "kachuful-scorepad")
    monkeypatch.undo()
    posted = pad_message(channel)
    await env.restart_bot(make_bot())
    pads = [m for m in channel.history() if not m.flags.ephemeral and m.embeds]
    assert [m.id for m in pads] == [posted.id]
    pad = await env.bot.store.scorepads.load(1)
    assert pad is not None and pad.message_id == posted.id and pad.shown == pad.version
    await click(members[1], channel, "kf:sj:")
    pad = await env.bot.store.scorepads.load(1)
    assert pad is not None and [s.name for s in pad.seats] == ["asha", "bilal"]
