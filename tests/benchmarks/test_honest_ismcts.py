"""The benchmark's honest ISMCTS roots (``hismcts-N``): OpenSpiel 2.0's ``oh_hell`` resampler
deals the other seats only the cards they really hold (shuffled among them), so an ISMCTS bot
given the real state knows which cards are in play; ``Mirror.honest_root`` gives it a fresh
deal of the cards the seat cannot place instead, with the same information state."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from kachuful_core import Game, Phase, Rules
from kachuful_core.cards import parse_card
from kachuful_core.game import PresetDeal
from kachuful_core.players import HeuristicPlayer, act

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import search_player as sp

from kachuful_core.views import view as seat_view

HANDS = ["TS 2C 3D", "KS 6C 7D", "2H 8C 9D", "3H TC JD"]


def mirrored(plays: int) -> tuple[Game, sp.Mirror]:
    """A 3-card deal mirrored into oh_hell, ``plays`` moves (bids, then cards) made."""
    hands = tuple(tuple(parse_card(c) for c in h.split()) for h in HANDS)
    game = Game(Rules(players=4, max_hand=3), first_dealer=3, presets={0: PresetDeal(hands, None)})
    mirror = sp.Mirror(game, parse_card("4S"), {})
    heuristic = HeuristicPlayer(0)
    from kachuful_core.events import BidPlaced, CardPlayed

    for _ in range(plays):
        seat = game.turn
        assert seat is not None
        for e in act(game, seat, heuristic):
            if isinstance(e, BidPlaced):
                mirror.bid(e.seat, e.bid)
            elif isinstance(e, CardPlayed):
                mirror.play(e.seat, e.card)
    return game, mirror


def other_cards(state: object, seat: int) -> set[str]:
    """The cards of the other seats in an oh_hell state's printout."""
    text = str(state)
    cards = set()
    for p in range(4):
        if p == seat:
            continue
        block = text.split(f"Player: {p}")[1].split("Player:")[0].split("Trump")[0]
        for line in block.strip().splitlines():
            suit, _, ranks = line.strip().partition(":")
            cards |= {suit + r for r in ranks.strip()}
    return cards


def test_openspiel_resampling_keeps_the_real_cards_in_play() -> None:
    # Why honest roots exist: every resample holds exactly the other seats' real cards.
    _, mirror = mirrored(0)
    real = other_cards(mirror.state, 0)
    rng = random.Random(1)
    for _ in range(20):
        sample = mirror.state.resample_from_infostate(0, rng.random)
        assert other_cards(sample, 0) == real


@pytest.mark.parametrize("plays", [0, 4, 6, 9])
def test_honest_roots_keep_the_information_state_and_vary_the_cards(plays: int) -> None:
    game, mirror = mirrored(plays)
    seat = game.turn
    assert seat is not None and game.phase in (Phase.BIDDING, Phase.PLAYING)
    view = seat_view(game, seat)
    real = other_cards(mirror.state, seat)
    rng = random.Random(2)
    differ = 0
    for _ in range(20):
        root = mirror.honest_root(view, rng)
        assert root.information_state_string(seat) == mirror.state.information_state_string(seat)
        assert root.current_player() == seat
        differ += other_cards(root, seat) != real
    assert differ >= 15


def simulated_roots(bot: object, seat: int) -> list[set[str]]:
    """Records the other seats' cards of every root ``bot`` draws for a simulation."""
    seen: list[set[str]] = []
    sample = bot.sample_root_state  # type: ignore[attr-defined]

    def recording(state: object) -> object:
        root = sample(state)
        seen.append(other_cards(root, seat))
        return root

    bot.sample_root_state = recording  # type: ignore[attr-defined]
    return seen


@pytest.mark.parametrize("plays", [0, 6])
def test_python_ismcts_deals_the_hidden_cards_afresh_at_every_simulation(plays: int) -> None:
    # pismcts-N: OpenSpiel's own Python ISMCTS, each of its simulations from an honest deal.
    game, mirror = mirrored(plays)
    seat = game.turn
    assert seat is not None
    view = seat_view(game, seat)
    bot = sp.make_python_ismcts(60, 3)
    roots = simulated_roots(bot, seat)
    action = sp.python_ismcts_step(bot, mirror, view, 5)
    real = other_cards(mirror.state, seat)
    assert action in mirror.state.legal_actions()
    assert len(roots) == 60
    assert sum(r != real for r in roots) >= 45
    assert len({frozenset(r) for r in roots}) >= 30


def test_python_ismcts_with_openspiel_resampling_keeps_the_real_cards() -> None:
    # lpismcts-N, the check of the port: OpenSpiel's resampling, the real cards every time.
    game, mirror = mirrored(0)
    seat = game.turn
    assert seat is not None
    bot = sp.make_python_ismcts(60, 3)
    roots = simulated_roots(bot, seat)
    sp.python_ismcts_step(bot, mirror, seat_view(game, seat), 5, leaky=True)
    real = other_cards(mirror.state, seat)
    assert roots and all(r == real for r in roots)
