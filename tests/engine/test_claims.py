"""Claims and forced cards (kachuful_core.claims): a claim is accepted only when it is certain
whatever the others hold, is decided without looking at their hands, and is played out as
plain moves; a deal whose every remaining card is forced plays itself out."""

from __future__ import annotations

import copy
import random

import pytest

from kachuful_core import Game, Rules, load_game, record_json
from kachuful_core.claims import (
    all_forced,
    claim,
    claim_line,
    play_forced,
    single_legal_card,
)
from kachuful_core.errors import ClaimNotCertain, NotYourTurn
from kachuful_core.events import CardPlayed
from kachuful_core.game import Phase, PresetDeal

from .support import bid_all, c, cs, play_cards, preset_game, snapshot

THREE = Rules(players=3, max_hand=3)  # deal 0: three cards each, spades trump
FOUR = Rules(players=4)  # deal 0: the whole deck, thirteen each, spades trump


def three_card_deal(hands: list[str]) -> Game:
    game = preset_game(THREE, hands, deal=0, dealer=2)  # seat 0 bids and leads first
    bid_all(game, {0: 3, 1: 0, 2: 1})
    return game


def test_the_top_trumps_are_claimed_and_played_out_as_plain_moves() -> None:
    game = three_card_deal(["AS KS QS", "2H 3H 4H", "5D 6D 7D"])
    assert claim_line(game, 0) == cs("AS KS QS")
    events = claim(game, 0)
    assert game.deal_scores[0][0] == 13  # bid 3, took 3
    assert len([e for e in events if type(e).__name__ == "TrickWon"]) == 3
    # The record is a plain sequence of moves: it replays to the same game.
    assert snapshot(load_game(record_json(game))) == snapshot(game)


def test_plain_aces_are_not_certain_while_a_trump_may_be_out() -> None:
    # Nine of the 52 cards are dealt: any other seat may hold a spade and trump the hearts.
    game = three_card_deal(["AH KH QH", "2H 3H 4H", "5D 6D 7D"])
    before = snapshot(game)
    assert claim_line(game, 0) is None
    with pytest.raises(ClaimNotCertain):
        claim(game, 0)
    assert snapshot(game) == before  # a refused claim changes nothing


def test_a_claim_is_only_for_the_seat_to_play() -> None:
    game = three_card_deal(["AS KS QS", "2H 3H 4H", "5D 6D 7D"])
    assert claim_line(game, 1) is None
    with pytest.raises(NotYourTurn):
        claim(game, 1)


def test_a_trick_in_progress_is_won_by_a_card_nothing_unseen_can_beat() -> None:
    game = three_card_deal(["2H 3H 4H", "AS KS QS", "5D 6D 7D"])
    play_cards(game, "2H")  # seat 0 leads a heart; seat 1 (void) trumps with the ace...
    assert claim_line(game, 1) == cs("AS KS QS")
    claim(game, 1)
    assert game.deal_scores[0][1] == 0  # bid 0, took 3: the claim is about tricks, not bids


def test_drawing_the_trumps_makes_the_plain_aces_safe() -> None:
    # Four players, the whole deck dealt: seat 0 holds the four top spades; the other nine
    # spades are out, so four leads cannot draw them all: not certain.
    hands = _four_hands("AS KS QS JS AH AD AC KH KD KC QH QD QC")
    game = _four_game(hands)
    assert claim_line(game, 0) is None
    # With every spade of its own, seat 0's plain aces cannot be trumped.
    game = _four_game(_four_hands("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"))
    assert claim_line(game, 0) == sorted(cs("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"))[::-1]


def test_a_claim_does_not_depend_on_how_the_others_cards_lie() -> None:
    """The claimant cannot see the other hands, so neither does the claim's check: the same
    hand gets the same answer however the other 39 cards are dealt."""
    rng = random.Random(7)
    for _ in range(40):
        deck = list(range(52))
        rng.shuffle(deck)
        mine = deck[:13]
        answers = set()
        for _ in range(5):
            rest = deck[13:]
            rng.shuffle(rest)
            hands = [mine, rest[:13], rest[13:26], rest[26:]]
            game = Game(FOUR, first_dealer=3, presets={0: PresetDeal(_t(hands), None)})
            bid_all(game, {0: 1, 1: 1, 2: 1, 3: 1})
            line = claim_line(game, 0)
            answers.add(None if line is None else tuple(line))
        assert len(answers) == 1


def test_an_accepted_claim_wins_every_trick_against_any_defence() -> None:
    """Random games: wherever the seat to play may claim, it then takes every remaining
    trick whatever the others play (random legal cards from their real hands); and the deal
    is called forced exactly when playing it out offers no choice."""
    rng = random.Random(11)
    checked = 0
    for players in (3, 4, 5):
        rules = Rules(players=players)
        for game_number in range(5):
            game = Game.new(rules, seed=f"claims-{players}-{game_number}")
            while game.phase is not Phase.FINISHED and checked < 400:
                if game.phase is Phase.BIDDING:
                    game.bid(game.turn, rng.choice(game.legal_bids(game.turn)))
                    continue
                near_end = game.hand_size - len(game.completed_tricks) <= 2
                if near_end and rng.random() < 0.3:  # a sample: each check copies the game
                    assert all_forced(game) == _every_choice_single(copy.deepcopy(game))
                line = claim_line(game, game.turn)
                if line is not None:
                    checked += 1
                    _defend_randomly(copy.deepcopy(game), game.turn, line, rng)
                game.play(game.turn, rng.choice(game.legal_cards(game.turn)))
    assert checked > 100  # the check ran on many claims, not a handful


def _plays(events: list[object]) -> list[tuple[int, int]]:
    return [(e.seat, e.card) for e in events if isinstance(e, CardPlayed)]


def test_the_last_trick_is_forced_and_played_out_in_order() -> None:
    game = three_card_deal(["AS 2H 5D", "KS 3H 6D", "QS 4H 7D"])
    assert not all_forced(game)  # three cards each: the leader has a choice
    assert play_forced(game) == []
    play_cards(game, "AS KS QS 2H 3H 4H")
    assert all_forced(game)
    events = play_forced(game)
    # 4H took the hearts: seat 2 leads the last trick; then the deal is scored.
    assert _plays(events) == [(2, c("7D")), (0, c("5D")), (1, c("6D"))]
    assert game.deal_number == 2 and len(game.deal_scores) == 1


def test_two_tricks_are_forced_when_everyone_must_follow() -> None:
    game = three_card_deal(["AS 2H 5D", "KS 3H 6D", "QS 4H 7D"])
    play_cards(game, "AS KS QS 2H")  # seat 0 leads a heart: seats 1 and 2 must follow
    assert all_forced(game)
    assert _plays(play_forced(game)) == [
        (1, c("3H")),
        (2, c("4H")),
        (2, c("7D")),
        (0, c("5D")),
        (1, c("6D")),
    ]
    game = three_card_deal(["AS 2H 5D", "KS 3H 6D", "QS 4C 7D"])  # seat 2 void: a choice
    play_cards(game, "AS KS QS 2H")
    assert not all_forced(game)
    before = snapshot(game)
    assert play_forced(game) == []
    assert snapshot(game) == before


def test_a_single_legal_card_is_named_only_without_a_choice() -> None:
    game = three_card_deal(["AS 2H 5D", "KS 3H 6D", "QS 4H 7D"])
    assert single_legal_card(game, 0) is None  # the leader may play any of three
    play_cards(game, "AS")
    assert single_legal_card(game, 1) == c("KS")  # one spade: it must follow
    assert single_legal_card(game, 2) is None  # not its turn


# ---- helpers -----------------------------------------------------------------------------------


def _t(hands: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(h) for h in hands)


def _four_hands(mine: str) -> list[list[int]]:
    rest = [card for card in range(52) if card not in cs(mine)]
    return [cs(mine), rest[:13], rest[13:26], rest[26:]]


def _four_game(hands: list[list[int]]) -> Game:
    game = Game(FOUR, first_dealer=3, presets={0: PresetDeal(_t(hands), None)})
    bid_all(game, {0: 13, 1: 0, 2: 0, 3: 1})
    return game


def _every_choice_single(game: Game) -> bool:
    """By playing it out: whether the seat to play has one legal card at every turn left."""
    deal = game.deals[-1]
    while game.phase is Phase.PLAYING and game.deals[-1] is deal:
        legal = game.legal_cards(game.turn)
        if len(legal) != 1:
            return False
        game.play(game.turn, legal[0])
    return True


def _defend_randomly(game: Game, seat: int, line: list[int], rng: random.Random) -> None:
    deal = game.deals[-1]  # the deal being played
    remaining = game.hand_size - len(game.completed_tricks)
    line = list(line)
    while game.phase is Phase.PLAYING and game.deals[-1] is deal:
        player = game.turn
        card = line.pop(0) if player == seat else rng.choice(game.legal_cards(player))
        game.play(player, card)
    assert deal.trick_winners[-remaining:] == [seat] * remaining
