"""A player's choices kept on their seat: with "Confirm each card" on, a clicked card only
counts once confirmed (the choice survives a restart); a choice is no move."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import simcord

from bot.client import KachufulBot
from bot.i18n import EN
from bot.render.cards import label as render_label
from kachuful_core import Phase

from ..helpers import Table, buttons, start_game, world

pytestmark = pytest.mark.both_backends


def play_label(table: Table, member: simcord.MemberActor) -> str:
    [label] = [b.label for b in buttons(table.hand(member)) if b.label.startswith("Play ")]
    return label


def shown(card: int) -> str:
    return render_label(card, EN)


async def test_a_card_counts_only_once_confirmed(
    env: simcord.Env, make_bot: Callable[[], KachufulBot]
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=5)
    seat = (table.game.turn + 1) % 3
    member = table.member_at(seat)
    await table.open_hand(member)
    version = table.session.row.version
    result = await member.click(table.hand(member), label="Confirm each card: off")
    assert result.acknowledged and table.session.row.seats[seat].confirm_cards
    assert table.session.row.version == version  # a choice is no move
    await env.restart_bot(make_bot())  # kept on the seat
    assert table.session.row.seats[seat].confirm_cards
    while not (table.game.phase is Phase.PLAYING and table.game.turn == seat):
        await table.act(table.member_at(table.game.turn))
    await table.open_hand(member)
    version, hand = table.session.row.version, table.game.hand(seat)
    first, *others = [
        b for b in buttons(table.hand(member)) if not b.disabled and b.custom_id.startswith("kf:q:")
    ]
    await member.click(table.hand(member), custom_id=first.custom_id)
    # Chosen, not played: nothing changed but the offer to confirm.
    assert (table.session.row.version, table.game.hand(seat)) == (version, hand)
    chosen = int(first.custom_id.split(":")[4])
    confirm = play_label(table, member)
    assert confirm == f"Play {shown(chosen)}"
    assert "Confirm with the green button" in (table.hand(member).content or "")
    if others:  # another card replaces the choice
        await member.click(table.hand(member), custom_id=others[0].custom_id)
        chosen = int(others[0].custom_id.split(":")[4])
        confirm = play_label(table, member)
        assert confirm == f"Play {shown(chosen)}"
    await member.click(table.hand(member), label=confirm)
    assert table.session.row.version > version
    assert chosen not in table.game.hand(seat)
    assert chosen in [card for trick in table.game.deals[-1].tricks for _, card in trick]
