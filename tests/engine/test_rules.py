"""Rules as data: validation, schedules, trump cycles, scoring formulas (docs/rules.md §1, §2)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from kachuful_core import Rules

from .support import expected_sizes, score_of, trump_letter

# ---- players, maximum hand, presets --------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "top", "deals"),
    [(3, 17, 33), (4, 13, 25), (5, 10, 19), (6, 8, 15), (7, 7, 13)],
)
def test_default_profile_schedule(players: int, top: int, deals: int) -> None:
    rules = Rules(players=players)
    assert rules.max_hand == top
    assert rules.num_deals == deals == 2 * top - 1
    sizes = list(rules.hand_sizes)
    assert sizes[0] == sizes[-1] == top
    assert sizes.count(1) == 1  # the one-card hand occurs once
    assert sizes[top - 1] == 1
    assert sizes == list(range(top, 0, -1)) + list(range(2, top + 1))


@pytest.mark.parametrize(
    ("players", "schedule", "deals"),
    [
        # down-and-up 2H-1
        (3, "down-up", 33),
        (4, "down-up", 25),
        (5, "down-up", 19),
        (6, "down-up", 15),
        (7, "down-up", 13),
        # down only H
        (3, "down", 17),
        (4, "down", 13),
        (5, "down", 10),
        (6, "down", 8),
        (7, "down", 7),
        # double 4H-3
        (3, "double", 65),
        (4, "double", 49),
        (5, "double", 37),
        (6, "double", 29),
        (7, "double", 25),
    ],
)
def test_schedule_lengths(players: int, schedule: str, deals: int) -> None:
    rules = Rules(players=players, schedule=schedule)
    assert rules.num_deals == deals
    assert len(rules.hand_sizes) == deals


@pytest.mark.parametrize(
    ("schedule", "sizes"),
    [
        ("down-up", (3, 2, 1, 2, 3)),
        ("down", (3, 2, 1)),
        ("double", (3, 2, 1, 2, 3, 2, 1, 2, 3)),
    ],
)
def test_schedule_hand_sizes(schedule: str, sizes: tuple[int, ...]) -> None:
    assert Rules(players=5, max_hand=3, schedule=schedule).hand_sizes == sizes


@pytest.mark.parametrize("schedule", ["down-up", "down", "double"])
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_schedule_for_every_maximum_hand(players: int, schedule: str) -> None:
    for top in range(1, 52 // players + 1):
        rules = Rules(players=players, max_hand=top, schedule=schedule)
        assert list(rules.hand_sizes) == expected_sizes(schedule, top)
        assert max(rules.hand_sizes) == top
        assert min(rules.hand_sizes) == 1


@pytest.mark.parametrize(("players", "top"), [(3, 10), (4, 10), (5, 10), (6, 8), (7, 7)])
def test_classic_preset(players: int, top: int) -> None:
    rules = Rules.classic(players)
    assert rules.max_hand == top
    assert rules.num_deals == 2 * top - 1
    assert Rules.classic(players, scoring="penalty").scoring == "penalty"


def test_defaults_are_the_default_profile() -> None:
    rules = Rules(players=4)
    assert rules.schedule == "down-up"
    assert rules.trump == "cycle"
    assert rules.hook is True
    assert rules.scoring == "exact"
    assert rules.blind_bids is False
    assert rules.forehead is False


@pytest.mark.parametrize(
    "options",
    [
        {"players": 8},
        {"players": 2},
        {"players": 4, "max_hand": 14},
        {"players": 3, "max_hand": 18},
        {"players": 7, "max_hand": 8},
        {"players": 4, "max_hand": 0},
        {"players": 4, "scoring": "golf"},
        {"players": 4, "schedule": "up"},
        {"players": 4, "trump": "diamonds"},
        {"players": 4, "colour": "red"},
        {},
    ],
    ids=repr,
)
def test_invalid_rules_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Rules(**options)


def test_rules_are_frozen() -> None:
    rules = Rules(players=4)
    with pytest.raises(ValidationError):
        rules.players = 5


# ---- trump ---------------------------------------------------------------------------------


def test_trump_cycle_runs_through_the_turning_point() -> None:
    rules = Rules(players=4)
    got = [trump_letter(rules.trump_for(k)) for k in range(rules.num_deals)]
    assert got[:8] == ["S", "D", "C", "H", "S", "D", "C", "H"]
    assert got == [("S", "D", "C", "H")[k % 4] for k in range(25)]
    # deal 12 is the one-card deal; deal 13 goes on with the cycle, no reset
    assert got[12:14] == ["S", "D"]


def test_trump_cycle_with_no_trump() -> None:
    rules = Rules(players=4, trump="cycle-notrump")
    got = [trump_letter(rules.trump_for(k)) for k in range(12)]
    assert got == ["S", "D", "C", "H", None, "S", "D", "C", "H", None, "S", "D"]


# ---- scoring -------------------------------------------------------------------------------

# (scoring, bid, tricks, blind, points), every number worked out by hand from docs/rules.md §2.
SCORING_TABLE = [
    ("exact", 0, 0, False, 10),
    ("exact", 3, 3, False, 13),
    ("exact", 2, 1, False, 0),
    ("exact", 0, 4, False, 0),
    ("penalty", 0, 0, False, 10),
    ("penalty", 2, 2, False, 12),
    ("penalty", 2, 0, False, -2),
    ("penalty", 1, 4, False, -3),
    ("penalty", 0, 1, False, -1),
    ("per-trick", 0, 0, False, 10),
    ("per-trick", 2, 2, False, 12),
    ("per-trick", 2, 3, False, 3),
    ("per-trick", 3, 1, False, 1),
    ("per-trick", 1, 0, False, 0),
    ("judgement", 0, 0, False, 10),
    ("judgement", 5, 5, False, 10),
    ("judgement", 1, 2, False, -10),
    ("judgement", 3, 0, False, -10),
    # blind: an exact blind bid scores double; a miss does not
    ("exact", 2, 2, True, 24),
    ("exact", 0, 0, True, 20),
    ("exact", 2, 3, True, 0),
    ("penalty", 1, 1, True, 22),
    ("penalty", 2, 0, True, -2),
    ("per-trick", 2, 2, True, 24),
    ("per-trick", 2, 3, True, 3),
    ("judgement", 1, 1, True, 20),
    ("judgement", 1, 0, True, -10),
]


@pytest.mark.parametrize(("scoring", "bid", "tricks", "blind", "points"), SCORING_TABLE)
def test_scoring_formulas(scoring: str, bid: int, tricks: int, blind: bool, points: int) -> None:
    assert score_of(scoring, bid, tricks, blind) == points  # the oracle agrees with the table
    rules = Rules(players=4, scoring=scoring, blind_bids=blind)
    assert rules.score(bid, tricks, blind) == points


@settings(max_examples=200, deadline=None)
@given(
    scoring=st.sampled_from(["exact", "penalty", "per-trick", "judgement"]),
    bid=st.integers(0, 17),
    tricks=st.integers(0, 17),
)
def test_blind_doubles_exact_only(scoring: str, bid: int, tricks: int) -> None:
    rules = Rules(players=3, scoring=scoring, blind_bids=True)
    plain = rules.score(bid, tricks, False)
    blind = rules.score(bid, tricks, True)
    assert plain == score_of(scoring, bid, tricks)
    if bid == tricks:
        assert plain > 0
        assert blind == 2 * plain
    else:
        assert blind == plain
