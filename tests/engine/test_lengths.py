"""A game's length (quick, classic, full): a preset over the largest hand (RULES.md §2).

The record has no length: a game of any length is recorded by its ``max_hand``, and loads
back with the same deals."""

from __future__ import annotations

import pytest

from kachuful_core import Game, Rules, record_document
from kachuful_core.record import load_game
from kachuful_core.rules import DEFAULT_LENGTH, LENGTHS, length_max_hand

from .support import expected_sizes


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_quick_is_nine_deals_up_to_five_cards_at_any_table(players: int) -> None:
    rules = Rules.of_length(players, "quick")
    assert rules.max_hand == 5
    assert list(rules.hand_sizes) == [5, 4, 3, 2, 1, 2, 3, 4, 5]
    assert rules.num_deals == 9


@pytest.mark.parametrize(
    ("players", "classic", "full"),
    [(3, 19, 33), (4, 19, 25), (5, 19, 19), (6, 15, 15), (7, 13, 13)],
)
def test_classic_and_full_deal_counts(players: int, classic: int, full: int) -> None:
    assert Rules.of_length(players, "classic").num_deals == classic
    assert Rules.of_length(players, "classic") == Rules.classic(players)
    assert Rules.of_length(players, "full").num_deals == full
    # The full game is the rules' default: a length is only a name for a max_hand.
    assert Rules.of_length(players, "full") == Rules(players=players)
    assert DEFAULT_LENGTH == "full"


@pytest.mark.parametrize("schedule", ["down-up", "down", "double"])
@pytest.mark.parametrize("length", LENGTHS)
def test_a_length_keeps_the_schedule_chosen(length: str, schedule: str) -> None:
    rules = Rules.of_length(4, length, schedule=schedule, scoring="penalty")  # type: ignore[arg-type]
    top = length_max_hand(length, 4)  # type: ignore[arg-type]
    assert list(rules.hand_sizes) == expected_sizes(schedule, top)
    assert rules.scoring == "penalty"


def test_lengths_are_ordered_shortest_first() -> None:
    for players in range(3, 8):
        deals = [Rules.of_length(players, length).num_deals for length in LENGTHS]
        assert deals == sorted(deals)


@pytest.mark.parametrize(("length", "players"), [("marathon", 4), ("quick", 2), ("full", 8)])
def test_an_unknown_length_or_table_size_is_refused(length: str, players: int) -> None:
    with pytest.raises(ValueError):
        length_max_hand(length, players)  # type: ignore[arg-type]


def test_a_quick_game_is_recorded_by_its_max_hand_and_loads_back() -> None:
    game = Game.new(Rules.of_length(4, "quick"), 7)
    document = record_document(game)
    assert document["rules"]["max_hand"] == 5
    assert "length" not in document["rules"]
    again = load_game(document)
    assert again.rules.num_deals == 9 and again.rules == game.rules
