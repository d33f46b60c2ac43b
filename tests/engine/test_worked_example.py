"""The worked example of docs/rules.md §1 (the deal of docs/record-format.md's example), every
way in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kachuful_core import (
    DealerBidForbidden,
    Phase,
    Rules,
    load_game,
    score_summary,
)
from kachuful_core.events import DealScored, TrickWon

from .support import (
    EXAMPLE_HANDS,
    EXAMPLE_NAMES,
    c,
    example_record,
    preset_game,
    run_cli,
    suit_id,
    trump_letter,
)

# The score document exactly as docs/record-format.md shows it (computed by hand in
# docs/rules.md §1).
EXPECTED_STDOUT = """\
{
  "complete": false,
  "deals": [
    {"index": 10, "dealer": 3, "hand_size": 3, "trump": "C",
     "bids": [1, 0, 1, 0], "forbidden_bid": 1,
     "trick_winners": [1, 0, 2], "tricks_won": [1, 1, 1, 0],
     "scores": [11, 0, 11, 10]}
  ],
  "totals": [11, 0, 11, 10],
  "winners": null
}
"""

EXPECTED_SUMMARY: dict[str, Any] = {
    "complete": False,
    "deals": [
        {
            "index": 10,
            "dealer": 3,
            "hand_size": 3,
            "trump": "C",
            "bids": [1, 0, 1, 0],
            "forbidden_bid": 1,
            "trick_winners": [1, 0, 2],
            "tricks_won": [1, 1, 1, 0],
            "scores": [11, 0, 11, 10],
        }
    ],
    "totals": [11, 0, 11, 10],
    "winners": None,
}


def test_both_three_card_deals_of_four_players_have_clubs_trump() -> None:
    rules = Rules(players=4)
    three_card = [i for i, size in enumerate(rules.hand_sizes) if size == 3]
    assert three_card == [10, 14]
    assert [trump_letter(rules.trump_for(i)) for i in three_card] == ["C", "C"]


def test_worked_example_through_the_api() -> None:
    game = preset_game(Rules(players=4), EXAMPLE_HANDS, deal=10, dealer=3, names=EXAMPLE_NAMES)
    assert game.hand_size == 3
    assert game.trump == suit_id("C")
    assert game.dealer == 3
    assert game.turn == 0  # the dealer's left bids first
    game.bid(0, 1)
    game.bid(1, 0)
    game.bid(2, 1)
    # D may not bid 1 (the total would be 3), and bids 0.
    assert game.legal_bids(3) == [0, 2, 3]
    assert game.forbidden_bid == 1
    with pytest.raises(DealerBidForbidden) as refused:
        game.bid(3, 1)
    assert refused.value.forbidden == 1
    game.bid(3, 0)
    assert game.phase is Phase.PLAYING
    assert game.turn == 0  # A leads

    # A K♥, B 2♣ (no hearts), C A♥, D 7♥: B wins with the trump.
    assert game.legal_cards(1) == []  # not B's turn yet
    game.play(0, c("KH"))
    assert sorted(game.legal_cards(1)) == sorted([c("2C"), c("4S"), c("5D")])
    game.play(1, c("2C"))
    game.play(2, c("AH"))
    events = game.play(3, c("7H"))
    won = [e for e in events if isinstance(e, TrickWon)]
    assert [w.seat for w in won] == [1]
    assert game.turn == 1  # the winner leads

    for seat, card in [(1, "4S"), (2, "2S"), (3, "3S"), (0, "AS")]:
        events = game.play(seat, c(card))
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [0]
    for seat, card in [(0, "3D"), (1, "5D"), (2, "9D"), (3, "4D")]:
        events = game.play(seat, c(card))
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [2]
    scored = [e for e in events if isinstance(e, DealScored)]
    assert len(scored) == 1
    assert scored[0].tricks_won == (1, 1, 1, 0)
    assert scored[0].scores == (11, 0, 11, 10)
    assert tuple(game.totals) == (11, 0, 11, 10)
    assert score_summary(game) == EXPECTED_SUMMARY


def test_worked_example_from_the_record() -> None:
    for source in (example_record(), json.dumps(example_record())):
        game = load_game(source)
        assert score_summary(game) == EXPECTED_SUMMARY
        assert game.players == tuple(EXAMPLE_NAMES)
    assert score_summary(load_game(example_record())) == EXPECTED_SUMMARY


def test_worked_example_through_the_score_command(tmp_path: Path) -> None:
    path = tmp_path / "example.json"
    path.write_text(json.dumps(example_record(), indent=2), encoding="utf-8")
    done = run_cli("score", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout) == EXPECTED_SUMMARY


def test_score_command_prints_the_layout_of_record_md(tmp_path: Path) -> None:
    path = tmp_path / "example.json"
    path.write_text(json.dumps(example_record(), indent=2), encoding="utf-8")
    done = run_cli("score", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXPECTED_STDOUT


def test_score_command_reads_standard_input() -> None:
    done = run_cli("score", "-", stdin=json.dumps(example_record()))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == EXPECTED_SUMMARY
