"""A fast game outruns Discord's 5 new messages in 5 s: while the channel catches up, the
newest public message still offers "Your hand", every trick still appears once and in order,
and the final standings follow the last card closely."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord
import pytest
import simcord

from bot.render.channel import View, public_posts
from bot.render.specs import check_limits
from kachuful_core import Game, Rules
from kachuful_core.players import RandomPlayer, act

from ..club.helpers import club, register, threads_of
from ..helpers import Table, buttons, start_game, world
from ..render.test_render import row_for
from .test_live_table import record_tricks, shown_tricks

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store("the pacing of posts; the store takes no part"),
]

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
        assert (env.now() - last_card).total_seconds() <= 3.0, "final standings late"
    await env.advance_time(60)
    public = table.public()
    assert not any(offers_hand(m) for m in public)  # the game is over
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert shown_tricks(public) == record_tricks(stored.record)  # each trick once, in order
    titles = [e.title or "" for m in public for e in m.embeds]
    assert sum(t.startswith("Scores after deal") for t in titles) == 5
    # Fewer messages than one per trick: the game outran the channel, which folded.
    assert len(public) < 3 + sum(size + 2 for size in (3, 2, 1, 2, 3))


async def play_fast_to_the_final_standings(env: simcord.Env, table: Table) -> None:
    """Every member clicks as soon as it is their turn (computers act at once); after the
    last card, the final standings appear where the game is played within 3 s of simulated
    time, then everything owed is delivered."""
    while table.session is not None and table.session.row.status == "running":
        member = table.member_at(table.game.turn)
        if member is None:
            await env.advance_time(STEP)
            continue
        await table.act(member)
        if table.session is not None and table.session.row.status == "running":
            await env.advance_time(STEP)
    last_card = env.now()
    while not any("final standings" in (e.title or "") for m in table.public() for e in m.embeds):
        await env.advance_time(STEP / 5)
        assert (env.now() - last_card).total_seconds() <= 3.0, "final standings late"
    await env.advance_time(60)


@pytest.mark.paced
async def test_the_final_standings_come_within_3_s_of_a_game_with_computers(
    env: simcord.Env, virtual_pacing: None
) -> None:
    """Two computer seats and a player clicking as fast as can be: the channel is furthest
    behind at the end, and the final standings still follow the last card within 3 s."""
    channel, members = world(env, "asha")
    table = await start_game(env, channel, members, computers=2, max_hand=3, players=3)
    await env.advance_time(6)
    await play_fast_to_the_final_standings(env, table)
    embeds = [e for m in table.public() for e in m.embeds]
    scored = [e.title or "" for e in embeds if (e.title or "").startswith("Scores after deal")]
    summed = [f.name or "" for e in embeds for f in e.fields if "faster" in (e.title or "")]
    # Every deal's scores once: after it, or folded into the final standings' summary.
    assert len(scored) + len(summed) == 5


# ---- the folding rules, on the render alone -------------------------------------------------


def keys_and_hands(game: Game, delivered: set[str]) -> tuple[list[str], list[str]]:
    """The game messages the channel should have, given those posted, and which offer the hand."""
    row = row_for(3)
    view = View(lobby_minutes=15, idle_hours=24, delivered=frozenset(delivered))
    posts = [p for p in public_posts(row, game, view) if p.where == "game"]
    posts = [p for p in posts if not p.key.startswith("ping.")]
    keys = [p.key for p in posts]
    return keys, [p.key for p in posts if any(b.label == HAND for b in p.build().buttons)]


def played(moves: int) -> Game:
    game = Game.new(Rules(players=3, max_hand=3), "folding", players=["a", "b", "c"])
    for _ in range(moves):
        act(game, game.turn, RandomPlayer(game.turn))
    return game


def test_a_deal_the_channel_missed_is_one_message_and_stays_so() -> None:
    game = played(3 + 9 + 1)  # deal 1 bid and played; deal 2 has its first bid
    keys, hands = keys_and_hands(game, {"start"})
    assert keys == ["start", "d0.live", "d0.score", "d1.bids"]
    # Until the live message is out, every message still to post offers the hand.
    assert hands == ["d0.live", "d0.score", "d1.bids"]
    keys, hands = keys_and_hands(game, {"start", "d0.live"})
    assert keys == ["start", "d0.live", "d0.score", "d1.bids"]
    assert hands == ["d0.live", "d0.score", "d1.bids"]  # d0.live keeps it: the newest posted
    keys, hands = keys_and_hands(game, {"start", "d0.live", "d0.score", "d1.bids"})
    assert hands == ["d1.bids"]  # the live message is out: only it


def test_a_deal_a_trick_behind_shows_the_rest_in_one_live_message() -> None:
    game = played(3 + 3 + 3 + 1)  # deal 1: bids, two tricks, a card of the third
    posted = {"start", "d0.bids", "d0.t0"}
    keys, hands = keys_and_hands(game, posted)
    assert keys == ["start", "d0.bids", "d0.t0", "d0.r1"]
    assert hands == ["d0.t0", "d0.r1"]
    keys, hands = keys_and_hands(game, posted | {"d0.r1"})
    assert keys == ["start", "d0.bids", "d0.t0", "d0.r1"] and hands == ["d0.r1"]
    # Caught up in time, a trick at a time: no folding.
    keys, _ = keys_and_hands(game, {"start", "d0.bids", "d0.t0", "d0.t1"})
    assert keys == ["start", "d0.bids", "d0.t0", "d0.t1", "d0.t2"]
    # Every trick of the folded part is in the one message, winners included.
    game = played(3 + 9)
    keys, _ = keys_and_hands(game, posted | {"d0.r1"})
    row = row_for(3)
    view = View(lobby_minutes=15, idle_hours=24, delivered=frozenset(posted | {"d0.r1"}))
    [rest] = [p for p in public_posts(row, game, view) if p.key == "d0.r1"]
    text = rest.build().embeds[0].description or ""
    assert "**Trick 2 of 3**" in text and "**Trick 3 of 3**" in text and "**Trick 1" not in text
    assert text.count("takes it") == 2


def finished(players: int, max_hand: int) -> Game:
    game = Game.new(
        Rules(players=players, max_hand=max_hand), "fold", players=[f"p{n}" for n in range(players)]
    )
    while game.turn is not None:
        act(game, game.turn, RandomPlayer(game.turn))
    return game


def final_of(game: Game, delivered: set[str]) -> tuple[list[str], list[str]]:
    """The keys of the posts still to make, and the titles of the final standings' embeds."""
    row = replace(row_for(len(game.players)), status="finished")
    view = View(lobby_minutes=15, idle_hours=24, delivered=frozenset(delivered))
    posts = public_posts(row, game, view)
    spec = posts[-1].build()
    assert posts[-1].key == "final" and check_limits(spec) == [] and len(spec.embeds) <= 10
    return [p.key for p in posts if p.key not in delivered], [e.title or "" for e in spec.embeds]


def test_the_final_standings_carry_what_the_channel_still_owes() -> None:
    game = finished(3, 3)  # five deals
    done = {"lobby", "start", "d0.bids", "d0.t0", "d0.t1", "d0.t2", "d0.score", "d1.live"}
    to_post, titles = final_of(game, done)
    # Deal 2's score and deals 3 to 5 (in full: bids and tricks, then scores) come with the
    # final standings, in the order they happened.
    assert to_post == ["final"]
    assert titles == [
        "Scores after deal 2 of 5",
        "Deal 3 of 5 · 1 card · trump ♣︎ Clubs",
        "Scores after deal 3 of 5",
        "Deal 4 of 5 · 2 cards · trump ♥︎ Hearts",
        "Scores after deal 4 of 5",
        "Deal 5 of 5 · 3 cards · trump ♠︎ Spades",
        "Scores after deal 5 of 5",
        "Kachuful — final standings",
    ]
    # Caught up before the end: the final standings are alone.
    everything = done | {"d1.score"} | {f"d{n}.{k}" for n in (2, 3, 4) for k in ("live", "score")}
    assert final_of(game, everything) == (["final"], ["Kachuful — final standings"])


def test_deals_that_do_not_fit_in_full_are_folded_as_their_scores() -> None:
    game = finished(3, 17)  # 33 deals, up to 17 tricks each
    done = {"lobby", "start"} | {f"d{n}.{k}" for n in range(10) for k in ("live", "score")}
    to_post, titles = final_of(game, done)
    assert to_post == ["final"]  # 23 deals owed, and nothing waits before the final standings
    summary, *full, last = titles
    assert summary == "Deals played faster than the channel could show them"
    assert last == "Kachuful — final standings"
    row = replace(row_for(3), status="finished")
    view = View(lobby_minutes=15, idle_hours=24, delivered=frozenset(done))
    spec = public_posts(row, game, view)[-1].build()
    folded = [int((f.name or "").split()[1]) for f in spec.embeds[0].fields]
    in_full = sorted({int(t.split(" of ")[0].split()[-1]) for t in full})
    # Every owed deal is in the message once: its score table in the summary, or in full.
    assert folded + in_full == list(range(11, 34))
    # More deals owed than one embed holds: the earliest are posted first, as they are.
    to_post, titles = final_of(game, {"lobby", "start"})
    assert to_post[0] == "d0.live" and to_post[-1] == "final"
    assert titles[0] == "Deals played faster than the channel could show them"


# ---- every place a game is played in --------------------------------------------------------


def each_trick_once_and_every_deal_scored(table: Table, record: dict[str, Any]) -> None:
    public = table.public()
    assert shown_tricks(public) == record_tricks(record)
    embeds = [e for m in public for e in m.embeds]
    scored = [e.title or "" for e in embeds if (e.title or "").startswith("Scores after deal")]
    summed = [f.name or "" for e in embeds for f in e.fields if "faster" in (e.title or "")]
    assert len(scored) + len(summed) == len(record["deals"])


@pytest.mark.paced
@pytest.mark.one_store("pacing, which the store takes no part in; a whole game each")
@pytest.mark.parametrize("mode", ["compact", "thread"])
async def test_the_final_standings_come_within_3_s_in_compact_and_thread_mode(
    env: simcord.Env, virtual_pacing: None, mode: str
) -> None:
    """Three members clicking as fast as can be: in thread mode the game, and so its end,
    is in the thread, which keeps a slot of its own 5 in 5 s for the final standings."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, players=3, mode=mode)
    if mode == "thread":
        [thread] = channel.threads
        table = Table(env, thread, members)
    await env.advance_time(6)
    game_id = table.session.row.id
    await play_fast_to_the_final_standings(env, table)
    stored = await env.bot.store.reads.game(game_id)
    each_trick_once_and_every_deal_scored(table, stored.record)


@pytest.mark.paced
@pytest.mark.one_store("pacing, which the store takes no part in; a whole game")
async def test_the_final_standings_come_within_3_s_in_an_event_tables_thread(
    env: simcord.Env, virtual_pacing: None
) -> None:
    _guild, channel, organiser, members = club(env, 3)
    await organiser.slash(
        channel, "kachuful-event open", name="Fast", rounds=1, players=3, max_hand=3
    )
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    [thread] = threads_of(channel, 1)
    table = Table(env, thread, members)
    game_id = table.session.row.id
    await play_fast_to_the_final_standings(env, table)
    stored = await env.bot.store.reads.game(game_id)
    each_trick_once_and_every_deal_scored(table, stored.record)
