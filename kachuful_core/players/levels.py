"""Levels a table can choose for a computer seat, and :func:`decide`, one decision as a pure
function of picklable values, for a worker process to run off the bot's event loop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from ..cards import Card
from ..events import Event
from ..game import Game, Phase
from ..views import SeatView
from ..views import view as seat_view
from .base import Player
from .heuristic import HeuristicPlayer
from .random_player import RandomPlayer
from .search import SearchPlayer

# Level name -> factory taking a seed, weakest first, strongest last.
LEVELS: dict[str, Callable[[int], Player]] = {
    "random": RandomPlayer,
    "heuristic": HeuristicPlayer,
    "search": SearchPlayer,
}

# A human name for each level, for a lobby or a seat's label.
LEVEL_LABELS: dict[str, str] = {
    "random": "Beginner (random)",
    "heuristic": "Casual (rule of thumb)",
    "search": "Expert (search)",
}

_PHASES = {str(p): p for p in (Phase.BIDDING, Phase.PLAYING, Phase.DEALING, Phase.FINISHED)}


@dataclass(frozen=True, slots=True)
class Decision:
    """What a player decided for a seat's turn.

    ``kind``:

    * ``"blind"`` (bidding while the seat may still bid blind): ``blind`` says whether to bid
      blind; if True, ``bid`` is the blind bid. If False, the seat looks at its hand and asks
      again with the new view.
    * ``"bid"``: ``bid`` is the bid.
    * ``"card"``: ``card`` is the card to play, or None to play the unseen card of a forehead
      deal.
    """

    kind: Literal["blind", "bid", "card"]
    bid: int | None = None
    card: Card | None = None
    blind: bool = False


def _canonical(view: SeatView) -> SeatView:
    """The view with its phase the engine's own ``Phase`` object: players compare phases with
    ``is``, and an unpickled view carries an equal but distinct copy."""
    phase = _PHASES[str(view.phase)]
    return view if view.phase is phase else replace(view, phase=phase)


def decide(level: str, seed: int, view: SeatView) -> Decision:
    """The decision of a fresh ``LEVELS[level](seed)`` player for ``view``'s turn.

    A pure function of its arguments (all picklable), so a bot can run it in a
    ``ProcessPoolExecutor`` worker and get exactly what calling the player in process gives.
    The search and heuristic levels answer a view the same way whatever the seed's history;
    the random level draws from a fresh ``random.Random(seed)``, so a caller wanting varied
    random moves passes a different seed per decision.
    Raises ``KeyError`` for an unknown level and ``ValueError`` if it is not the seat's turn.
    """
    view = _canonical(view)
    player = LEVELS[level](seed)
    if view.turn != view.seat:
        raise ValueError(f"it is not seat {view.seat}'s turn")
    if view.phase is Phase.BIDDING:
        if view.may_bid_blind:
            if player.choose_blind(view):
                return Decision("blind", bid=player.choose_bid(view), blind=True)
            return Decision("blind", blind=False)
        return Decision("bid", bid=player.choose_bid(view))
    if view.phase is Phase.PLAYING:
        if view.hand is None and not view.play_unseen:
            raise ValueError(f"seat {view.seat} must look at its hand before playing")
        return Decision("card", card=player.choose_card(view))
    raise ValueError(f"no decision to take in phase {view.phase}")


def apply_decision(game: Game, seat: int, decision: Decision) -> list[Event]:
    """Apply a bid or card decision (from :func:`decide`, say in a worker) to ``seat``'s turn;
    the engine checks it like any move. A ``"blind"`` decision is :func:`act`'s to take."""
    if decision.kind == "bid" and decision.bid is not None:
        return game.bid(seat, decision.bid)
    if decision.kind == "card":
        if decision.card is None:
            return game.play_unseen(seat)
        return game.play(seat, decision.card)
    raise ValueError(f"a {decision.kind!r} decision is not applied here")


def warm_up(level: str = "search") -> None:
    """Take bids and two card decisions of ``level`` on a fixed deal, so that a process's first
    real decision does not pay for loading the search player's compiled inner loops (numba
    compiles them on a machine's first search, about 15 s, and loads its on-disk cache in
    about half a second in every new process)."""
    from ..rules import Rules

    # A long deal, a short one and a one-card deal: the search takes a different path on
    # each (a short ending also asks whether the card rule explains the plays).
    for rules in (Rules(players=4), Rules(players=4, max_hand=3), Rules(players=4, max_hand=1)):
        game = Game.new(rules, 0)
        while game.phase is Phase.BIDDING and game.turn is not None:
            seat = game.turn
            apply_decision(game, seat, decide(level, 0, seat_view(game, seat)))
        # A lead, then a card after another seat's (the inference from the plays).
        for _ in range(2):
            if game.phase is Phase.PLAYING and game.turn is not None:
                seat = game.turn
                apply_decision(game, seat, decide(level, 0, seat_view(game, seat)))
