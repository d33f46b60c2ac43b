"""Seat views: a seat sees exactly what the rules let it see."""

from __future__ import annotations

import dataclasses

import pytest

from kachuful_core import (
    BlindBidAfterLooking,
    Game,
    OptionNotEnabled,
    Phase,
    Rules,
    WrongPhase,
    score_summary,
    view,
)
from kachuful_core.events import BidPlaced, CardPlayed, HandLooked

from .support import EXAMPLE_HANDS, bid_all, c, cs, play_cards, preset_game, snapshot

# Seat 0 holds the same cards in both deals; the other seats' cards are moved around.
SAME_FOR_SEAT_0 = [
    ["KH AS 3D", "2C 4S 5D", "AH 9D 2S", "7H 3S 4D"],
    ["KH AS 3D", "7H 3S 4D", "2C 4S 5D", "AH 9D 2S"],
    ["KH AS 3D", "QC JC 10C", "8H 8S 8D", "6H 6S 6D"],
]


def test_a_seat_sees_only_its_own_hand() -> None:
    games = [preset_game(Rules(players=4), h, deal=10, dealer=3) for h in SAME_FOR_SEAT_0]
    for game in games:
        v = view(game, 0)
        assert v.hand is not None and sorted(v.hand) == sorted(cs("KH AS 3D"))
        assert v.visible_cards == {}
        for seat in (1, 2, 3):
            assert sorted(view(game, seat).hand or ()) == sorted(game.hand(seat))
    # Nothing in seat 0's view depends on the other seats' cards.
    assert len({repr(view(g, 0)) for g in games}) == 1
    for g in games:
        bid_all(g, {0: 1, 1: 0, 2: 1, 3: 0})
    assert len({repr(view(g, 0)) for g in games}) == 1


def test_view_fields() -> None:
    game = preset_game(Rules(players=4), EXAMPLE_HANDS, deal=10, dealer=3)
    v = view(game, 0)
    assert v.seat == 0 and v.players == 4
    assert v.phase is Phase.BIDDING
    assert (v.deal_index, v.deal_number, v.num_deals, v.hand_size) == (10, 11, 25, 3)
    assert v.dealer == 3 and v.turn == 0 and v.my_turn and not v.is_dealer
    assert v.legal_bids == (0, 1, 2, 3)
    assert view(game, 1).legal_bids == ()  # not its turn
    assert view(game, 3).is_dealer
    bid_all(game, {0: 1, 1: 0, 2: 1, 3: 0})
    v = view(game, 1)
    assert v.bids == (1, 0, 1, 0)
    assert v.legal_cards == ()  # seat 0 leads
    assert sorted(view(game, 0).legal_cards) == sorted(cs("KH AS 3D"))
    play_cards(game, "KH 2C AH 7H 4S")
    v = view(game, 2)
    assert v.completed_tricks == (((0, c("KH")), (1, c("2C")), (2, c("AH")), (3, c("7H"))),)
    assert v.current_trick == ((1, c("4S")),)
    assert v.tricks_won == (0, 1, 0, 0)
    assert v.leader == 1
    assert sorted(v.legal_cards) == [c("2S")]


# ---- forehead --------------------------------------------------------------------------------


def forehead_game(forehead: bool = True, players: int = 4) -> Game:
    rules = Rules(players=players, max_hand=1, forehead=forehead)
    hands = ["KH", "2C", "AH", "7H", "3S", "9D", "QC"][:players]
    return preset_game(rules, hands, deal=0, dealer=players - 1)


def test_forehead_deal_shows_every_other_card_and_not_ones_own() -> None:
    game = forehead_game()
    cards = {0: c("KH"), 1: c("2C"), 2: c("AH"), 3: c("7H")}
    assert game.is_forehead_deal
    for seat in range(4):
        v = view(game, seat)
        assert v.hand is None
        assert v.visible_cards == {s: x for s, x in cards.items() if s != seat}
        assert v.legal_cards == ()
        assert not v.play_unseen
    # bidding goes on as usual
    assert view(game, 0).legal_bids == (0, 1)
    bid_all(game, {0: 0, 1: 0, 2: 1, 3: 1})
    assert view(game, 0).play_unseen
    assert not view(game, 1).play_unseen
    events = game.play_unseen(0)
    assert [e for e in events if isinstance(e, CardPlayed)] == [CardPlayed(0, c("KH"))]
    v = view(game, 1)
    assert v.hand is None
    assert v.visible_cards == {2: c("AH"), 3: c("7H")}  # seat 0's card is now in the trick
    assert v.current_trick == ((0, c("KH")),)
    assert v.play_unseen
    game.play_unseen(1)
    game.play_unseen(2)
    game.play_unseen(3)
    # deal 0 has spades trump and none was played: hearts led, AH (seat 2) wins
    assert game.phase is Phase.FINISHED
    assert score_summary(game)["deals"][0]["trick_winners"] == [2]


def test_forehead_view_does_not_depend_on_ones_own_card() -> None:
    a = preset_game(
        Rules(players=3, max_hand=1, forehead=True), ["KH", "2C", "AH"], deal=0, dealer=2
    )
    b = preset_game(
        Rules(players=3, max_hand=1, forehead=True), ["3D", "2C", "AH"], deal=0, dealer=2
    )
    assert repr(view(a, 0)) == repr(view(b, 0))
    assert repr(view(a, 1)) != repr(view(b, 1))  # seat 1 sees seat 0's card


@pytest.mark.parametrize("players", [3, 5, 7])
def test_forehead_at_other_table_sizes(players: int) -> None:
    game = forehead_game(players=players)
    for seat in range(players):
        v = view(game, seat)
        assert v.hand is None
        assert set(v.visible_cards) == set(range(players)) - {seat}


def test_forehead_only_in_the_one_card_deal() -> None:
    rules = Rules(players=4, max_hand=2, forehead=True)
    game = preset_game(rules, ["KH AS", "2C 4S", "AH 9D", "7H 3S"], deal=0, dealer=3)
    assert not game.is_forehead_deal
    v = view(game, 0)
    assert v.hand is not None and sorted(v.hand) == sorted(cs("KH AS"))
    assert v.visible_cards == {}
    bid_all(game, {0: 0, 1: 0, 2: 1, 3: 0})
    before = snapshot(game)
    with pytest.raises(OptionNotEnabled):
        game.play_unseen(0)
    assert snapshot(game) == before


def test_play_unseen_needs_the_forehead_option() -> None:
    game = forehead_game(forehead=False)
    assert not game.is_forehead_deal
    v = view(game, 1)
    assert v.hand == (c("2C"),)
    assert v.visible_cards == {}
    bid_all(game, {0: 0, 1: 0, 2: 1, 3: 1})
    before = snapshot(game)
    with pytest.raises(OptionNotEnabled):
        game.play_unseen(0)
    assert snapshot(game) == before


def test_play_unseen_while_bidding_is_the_wrong_phase() -> None:
    # The option is on, so the refusal is about the phase, not the option.
    game = forehead_game()
    before = snapshot(game)
    with pytest.raises(WrongPhase):
        game.play_unseen(0)
    assert snapshot(game) == before


# ---- blind bids ------------------------------------------------------------------------------


def blind_game(blind_bids: bool = True) -> Game:
    rules = Rules(players=4, blind_bids=blind_bids)
    return preset_game(rules, EXAMPLE_HANDS, deal=10, dealer=3)


def test_with_blind_bids_a_hand_is_hidden_until_looked_at() -> None:
    game = blind_game()
    for seat in range(4):
        v = view(game, seat)
        assert v.hand is None
        assert not v.has_looked
        assert v.may_bid_blind
        assert not game.has_looked(seat)
    moves = game.move_count
    assert game.look(2) == [HandLooked(2)]
    assert game.move_count == moves  # looking is not a move
    v = view(game, 2)
    assert v.hand is not None and sorted(v.hand) == sorted(cs("AH 9D 2S"))
    assert v.has_looked and not v.may_bid_blind
    assert game.look(2) == []  # looking again changes nothing
    assert view(game, 1).hand is None


def test_unlooked_view_does_not_depend_on_ones_own_hand() -> None:
    rules = Rules(players=4, blind_bids=True)
    a = preset_game(rules, SAME_FOR_SEAT_0[0], deal=10, dealer=3)
    b = preset_game(rules, ["QS JS 10S", *SAME_FOR_SEAT_0[0][1:]], deal=10, dealer=3)
    assert repr(view(a, 0)) == repr(view(b, 0))
    a.look(0)
    b.look(0)
    assert repr(view(a, 0)) != repr(view(b, 0))


def test_blind_bid_then_normal_bid() -> None:
    game = blind_game()
    assert game.bid(0, 1, blind=True) == [BidPlaced(0, 1, True)]
    assert view(game, 0).hand is None  # still unseen
    # a plain bid without looking first looks at the hand
    assert game.bid(1, 0) == [HandLooked(1), BidPlaced(1, 0, False)]
    assert game.has_looked(1)
    assert game.blind == (True, False, False, False)
    assert view(game, 3).blind == (True, False, False, False)


def test_blind_bid_after_looking_is_refused() -> None:
    game = blind_game()
    game.look(0)
    before = snapshot(game)
    with pytest.raises(BlindBidAfterLooking) as info:
        game.bid(0, 1, blind=True)
    assert info.value.seat == 0
    assert not game.can_bid(0, 1, blind=True)
    assert snapshot(game) == before
    game.bid(0, 1)  # a plain bid is fine


def test_blind_bid_with_the_option_off_is_refused() -> None:
    game = blind_game(blind_bids=False)
    assert not view(game, 0).may_bid_blind
    assert view(game, 0).hand is not None  # hands are seen from the start
    before = snapshot(game)
    with pytest.raises(OptionNotEnabled) as info:
        game.bid(0, 1, blind=True)
    assert info.value.option == "blind_bids"
    assert not game.can_bid(0, 1, blind=True)
    assert snapshot(game) == before


def test_may_bid_blind_is_false_once_the_seat_has_bid() -> None:
    game = blind_game()
    game.bid(0, 1, blind=True)
    assert game.legal_bids(0) == []
    assert not view(game, 0).may_bid_blind


def test_views_are_immutable() -> None:
    v = view(blind_game(), 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.seat = 1  # type: ignore[misc]
