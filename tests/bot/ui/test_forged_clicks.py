"""Every click gets an answer, and a button's numbers are ASCII digits only."""

from __future__ import annotations

import pytest
import simcord

from bot.ui import custom_ids, items

from ..helpers import craft_click, snapshot, start_game, world

DEAD = "This button no longer works."


async def _first_bidder(env: simcord.Env) -> tuple[object, simcord.MemberActor]:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    member = table.member_at(table.game.turn)
    assert member is not None
    return table, member


@pytest.mark.parametrize("digit", ["３", "٣", "३"])  # fullwidth, Arabic-Indic, Devanagari 3
async def test_a_bid_with_non_ascii_digits_is_not_applied(env: simcord.Env, digit: str) -> None:
    table, member = await _first_bidder(env)
    hand = await table.open_hand(member)  # type: ignore[attr-defined]
    row = table.session.row  # type: ignore[attr-defined]
    assert 3 in table.game.legal_bids(table.game.turn)  # type: ignore[attr-defined]
    before = snapshot(table)  # type: ignore[arg-type]
    forged = await craft_click(env, member, hand, f"kf:b:{row.id}:{row.version}:{digit}:0")
    assert forged.ephemeral and forged.response is not None
    assert forged.response.content == DEAD
    assert snapshot(table) == before  # type: ignore[arg-type]
    # The same bid in ASCII digits is a real bid.
    real = await craft_click(env, member, hand, f"kf:b:{row.id}:{row.version}:3:0")
    assert real.acknowledged
    assert snapshot(table) != before  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "custom_id",
    [
        "hello",
        "kf:b:abc",
        "kf:h:-1",
        "kf:h:",
        "kf:h:１",
        "kf:h:" + "9" * 30,  # more than SQLite's integers hold
        "kf:p:1:2:٣",
        "kf:l:dance:1:0",
        "kf:h:1 ",
        "ÿ" * 100,
    ],
)
async def test_a_click_no_button_handles_is_answered_privately(
    env: simcord.Env, custom_id: str
) -> None:
    table, member = await _first_bidder(env)
    hand = await table.open_hand(member)  # type: ignore[attr-defined]
    before = snapshot(table)  # type: ignore[arg-type]
    forged = await craft_click(env, member, hand, custom_id)
    assert forged.ephemeral and forged.response is not None
    assert forged.response.content == DEAD
    assert snapshot(table) == before  # type: ignore[arg-type]


def test_every_custom_id_the_bot_makes_is_matched() -> None:
    actions: list[tuple[str | int | bool, ...]] = [
        ("join", 12, 3),
        ("start", 12, 0),
        ("hand", 12),
        ("refresh", 12),
        ("bid", 12, 40, 0, True),
        ("play", 12, 40, 51),
        ("unseen", 12, 40),
        ("look", 12, 40),
        ("back", 12, 6),
    ]
    for action in actions:
        assert items.matches_any(custom_ids.custom_id(action)), action
    assert not items.matches_any("kf:h:３")
