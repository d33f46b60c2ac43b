"""Computer levels at the table: offered by "Add computer player", shown at the seat, the
strongest allowed one taking over a timed-out seat, and the slow level off the event loop."""

from __future__ import annotations

from dataclasses import replace

import pytest
import simcord

from bot.i18n import EN
from bot.render.words import level_name
from bot.table import thinking
from kachuful_core import Game, Rules
from kachuful_core.players import LEVELS, decide
from kachuful_core.views import view as seat_view

from ..helpers import add_computer, buttons, lobby_message, start_game, world

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store("the computer players' levels and workers; the store takes no part"),
]


async def test_add_computer_player_offers_every_level_and_the_seat_shows_it(
    env: simcord.Env,
) -> None:
    channel, (asha,) = world(env, "asha")
    await asha.slash(channel, "kachuful start", players=4)
    offered = await asha.click(lobby_message(channel), label="Add computer player")
    assert offered.ephemeral
    chooser = next(m for m in channel.history(viewer=asha) if m.id == offered.response.id)
    assert [b.label for b in buttons(chooser)] == [level_name(level, EN) for level in LEVELS]
    assert len(env.bot.tables.open.session_in(channel.id).row.seats) == 1  # nothing added yet
    await add_computer(asha, channel, "search")
    await add_computer(asha, channel, "random")
    seats = env.bot.tables.open.session_in(channel.id).row.seats
    assert [s.level for s in seats[1:]] == ["search", "random"]
    players = str(lobby_message(channel).embeds[0].to_dict())
    assert "computer · Expert" in players and "computer · Beginner" in players


async def test_a_level_the_table_does_not_allow_is_refused(env: simcord.Env) -> None:
    channel, (asha,) = world(env, "asha")
    await asha.slash(channel, "kachuful start", players=4)
    session = env.bot.tables.open.session_in(channel.id)
    early = await asha.click(lobby_message(channel), label="Add computer player")
    # As a channel's settings would.
    session.row.options = replace(session.row.options, computer_levels=("heuristic",))
    offered = await asha.click(lobby_message(channel), label="Add computer player")
    chooser = next(m for m in channel.history(viewer=asha) if m.id == offered.response.id)
    assert [b.label for b in buttons(chooser)] == ["Casual"]
    # A chooser shown before the change still offers Expert: it is refused, nothing added.
    stale = next(m for m in channel.history(viewer=asha) if m.id == early.response.id)
    refused = await asha.click(stale, label="Expert")
    assert refused.response.ephemeral and "cannot join" in (refused.response.content or "")
    assert len(session.row.seats) == 1


async def test_an_expert_computer_plays_a_whole_game_in_a_worker_process(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal")
    thinker = env.bot.tables.thinker
    thinker.workers = 1  # a real process pool (the tests' default decides in process)
    try:
        table = await start_game(env, channel, members, computers=1, level="search", max_hand=2)
        await table.play_to_end()
    finally:
        thinker.close()
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert stored is not None and stored.status == "finished"
    assert thinker.decisions > 0 and thinker.fallbacks == 0


async def test_the_worker_pool_starts_only_for_a_table_with_an_expert_seat(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    # Recorded, not started: the decisions are taken in process (the tests' default).
    monkeypatch.setattr(thinking.Thinker, "start", lambda self: started.append("pool"))
    channel, members = world(env, "asha", "bilal")
    table = await start_game(env, channel, members, computers=1, level="heuristic", max_hand=1)
    assert started == []  # no Expert seat: no worker process at all
    await table.play_to_end()
    assert started == []
    other = env.guild.create_text_channel("expert")
    await start_game(env, other, members, computers=1, level="search", max_hand=1)
    assert started  # an Expert seat: its worker starts with the game


async def test_workers_that_cannot_start_do_not_stop_a_game(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A pool that fails to start (a forkserver socket path too long, say) is only a lost
    head start: "Start" starts the game and the computer seat plays (the heuristic decides)."""

    def cannot_start(self: thinking.Thinker) -> None:
        raise OSError("AF_UNIX path too long")

    channel, members = world(env, "asha", "bilal")
    thinker = env.bot.tables.thinker
    thinker.workers = 1
    monkeypatch.setattr(thinking.Thinker, "_executor", cannot_start)
    table = await start_game(env, channel, members, computers=1, level="search", max_hand=2)
    await table.play_to_end()
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert stored is not None and stored.status == "finished"
    assert thinker.fallbacks > 0
    assert "workers could not start (OSError)" in caplog.text
    assert "went wrong" not in " ".join(m.content or "" for m in table.public())


async def test_a_timed_out_seat_is_played_at_the_strongest_allowed_level(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    await env.advance_time(90)  # the turn clock runs out
    assert env.bot.tables.thinker.levels["search"] == 1
    table.session.row.options = replace(
        table.session.row.options, computer_levels=("random", "heuristic")
    )
    seat = table.game.turn
    await env.advance_time(90)
    assert (seat, "heuristic") in table.session.players


async def test_a_workers_first_decision_waits_for_its_warm_up_untimed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new worker loads the search player's compiled loops first (seconds): the first
    decision waits for that, and only the decision itself is held to the time limit, so an
    Expert seat is not handed to the heuristic because the bot just started."""
    monkeypatch.setattr(thinking, "DECISION_TIMEOUT", 0.3)
    game = Game.new(Rules(players=4, max_hand=2), 3)
    thinker = thinking.Thinker(workers=1)
    try:
        decision = await thinker.decide("search", 1, seat_view(game, game.turn))
    finally:
        thinker.close()
    assert thinker.fallbacks == 0 and thinker.decisions == 1
    assert decision == decide("search", 1, seat_view(game, game.turn))


def test_a_decision_goes_to_a_worker_only_for_a_slow_level_on_a_settled_view() -> None:
    """The one rule the driver and practice share: the Expert's bid or card in a worker,
    unless the seat may still bid blind (looking changes its view during the turn)."""
    thinks_in_worker = thinking.thinks_in_worker
    plain = Game.new(Rules(players=3, max_hand=3), "worker", list("ABC"))
    seat = plain.turn or 0
    assert thinks_in_worker("search", seat_view(plain, seat))
    assert not thinks_in_worker("heuristic", seat_view(plain, seat))
    blind = Game.new(Rules(players=3, max_hand=3, blind_bids=True), "worker", list("ABC"))
    assert seat_view(blind, blind.turn or 0).may_bid_blind
    assert not thinks_in_worker("search", seat_view(blind, blind.turn or 0))
