"""The end of a game: the final standings carry the score chart and "Play again"."""

from __future__ import annotations

import pytest
import simcord

from ..helpers import Table, buttons, lobby_message, start_game, world

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends


def final_post(table: Table) -> object:
    return next(
        m for m in table.public() if any(e.title == "Kachuful — final standings" for e in m.embeds)
    )


async def finished_game(env: simcord.Env, **options: object) -> tuple[Table, list[object]]:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=2, **options)
    await table.play_to_end()
    await env.advance_time(60)
    return table, members


async def test_final_standings_carry_the_score_chart(env: simcord.Env) -> None:
    table, _ = await finished_game(env)
    final = final_post(table)
    [chart] = final.attachments
    assert chart.filename == "kachuful-scores.png"
    data = await chart.read()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and 10_000 < len(data) < 500_000
    [standings] = [e for e in final.embeds if e.title == "Kachuful — final standings"]
    assert standings.image.url == "attachment://kachuful-scores.png" or (
        standings.image.url.endswith("kachuful-scores.png")
    )


async def test_play_again_opens_a_lobby_with_the_same_options_and_players_invited(
    env: simcord.Env,
) -> None:
    table, (asha, bilal, chen) = await finished_game(env, schedule="down", scoring="penalty")
    old = await env.bot.store.latest_game_in_channel(table.channel.id)
    result = await bilal.click(final_post(table), label="Play again")
    assert not result.ephemeral  # the new lobby, in the channel
    session = env.bot.tables.open.session_in(table.channel.id)
    row = session.row
    assert row.id != old.id and row.status == "lobby"
    assert row.host_id == asha.id  # the previous host, not the one who clicked
    assert [s.user_id for s in row.seats] == [asha.id]  # the others must click to sit
    assert row.options.rules == old.options.rules and row.options.mode == old.options.mode
    assert row.options.rules["schedule"] == "down" and row.options.rules["scoring"] == "penalty"
    lobby = lobby_message(table.channel) if False else result.response
    assert bilal.mention in (lobby.content or "") and chen.mention in (lobby.content or "")
    assert asha.mention not in (lobby.content or "")
    await chen.click(lobby, label="Join")
    assert [s.user_id for s in session.row.seats] == [asha.id, chen.id]
    # A second click while this lobby is open: the channel has its game already.
    again = await chen.click(final_post(table), label="Play again")
    assert again.ephemeral and "already" in (again.response.content or "")
    assert [b.label for b in buttons(final_post(table))] == ["Play again", "Review"]


async def test_only_players_of_the_game_can_ask_for_a_rematch(env: simcord.Env) -> None:
    table, _ = await finished_game(env)
    outsider = env.guild.add_member(env.create_user("dev"))
    refused = await outsider.click(final_post(table), label="Play again")
    assert refused.ephemeral and "Only the players" in (refused.response.content or "")
    assert env.bot.tables.open.session_in(table.channel.id) is None


async def test_score_during_a_game_shows_the_chart_so_far(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=2)
    while not table.game.deal_scores:
        await table.act(table.member_at(table.game.turn))
    result = await members[0].slash(channel, "kachuful score")
    assert result.ephemeral
    message = result.response
    assert message.embeds and "scores so far" in (message.embeds[0].title or "")
    assert [a.filename for a in message.attachments] == ["kachuful-scores.png"]
