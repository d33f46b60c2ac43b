"""A player that picks uniformly among the legal moves: the baseline opponent."""

from __future__ import annotations

import random

from ..cards import Card
from ..views import SeatView


class RandomPlayer:
    """Uniform over ``view.legal_bids`` and ``view.legal_cards``; never bids blind."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose_blind(self, view: SeatView) -> bool:
        return False

    def choose_bid(self, view: SeatView) -> int:
        return self.rng.choice(view.legal_bids)

    def choose_card(self, view: SeatView) -> Card | None:
        if view.play_unseen or not view.legal_cards:
            return None
        return self.rng.choice(view.legal_cards)
