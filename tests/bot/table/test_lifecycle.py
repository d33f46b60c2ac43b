"""Computer players, the turn clock, leaving, stopping, lobby time-outs and restarts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
import simcord

from bot.client import KachufulBot
from bot.config import Settings
from kachuful_core import Phase

from ..helpers import (
    Table,
    button,
    enabled_actions,
    forced_cards,
    lobby_message,
    simultaneous_clicks,
    start_game,
    world,
)

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends


def contents(table: Table) -> list[str]:
    return [m.content or "" for m in table.public()]


async def test_two_members_and_a_computer_play_a_game(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal")
    table = await start_game(env, channel, members, computers=1, max_hand=3)
    computer_seat = next(i for i, s in enumerate(table.session.row.seats) if s.user_id is None)
    clicks = await table.play_to_end()
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert stored is not None and stored.status == "finished"
    # The computer made its own bids and plays; the last trick of every deal played itself.
    forced = forced_cards(stored.record)
    assert len(forced) >= 3 * 5
    assert clicks == 2 * (5 + 11) - sum(1 for _, seat, _ in forced if seat != computer_seat)
    results = await env.bot.store.results_for_game(stored.id)
    assert results[computer_seat].user_id is None
    board = await members[0].slash(channel, "kachuful leaderboard")
    text = board.response.embeds[0].description or ""
    # One line each: rank, name, rating, games played (the heading names the columns).
    rows = [line for line in text.splitlines() if line.startswith("`#")]
    assert [row.split(" · ")[0] for row in rows] == ["`#1` asha", "`#2` bilal"]
    assert all(row.endswith(" · 1") for row in rows) and "🤖" not in text
    assert "games" in text.splitlines()[0]
    server = await members[1].slash(channel, "kachuful leaderboard", scope="server")
    assert "`#1` asha · " in (server.response.embeds[0].description or "")


async def test_turn_clock_computer_plays_then_keeps_the_seat_until_im_back(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=8, schedule="down")
    sleeper = table.member_at(table.game.turn)
    assert sleeper is not None
    seat = table.session.row.seat_of(sleeper.id)
    await table.open_hand(sleeper)

    timeouts = 0
    while timeouts < 3:
        if table.game.turn == seat:
            version = table.session.row.version
            await env.advance_time(89)
            assert table.session.row.version == version  # not yet
            await env.advance_time(1)
            timeouts += 1
            assert table.session.row.version > version
            assert table.session.row.seats[seat].timeouts == timeouts
            # The table is told, in the newest message (the one with "Your hand"); at the
            # third time-out the seat is away instead (below).
            if timeouts < 3:
                live = table.last_public_with("Your hand").content or ""
                assert f"**{sleeper.name}** ran out of time" in live
                assert f"({timeouts} in a row)" in live
                assert len([c for c in contents(table) if "ran out of time" in c]) == 1
        else:
            member = table.member_at(table.game.turn)
            assert member is not None
            await table.act(member)
    entry = table.session.row.seats[seat]
    assert entry.away
    im_back = f"I'm back ({sleeper.name})"
    notice = table.last_public_with(im_back)
    assert notice.id == table.last_public_with("Your hand").id
    assert f"**{sleeper.name}** is away" in (notice.content or "")
    assert "ran out of time" not in (notice.content or "")

    # While away, the computer plays the seat at once: no clock, no new time-out.
    moves = table.game.move_count
    for _ in range(6):
        member = table.member_at(table.game.turn)
        assert member is not None and member is not sleeper
        await table.act(member)
        assert table.game.turn != seat
    assert table.game.move_count - moves > 6
    assert table.session.row.seats[seat].timeouts == 3
    assert not any("ran out of time" in c for c in contents(table))
    # The newest message still says so, and carries the button (older ones lost it).
    notice = table.last_public_with(im_back)
    assert notice.id == table.last_public_with("Your hand").id
    assert f"**{sleeper.name}** is away" in (notice.content or "")
    assert len([m for m in table.public() if im_back in [b.label for b in _buttons(m)]]) == 1

    # Someone else cannot click it; the owner can, and a double click counts once.
    other = next(m for m in members if m is not sleeper)
    wrong = await other.click(notice, label=im_back)
    assert wrong.response.ephemeral and "not your seat" in wrong.response.content
    back_id = button(notice, im_back).custom_id
    first, again = await simultaneous_clicks(
        env, [(sleeper, notice, back_id), (sleeper, notice, back_id)]
    )
    assert first.response.ephemeral and "Welcome back" in first.response.content
    assert first.response.embeds  # with her hand
    table.hand_ids[sleeper.id] = first.response.id  # the newest: kept up to date from now on
    assert again.response.ephemeral and "already at the table" in again.response.content
    assert not table.session.row.seats[seat].away
    # The table sees it: no message says she is away, no "I'm back" button is left.
    assert not any("is away" in c for c in contents(table))
    assert not any(im_back in [b.label for b in _buttons(m)] for m in table.public())

    # From now on the game waits for the sleeper again, and finishes.
    await table.play_to_end()


def _buttons(message: object) -> list[object]:
    from ..helpers import buttons

    return buttons(message)  # type: ignore[arg-type]


async def test_leaving_a_running_game_hands_the_seat_to_the_computer(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=2)
    leaver = members[2]
    seat = table.session.row.seat_of(leaver.id)
    result = await leaver.slash(channel, "kachuful leave")
    assert result.response.ephemeral
    entry = table.session.row.seats[seat]
    assert entry.user_id is None and entry.left_user_id == leaver.id
    table.members.pop(leaver.id)
    await table.play_to_end()
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    results = await env.bot.store.results_for_game(stored.id)
    assert results[seat].user_id is None  # a player who left gets no result
    board = await members[0].slash(channel, "kachuful leaderboard")
    assert f" {leaver.name} — " not in (board.response.embeds[0].description or "")


async def test_stop_by_host_or_manager_only_and_no_leaderboard(env: simcord.Env) -> None:
    import discord

    channel, members = world(env, "asha", "bilal", "chen")
    managers = env.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = env.guild.add_member(env.create_user("mod"), roles=[managers])
    table = await start_game(env, channel, members, max_hand=2)
    refused = await members[1].slash(channel, "kachuful stop")
    assert refused.response.ephemeral and "Only the host" in refused.response.content
    assert table.session.row.status == "running"
    stopped = await mod.slash(channel, "kachuful stop")
    assert stopped.response.ephemeral and "You stopped the game" in stopped.response.content
    assert table.session is None
    # The table is told, in a message of its own: the last word at the table.
    end = table.public()[-1].content or ""
    assert f"stopped by {mod.mention}" in end and "does not count for the leaderboard" in end
    stored = await env.bot.store.latest_game_in_channel(channel.id, ("stopped",))
    assert stored is not None and await env.bot.store.results_for_game(stored.id) == []
    board = await members[0].slash(channel, "kachuful leaderboard")
    assert "No finished games" in (board.response.embeds[0].description or "")
    # The channel is free for a new game.
    again = await members[0].slash(channel, "kachuful start")
    assert not again.response.ephemeral


async def test_lobby_nobody_starts_is_closed(env: simcord.Env) -> None:
    channel, (asha, bilal) = world(env, "asha", "bilal")
    await asha.slash(channel, "kachuful start")
    await bilal.slash(channel, "kachuful join")
    await env.advance_time(899)
    assert button(lobby_message(channel), "Join")
    await env.advance_time(2)
    closed = lobby_message(channel)
    assert "lobby closed" in (closed.embeds[0].title or "")
    assert "Nobody started" in (closed.embeds[0].description or "")
    assert closed.components == []
    late = await bilal.slash(channel, "kachuful join")
    assert "no Kachuful game" in late.response.content
    assert not (await asha.slash(channel, "kachuful start")).response.ephemeral


async def test_restart_mid_trick_continues_and_old_buttons_work(
    env: simcord.Env, make_bot: Callable[[], KachufulBot]
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=4, schedule="down")
    # Play into the middle of a trick.
    while not (table.game.phase is Phase.PLAYING and table.game.current_trick):
        await table.act(table.member_at(table.game.turn))
    actor = table.member_at(table.game.turn)
    hand = await table.open_hand(actor)
    old_public = table.last_public_with("Your hand")
    trick_before = table.game.current_trick
    version = table.session.row.version

    await env.restart_bot(make_bot())
    assert env.bot is make_bot.made[-1]  # type: ignore[attr-defined]
    table.hand_ids.clear()
    assert table.session.row.version == version
    assert table.game.current_trick == trick_before

    # The old hand message's card button still works after the restart.
    card = enabled_actions(table.message(hand.id, actor))[0]
    played = await actor.click(table.message(hand.id, actor), custom_id=card.custom_id)
    assert "out of date" not in (played.response.content or "")
    assert table.session.row.version == version + 1
    # So does "Your hand" on a message posted before the restart.
    other = next(m for m in members if m is not actor)
    shown = await other.click(old_public, label="Your hand")
    assert shown.response.ephemeral and shown.response.embeds
    await table.play_to_end()
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert stored is not None and stored.status == "finished"


async def test_hand_token_older_than_14_minutes_is_not_used(
    settings: Settings, tmp_path: Path
) -> None:
    slow = settings.model_copy(update={"turn_seconds": 3600.0, "db_path": tmp_path / "slow.db"})
    bot = KachufulBot(slow, hand_delay=0.0)  # a watcher's pause would move the clock
    async with simcord.run(bot) as env:
        channel, members = world(env, "asha", "bilal", "chen")
        table = await start_game(env, channel, members, max_hand=3)
        first = table.member_at(table.game.turn)
        second = table.member_at((table.game.turn + 1) % 3)
        waiting = await table.open_hand(second)
        assert enabled_actions(waiting) == []
        requests = len(env.http_requests)
        await env.advance_time(16 * 60)  # the token of that hand message is dead now
        # A minute before the token died, the message said so (its last edit).
        [goodbye] = [
            r for r in env.http_requests[requests:] if r.method == "PATCH" and "webhooks" in r.path
        ]
        assert "stopped updating" in goodbye.json["content"]
        assert "stopped updating" in (table.message(waiting.id, second).content or "")
        requests = len(env.http_requests)
        await table.act(first)
        assert table.game.turn == table.session.row.seat_of(second.id)
        webhook_edits = [
            r for r in env.http_requests[requests:] if r.method == "PATCH" and "webhooks" in r.path
        ]
        assert webhook_edits == []  # no edit attempted with the expired token
        assert enabled_actions(table.message(waiting.id, second)) == []
        # Refresh (a new interaction, a new token) redraws it with the bids enabled.
        await second.click(table.message(waiting.id, second), label="Refresh")
        assert enabled_actions(table.message(waiting.id, second))
    await bot.store.close()


async def test_a_crash_right_after_the_lobby_was_posted_leaves_one_lobby(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot dies after answering /kachuful start with the lobby, before storing the
    lobby's message id: after the restart the channel still has one lobby, and it works."""
    from bot.table.lobby import Lobby

    async def crash(*args: object) -> None:  # the id is never stored
        return None

    channel, members = world(env, "asha", "bilal", "chen")
    monkeypatch.setattr(Lobby, "_remember_lobby", crash)
    await members[0].slash(channel, "kachuful start", players=3)
    monkeypatch.undo()
    await env.restart_bot(make_bot())
    await env.advance_time(5)
    lobbies = [
        m
        for m in channel.history()
        if "Join" in [b.label for b in _buttons(m)]  # type: ignore[attr-defined]
    ]
    assert len(lobbies) == 1
    joined = await members[1].click(lobbies[0], label="Join")
    assert joined.acknowledged
    assert env.bot.tables.open.session_in(channel.id).row.message_id == lobbies[0].id


async def test_a_deferred_im_back_keeps_its_hand_message_private_and_up_to_date(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'I'm back' answered late (the click was deferred): the hand is a follow-up message,
    and later redraws edit that message, never the public message the button was on."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=5, schedule="down")
    sleeper = members[0]
    seat = table.session.row.seat_of(sleeper.id)
    while not table.session.row.seats[seat].away:
        if table.game.turn == seat:
            await env.advance_time(90)
        else:
            await table.act(table.member_at(table.game.turn))
    im_back = f"I'm back ({sleeper.name})"
    notice = table.last_public_with(im_back)
    from bot.table.responder import Deferral

    def at_once(self: Deferral, interaction: object) -> None:  # the click runs late
        self.interaction = interaction  # type: ignore[assignment]
        loop = asyncio.get_running_loop()
        self.handle = loop.call_later(3600, lambda: None)
        self.task = loop.create_task(self._defer())

    monkeypatch.setattr(Deferral, "__init__", at_once)
    monkeypatch.setattr(env.bot.tables.store, "busy", lambda: True)
    back = await sleeper.click(notice, label=im_back)
    monkeypatch.undo()
    [hand] = back.followups  # deferred, then answered by a follow-up
    assert hand.ephemeral and "Welcome back" in (hand.content or "")
    table.hand_ids[sleeper.id] = hand.id
    shown = table.hand(sleeper).embeds[0].to_dict()
    while table.game.turn == seat or table.member_at(table.game.turn) is None:
        await table.act(sleeper) if table.game.turn == seat else await env.advance_time(1)
    await table.act(table.member_at(table.game.turn))
    assert table.hand(sleeper).embeds[0].to_dict() != shown  # the follow-up was redrawn
    public = [m for m in table.public() if m.id == notice.id]
    for message in public:  # the public message never showed a hand
        assert all("Only you see" not in (e.footer.text or "") for e in message.embeds)
