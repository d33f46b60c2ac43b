"""The review of a finished game (kachuful_core.review): the three figures of docs/review.md,
computed from the record alone."""

from __future__ import annotations

import pytest

from kachuful_core import Game, Rules, load_game, record_document, score_summary
from kachuful_core.errors import RecordError
from kachuful_core.game import Phase, PresetDeal
from kachuful_core.players import HeuristicPlayer, RandomPlayer, SearchPlayer, act
from kachuful_core.review import GameReview, review_deal, review_game, reviewable_deals


def played(rules: Rules, players: list, seed: bytes = b"review") -> dict:
    game = Game.new(rules, seed)
    while game.phase is not Phase.FINISHED:
        assert game.turn is not None
        act(game, game.turn, players[game.turn])
    return record_document(game)


SMALL = Rules(players=3, max_hand=3)


def test_a_game_played_by_the_expert_at_every_seat_reviews_as_the_expert_would() -> None:
    expert = SearchPlayer(0)
    record = played(SMALL, [expert] * 3)
    review = review_game(record)
    assert len(review.deals) == SMALL.num_deals
    for seat in range(3):
        totals = review.totals(seat)
        assert totals.compared == totals.deals == SMALL.num_deals
        assert totals.same_bid == totals.deals
        assert totals.bid_cost == 0
        assert totals.play == 0


def test_the_figures_agree_with_the_record() -> None:
    record = played(SMALL, [RandomPlayer(1), HeuristicPlayer(2), RandomPlayer(3)])
    review = review_game(record)
    summary = score_summary(load_game(record))
    for deal, scored in zip(review.deals, summary["deals"], strict=True):
        assert deal.index == scored["index"]
        for seat, row in enumerate(deal.seats):
            assert row.bid == scored["bids"][seat]
            assert row.tricks == scored["tricks_won"][seat]
            assert row.score == scored["scores"][seat]
            assert row.expert_tricks is not None and row.play is not None
            assert row.play == abs(row.expert_tricks - row.bid) - abs(row.tricks - row.bid)
            assert row.expert_bid is not None and 0 <= row.expert_bid <= deal.hand_size
            assert row.expected_tricks is not None and 0 <= row.expected_tricks <= deal.hand_size
            if row.expert_bid == row.bid:
                assert row.bid_cost == 0
    for seat in range(3):
        assert review.totals(seat).score == summary["totals"][seat]


def test_random_bids_cost_more_than_the_heuristic_s() -> None:
    rules = Rules(players=4, max_hand=5)
    record = played(
        rules, [RandomPlayer(1), HeuristicPlayer(2), RandomPlayer(3), HeuristicPlayer(4)]
    )
    review = review_game(record)
    random_cost = review.totals(0).bid_cost + review.totals(2).bid_cost
    heuristic_cost = review.totals(1).bid_cost + review.totals(3).bid_cost
    assert random_cost > heuristic_cost


def test_the_review_is_deterministic_and_survives_its_document() -> None:
    record = played(SMALL, [RandomPlayer(1), HeuristicPlayer(2), RandomPlayer(3)])
    first = review_game(record)
    assert review_game(record) == first
    assert GameReview.model_validate(first.model_dump(mode="json")) == first


def test_a_hand_sure_of_its_bid_is_lucky_and_a_doubtful_one_is_not() -> None:
    rules = Rules(players=3, max_hand=3)  # deal 0: three cards, spades trump
    hands = (
        (12, 11, 10),  # seat 0: A K Q of spades, the trump suit
        (13, 26, 39),  # seat 1: the twos of hearts, diamonds and clubs
        (19, 33, 44),  # seat 2: middling cards
    )
    game = Game(rules, ["A", "B", "C"], first_dealer=2, presets={0: PresetDeal(hands, None)})
    assert game.trump == 0 and sorted(game.hand(0)) == [10, 11, 12]
    heuristic = HeuristicPlayer(0)
    while game.deal_index == 0:
        assert game.turn is not None
        act(game, game.turn, heuristic)
    record = record_document(game)
    deal = review_deal(record, 0)
    assert deal.seats[0].luck is not None and deal.seats[0].luck > 5
    # Three twos are a near-certain zero: worth 10 points, more than an average hand.
    assert deal.seats[1].luck is not None and deal.seats[1].luck > 0
    assert deal.seats[2].luck is not None and deal.seats[2].luck < 0
    assert deal.seats[0].expected_tricks is not None and deal.seats[0].expected_tricks > 2.5


def test_a_deal_not_played_out_is_not_reviewed() -> None:
    game = Game.new(SMALL, b"partial")
    heuristic = HeuristicPlayer(0)
    while game.deal_index == 0 or game.phase is Phase.BIDDING:
        assert game.turn is not None
        act(game, game.turn, heuristic)
    record = record_document(game)
    assert reviewable_deals(record) == 1
    with pytest.raises(ValueError):
        review_deal(record, 1)


def test_a_broken_record_is_refused() -> None:
    record = played(SMALL, [RandomPlayer(1)] * 3)
    record["deals"][0]["bids"][0] = 99
    with pytest.raises(RecordError):
        review_deal(record, 0)
