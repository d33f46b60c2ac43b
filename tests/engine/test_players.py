"""Computer players: only legal moves over whole games, for every option; deterministic for a
given seed."""

from __future__ import annotations

from typing import Any

import pytest

from kachuful_core import Game, KachufulError, Phase, Rules
from kachuful_core.events import BidPlaced, CardPlayed
from kachuful_core.players import HeuristicPlayer, RandomPlayer, act
from kachuful_core.record import export_record

from .support import SINGLE_OPTIONS, Referee, snapshot


def make_players(n: int, seed: int) -> list[Any]:
    # Alternate the two kinds; the heuristic bids blind in small deals when it may.
    return [
        HeuristicPlayer(seed * 10 + s, blind_max_hand=2) if s % 2 == 0 else RandomPlayer(seed + s)
        for s in range(n)
    ]


def run(rules: Rules, seed: int) -> Game:
    game = Game.new(rules, seed)
    referee = Referee(game)
    referee.check(game.opening_events())
    seats = make_players(rules.players, seed)
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        assert seat is not None
        bidding = game.phase is Phase.BIDDING
        legal_bids = game.legal_bids(seat)
        legal_cards = game.legal_cards(seat)
        looked = game.has_looked(seat)
        moves = game.move_count
        events = act(game, seat, seats[seat])
        assert game.move_count == moves + 1
        moved = [e for e in events if isinstance(e, BidPlaced | CardPlayed)]
        assert len(moved) == 1 and moved[0].seat == seat
        move = moved[0]
        if bidding:
            assert isinstance(move, BidPlaced)
            assert move.bid in legal_bids
            assert not move.blind or (rules.blind_bids and not looked)
        else:
            assert isinstance(move, CardPlayed)
            assert move.card in legal_cards
        referee.check(events)
    assert referee.ended
    return game


@pytest.mark.parametrize("options", SINGLE_OPTIONS, ids=lambda o: ",".join(map(str, o.items())))
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_computer_players_make_only_legal_moves(players: int, options: dict[str, Any]) -> None:
    rules = Rules(players=players, max_hand=min(4, 52 // players), **options)
    for seed in range(2):
        run(rules, seed)


@pytest.mark.parametrize("players", [3, 5, 7])
def test_computer_players_play_a_full_default_game(players: int) -> None:
    run(Rules(players=players), players)


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=4, max_hand=4),
        Rules(players=5, max_hand=3, blind_bids=True, forehead=True, trump="turned"),
    ],
)
def test_computer_players_are_deterministic(rules: Rules) -> None:
    for seed in range(3):
        a = run(rules, seed)
        b = run(rules, seed)
        assert export_record(a).to_json() == export_record(b).to_json()


def test_act_out_of_turn_is_refused_and_changes_nothing() -> None:
    game = Game.new(Rules(players=4, max_hand=2), 1)
    assert game.turn is not None
    other = (game.turn + 1) % 4
    before = snapshot(game)
    for player in (HeuristicPlayer(0), RandomPlayer(0)):
        with pytest.raises(ValueError):
            act(game, other, player)
        assert snapshot(game) == before


def test_a_player_choosing_an_illegal_card_is_refused_by_the_engine() -> None:
    class Cheat:
        name = "cheat"

        def choose_blind(self, view: Any) -> bool:
            return False

        def choose_bid(self, view: Any) -> int:
            return view.hand_size + 1

        def choose_card(self, view: Any) -> int | None:
            return None

    game = Game.new(Rules(players=3, max_hand=2), 2)
    assert game.turn is not None
    before = snapshot(game)
    with pytest.raises(KachufulError):
        act(game, game.turn, Cheat())
    assert snapshot(game) == before
