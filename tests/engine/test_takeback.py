"""Taking back a misclick (kachuful_core.takeback): only the game's very last move, only by
its seat, only in the deal being played; the game after it is the record replayed without
that move, so the record holds only moves that stood."""

from __future__ import annotations

import pytest

from kachuful_core import Game, Rules, load_game, record_json
from kachuful_core.errors import NothingToTakeBack
from kachuful_core.takeback import can_take_back, last_move, take_back

from .support import bid_all, c, play_cards, preset_game, snapshot

THREE = Rules(players=3, max_hand=3)  # deal 0: three cards each, spades trump


def started() -> Game:
    game = Game.new(THREE, seed="take-back")
    return game


def test_a_card_is_taken_back_and_the_game_is_as_before_it() -> None:
    game = preset_game(THREE, ["AS 2H 5D", "KS 3H 6D", "QS 4H 7D"], deal=0, dealer=2)
    bid_all(game, {0: 1, 1: 0, 2: 1})
    play_cards(game, "AS")
    before = snapshot(game)
    play_cards(game, "KS")
    assert last_move(game) == (1, "card")
    assert can_take_back(game, 1) and not can_take_back(game, 0)
    back = take_back(game, 1)
    assert snapshot(back) == before
    assert c("KS") in back.hand(1) and back.turn == 1
    # The record after a take-back holds no trace of the card taken back.
    assert '"KS"]' not in record_json(back).split('"tricks"')[-1]
    assert snapshot(load_game(record_json(back))) == snapshot(back)


def test_a_card_that_completed_a_trick_can_be_taken_back() -> None:
    game = preset_game(THREE, ["AS 2H 5D", "KS 3H 6D", "QS 4H 7D"], deal=0, dealer=2)
    bid_all(game, {0: 1, 1: 0, 2: 1})
    play_cards(game, "AS KS")
    before = snapshot(game)
    play_cards(game, "QS")  # the trick is won: no other seat has acted since
    assert snapshot(take_back(game, 2)) == before


def test_a_bid_is_taken_back() -> None:
    game = preset_game(THREE, ["AS 2H 5D", "KS 3H 6D", "QS 4H 7D"], deal=0, dealer=2)
    game.bid(0, 1)
    before = snapshot(game)
    game.bid(1, 2)
    back = take_back(game, 1)
    assert snapshot(back) == before and back.bids[1] is None


def test_too_late_once_another_seat_acted_or_the_deal_is_over() -> None:
    game = preset_game(THREE, ["AS 2H 5D", "KS 3H 6D", "QS 4H 7D"], deal=0, dealer=2)
    game.bid(0, 1)
    game.bid(1, 0)
    with pytest.raises(NothingToTakeBack):
        take_back(game, 0)  # seat 1 has bid since
    bid_all(game, {2: 1})
    play_cards(game, "AS KS QS 2H 3H 4H 7D 5D 6D")  # the deal is over
    assert last_move(game) is None
    before = snapshot(game)
    with pytest.raises(NothingToTakeBack):
        take_back(game, 2)
    assert snapshot(game) == before  # a refused take-back changes nothing


def test_a_game_with_a_seed_goes_on_after_a_take_back() -> None:
    game = started()
    seat = game.turn
    game.bid(seat, 0)
    back = take_back(game, seat)
    assert back.seed == game.seed
    assert [back.hand(s) for s in range(3)] == [game.hand(s) for s in range(3)]
    back.bid(seat, 1)  # the game goes on from the seat's turn
    assert back.bids[seat] == 1


def test_nothing_to_take_back_once_the_next_deal_is_dealt() -> None:
    game = started()
    while game.deal_index == 0:
        seat = game.turn
        if game.bids[seat] is None:
            game.bid(seat, game.legal_bids(seat)[0])
        else:
            game.play(seat, game.legal_cards(seat)[0])
    assert last_move(game) is None  # the new hands are dealt: the last card stands
    assert not any(can_take_back(game, seat) for seat in range(3))
