"""Races, damaged rows, failures and abandoned tables: the bot keeps every other table going."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable

import pytest
import simcord

from bot.client import KachufulBot
from bot.config import Settings
from kachuful_core import Phase
from tests.pg import execute_raw

from ..helpers import (
    Table,
    button,
    buttons,
    enabled_actions,
    lobby_message,
    simultaneous_clicks,
    snapshot,
    start_game,
    world,
)

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends


async def test_double_click_at_the_same_moment_applies_once(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    actor = table.member_at(table.game.turn)
    assert actor is not None
    first = await table.open_hand(actor)
    second = await table.open_hand(actor)
    choice = enabled_actions(first)[0].custom_id
    version, moves = table.session.row.version, table.game.move_count

    results = await simultaneous_clicks(env, [(actor, first, choice), (actor, second, choice)])

    assert all(r.acknowledged for r in results)  # both answered: no "interaction failed"
    assert table.session.row.version == version + 1  # one move, not two
    assert table.game.move_count == moves + 1
    # The later click is told that the first one counted.
    bid = choice.split(":")[4]
    told = f"Your bid of {bid} was placed (your first click counted)."
    again = [r for r in results if r.response.content == told]
    assert len(again) == 1 and again[0].response.ephemeral
    # The bidding message shows that one bid, and nobody else's.
    lines = [
        line
        for m in table.public()
        for e in m.embeds
        if "Bids" in [f.name for f in e.fields]
        for line in (e.description or "").splitlines()
    ]
    assert [line.split(": ")[1] for line in lines].count("…") == len(lines) - 1
    assert any(line.startswith(f"**{actor.name}**") and line.endswith(f": {bid}") for line in lines)


async def test_joining_at_the_same_moment_seats_everyone(env: simcord.Env) -> None:
    channel, (asha, bilal, chen, dev) = world(env, "asha", "bilal", "chen", "dev")
    await asha.slash(channel, "kachuful start", players=5)
    lobby = lobby_message(channel)
    join = button(lobby, "Join").custom_id
    results = await simultaneous_clicks(
        env, [(bilal, lobby, join), (chen, lobby, join), (dev, lobby, join)]
    )
    assert all(r.acknowledged for r in results)
    assert not any("out of date" in (r.response.content or "") for r in results)
    session = env.bot.tables.open.session_in(channel.id)
    assert {s.user_id for s in session.row.seats} == {asha.id, bilal.id, chen.id, dev.id}
    assert "4 of 5" in str(lobby_message(channel).embeds[0].to_dict())

    # Adding a computer twice from the same lobby picture adds one: the second is stale.
    lobby = lobby_message(channel)
    offers = [await m.click(lobby, label="Add computer player") for m in (asha, bilal)]
    assert len(session.row.seats) == 4  # the levels are only offered, privately
    choosers = [
        next(m for m in channel.history(viewer=member) if m.id == offer.response.id)
        for member, offer in zip((asha, bilal), offers, strict=True)
    ]
    clicks = [
        (member, chooser, button(chooser, "Casual").custom_id)
        for member, chooser in zip((asha, bilal), choosers, strict=True)
    ]
    results = await simultaneous_clicks(env, clicks)
    assert len(session.row.seats) == 5
    assert session.row.seats[4].level == "heuristic"
    assert sum("out of date" in (r.response.content or "") for r in results) == 1


async def _three_tables(env: simcord.Env) -> tuple[Table, Table, Table]:
    guild = env.create_guild("Club")
    members = [guild.add_member(env.create_user(n)) for n in ("asha", "bilal", "chen")]
    tables = []
    for name in ("good", "bad-json", "bad-record"):
        channel = guild.create_text_channel(name)
        tables.append(await start_game(env, channel, members, max_hand=3))
    return tables[0], tables[1], tables[2]


async def test_damaged_rows_do_not_stop_the_bot_or_the_other_tables(
    env: simcord.Env,
    make_bot: Callable[[], KachufulBot],
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    good, bad_json, bad_record = await _three_tables(env)
    for table in (good, bad_json, bad_record):
        table.session_id = table.session.row.id  # type: ignore[attr-defined]
    await good.act(good.member_at(good.game.turn))
    host = next(iter(bad_json.members.values()))
    other = list(bad_json.members.values())[1]
    execute_raw(
        settings.database,
        "UPDATE games SET record = '{not json' WHERE id = :id",
        {"id": bad_json.session.row.id},
    )
    execute_raw(
        settings.database,
        'UPDATE games SET record = \'{"format": "kachuful-record/1"}\' WHERE id = :id',
        {"id": bad_record.session.row.id},
    )
    before = snapshot(good)

    with caplog.at_level(logging.ERROR):
        await env.restart_bot(make_bot())  # must not fail: the two others are damaged

    # The good table carries on where it was.
    assert snapshot(good) == before
    good.hand_ids.clear()
    await good.play_to_end()
    # Nothing of a record (which holds every hand) reaches the log: only the kind of error.
    assert "cannot be read" in caplog.text and "cannot rebuild" in caplog.text
    assert "hands" not in caplog.text

    # The damaged tables answer clicks and commands with what happened and what to do.
    for table in (bad_json, bad_record):
        assert table.session is None
        clicked = await other.click(table.last_public_with("Your hand"), label="Your hand")
        assert clicked.response.ephemeral and "could not be restored" in clicked.response.content
        again = await other.slash(table.channel, "kachuful start")
        assert again.response.ephemeral and "could not be restored" in again.response.content
        refused = await other.slash(table.channel, "kachuful stop")
        assert "Only the host" in refused.response.content
        stopped = await host.slash(table.channel, "kachuful stop")
        assert not stopped.response.ephemeral and "was closed by" in stopped.response.content
        fresh = await other.slash(table.channel, "kachuful start")
        assert not fresh.response.ephemeral  # the channel is free again
    statuses = dict(execute_raw(settings.database, "SELECT id, status FROM games"))
    results = execute_raw(settings.database, "SELECT DISTINCT game_id FROM results")
    assert statuses[bad_json.session_id] == statuses[bad_record.session_id]  # type: ignore[attr-defined] == "stopped"
    assert results == [(good.session_id,)]  # type: ignore[attr-defined]  # stopping a damaged game writes no result


async def test_everyone_away_pauses_the_game_until_im_back(
    env: simcord.Env, make_bot: Callable[[], KachufulBot]
) -> None:
    channel, members = world(env, "asha")
    table = await start_game(env, channel, members, computers=2, max_hand=4, schedule="down")
    asha = members[0]
    seat = table.session.row.seat_of(asha.id)
    timeouts = 0
    while not table.session.row.seats[seat].away:
        assert table.game.turn == seat  # computers act at once; the clock runs for asha
        await env.advance_time(90)
        timeouts += 1
    assert timeouts == 3
    paused = table.last_public_with("I'm back (asha)")
    assert "Nobody is playing" in (paused.content or "")
    assert (paused.content or "").count("⏸️") == 1  # the pause said once, not as a turn too
    assert paused.id == table.last_public_with("Your hand").id  # the newest live message

    # Nobody is playing: the game waits instead of playing itself to the end.
    moves = table.game.move_count
    await env.advance_time(3600)
    assert table.game.move_count == moves
    assert table.session.row.status == "running"

    # A restart keeps it paused: nothing is posted again, the newest message still says so.
    shown = [(m.id, m.content) for m in table.public()]
    await env.restart_bot(make_bot())
    assert [(m.id, m.content) for m in table.public()] == shown
    assert table.last_public_with("I'm back (asha)").id == paused.id
    await env.advance_time(3600)
    assert table.game.move_count == moves

    back = await asha.click(table.message(paused.id, asha), label="I'm back (asha)")
    assert back.response.ephemeral and not table.session.row.seats[seat].away
    table.hand_ids[asha.id] = back.response.id  # "I'm back" answers with her hand
    # The table sees it: no note of a pause or an away seat, no "I'm back" button left.
    assert not any("Nobody is playing" in (m.content or "") for m in table.public())
    assert not any("is away" in (m.content or "") for m in table.public())
    assert not any(b.label.startswith("I'm back") for m in table.public() for b in buttons(m))
    await table.play_to_end()
    stored = await env.bot.store.latest_game_in_channel(channel.id)
    assert stored is not None and stored.status == "finished"


async def test_computer_player_tries_again_after_a_failed_save(
    env: simcord.Env, caplog: pytest.LogCaptureFixture
) -> None:
    channel, members = world(env, "asha", "bilal")
    table = await start_game(env, channel, members, computers=1, max_hand=3)
    computer = next(i for i, s in enumerate(table.session.row.seats) if s.user_id is None)
    store = env.bot.store
    working = store.save_game
    failures: list[int] = []

    async def flaky(*args: object, **kwargs: object) -> None:
        task = asyncio.current_task()
        if not failures and task is not None and task.get_name().startswith("kachuful-table-"):
            failures.append(1)
            raise sqlite3.OperationalError("database is locked")
        await working(*args, **kwargs)  # type: ignore[arg-type]

    store.save_game = flaky  # type: ignore[method-assign]
    try:
        while not failures:
            member = table.member_at(table.game.turn)
            assert member is not None
            await table.act(member)
        assert table.game.turn == computer  # its move was not saved, so not made
        moves = table.game.move_count
        await env.advance_time(29)
        assert table.game.move_count == moves
        await env.advance_time(1)
        assert table.game.move_count > moves  # tried again, not frozen for ever
    finally:
        store.save_game = working  # type: ignore[method-assign]
    assert "trying again" in caplog.text
    await table.play_to_end()
    assert table.session is None or table.game.phase is Phase.FINISHED


async def test_no_discord_call_while_a_table_lock_is_held(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DESIGN §1: discord.py waits out rate limits silently, so a Discord call made while a
    table's lock is held would freeze the table. Every REST call of a whole game (lobby,
    clicks, computer moves, turn clock, I'm back, stop) is checked against the lock owner."""
    from simcord.http import router

    from bot.table.session import TableSession

    owners: dict[int, asyncio.Task[object] | None] = {}

    class OwnedLock(asyncio.Lock):
        async def acquire(self) -> bool:
            await super().acquire()
            owners[id(self)] = asyncio.current_task()
            return True

        def release(self) -> None:
            owners.pop(id(self), None)
            super().release()

    original_init = TableSession.__init__

    def init(self: TableSession, *args: object, **kwargs: object) -> None:
        original_init(self, *args, **kwargs)  # type: ignore[arg-type]
        self.lock = OwnedLock()

    monkeypatch.setattr(TableSession, "__init__", init)
    under_lock: list[str] = []
    calls: list[str] = []
    dispatch = router.dispatch

    def watched(backend: object, method: str, path: str, **kwargs: object) -> object:
        calls.append(f"{method} {path}")
        if asyncio.current_task() in owners.values():
            under_lock.append(f"{method} {path}")
        return dispatch(backend, method, path, **kwargs)

    monkeypatch.setattr(router, "dispatch", watched)

    channel, members = world(env, "asha", "bilal")
    table = await start_game(env, channel, members, computers=1, max_hand=3)
    sleeper = table.member_at(table.game.turn)
    assert sleeper is not None
    await env.advance_time(90)  # the turn clock
    await table.act(table.member_at(table.game.turn))
    await table.play_to_end()
    await members[0].slash(channel, "kachuful start")
    await members[0].slash(channel, "kachuful stop")
    assert len(calls) > 50 and owners == {}
    assert under_lock == []


async def test_every_move_is_saved_before_anything_about_it_is_sent(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the bot sends about a table is drawn from a saved state: nothing is ever shown
    that a restart could take back. The publishers draw the public messages and the hand
    messages without the table's lock, concurrently with changes being committed; each
    drawing must see the table at a move counter that is saved, and each REST call must be
    sent after the first save of what it shows."""
    import dataclasses

    from simcord.http import router

    from bot.table import hands, publisher

    channel, members = world(env, "asha", "bilal")
    table = await start_game(env, channel, members, computers=1, max_hand=3)
    store = env.bot.store
    saved: set[int] = {table.session.row.version}
    save = store.save_game

    async def recording(game: object, **kwargs: object) -> None:
        await save(game, **kwargs)  # type: ignore[arg-type]
        saved.add(game.version)  # type: ignore[attr-defined]

    monkeypatch.setattr(store, "save_game", recording)
    early: list[str] = []
    drawn: list[int] = []  # the move counter of each drawing, in order
    pending: list[int] = []  # the move counter of the drawings not yet sent

    session = table.session  # also once the game is over (no longer in the registry)

    def check(what: str) -> None:
        version = session.row.version
        drawn.append(version)
        pending.append(version)
        if version not in saved:
            early.append(f"{what} drawn at version {version}, not saved")

    posts = publisher.public_posts

    def checked_posts(*args: object, **kwargs: object) -> list[object]:
        def checked(post: object) -> object:
            def build() -> object:
                check(f"public message {post.key}")  # type: ignore[attr-defined]
                return post.build()  # type: ignore[attr-defined]

            return dataclasses.replace(post, build=build)  # type: ignore[type-var]

        return [checked(post) for post in posts(*args, **kwargs)]  # type: ignore[arg-type]

    monkeypatch.setattr(publisher, "public_posts", checked_posts)
    spec = hands.HandPublisher._spec

    def checked_spec(self: object, *args: object, **kwargs: object) -> object:
        check("hand message")
        return spec(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hands.HandPublisher, "_spec", checked_spec)
    dispatch = router.dispatch

    def watched(backend: object, method: str, path: str, **kwargs: object) -> object:
        for version in pending:
            if version not in saved:
                early.append(f"{method} {path} sent before version {version} was saved")
        pending.clear()
        return dispatch(backend, method, path, **kwargs)

    monkeypatch.setattr(router, "dispatch", watched)
    await env.advance_time(90)  # a time-out too
    await table.play_to_end()
    assert len(set(drawn)) > 20
    assert early == []


async def test_start_is_refused_where_the_bot_cannot_post(env: simcord.Env) -> None:
    import discord

    guild = env.create_guild("Club")
    asha = guild.add_member(env.create_user("asha"))
    muted = guild.create_text_channel(
        "announcements",
        overwrites={
            env.bot.user: discord.PermissionOverwrite(send_messages=False, embed_links=False)
        },
    )
    refused = await asha.slash(muted, "kachuful start")
    assert refused.response.ephemeral
    assert "Send Messages and Embed Links" in refused.response.content
    assert env.bot.tables.open.session_in(muted.id) is None
    assert [m for m in muted.history() if not m.flags.ephemeral] == []
    no_files = guild.create_text_channel(
        "no-files", overwrites={env.bot.user: discord.PermissionOverwrite(attach_files=False)}
    )
    refused = await asha.slash(no_files, "kachuful start")
    assert refused.response.ephemeral
    assert "Attach Files" in refused.response.content
    assert env.bot.tables.open.session_in(no_files.id) is None
    fine = guild.create_text_channel("cards")
    assert not (await asha.slash(fine, "kachuful start")).response.ephemeral


async def test_after_a_restart_what_was_not_posted_is_delivered(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move committed just before the bot died may never have been shown: after the
    restart the publisher delivers what is missing (the trick's message shows the card, the
    player to act is pinged), once, and "Your hand" works."""
    from bot.i18n import EN
    from bot.render.cards import label

    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    await table.bid_all()

    async def dies_before_posting() -> bool:
        return True

    monkeypatch.setattr(table.session.publisher, "_pass", dies_before_posting)
    before = [(m.id, m.content) for m in table.public()]
    leader = table.member_at(table.game.turn)
    assert leader is not None
    [old_ping] = [m for m in table.public() if "🔔" in (m.content or "")]
    assert leader.mention in (old_ping.content or "")
    await table.act(leader)  # committed, never shown
    assert [(m.id, m.content) for m in table.public()] == before
    [(_, card)] = table.game.current_trick
    to_act = table.member_at(table.game.turn)
    assert to_act is not None

    await env.restart_bot(make_bot())
    table.hand_ids.clear()
    live = table.last_public_with("Your hand")
    assert f"`{label(card, EN)}` **{leader.name}**" in (live.content or "")
    # The spent ping is gone, the player to act has one, and nothing was posted twice.
    [ping] = [m for m in table.public() if "🔔" in (m.content or "")]
    assert ping.id != old_ping.id and to_act.mention in (ping.content or "")
    assert len(table.public()) == len(before)
    assert len([m for m in table.public() if "**Trick 1 of" in (m.content or "")]) == 1
    shown = await to_act.click(live, label="Your hand")
    assert shown.response.ephemeral and enabled_actions(table.message(shown.response.id, to_act))
    await table.play_to_end()


async def test_the_stored_record_follows_every_move(env: simcord.Env) -> None:
    """The table in memory keeps its record in the game only; what the store holds after each
    click replays to exactly the game in play."""
    from kachuful_core.record import load_game, record_document

    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    store = env.bot.store
    for _ in range(12):
        seat = table.game.turn
        member = table.member_at(seat)
        assert member is not None
        assert (await table.act(member)).acknowledged
        stored = await store.load_game(table.session.row.id)
        assert stored is not None and stored.version == table.session.row.version
        assert stored.record == record_document(table.game)
        assert record_document(load_game(stored.record)) == stored.record


async def test_a_click_leaves_no_reference_cycles_behind(env: simcord.Env) -> None:
    """What a click allocates (the interaction, the clicked message, discord.py's view of it)
    is freed when the click is done, not left for a full garbage collection, which would
    pause every table at once."""
    import gc

    import discord

    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    for member in members:
        await table.open_hand(member)
    gc.collect()
    gc.disable()
    try:
        for _ in range(6):
            seat = table.game.turn
            member = table.member_at(seat)
            assert member is not None
            assert (await table.act(member)).acknowledged
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [
            type(o).__name__
            for o in gc.garbage
            if isinstance(o, discord.Interaction | discord.ui.View | discord.Message)
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []
