"""The end of a deal without clicking through every card, through the real bot: a certain
claim is played out at once and the channel says so; a claim that is not certain is refused
privately with nothing changed; a deal whose remaining cards are all forced plays itself out;
a player may have their single legal card played for them."""

from __future__ import annotations

import pytest
import simcord

from kachuful_core import Phase
from kachuful_core.claims import claim_line, single_legal_card

from ..helpers import Table, buttons, start_game, world

pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store("the end of a deal is the engine's; the store takes no part"),
]

CLAIM = "Claim the rest"


async def _click_claim(table: Table, member: simcord.MemberActor) -> simcord.InteractionResult:
    if member.id not in table.hand_ids:
        await table.open_hand(member)
    return await member.click(table.hand(member), label=CLAIM)


async def test_a_certain_claim_plays_out_and_an_uncertain_one_changes_nothing(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen", "dev")
    # Four players and thirteen cards: the whole deck is dealt in the first deal, so claims
    # become certain as the deal goes on.
    table = await start_game(env, channel, members, max_hand=13)
    refused = claimed = None
    while table.session is not None and table.game.deal_index < 4:
        game = table.game
        seat = game.turn
        member = table.member_at(seat)
        assert member is not None
        if game.phase is Phase.PLAYING and len(game.hand(seat)) > 1:
            certain = claim_line(game, seat) is not None
            if not certain and refused is None:
                before = (table.session.row.version, game.move_count)
                result = await _click_claim(table, member)
                assert result.acknowledged
                assert "Not certain" in (table.hand(member).content or "")
                assert (table.session.row.version, table.game.move_count) == before
                refused = seat
                continue
            if certain:
                left = game.hand_size - len(game.completed_tricks)
                deal, first = game.deal_index, len(game.completed_tricks)
                result = await _click_claim(table, member)
                assert result.acknowledged
                log = table.game.deals[deal]
                assert log.scores is not None  # the deal was played out at once
                assert log.trick_winners[-left:] == [seat] * left
                claimed = (seat, deal, first)
                break
        await table.act(member, pick=99)  # the last enabled button: low cards go first
    assert refused is not None, "no uncertain claim was tried"
    assert claimed is not None, "no claim became certain in four deals"
    await env.settle()
    public = "\n".join(_texts(table))
    name = table.session.row.seats[claimed[0]].name
    assert f"**{name}** takes it, as claimed" in public
    # A restart reads the claim back from the row: the channel still says so.
    seats = (await env.bot.store.load_game(table.session.row.id)).seats
    assert seats[claimed[0]].claimed == [claimed[1:]]


async def test_the_last_trick_plays_itself(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3)
    clicks = 0
    while table.game.deal_index == 0:
        game = table.game
        if game.phase is Phase.PLAYING:
            assert game.hand_size - len(game.completed_tricks) > 1, "a forced trick waited"
        await table.act(table.member_at(game.turn))
        clicks += 1
    # Three bids and the cards of the first two tricks: the last trick was not clicked.
    assert clicks == 3 + 2 * 3
    assert len(table.game.deals[0].trick_winners) == 3


async def test_a_single_legal_card_is_played_for_a_player_who_chose_it(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=8)
    # The choices are on the hand between the player's turns.
    seat = (table.game.turn + 1) % 3
    asha = table.member_at(seat)
    await table.open_hand(asha)
    result = await asha.click(table.hand(asha), label="Only card played for me: off")
    assert result.acknowledged
    assert table.session.row.seats[seat].single_card
    labels = [b.label for b in buttons(table.hand(asha))]
    assert "Only card played for me: on" in labels
    clicked = 0  # asha's cards clicked by her, but for the last tricks (which play themselves)
    while table.session is not None and table.game.deal_index < 4:
        game = table.game
        turn = game.turn
        assert not (turn == seat and single_legal_card(game, seat) is not None), (
            "asha's only legal card waited for her click"
        )
        before_last = len(game.completed_tricks) < game.hand_size - 1
        clicked += turn == seat and game.phase is Phase.PLAYING and before_last
        await table.act(table.member_at(turn))
    deals = table.game.deals[:4]
    hers = sum(1 for log in deals for trick in log.tricks[:-1] for s, _ in trick if s == seat)
    assert hers - clicked > 0, "no single legal card came up for asha in four deals"
    # Turned off again, from the hand message between her turns: stored on the seat.
    if table.game.turn == seat:
        await table.act(asha)
    await asha.click(table.hand(asha), label="Only card played for me: on")
    stored = await env.bot.store.load_game(table.session.row.id)
    assert not stored.seats[seat].single_card


def _texts(table: Table) -> list[str]:
    out = []
    for message in table.public():
        out.append(message.content or "")
        out += [embed.description or "" for embed in message.embeds]
    return out
