"""The change path (bot/table/changes.py): memory never runs ahead of the database."""

from __future__ import annotations

from typing import Any

import pytest
import simcord

from bot import render
from bot.table import seats

from ..helpers import enabled_actions, snapshot, start_game, world

pytestmark = pytest.mark.both_backends


async def test_a_step_that_fails_after_the_engine_moved_leaves_the_table_as_stored(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A click whose step fails after the engine applied the card (here, playing out the
    forced cards that follow raises): the click is told it failed, and the table in memory is
    the stored one, not one move ahead; the same click then counts."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    actor = table.member_at(table.game.turn)
    assert actor is not None
    hand = await table.open_hand(actor)
    before = snapshot(table)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("an engine bug")

    monkeypatch.setattr(seats, "play_forced", broken)
    choice = enabled_actions(hand)[0].custom_id
    failed = await actor.click(hand, custom_id=choice)
    monkeypatch.undo()
    # The click's error reaches discord.py, which logs it, as an unexpected one should.
    assert any(r.exc_info and r.exc_info[0] is RuntimeError for r in caplog.records)
    assert failed.response.ephemeral and "went wrong" in (failed.response.content or "")
    assert snapshot(table) == before
    stored = await env.bot.store.load_game(table.session.row.id)
    assert stored is not None and stored.version == table.session.row.version
    retry = await table.open_hand(actor)
    ok = await actor.click(retry, custom_id=choice)
    assert ok.acknowledged and snapshot(table) != before


async def test_an_answer_that_cannot_be_drawn_never_says_a_counted_move_failed(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The answer is drawn once the move is committed: if drawing it fails (here, a renderer
    bug), the move still counts, and the player is told so, not that it failed."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    actor = table.member_at(table.game.turn)
    assert actor is not None
    hand = await table.open_hand(actor)
    before = snapshot(table)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a renderer bug")

    monkeypatch.setattr(render, "hand_message", broken)
    choice = enabled_actions(hand)[0].custom_id
    answer = await actor.click(hand, custom_id=choice)
    monkeypatch.undo()
    assert any(r.exc_info and r.exc_info[0] is RuntimeError for r in caplog.records)
    text = answer.response.content or ""
    assert answer.response.ephemeral and "counted" in text and "went wrong" not in text
    assert snapshot(table) != before
    stored = await env.bot.store.load_game(table.session.row.id)
    assert stored is not None and stored.version == before[0] + 1 == table.session.row.version
