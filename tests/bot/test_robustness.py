"""Races, damaged rows, failures and abandoned tables: the bot keeps every other table going."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable

import pytest
import simcord

from bot.client import KachufulBot
from bot.settings import Settings
from kachuful_core import Phase

from .helpers import (
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
    stale = [r for r in results if "out of date" in (r.response.content or "")]
    assert len(stale) == 1 and stale[0].response.ephemeral
    bids = [m for m in table.public() if "bids **" in (m.content or "")]
    assert len(bids) == 1


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
    session = env.bot.tables.session_in(channel.id)
    assert {s.user_id for s in session.row.seats} == {asha.id, bilal.id, chen.id, dev.id}
    assert "4 of 5" in str(lobby_message(channel).embeds[0].to_dict())

    # Adding a computer twice from the same lobby picture adds one: the second is stale.
    lobby = lobby_message(channel)
    cpu = button(lobby, "Add computer player").custom_id
    results = await simultaneous_clicks(env, [(asha, lobby, cpu), (bilal, lobby, cpu)])
    assert len(session.row.seats) == 5
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
    with sqlite3.connect(settings.db_path) as raw:
        raw.execute(
            "UPDATE games SET record = '{not json' WHERE id = ?", (bad_json.session.row.id,)
        )
        raw.execute(
            'UPDATE games SET record = \'{"format": "kachuful-record/1"}\' WHERE id = ?',
            (bad_record.session.row.id,),
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
    with sqlite3.connect(settings.db_path) as raw:
        statuses = dict(raw.execute("SELECT id, status FROM games").fetchall())
        results = raw.execute("SELECT DISTINCT game_id FROM results").fetchall()
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
    paused = next(m for m in table.public() if "paused" in (m.content or ""))
    assert "I'm back" in [b.label for b in buttons(paused)]

    # Nobody is playing: the game waits instead of playing itself to the end.
    moves = table.game.move_count
    await env.advance_time(3600)
    assert table.game.move_count == moves
    assert table.session.row.status == "running"

    # A restart keeps it paused, and the table posted again says so.
    await env.restart_bot(make_bot())
    assert "paused" in (table.public()[-1].content or "")
    await env.advance_time(3600)
    assert table.game.move_count == moves

    back = await asha.click(paused, label="I'm back")
    assert back.response.ephemeral and not table.session.row.seats[seat].away
    assert any("is back at the table" in (m.content or "") for m in table.public())
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

    from bot.tables import TableSession

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
    """Each REST call the bot makes about a table happens after the save of the move counter
    the table is at: nothing is ever shown that a restart could take back."""
    from simcord.http import router

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
    checked: list[int] = []
    dispatch = router.dispatch

    def watched(backend: object, method: str, path: str, **kwargs: object) -> object:
        session = table.session
        if session is not None:
            checked.append(session.row.version)
            if session.row.version not in saved:
                early.append(f"{method} {path} at version {session.row.version}")
        return dispatch(backend, method, path, **kwargs)

    monkeypatch.setattr(router, "dispatch", watched)
    await env.advance_time(90)  # a time-out too
    await table.play_to_end()
    assert len(set(checked)) > 20
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
    assert "Send Messages, Embed Links" in refused.response.content
    assert env.bot.tables.session_in(muted.id) is None
    assert [m for m in muted.history() if not m.flags.ephemeral] == []
    fine = guild.create_text_channel("cards")
    assert not (await asha.slash(fine, "kachuful start")).response.ephemeral


async def test_after_a_restart_the_table_is_posted_again(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move committed just before the bot died may never have been posted: after the
    restart the table is posted again with the trick so far, and the player to act is
    mentioned."""
    from kachuful_core.cards import card_label

    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    while table.game.phase is Phase.BIDDING:
        await table.act(table.member_at(table.game.turn))

    async def dies_before_posting(*args: object) -> None:
        return None

    monkeypatch.setattr(env.bot.tables, "_publish", dies_before_posting)
    posted = len(table.public())
    await table.act(table.member_at(table.game.turn))  # committed, never posted
    assert len(table.public()) == posted
    [(_, card)] = table.game.current_trick
    to_act = table.member_at(table.game.turn)

    await env.restart_bot(make_bot())
    table.hand_ids.clear()
    [notice] = table.public()[posted:]
    assert "restarted" in (notice.content or "")
    assert to_act is not None and to_act.mention in (notice.content or "")
    assert card_label(card) in str(notice.embeds[0].to_dict())
    assert table.session.row.message_id == notice.id  # the new table message
    shown = await to_act.click(notice, label="Your hand")
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
