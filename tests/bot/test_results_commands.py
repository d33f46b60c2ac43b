"""The results commands through SimCord: leaderboard pages and own row, stats, history,
export of finished and running games, channel settings, and how the cogs share /kachuful."""

from __future__ import annotations

import json

import discord
import pytest
import simcord
from discord import app_commands

from bot.i18n import EN
from bot.model import Seat, TableOptions
from bot.store.values import ResultRow
from cogs.leaderboard import bad_option
from kachuful_core import card_str

from .helpers import button, start_game, world
from .test_slash_options import forged_slash

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends


async def finish_directly(
    env: simcord.Env, guild_id: int, channel_id: int, seats: list[tuple[int | None, str, int]]
) -> int:
    """A finished game written through the store's finish path (quicker than playing)."""
    store = env.bot.store
    row = await store.create_game(
        guild_id=guild_id,
        channel_id=channel_id,
        host_id=seats[0][0] or 1,
        options=TableOptions(),
        max_seats=max(3, len(seats)),
        seats=[Seat(user_id=user, name=name) for user, name, _ in seats],
    )
    row.status = "finished"
    row.version = 1
    best = max(score for _, _, score in seats)
    await store.save_game(
        row,
        results=[
            ResultRow(seat=i, user_id=user, score=score, won=score == best, bids_exact=1, bids=3)
            for i, (user, _, score) in enumerate(seats)
        ],
    )
    return row.id


async def test_subcommands_of_every_cog_share_the_one_group(env: simcord.Env) -> None:
    tree = env.bot.tree
    top = {command.name for command in tree.get_commands()}
    # /kachuful-settings, /kachuful-permissions, /kachuful-scorepad-boards and /kachuful-club
    # are commands of their own: only a top-level command can be hidden from members without a
    # permission (cogs/settings.py); events, seasons and the score pad are too, since Discord
    # counts at most 8,000 characters for a command with all it holds (cogs/event.py).
    assert top == {
        "kachuful",
        "kachuful-event",
        "kachuful-season",
        "kachuful-scorepad",
        "kachuful-scorepad-boards",
        "kachuful-settings",
        "kachuful-permissions",
        "kachuful-club",
    }
    group = tree.get_command("kachuful")
    assert isinstance(group, app_commands.Group)
    names = {command.name for command in group.commands}
    assert {"start", "leaderboard", "stats", "history", "export"} <= names
    assert group.get_command("stats").binding is env.bot.get_cog("StatsCog")  # type: ignore[union-attr]
    # The cog can be unloaded and loaded again.
    await env.bot.unload_extension("cogs.stats")
    assert group.get_command("stats") is None
    await env.bot.load_extension("cogs.stats")
    assert group.get_command("stats") is not None


async def test_leaderboard_pages_own_row_and_refusals(env: simcord.Env) -> None:
    channel, members = world(env, "asha")
    asha = members[0]
    guild_id = env.guild.id
    # 24 other players, then asha last of all.
    for game in range(12):
        await finish_directly(
            env,
            guild_id,
            channel.id,
            [
                (5000 + 2 * game, f"Player <@{game}> *{game}*", 100 - game),
                (5001 + 2 * game, f"P{game}b", 90 - game),
                (None, "Robo 🤖", 0),
            ],
        )
    await finish_directly(env, guild_id, channel.id, [(asha.id, "asha", -5), (None, "Robo 🤖", 0)])
    first = await asha.slash(channel, "kachuful leaderboard", sort="average")
    assert not first.response.ephemeral
    embed = first.response.embeds[0]
    heading, *lines = (embed.description or "").splitlines()
    assert heading == "*player · **average** · games*"
    assert len(lines) == 10 and lines[0].startswith("`#1` Player")
    assert "<@0>" not in embed.description  # a name that looks like a mention stays text
    assert "Robo" not in embed.description
    [own] = embed.fields
    assert own.name == "asha (you)" and own.value.startswith("`#25` asha")
    assert "page 1 of 3" in (embed.footer.text or "")
    message = channel.history()[-1]
    assert message.id == first.response.id
    assert button(message, "Previous").disabled
    assert all(
        len(c) <= 100 and c.isascii() for c in (b.custom_id for b in message.components[0].children)
    )
    nxt = await asha.click(message, label="Next")
    assert nxt.acknowledged, (nxt.response, [(e.method, e.path) for e in env.http_requests[-3:]])
    edited = channel.history()[-1]
    assert "page 2 of 3" in (edited.embeds[0].footer.text or "")
    assert edited.embeds[0].description.splitlines()[1].startswith("`#11`")
    await asha.click(edited, label="Next")
    last = channel.history()[-1]
    assert "page 3 of 3" in (last.embeds[0].footer.text or "")
    assert last.embeds[0].fields == []  # asha is on this page
    assert button(last, "Next").disabled
    # An option outside the choices (a modified client can send one) is refused in words.
    for options, name in (({"period": "1y"}, "`period`"), ({"sort": "luck"}, "`sort`")):
        forged = await forged_slash(env, asha, channel, "kachuful leaderboard", **options)
        assert forged.ephemeral and forged.response is not None
        assert name in forged.response.content
    assert "`scope` must be one of channel, server" in (bad_option("x", "all", "rating", EN) or "")
    assert bad_option("server", "30d", "exact", EN) is None
    # The history pages the same way (13 games: two pages).
    history = await asha.slash(channel, "kachuful history")
    assert "page 1 of 2" in (history.response.embeds[0].footer.text or "")
    listed = channel.history()[-1]
    assert listed.id == history.response.id
    await asha.click(listed, label="Next")
    turned = channel.history()[-1]
    assert "page 2 of 2" in (turned.embeds[0].footer.text or "")
    assert turned.embeds[0].description.count("**Game ") == 3  # games 3, 2 and 1
    # Periods and server scope answer as well.
    week = await asha.slash(
        channel, "kachuful leaderboard", scope="server", period="7d", sort="wins"
    )
    assert "last 7 days" in (week.response.embeds[0].title or "")


async def test_stats_history_and_stopped_games_after_play(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    asha = members[0]
    nothing = await asha.slash(channel, "kachuful stats")
    assert nothing.response.ephemeral and "not finished a game" in nothing.response.content
    table = await start_game(env, channel, members, max_hand=2, schedule="down")
    await table.play_to_end()
    stats = await asha.slash(channel, "kachuful stats")
    assert stats.response.ephemeral  # only the asker sees it
    fields = {f.name: f.value for f in stats.response.embeds[0].fields}
    assert "1 game played" in fields["Games"]
    assert "1 card" in fields["By hand size"] and "2 cards" in fields["By hand size"]
    assert "By trump" in fields and "Rating" in fields
    other = await asha.slash(channel, "kachuful stats", member=members[1])
    assert "bilal" in (other.response.embeds[0].title or "")
    # A second game, stopped: it shows in the history as stopped, and changes no statistics.
    await asha.slash(channel, "kachuful start")
    await asha.slash(channel, "kachuful stop")
    history = await asha.slash(channel, "kachuful history")
    text = history.response.embeds[0].description or ""
    # Newest first, two lines a game: its number, day and link, then its players and end.
    first_head, first, second_head, second = text.splitlines()
    assert first_head.startswith("**Game 2**") and second_head.startswith("**Game 1**")
    assert "stopped" in first and "won by" in second and "asha" in second
    assert f"https://discord.com/channels/{env.guild.id}/{channel.id}/" in second_head
    again = await asha.slash(channel, "kachuful stats")
    assert "1 game played" in {f.name: f.value for f in again.response.embeds[0].fields}["Games"]


async def test_export_of_a_running_game_shows_no_unplayed_card(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen", "dev")
    _, bilal, _, dev = members
    table = await start_game(env, channel, members[:3], max_hand=5, schedule="down")
    # Play the first deal out and one trick of the next.
    while table.game.deal_index == 0 or len(table.game.completed_tricks) < 1:
        seat = table.game.turn
        await table.act(table.member_at(seat))
    refused = await dev.slash(channel, "kachuful export", game=table.session.row.id)
    assert refused.response.ephemeral and "only its players" in refused.response.content
    exported = await bilal.slash(channel, "kachuful export", game=table.session.row.id)
    assert exported.response.ephemeral
    files = {a.filename: json.loads(await a.read()) for a in exported.response.attachments}
    so_far = files[f"kachuful-game-{table.session.row.id}-so-far.json"]
    current = files[f"kachuful-game-{table.session.row.id}-current-deal.json"]
    assert len(so_far["deals"]) == 1 and current["deal"] == 1 and len(current["tricks"]) >= 1
    held = {card_str(c) for seat in range(3) for c in table.game.hand(seat)}
    on_table = {card_str(c) for _, c in table.game.current_trick}
    # Each deal is shuffled anew, so a card held now may have been played in deal 0: the
    # played-out deal is checked to be played out, the deal in progress to show none of them.
    [done] = so_far["deals"]
    dealt = [card for hand in done["hands"] for card in hand]
    assert sorted(dealt) == sorted(card for trick in done["tricks"] for card in trick)
    text = json.dumps(current)
    assert not [card for card in held | on_table if f'"{card}"' in text]
    assert "hands" not in current
    # An unknown game number, or one of another server, is refused the same way.
    missing = await bilal.slash(channel, "kachuful export", game=999)
    assert missing.response.ephemeral and "no game 999" in missing.response.content


async def test_channel_settings_need_manage_server_and_apply_to_next_game(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha")
    asha = members[0]
    managers = env.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = env.guild.add_member(env.create_user("mod"), roles=[managers])
    # Hidden from members without Manage Server (tests/bot/test_settings_command.py shows the
    # check in code for those a server lets see it).
    with pytest.raises(simcord.SetupError):
        await asha.slash(channel, "kachuful-settings", presentation="compact")
    assert await env.bot.store.channel_settings(channel.id) == {}
    saved = await mod.slash(
        channel,
        "kachuful-settings",
        presentation="compact",
        turn_seconds=45,
        computers=True,
        computer_levels="random,search",
        scoring="penalty",
    )
    assert saved.response.ephemeral and "next game" in (saved.response.embeds[0].description or "")
    assert await env.bot.store.channel_settings(channel.id) == {
        "presentation": "compact",
        "turn_seconds": 45,
        "computers": True,
        "computer_levels": ["random", "search"],
        "scoring": "penalty",
    }
    shown = await mod.slash(channel, "kachuful-settings")
    described = shown.response.embeds[0].description or ""
    assert "Compact: one message per deal" in described and "Beginner, Expert" in described
    await mod.slash(channel, "kachuful-settings", reset=True)
    assert await env.bot.store.channel_settings(channel.id) == {}
