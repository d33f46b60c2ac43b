"""The score pad for games played with a real deck (kachuful_core.scorepad): bids in turn with
the hook rule, tricks that must add up to the hand size, scores by the table's scoring, and
its record, checked again when read back."""

from __future__ import annotations

import pytest

from kachuful_core import Rules
from kachuful_core.errors import (
    BidOutOfRange,
    DealerBidForbidden,
    NotYourTurn,
    RecordError,
    WrongPhase,
)
from kachuful_core.scorepad import CARDS, ScorePad, TricksDoNotAddUp

RULES = Rules(players=3, max_hand=2)  # deals of 2, 1 and 2 cards (down and up)


def test_a_deal_is_bid_in_turn_and_the_dealer_is_hooked() -> None:
    pad = ScorePad.new(RULES, ["Asha", "Bilal", "Chen"], first_dealer=0)
    assert pad.hand_size() == 2 and pad.dealer() == 0 and pad.turn == 1
    with pytest.raises(NotYourTurn):
        pad.bid(2, 1)
    with pytest.raises(BidOutOfRange):
        pad.bid(1, 3)
    pad.bid(1, 1)
    pad.bid(2, 0)
    assert pad.turn == 0 and pad.forbidden_bid() == 1 and pad.legal_bids() == [0, 2]
    with pytest.raises(DealerBidForbidden):
        pad.bid(0, 1)
    pad.bid(0, 0)
    assert pad.stage == "tricks"
    with pytest.raises(WrongPhase):
        pad.bid(0, 0)


def test_tricks_must_add_up_to_the_hand_size_and_can_be_corrected() -> None:
    pad = ScorePad.new(RULES, ["Asha", "Bilal", "Chen"])
    for seat, bid in ((1, 1), (2, 0), (0, 0)):
        pad.bid(seat, bid)
    assert pad.tricks(1, 2) is False
    with pytest.raises(TricksDoNotAddUp) as refused:
        pad.tricks(2, 1)  # 3 tricks in a deal of 2
    assert refused.value.total == 3 and refused.value.hand_size == 2
    assert pad.tricks(2, 0) is False
    assert pad.current.tricks == [None, 2, 0]
    # Bilal took one, not two: a correction before the last count scores nothing wrong.
    assert pad.tricks(1, 1) is False
    assert pad.tricks(0, 0) is False  # 1 + 0 + 0: one trick is missing
    assert pad.mismatch() == 1 and pad.scores() == []
    assert pad.tricks(2, 1) is True  # now 0 + 1 + 1 = 2: scored, the next deal opens
    assert pad.scores() == [(10, 11, 0)]
    assert pad.deal_index == 1 and pad.hand_size() == 1 and pad.dealer() == 1


def play(pad: ScorePad, deals: list[tuple[list[int], list[int]]]) -> None:
    for bids, tricks in deals:
        for seat in pad.bid_order():
            pad.bid(seat, bids[seat])
        for seat, count in enumerate(tricks):
            pad.tricks(seat, count)


def test_a_whole_game_is_scored_and_read_back_from_its_record() -> None:
    pad = ScorePad.new(RULES, ["Asha", "Bilal", "Chen"], first_dealer=2)
    play(
        pad,
        [
            ([1, 1, 1], [1, 1, 0]),  # dealer Chen (seat 2) bids last: 1+1+1 = 3, allowed
            ([0, 1, 1], [0, 1, 0]),  # one card, dealer Asha
            ([2, 1, 1], [2, 0, 0]),  # two cards, dealer Bilal
        ],
    )
    assert RULES.hand_sizes == (2, 1, 2) and pad.stage == "finished"
    assert pad.totals == [11 + 10 + 12, 11 + 11 + 0, 0]
    assert pad.winners() == (0,)
    document = pad.to_document()
    assert document["format"] == "kachuful-scorepad/1" and document["cards"] == CARDS
    again = ScorePad.from_document(document)
    assert again.totals == pad.totals and again.stage == "finished"


def test_a_pad_in_the_middle_of_a_deal_reads_back_as_it_was() -> None:
    pad = ScorePad.new(RULES, ["Asha", "Bilal", "Chen"])
    play(pad, [([0, 1, 0], [0, 1, 1])])
    pad.bid(2, 0)
    again = ScorePad.from_document(pad.to_document())
    assert again.deal_index == 1 and again.turn == 0 and again.current.bids == [None, None, 0]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(format="kachuful-record/1"), "not a score pad record"),
        (lambda d: d["deals"][0]["bids"].__setitem__(1, 5), "deal 0"),
        (lambda d: d["deals"][0]["tricks"].__setitem__(0, 2), "deal 0"),
        (lambda d: d.update(players=["Asha"]), "rules or players"),
    ],
)
def test_a_broken_record_is_refused_in_words(change, words: str) -> None:  # type: ignore[no-untyped-def]
    pad = ScorePad.new(RULES, ["Asha", "Bilal", "Chen"])
    play(pad, [([0, 1, 0], [0, 1, 1])])
    document = pad.to_document()
    change(document)
    with pytest.raises(RecordError) as refused:
        ScorePad.from_document(document)
    assert words in str(refused.value)


def test_options_a_real_deck_cannot_keep_are_refused() -> None:
    for rules in (
        Rules(players=3, blind_bids=True),
        Rules(players=3, forehead=True),
        Rules(players=3, trump="turned"),
    ):
        with pytest.raises(ValueError):
            ScorePad.new(rules, ["A", "B", "C"])


@pytest.mark.parametrize("scoring", ["exact", "penalty", "judgement"])
def test_a_pad_s_summary_is_the_summary_of_the_same_game_played_online(scoring: str) -> None:
    """A real game's bids and tricks entered on a pad give the game's own score summary (a pad
    knows no trick's winner), so a pad's results are counted as a game's are."""
    from kachuful_core import Game, score_summary
    from kachuful_core.players import RandomPlayer, act

    rules = Rules(players=3, max_hand=3, scoring=scoring)
    game = Game.new(rules, "pad-summary", ["Asha", "Bilal", "Chen"])
    while game.turn is not None:
        act(game, game.turn, RandomPlayer(game.turn))
    played = score_summary(game)
    pad = ScorePad.new(rules, ["Asha", "Bilal", "Chen"], first_dealer=played["deals"][0]["dealer"])
    for deal in played["deals"]:
        for seat in pad.bid_order():
            pad.bid(seat, deal["bids"][seat])
        for seat, tricks in enumerate(deal["tricks_won"]):
            pad.tricks(seat, tricks)
    summary = pad.summary()
    for deal in played["deals"]:
        deal["trick_winners"] = None
    assert summary == played
    assert summary["complete"] and summary["winners"] == played["winners"]
