"""The table in the channel: live messages edited in place, one message per trick (or per deal
in compact mode, or in a thread), one turn ping at a time, and every public post delivered
exactly once whatever crashes or fails."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import discord
import pytest
import simcord

from bot.client import KachufulBot
from bot.i18n import EN
from bot.render.cards import label as card_label
from bot.table.publisher import Publisher
from kachuful_core import Phase, load_game, score_summary
from kachuful_core.cards import parse_card
from kachuful_core.claims import play_forced

from ..helpers import (
    Table,
    buttons,
    clicked_tricks,
    enabled_actions,
    forced_cards,
    start_game,
    world,
)

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends

MENTION = re.compile(r"<@!?\d+>")
SIZES = (3, 2, 1, 2, 3)  # max_hand=3, down-up


def record_tricks(record: dict[str, Any]) -> list[list[str]]:
    """Every trick of a record as the channel should show it: "`card` **name**" in play order."""
    summary = score_summary(load_game(record))
    names = record["players"]
    tricks = []
    for deal, scored in zip(record["deals"], summary["deals"], strict=True):
        leader = (scored["dealer"] + 1) % len(names)
        for number, trick in enumerate(deal["tricks"]):
            seats = [(leader + i) % len(names) for i in range(len(trick))]
            tricks.append(
                [
                    f"`{card_label(parse_card(c), EN)}` **{names[s]}**"
                    for s, c in zip(seats, trick, strict=True)
                ]
            )
            leader = scored["trick_winners"][number]
    return tricks


TRICK = re.compile(r"\*\*Trick \d+ of \d+\*\*: (.+)")


def shown_tricks(messages: list[discord.Message]) -> list[list[str]]:
    found = []
    for message in messages:
        texts = [message.content or ""] + [e.description or "" for e in message.embeds]
        for text in texts:
            found += [m.group(1).split(" · ") for m in TRICK.finditer(text)]
    return found


def pings(table: Table) -> list[discord.Message]:
    return [m for m in table.public() if "🔔" in (m.content or "")]


async def play_watching_pings(table: Table) -> int:
    """Play to the end; after every action the channel holds at most one turn ping, and it
    is for the player whose turn it is now (the previous one was deleted). Returns the
    number of pings seen."""
    seen = set()
    while table.session is not None and table.session.row.status == "running":
        carrying = [m for m in table.public() if any(b.label == "Your hand" for b in buttons(m))]
        assert len(carrying) == 1, "only the newest live message carries Your hand"
        member = table.member_at(table.game.turn)
        [ping] = pings(table)
        assert member is not None and member.mention in (ping.content or "")
        seen.add(ping.id)
        await table.act(member)
    return len(seen)


def assert_table_hygiene(table: Table) -> None:
    """After the game: no raw mention in any embed field, no button left, no ping left."""
    for message in table.public():
        for embed in message.embeds:
            for field in embed.fields:
                assert not MENTION.search(f"{field.name} {field.value}"), field
        # The game is over: only the final standings keep a button, "Play again".
        final = any(e.title == "Kachuful — final standings" for e in message.embeds)
        assert [b.label for b in buttons(message)] == (["Play again", "Review"] if final else [])
        assert "🔔" not in (message.content or "")


async def test_per_trick_mode_leaves_h_plus_2_messages_a_deal(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    seen_buttons: list[int] = []
    seen_pings = set()
    while table.session is not None and table.session.row.status == "running":
        carrying = [m.id for m in table.public() if any(b.label == "Your hand" for b in buttons(m))]
        assert len(carrying) == 1, "only the newest live message carries Your hand"
        assert carrying[0] == max(m.id for m in table.public() if "🔔" not in (m.content or ""))
        seen_buttons.append(carrying[0])
        member = table.member_at(table.game.turn)
        [ping] = pings(table)  # one turn ping per table, for the player to act
        assert member is not None and member.mention in (ping.content or "")
        seen_pings.add(ping.id)
        await table.act(member)
    await env.advance_time(60)
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    public = table.public()
    # Lobby, start, final, which carries what the channel still owed when the game ended: the
    # last trick (which plays itself with the card before it) and the last deal's scores.
    assert len(public) == 3 + sum(size + 2 for size in SIZES) - 2
    assert shown_tricks(public) == record_tricks(stored.record)
    # A new ping for every move clicked (the last trick of each deal plays itself).
    clicked = 3 * sum(size + 1 for size in SIZES) - len(forced_cards(stored.record))
    assert len(seen_pings) == clicked
    # The live message: bids, then each trick that had a card to click.
    assert len(set(seen_buttons)) == len(SIZES) + clicked_tricks(stored.record)
    assert_table_hygiene(table)


async def test_compact_mode_leaves_2_messages_a_deal(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, mode="compact")
    pinged = await play_watching_pings(table)
    await env.advance_time(60)
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert pinged == 3 * sum(size + 1 for size in SIZES) - len(forced_cards(stored.record))
    public = table.public()
    assert len(public) == 3 + 2 * len(SIZES) - 1  # the last scores are in the final standings
    assert shown_tricks(public) == record_tricks(stored.record)
    assert_table_hygiene(table)


async def test_thread_mode_plays_in_a_thread_and_keeps_the_channel_quiet(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, mode="thread")
    [thread] = channel.threads
    in_thread = Table(env, thread, members)
    assert in_thread.session is table.session  # commands in the thread find the table
    pinged = await play_watching_pings(in_thread)
    await env.advance_time(60)
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert pinged == 3 * sum(size + 1 for size in SIZES) - len(forced_cards(stored.record))
    # The channel keeps the lobby, which links the thread; the game ends where it was played,
    # with the final standings (carrying the last trick and scores, as in a channel).
    in_channel = [
        m
        for m in channel.history()
        if not m.flags.ephemeral and m.type is not discord.MessageType.thread_created
    ]
    assert len(in_channel) == 1, [(m.content, [e.title for e in m.embeds]) for m in in_channel]
    [lobby] = in_channel
    # Once over, it names who won, not the seats in order.
    winners = [f"**{members[seat].name}**" for seat in load_game(stored.record).winners or ()]
    won = f"{winners[0]} wins!" if len(winners) == 1 else "Shared win: "
    assert lobby.embeds[0].description.startswith(f"🏆 {won}")
    assert all(name in lobby.embeds[0].description for name in winners)
    assert lobby.embeds[0].description.endswith(
        f"\nSee the final standings (game played in <#{thread.id}>)."
    )
    assert lobby.embeds[0].fields == []
    game_posts = [m for m in thread.history() if not m.flags.ephemeral]
    assert game_posts[-1].embeds[-1].title == "Kachuful — final standings"
    assert [b.label for b in buttons(game_posts[-1])] == ["Play again", "Review"]
    assert len(game_posts) == 2 + sum(size + 2 for size in SIZES) - 2
    assert shown_tricks(game_posts) == record_tricks(stored.record)


async def test_thread_mode_without_thread_permissions_plays_in_the_channel(
    env: simcord.Env,
) -> None:
    guild = env.create_guild("Kachuful Club")
    no_threads = discord.PermissionOverwrite(create_public_threads=False)
    channel = guild.create_text_channel("cards", overwrites={env.bot.user: no_threads})
    host = guild.add_member(env.create_user("asha"))
    started = await host.slash(channel, "kachuful start", players=3, mode="thread")
    assert not started.ephemeral  # the lobby opens all the same, in the channel
    notes = [f.content or "" for f in started.followups]
    assert any("Create Public Threads" in note for note in notes), notes
    assert env.bot.tables.open.session_in(channel.id).row.options.mode == "trick"


async def _click_ends_the_game(table: Table) -> bool:
    """Whether the click ``table.act`` would make next ends the game (its card, then the
    cards the table plays by itself)."""
    member = table.member_at(table.game.turn)
    if member.id not in table.hand_ids:
        await table.open_hand(member)
    parts = (enabled_actions(table.hand(member))[0].custom_id or "").split(":")
    if parts[1] != "p":
        return False
    trial = copy.deepcopy(table.game)
    trial.play(trial.turn, int(parts[4]))
    play_forced(trial)
    return trial.phase is Phase.FINISHED


async def test_a_crash_after_the_last_card_delivers_every_missing_post_once(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], monkeypatch: pytest.MonkeyPatch
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    while not await _click_ends_the_game(table):
        await table.act(table.member_at(table.game.turn))
    before = len(table.public())
    # The process dies between the commit of the last card and its posts.
    monkeypatch.setattr(Publisher, "poke", lambda self: None)
    await table.act(table.member_at(table.game.turn))
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert stored.status == "finished" and len(table.public()) <= before
    monkeypatch.undo()
    await env.restart_bot(make_bot())
    await env.advance_time(60)
    public = table.public()
    # The last trick and the last deal's scores are in the final standings.
    assert len(public) == 3 + sum(size + 2 for size in SIZES) - 2
    titles = [e.title for m in public for e in m.embeds]
    assert titles.count("Kachuful — final standings") == 1
    assert titles.count("Scores after deal 5 of 5") == 1
    assert shown_tricks(public) == record_tricks(stored.record)
    # A second restart posts nothing again.
    await env.restart_bot(make_bot())
    await env.advance_time(60)
    assert len(table.public()) == len(public)


async def test_a_discord_outage_is_caught_up_without_duplicates(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    for method in ("POST", "PATCH"):
        env.inject_error(method, f"/channels/{channel.id}/messages*", status=500, times=None)
    moves = 0
    for _ in range(12):  # the game goes on: hands are private answers, not channel posts
        await table.act(table.member_at(table.game.turn))
        await env.advance_time(2.5)
        moves += 1
    env.backend.faults.clear()
    await env.advance_time(120)  # backoff retries catch up
    live = table.session.game
    assert live.move_count >= moves
    await table.play_to_end()
    await env.advance_time(60)
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    # Every trick once and in order; what the outage held back may be folded into one message.
    assert len(table.public()) <= 3 + sum(size + 2 for size in SIZES)
    assert shown_tricks(table.public()) == record_tricks(stored.record)
    titles = [e.title for m in table.public() for e in m.embeds]
    assert sum((t or "").startswith("Scores after deal") for t in titles) == len(SIZES)


@pytest.mark.paced
@pytest.mark.one_store("the pacing of posts, 26 s of play; the store takes no part")
async def test_computer_moves_stay_within_five_new_messages_in_five_seconds(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    created: list[float] = []
    original = discord.http.HTTPClient.send_message

    def send_message(self: Any, channel_id: Any, **kwargs: Any) -> Any:
        created.append(env.now().timestamp())
        return original(self, channel_id, **kwargs)

    monkeypatch.setattr(discord.http.HTTPClient, "send_message", send_message)
    channel, members = world(env, "asha")
    table = await start_game(env, channel, members[:1], computers=3, max_hand=3, players=4)
    while table.session is not None and table.session.row.status == "running":
        if table.game.turn is not None and table.member_at(table.game.turn) is not None:
            await table.act(members[0])
        await env.advance_time(1)
    await env.advance_time(120)
    times = sorted(created)
    assert len(times) >= 3 + sum(size + 2 for size in SIZES)
    for index in range(len(times) - 5):
        assert times[index + 5] - times[index] >= 5.0


async def test_hand_messages_show_every_seat_and_tell_the_truth_at_the_end(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    for member in members:
        await table.open_hand(member)
    hand = table.hand(members[0]).embeds[0].to_dict()
    bids = next(f["value"] for f in hand["fields"] if f["name"] == "Bids and tricks")
    for member in members:
        assert member.name in bids
    await table.play_to_end()
    await env.advance_time(60)
    for member in members:
        embed = table.hand(member).embeds[0]
        assert "game is over" in (embed.title or "")
        assert not enabled_actions(table.hand(member))


async def test_open_hands_are_brought_up_to_date_after_a_restart(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], monkeypatch: pytest.MonkeyPatch
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    for member in members:
        await table.open_hand(member)
    from bot.table.hands import HandPublisher

    monkeypatch.setattr(HandPublisher, "poke", lambda self: None)
    actor = table.member_at(table.game.turn)
    await table.act(actor)  # committed; the others' hands are not redrawn before the crash
    watcher = next(m for m in members if m is not actor)
    before = table.hand(watcher).embeds[0].to_dict()
    monkeypatch.undo()
    await env.restart_bot(make_bot())
    after = table.hand(watcher).embeds[0].to_dict()
    assert after != before
    bids = next(f["value"] for f in after["fields"] if f["name"] == "Bids and tricks")
    assert f"**{actor.name}**: bid" in bids


async def test_an_old_hand_message_says_how_to_get_a_fresh_one(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    waiting = table.member_at((table.game.turn + 2) % 3)
    await table.open_hand(waiting)
    await env.advance_time(14 * 60 + 1)  # the turn clock plays for the others meanwhile
    message = table.hand(waiting)
    assert "stopped updating" in (message.content or "")
    assert [b.label for b in buttons(message)] == ["Refresh"]
    refreshed = await waiting.click(message, label="Refresh")
    assert refreshed.acknowledged
    assert table.game.phase in (Phase.BIDDING, Phase.PLAYING)


def bids_field(message: discord.Message) -> str:
    fields = message.embeds[0].to_dict()["fields"]
    return next(f["value"] for f in fields if f["name"] == "Bids and tricks")


async def test_a_watchers_hand_is_redrawn_at_the_watchers_pace(env: simcord.Env) -> None:
    """A player whose turn starts sees it at once; a player who only watches is redrawn once
    the pause has passed, and a new phase reaches everyone at once."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    # Longer than SimCord's settling (a shorter pause would pass in real time within a click).
    env.bot.tables.timing.hand_delay = 30.0
    for member in members:
        await table.open_hand(member)
    first = table.member_at(table.game.turn)
    second = table.member_at((table.game.turn + 1) % 3)
    watcher = table.member_at((table.game.turn + 2) % 3)
    assert first and second and watcher
    await table.act(first)
    assert f"**{first.name}**: bid" in bids_field(table.hand(second))  # their turn: at once
    assert f"**{first.name}**: bid" not in bids_field(table.hand(watcher))
    await env.advance_time(31)
    assert f"**{first.name}**: bid" in bids_field(table.hand(watcher))
    await table.act(second)
    await table.act(watcher)  # the last bid: play begins, every hand shows it at once
    assert table.game.phase is Phase.PLAYING
    for member in members:
        assert "This trick" in [f.name for f in table.hand(member).embeds[0].fields]
