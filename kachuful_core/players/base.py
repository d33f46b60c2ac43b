"""The computer-player interface and the glue that lets a player act for a seat."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..cards import Card
from ..events import Event
from ..game import Game, Phase
from ..views import SeatView, view


@runtime_checkable
class Player(Protocol):
    """A computer player: decides from a :class:`SeatView` only, never from the game itself.

    ``choose_bid`` returns one of ``view.legal_bids``. ``choose_card`` returns one of
    ``view.legal_cards``, or ``None`` to play the unseen card of a forehead deal (when
    ``view.hand`` is None and ``view.play_unseen`` is True). ``choose_blind`` is asked only
    when ``view.may_bid_blind``; it says whether to bid before looking at the hand.

    Players are deterministic for a given seed: any randomness comes from the player's own
    ``random.Random``. The players of this package keep no other state between calls, so one
    player object may act for several seats or games.
    """

    name: str

    def choose_bid(self, view: SeatView) -> int: ...

    def choose_card(self, view: SeatView) -> Card | None: ...

    def choose_blind(self, view: SeatView) -> bool: ...


def act(game: Game, seat: int, player: Player) -> list[Event]:
    """Let ``player`` take ``seat``'s turn in ``game`` and return the events it caused.

    Bidding with blind bids on: the player is first asked whether to bid blind; if not, the
    seat looks at its hand before choosing its bid. Playing after a blind bid: the seat looks
    at its hand first (a blind bid leaves the hand unlooked). Raises the engine's errors if
    the player chooses something illegal, and ``ValueError`` if it is not ``seat``'s turn.
    """
    if game.turn != seat or game.phase not in (Phase.BIDDING, Phase.PLAYING):
        raise ValueError(f"seat {seat} has no turn to take (phase {game.phase}, turn {game.turn})")
    events: list[Event] = []
    v = view(game, seat)
    if game.phase is Phase.BIDDING:
        if v.may_bid_blind:
            if player.choose_blind(v):
                return game.bid(seat, player.choose_bid(v), blind=True)
            events += game.look(seat)
            v = view(game, seat)
        events += game.bid(seat, player.choose_bid(v))
        return events
    if not v.has_looked and not game.is_forehead_deal:
        events += game.look(seat)
        v = view(game, seat)
    card = player.choose_card(v)
    if card is None:
        if not v.play_unseen:
            raise ValueError(f"{player.name} chose no card, but seat {seat} can see its hand")
        events += game.play_unseen(seat)
    else:
        events += game.play(seat, card)
    return events
