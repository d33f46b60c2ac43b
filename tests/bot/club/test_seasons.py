"""Seasons through the real bot: the current season's standings, its champions announced
once when it ends, the champion role moved, and the hall of champions."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import discord
import pytest
import simcord

from bot.client import KachufulBot
from tests.bot.helpers import start_game

pytestmark = pytest.mark.both_backends


def holds(env: simcord.Env, guild, member, role) -> bool:
    """Whether the member has the role, as Discord stores it."""
    return role.id in env.backend.guilds[guild.id].members[member.id].role_ids


def until_next_month() -> float:
    now = discord.utils.utcnow()
    first = (now.replace(day=1) + timedelta(days=32)).replace(day=1, hour=0, minute=5)
    return (first - now).total_seconds()


async def test_a_monthly_season_crowns_its_champion_once_and_moves_the_role(
    env: simcord.Env, make_bot: Callable[[], KachufulBot]
):
    guild = env.create_guild("Kachuful Club")
    channel = guild.create_text_channel("cards")
    news = guild.create_text_channel("news")
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    champion_role = guild.create_role("Champion")
    manager = guild.add_member(env.create_user("Mo"), roles=[mods])
    members = [guild.add_member(env.create_user(name)) for name in ("asha", "bilal", "chen")]
    refused = await members[0].slash(
        channel, "kachuful-season setup", period="monthly", channel=news
    )
    assert refused.ephemeral and refused.response.content.startswith("⚠️")
    none_yet = await members[0].slash(channel, "kachuful-season standings")
    assert "no seasons" in none_yet.response.content
    done = await manager.slash(
        channel, "kachuful-season setup", period="monthly", channel=news, role=champion_role
    )
    assert "Seasons are on: monthly" in done.response.content
    table = await start_game(env, channel, members, max_hand=1)
    await table.play_to_end()
    board = await members[1].slash(channel, "kachuful-season standings")
    shown = board.response.embeds[0]
    assert shown.title.startswith("🏅 The ") and shown.title.endswith(" season")
    lines = shown.description.splitlines()
    assert len(lines) == 3 and all("1 game" in line for line in lines)
    same = await members[1].slash(channel, "kachuful leaderboard", period="season")
    assert same.response.embeds[0].description == shown.description
    leaders = {line.split("**")[1] for line in lines if line.startswith("1\\. ")}
    await env.advance_time(until_next_month())
    await env.bot.seasons.check()  # the keeper's own look after midnight has run already
    announced = [m for m in news.history() if (m.content or "").startswith("🏆")]
    assert len(announced) == 1, [m.content for m in news.history()]
    champions = [m for m in members if m.name in leaders]
    assert all(f"<@{m.id}>" in announced[0].content for m in champions)
    holders = [m for m in members if holds(env, guild, m, champion_role)]
    assert holders == champions
    hall = await members[0].slash(channel, "kachuful-season champions")
    assert all(name in hall.response.embeds[0].description for name in leaders)
    # A restart announces nothing again.
    await env.restart_bot(make_bot())
    await env.bot.seasons.check()
    assert len([m for m in news.history() if (m.content or "").startswith("🏆")]) == 1
    # The next month nobody plays: no champion, and the role leaves the previous one.
    await env.advance_time(until_next_month())
    await env.bot.seasons.check()
    over = [m for m in news.history() if "no game was finished" in (m.content or "")]
    assert len(over) == 1
    assert not any(holds(env, guild, m, champion_role) for m in members)
    turned_off = await manager.slash(channel, "kachuful-season off")
    assert "off" in turned_off.response.content


@pytest.mark.parametrize("dies", ["after_post", "before_roles"])
async def test_a_crash_while_a_season_is_announced_repeats_nothing(
    env: simcord.Env,
    make_bot: Callable[[], KachufulBot],
    monkeypatch: pytest.MonkeyPatch,
    dies: str,
):
    """The bot dies once the announcement is posted but before its id is stored, or before
    the role is given: after the restart the role is given, and the announcement is either
    not posted again or posted again with the same nonce, which Discord drops (``enforce_nonce``;
    SimCord does not drop it, so the test checks the two requests)."""
    import asyncio

    from bot.store.seasons import Seasons

    guild = env.create_guild("Kachuful Club")
    channel = guild.create_text_channel("cards")
    news = guild.create_text_channel("news")
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    role = guild.create_role("Champion")
    manager = guild.add_member(env.create_user("Mo"), roles=[mods])
    members = [guild.add_member(env.create_user(name)) for name in ("asha", "bilal", "chen")]
    today = discord.utils.utcnow().date().isoformat()
    await manager.slash(
        channel,
        "kachuful-season setup",
        period="dates",
        channel=news,
        role=role,
        first=today,
        last=today,
    )
    table = await start_game(env, channel, members, max_hand=1)
    await table.play_to_end()
    original = Seasons.crowned
    died = []

    async def crowned(self, crown, **done):
        wanted = "message_id" if dies == "after_post" else "roles_done"
        if wanted in done and not died:
            died.append(wanted)
            raise asyncio.CancelledError
        await original(self, crown, **done)

    monkeypatch.setattr(Seasons, "crowned", crowned)
    await env.advance_time(24 * 3600)
    with pytest.raises(asyncio.CancelledError):
        await env.bot.seasons.check()
    monkeypatch.undo()
    await env.restart_bot(make_bot())
    await env.bot.seasons.check()
    posts = [
        r.json
        for r in env.http_requests
        if r.method == "POST" and r.path == f"/channels/{news.id}/messages"
    ]
    assert len(posts) == (2 if dies == "after_post" else 1)
    assert len({p["nonce"] for p in posts}) == 1 and all(p["enforce_nonce"] for p in posts)
    assert any(holds(env, guild, m, role) for m in members)
    (crown,) = await env.bot.store.seasons.crowns(guild.id)
    assert crown.message_id is not None and crown.roles_done
