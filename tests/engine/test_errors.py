"""Typed refusals: each illegal command raises its own KachufulError subclass, with structured
fields, and leaves every observable part of the game unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kachuful_core import (
    BidOutOfRange,
    BlindBidAfterLooking,
    CardNotInHand,
    DealerBidForbidden,
    Game,
    InvalidSeat,
    KachufulError,
    MustFollowSuit,
    NotYourTurn,
    OptionNotEnabled,
    Phase,
    RecordError,
    Rules,
    WrongPhase,
    view,
)

from .support import EXAMPLE_HANDS, bid_all, c, cs, play_cards, preset_game, snapshot, suit_id

ALL_ERRORS = [
    NotYourTurn,
    WrongPhase,
    MustFollowSuit,
    CardNotInHand,
    BidOutOfRange,
    DealerBidForbidden,
    InvalidSeat,
    BlindBidAfterLooking,
    OptionNotEnabled,
    RecordError,
]


@pytest.mark.parametrize("error", ALL_ERRORS, ids=lambda e: e.__name__)
def test_every_refusal_is_a_kachuful_error_and_a_value_error(error: type[Exception]) -> None:
    assert issubclass(error, KachufulError)
    assert issubclass(error, ValueError)


def bidding() -> Game:
    """The worked example's deal, at its start: seat 0 to bid, dealer 3."""
    return preset_game(Rules(players=4), EXAMPLE_HANDS, deal=10, dealer=3)


def dealer_to_bid() -> Game:
    game = bidding()
    game.bid(0, 1)
    game.bid(1, 0)
    game.bid(2, 1)
    return game


def playing() -> Game:
    """Hearts led by seat 0; seat 1 to play, holding 4H."""
    hands = ["KH AS 3D", "2C 4H 5D", "AH 9H 2S", "7H 3S 4D"]
    game = preset_game(Rules(players=4), hands, deal=10, dealer=3)
    bid_all(game, {0: 1, 1: 0, 2: 1, 3: 0})
    play_cards(game, "KH")
    return game


def finished() -> Game:
    game = preset_game(Rules(players=3, max_hand=1), ["AS", "2H", "3H"], deal=0, dealer=2)
    bid_all(game, {0: 1, 1: 0, 2: 1})
    play_cards(game, "AS 2H 3H")
    assert game.phase is Phase.FINISHED
    return game


Case = tuple[Callable[[], Game], Callable[[Game], Any], type[KachufulError], dict[str, Any]]

CASES: dict[str, Case] = {
    "bid out of turn": (bidding, lambda g: g.bid(2, 1), NotYourTurn, {"seat": 2, "expected": 0}),
    "dealer bids first": (bidding, lambda g: g.bid(3, 0), NotYourTurn, {"seat": 3}),
    "play out of turn": (playing, lambda g: g.play(2, c("AH")), NotYourTurn, {"expected": 1}),
    "play own card out of turn": (
        playing,
        lambda g: g.play(0, c("AS")),
        NotYourTurn,
        {"seat": 0, "expected": 1},
    ),
    "play while bidding": (bidding, lambda g: g.play(0, c("KH")), WrongPhase, {}),
    "bid while playing": (playing, lambda g: g.bid(1, 0), WrongPhase, {}),
    "bid after the end": (finished, lambda g: g.bid(0, 0), WrongPhase, {}),
    "play after the end": (finished, lambda g: g.play(0, c("AS")), WrongPhase, {}),
    "off suit holding the led suit": (
        playing,
        lambda g: g.play(1, c("2C")),
        MustFollowSuit,
        {"seat": 1, "suit": suit_id("H"), "held": (c("4H"),), "played": c("2C")},
    ),
    "card of another hand": (
        playing,
        lambda g: g.play(1, c("AH")),
        CardNotInHand,
        {"seat": 1, "card": c("AH")},
    ),
    "card never dealt": (
        playing,
        lambda g: g.play(1, c("QH")),
        CardNotInHand,
        {"seat": 1, "card": c("QH")},
    ),
    "card already played": (
        playing,
        lambda g: g.play(1, c("KH")),
        CardNotInHand,
        {"seat": 1, "card": c("KH")},
    ),
    "no such card": (playing, lambda g: g.play(1, 52), CardNotInHand, {"seat": 1}),
    "bid above the hand size": (
        bidding,
        lambda g: g.bid(0, 4),
        BidOutOfRange,
        {"seat": 0, "bid": 4, "low": 0, "high": 3},
    ),
    "negative bid": (bidding, lambda g: g.bid(0, -1), BidOutOfRange, {"bid": -1}),
    "dealer completes the total": (
        dealer_to_bid,
        lambda g: g.bid(3, 1),
        DealerBidForbidden,
        {"seat": 3, "forbidden": 1},
    ),
    "dealer bids out of range": (dealer_to_bid, lambda g: g.bid(3, 4), BidOutOfRange, {}),
    "bid from seat 4 of 4": (bidding, lambda g: g.bid(4, 0), InvalidSeat, {"seat": 4}),
    "play from seat -1": (playing, lambda g: g.play(-1, c("4H")), InvalidSeat, {"seat": -1}),
    "look from seat 9": (bidding, lambda g: g.look(9), InvalidSeat, {"seat": 9}),
    "view of seat 4": (bidding, lambda g: view(g, 4), InvalidSeat, {"seat": 4}),
    "hand of seat 4": (bidding, lambda g: g.hand(4), InvalidSeat, {"seat": 4}),
    "blind bid, option off": (
        bidding,
        lambda g: g.bid(0, 1, blind=True),
        OptionNotEnabled,
        {"option": "blind_bids"},
    ),
    "play unseen outside a forehead deal": (
        playing,
        lambda g: g.play_unseen(1),
        OptionNotEnabled,
        {"option": "forehead"},
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_refusal_is_typed_and_changes_nothing(name: str) -> None:
    make, action, error, fields = CASES[name]
    game = make()
    before = snapshot(game)
    with pytest.raises(error) as info:
        action(game)
    assert isinstance(info.value, KachufulError)
    assert str(info.value)  # a message for logs
    for field, value in fields.items():
        assert getattr(info.value, field) == value, field
    assert snapshot(game) == before


def test_queries_do_not_raise_for_anyone() -> None:
    game = playing()
    assert game.legal_cards(0) == []
    assert game.legal_bids(1) == []
    assert game.legal_cards(1) == [c("4H")]
    assert game.can_play(1, c("4H"))
    assert not game.can_play(1, c("2C"))
    assert not game.can_play(7, c("4H"))
    assert not game.can_bid(1, 0)


def test_after_a_refusal_the_game_goes_on() -> None:
    game = playing()
    for bad in (lambda: game.play(1, c("2C")), lambda: game.play(2, c("AH"))):
        with pytest.raises(KachufulError):
            bad()
    game.play(1, c("4H"))
    assert sorted(game.legal_cards(2)) == sorted(cs("AH 9H"))
