"""The option registry and the estimate of a game's length: pure, no Discord."""

from __future__ import annotations

from typing import get_args

import pytest

from bot.channel_settings import BadSetting, merge
from bot.i18n import EN
from bot.model import TableOptions
from bot.options import check_start, table_rules
from bot.pace import DEAL_SECONDS, HUMAN_MOVE_SECONDS, Pace, game_seconds
from bot.registry import (
    OPTIONS,
    SETTINGS_OPTIONS,
    START_OPTIONS,
    level_names,
    option,
    resolve_max_hand,
)
from bot.render.words import duration_text
from kachuful_core import Rules
from kachuful_core.rules import LENGTHS, ScheduleName, ScoringName, TrumpName


def test_the_registry_offers_exactly_the_engines_names() -> None:
    for name, literal in (
        ("schedule", ScheduleName),
        ("trump", TrumpName),
        ("scoring", ScoringName),
    ):
        assert tuple(c.value for c in OPTIONS[name].choices) == get_args(literal)
    assert tuple(c.value for c in OPTIONS["length"].choices) == LENGTHS


def test_every_option_fits_discord() -> None:
    for name in {*START_OPTIONS, *SETTINGS_OPTIONS}:
        declared = option(name)
        assert 1 <= len(declared.describe) <= 100, name
        assert len(declared.choices) <= 25, name
        for choice in declared.choices:
            assert 1 <= len(declared.choice_name(choice)) <= 100, (name, choice)
            assert declared.allows(choice.value)


def test_a_value_of_the_wrong_type_is_not_allowed() -> None:
    assert not option("players").allows(True)  # a bool is not a number of seats
    assert not option("hook").allows(1)
    assert not option("max_hand").allows("5")
    assert not option("turn_seconds").allows(90.5)
    assert option("turn_seconds").allows(90)


def test_start_lengths_and_max_hand() -> None:
    def max_hand(**given: object) -> object:
        checked = check_start(**given)
        assert not isinstance(checked, str), checked
        return checked.options.rules["max_hand"]

    assert max_hand() == "full"  # the rules' default: the whole deck
    assert max_hand(length="quick") == "quick"
    assert max_hand(max_hand=0) == "classic"
    assert max_hand(length="quick", max_hand=8) == 8  # a max_hand given wins
    refused = check_start(length="marathon")
    assert isinstance(refused, str) and "`quick`, `classic`, `full`" in refused


@pytest.mark.parametrize(
    ("choice", "players", "top"),
    [("quick", 7, 5), ("classic", 6, 8), ("full", 3, 17), (None, 4, 13), (17, 4, 13), (3, 4, 3)],
)
def test_a_tables_max_hand_for_its_seats(choice: object, players: int, top: int) -> None:
    assert resolve_max_hand(choice, players)[0] == top
    chosen = {} if choice is None else {"max_hand": choice}  # None: the table did not say
    rules, _ = table_rules(TableOptions.of(scoring="penalty", **chosen), players)
    assert rules.max_hand == top and rules.scoring == "penalty"


def test_settings_keep_one_largest_hand() -> None:
    assert merge({"max_hand": 4, "hook": False}, {"length": "quick"}) == {
        "hook": False,
        "length": "quick",
    }
    assert merge({"length": "quick"}, {"max_hand": 4}) == {"max_hand": 4}
    assert merge({}, {"length": "quick", "max_hand": 4}) == {"max_hand": 4}
    with pytest.raises(BadSetting, match="`quick`, `classic`, `full`"):
        merge({}, {"length": "long"})


def test_level_names_in_either_words() -> None:
    assert level_names("Expert, beginner") == ["random", "search"]
    assert level_names("heuristic") == ["heuristic"]
    assert level_names("Expert,,") == ["search"]
    assert level_names("wizard") is None and level_names(" , ") is None


def test_the_estimate_counts_every_move_at_its_seats_pace() -> None:
    rules = Rules.of_length(4, "quick")  # 5 4 3 2 1 2 3 4 5: 29 cards and 9 bids a seat
    pace = Pace(human_move=8.0, computer_move=1.5)
    assert game_seconds(rules, 4, pace) == 38 * 4 * 8.0 + 9 * DEAL_SECONDS
    assert game_seconds(rules, 1, pace) == 38 * (8.0 + 3 * 1.5) + 9 * DEAL_SECONDS
    # More people than seats counts as every seat a person.
    assert game_seconds(rules, 9, pace) == game_seconds(rules, 4, pace)
    assert game_seconds(rules, 0, Pace(0.0, 0.0)) == 9 * DEAL_SECONDS
    assert HUMAN_MOVE_SECONDS == 8.0


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (30, "under a minute"),
        (60, "about 1 min"),
        (7 * 60 + 20, "about 7 min"),
        (23 * 60, "about 25 min"),
        (59 * 60, "about 1 h"),
        (111 * 60, "about 1 h 50 min"),
        (140 * 60, "about 2 h 20 min"),
    ],
)
def test_duration_words(seconds: float, text: str) -> None:
    assert duration_text(seconds, EN) == text
