"""The benchmark's ``lsearch``: the search level told which cards are in play, the knowledge
OpenSpiel's ``oh_hell`` resampling gives ``ismcts-N``, to measure what it is worth."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kachuful_core import Game, Rules
from kachuful_core.cards import parse_card
from kachuful_core.game import PresetDeal
from kachuful_core.players.search import SearchPlayer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import search_player as sp

from kachuful_core.views import view as seat_view


def one_card_deal(others: str) -> Game:
    """Seat 0, first to bid, holds the king of trumps (spades); the others hold ``others``."""
    cards = ["KS", *others.split()]
    hands = tuple((parse_card(c),) for c in cards)
    return Game(Rules(players=4, max_hand=1), first_dealer=3, presets={0: PresetDeal(hands, None)})


@pytest.mark.parametrize(("others", "told_bid"), [("AS 2H 3D", 0), ("4C 2H 3D", 1)])
def test_told_search_knows_whether_the_ace_of_trumps_is_out(others: str, told_bid: int) -> None:
    game = one_card_deal(others)
    told = sp.ToldSearch(3)
    told.in_play = sp.in_play(game)
    view = seat_view(game, 0)
    assert told.choose_bid(view) == told_bid
    # Not told, the ace is one of 48 unseen cards and the king is worth bidding on either way.
    assert SearchPlayer(3).choose_bid(view) == 1


def test_a_told_seat_is_told_each_deal_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    # Told the cards of every deal in turn: what it cannot place is exactly what the others hold.
    shortfalls: list[int] = []
    situation = sp.ToldSearch._situation

    def recorded(self: sp.ToldSearch, view: object) -> object:
        sit = situation(self, view)  # type: ignore[arg-type]
        shortfalls.append(sum(sit.counts) - sit.unseen.bit_count())
        return sit

    monkeypatch.setattr(sp.ToldSearch, "_situation", recorded)
    result = sp.play_game(("lsearch", "heuristic", "heuristic", "heuristic"), 11, False, 3)
    assert result["stats"]["lsearch"]["deals"] == result["deals"] == 5
    assert len(shortfalls) > 5 and set(shortfalls) == {0}
