"""Taking back a misclick through the real bot: the player's own last bid or card, from the
button their hand shows right after it, while nothing else has happened at the table; a
take-back is committed like a move (a restart keeps it), and is refused, changing nothing,
once the table has moved on."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import simcord

from bot.client import KachufulBot
from bot.table.hands import HandPublisher

from ..helpers import Table, buttons, start_game, world

pytestmark = pytest.mark.both_backends

CARD_BACK = "Take back my card (until the next move)"
BID_BACK = "Take back my bid (until the next move)"


def labels(table: Table, member: simcord.MemberActor) -> list[str]:
    return [b.label for b in buttons(table.hand(member))]


async def test_a_card_taken_back_is_in_the_hand_again_and_nowhere_in_the_record(
    env: simcord.Env, make_bot: Callable[[], KachufulBot]
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    await table.bid_all()
    member = table.member_at(table.game.turn)
    seat = table.game.turn
    hand_before = table.game.hand(seat)
    moves_before = table.game.move_count
    await table.act(member)
    assert table.game.move_count == moves_before + 1
    assert CARD_BACK in labels(table, member)
    result = await member.click(table.hand(member), label=CARD_BACK)
    assert result.acknowledged
    assert "Taken back" in (table.hand(member).content or "")
    assert table.game.hand(seat) == hand_before and table.game.turn == seat
    assert table.game.move_count == moves_before
    stored = await env.bot.store.load_game(table.session.row.id)
    tricks = stored.record["deals"][-1].get("tricks") or []
    assert tricks == []  # the record holds only the moves that stood
    await env.settle()
    # The channel shows the trick as it stands: no card yet.
    assert any("No card yet" in (m.content or "") for m in table.public())
    # Committed like a move: after a restart the game is the same.
    version = table.session.row.version
    await env.restart_bot(make_bot())
    assert table.session.row.version == version
    assert table.game.move_count == moves_before and table.game.hand(seat) == hand_before


async def test_too_late_once_another_player_moved(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    first = table.member_at(table.game.turn)
    await table.act(first)  # a bid
    assert BID_BACK in labels(table, first)
    # The next player bids before her message is redrawn (a watcher's hand is redrawn a
    # moment later): she still sees the button, and clicks it.
    monkeypatch.setattr(HandPublisher, "poke", lambda self: None)
    await table.act(table.member_at(table.game.turn))
    monkeypatch.undo()
    version, moves = table.session.row.version, table.game.move_count
    assert BID_BACK in labels(table, first)
    result = await first.click(table.hand(first), label=BID_BACK)
    assert result.acknowledged
    assert "Too late" in (table.hand(first).content or "")
    assert (table.session.row.version, table.game.move_count) == (version, moves)
    assert BID_BACK not in labels(table, first)


async def test_a_move_the_turn_clock_made_cannot_be_taken_back(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    member = table.member_at(table.game.turn)
    seat = table.game.turn
    await table.open_hand(member)
    await env.advance_time(95)  # the turn clock (90 s) runs out: the computer bids for her
    assert table.game.bids[seat] is not None
    await table.open_hand(member)
    assert BID_BACK not in labels(table, member)
