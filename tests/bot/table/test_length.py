"""The host knows and chooses the game's length: the lobby says how many deals and about how
long, for the seats taken so far, and the host picks quick, classic or full (in the lobby or
with /kachuful start length:); the record keeps the length as its max_hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
import pytest
import simcord

from bot.client import KachufulBot
from kachuful_core import record_document

from ..helpers import Table, button, buttons, craft_click, lobby_message, world

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store(
        "game lengths are the engine's; their storage is tests/bot/store/test_table_options.py"
    ),
]

DEAD = "This button no longer works."


def length_field(message: discord.Message) -> str:
    fields = {f.name: f.value or "" for f in message.embeds[0].fields}
    return fields["Length"]


def pressed(message: discord.Message) -> list[str]:
    """The length buttons shown as chosen (disabled, highlighted)."""
    return [b.label for b in buttons(message) if b.label.endswith(" game") and b.disabled]


async def test_the_lobby_says_how_many_deals_and_how_long_and_follows_the_seats(
    env: simcord.Env,
) -> None:
    channel, (asha, bilal, chen, dev) = world(env, "asha", "bilal", "chen", "dev")
    opened = await asha.slash(channel, "kachuful start", players=4)
    assert not opened.ephemeral
    text = length_field(lobby_message(channel))
    # Alone at the table: counted for the 3 seats a game needs (13 cards each: 25 + 8 deals).
    assert "Full: the whole deck" in text
    assert "**33 deals** with 3 players" in text and "about 2 h 20 min" in text
    assert pressed(lobby_message(channel)) == ["Full game"]
    await bilal.slash(channel, "kachuful join")
    await chen.slash(channel, "kachuful join")
    assert "**33 deals** with 3 players" in length_field(lobby_message(channel))
    await dev.slash(channel, "kachuful join")
    text = length_field(lobby_message(channel))
    assert "**25 deals** with 4 players" in text and "about 1 h 50 min" in text
    await dev.slash(channel, "kachuful leave")
    assert "**33 deals** with 3 players" in length_field(lobby_message(channel))


async def test_a_computer_seat_makes_the_estimate_shorter(env: simcord.Env) -> None:
    channel, (asha, bilal) = world(env, "asha", "bilal")
    await asha.slash(channel, "kachuful start", players=3)
    await bilal.slash(channel, "kachuful join")
    people = length_field(lobby_message(channel))
    offered = await asha.click(lobby_message(channel), label="Add computer player")
    await asha.click(offered.response, label="Casual")  # type: ignore[arg-type]
    # The same 33 deals; the computer moves at once here (KACHUFUL_BOT_DELAY_SECONDS=0).
    with_computer = length_field(lobby_message(channel))
    assert "**33 deals** with 3 players" in people and "about 2 h 20 min" in people
    assert "**33 deals** with 3 players" in with_computer
    assert "about 1 h 35 min" in with_computer


async def test_the_host_chooses_quick_and_the_game_has_nine_deals_recorded_as_max_hand_5(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen", "dev")
    asha = members[0]
    await asha.slash(channel, "kachuful start", players=4)
    for member in members[1:]:
        await member.slash(channel, "kachuful join")
    chosen = await asha.click(lobby_message(channel), label="Quick game")
    assert not chosen.ephemeral  # the lobby itself, redrawn
    lobby = lobby_message(channel)
    assert "Quick: hands up to 5 and back" in length_field(lobby)
    assert "**9 deals** with 4 players" in length_field(lobby)
    assert "about 20 min" in length_field(lobby)
    assert pressed(lobby) == ["Quick game"]
    await asha.click(lobby, label="Start (host)")
    table = Table(env, channel, members)
    assert table.game.rules.num_deals == 9
    assert list(table.game.rules.hand_sizes) == [5, 4, 3, 2, 1, 2, 3, 4, 5]
    rules = record_document(table.game)["rules"]
    assert rules["max_hand"] == 5 and "length" not in rules
    game_id = table.session.row.id
    await table.play_to_end()
    stored = await env.bot.store.load_game(game_id)
    assert stored is not None and stored.status == "finished"
    assert stored.record is not None and len(stored.record["deals"]) == 9
    assert stored.record["rules"]["max_hand"] == 5


async def test_only_the_host_chooses_the_length(env: simcord.Env) -> None:
    channel, (asha, bilal) = world(env, "asha", "bilal")
    await asha.slash(channel, "kachuful start", players=3)
    await bilal.slash(channel, "kachuful join")
    session = env.bot.tables.open.session_in(channel.id)
    before = (session.row.options, session.row.version)
    lobby = lobby_message(channel)
    refused = await bilal.click(lobby, label="Quick game")
    assert refused.ephemeral and refused.response is not None
    assert refused.response.content == "Only the host can do that."
    assert (session.row.options, session.row.version) == before
    assert pressed(lobby_message(channel)) == ["Full game"]
    stored = await env.bot.store.load_game(session.row.id)
    assert stored is not None and stored.options.rules["max_hand"] == "full"


async def test_a_forged_length_is_refused_and_changes_nothing(env: simcord.Env) -> None:
    channel, (asha,) = world(env, "asha")
    await asha.slash(channel, "kachuful start", players=3)
    session = env.bot.tables.open.session_in(channel.id)
    before = (session.row.options, session.row.version)
    lobby = lobby_message(channel)
    for custom_id in (
        f"kf:n:{session.row.id}:marathon",
        f"kf:n:{session.row.id}:QUICK",
        f"kf:n:{session.row.id}:quick:1",
        f"kf:n:{session.row.id + 1}:quick",
    ):
        forged = await craft_click(env, asha, lobby, custom_id)
        assert forged.ephemeral and forged.response is not None
        assert forged.response.content == DEAD, custom_id
    assert (session.row.options, session.row.version) == before
    assert pressed(lobby_message(channel)) == ["Full game"]


async def test_a_length_once_chosen_survives_a_restart(
    env: simcord.Env, make_bot: Callable[[], KachufulBot]
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    asha = members[0]
    await asha.slash(channel, "kachuful start", players=3)
    await asha.click(lobby_message(channel), label="Classic game")
    await env.restart_bot(make_bot())
    session = env.bot.tables.open.session_in(channel.id)
    assert session.row.options.rules["max_hand"] == "classic"
    assert "**19 deals** with 3 players" in length_field(lobby_message(channel))
    for member in members[1:]:
        await member.slash(channel, "kachuful join")
    await asha.click(lobby_message(channel), label="Start (host)")
    table = Table(env, channel, members)
    assert table.game.rules.max_hand == 10 and table.game.rules.num_deals == 19


async def test_start_takes_a_length_and_a_max_hand_given_wins(env: simcord.Env) -> None:
    channel, (asha,) = world(env, "asha")
    opened = await asha.slash(channel, "kachuful start", players=3, length="quick")
    assert not opened.ephemeral
    session = env.bot.tables.open.session_in(channel.id)
    assert session.row.options.rules["max_hand"] == "quick"
    assert "**9 deals** with 3 players" in length_field(lobby_message(channel))
    await asha.slash(channel, "kachuful leave")  # the lobby closes

    other = env.guild.create_text_channel("more-cards")
    await asha.slash(other, "kachuful start", players=3, length="quick", max_hand=3)
    row = env.bot.tables.open.session_in(other.id).row
    assert row.options.rules["max_hand"] == 3
    text = length_field(lobby_message(other))
    assert "Max hand: 3 cards" in text and "**5 deals** with 3 players" in text
    assert pressed(lobby_message(other)) == []  # no length is chosen: a number of cards is
    # The host may still choose a length in the lobby, which replaces the number.
    await asha.click(lobby_message(other), label="Full game")
    assert row.options.rules["max_hand"] == "full"


async def test_a_length_typed_at_start_wins_over_the_channels_max_hand(
    env: simcord.Env,
) -> None:
    channel, (asha,) = world(env, "asha")
    managers = env.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = env.guild.add_member(env.create_user("mod"), roles=[managers])
    await mod.slash(channel, "kachuful-settings", max_hand=4)
    await asha.slash(channel, "kachuful start", players=3, length="classic")
    assert env.bot.tables.open.session_in(channel.id).row.options.rules["max_hand"] == "classic"
    await asha.slash(channel, "kachuful leave")
    # A channel's length is its default for the next game, and replaces its max_hand.
    await mod.slash(channel, "kachuful-settings", length="quick")
    assert await env.bot.store.channel_settings(channel.id) == {"length": "quick"}
    await asha.slash(channel, "kachuful start", players=3)
    assert env.bot.tables.open.session_in(channel.id).row.options.rules["max_hand"] == "quick"


async def test_the_start_command_offers_the_lengths_in_players_words(env: simcord.Env) -> None:
    command = env.backend.find_command("kachuful", None)
    assert command is not None
    start = next(o for o in command["options"] if o["name"] == "start")
    length = next(o for o in start["options"] if o["name"] == "length")
    names = {c["value"]: c["name"] for c in length["choices"]}
    assert list(names) == ["quick", "classic", "full"]
    assert names["quick"].startswith("Quick") and names["full"].endswith("(default)")


def _labels(message: discord.Message) -> list[Any]:
    return [b.label for b in buttons(message)]


async def test_the_lobby_buttons_fit_discord(env: simcord.Env) -> None:
    channel, (asha,) = world(env, "asha")
    await asha.slash(channel, "kachuful start")
    lobby = lobby_message(channel)
    assert _labels(lobby)[-3:] == ["Quick game", "Classic game", "Full game"]
    assert all(len(b.custom_id or "") <= 100 for b in buttons(lobby))
    assert button(lobby, "Quick game").custom_id.startswith("kf:n:")
