"""The largest hands through the real discord.py views, and what a failed click logs."""

from __future__ import annotations

import logging
import sqlite3

import pytest
import simcord

from bot.i18n import EN
from bot.render.cards import label  # the engine's card_label, every suit in text presentation

from ..helpers import buttons, enabled_actions, start_game, world


async def test_seventeen_card_hand_fits_in_five_rows(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members)  # three players: 17 cards in deal 1
    assert table.game.hand_size == 17
    first = table.member_at(table.game.turn)
    hand = await table.open_hand(first)
    assert len(hand.components) == 5  # 18 bids in four rows, Refresh below
    assert [b.label for b in buttons(hand)][:18] == [str(n) for n in range(18)]
    leader = await table.bid_all(pick=1)
    hand = await table.open_hand(leader)
    seat = table.session.row.seat_of(leader.id)
    cards = [b for b in buttons(hand) if (b.custom_id or "").startswith("kf:p:")]
    assert len(cards) == 17 and len(hand.components) <= 5
    assert all(len(row.children) <= 5 for row in hand.components)
    assert sorted(b.label for b in cards) == sorted(label(c, EN) for c in table.game.hand(seat))
    assert len(enabled_actions(hand)) == 17  # the lead: any card


async def test_a_failed_card_click_does_not_log_the_card(
    env: simcord.Env, caplog: pytest.LogCaptureFixture
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    leader = await table.bid_all()
    hand = await table.open_hand(leader)
    card = enabled_actions(hand)[0]
    store = env.bot.store
    working = store.save_game

    async def broken(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    store.save_game = broken  # type: ignore[method-assign]
    try:
        with caplog.at_level(logging.DEBUG):
            failed = await leader.click(hand, custom_id=card.custom_id)
    finally:
        store.save_game = working  # type: ignore[method-assign]
    assert "went wrong" in failed.response.content
    assert "OperationalError" in caplog.text  # the failure is logged ...
    assert card.label not in caplog.text  # ... without the card of a hidden hand
    assert card.custom_id not in caplog.text
