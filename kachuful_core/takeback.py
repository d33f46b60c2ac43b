"""Taking back a misclick: a player's last bid or card, while no other seat has acted since.

A take-back is allowed only in the deal being played and only for the game's very last move:
once another seat has bid or played, or the deal is over (the next hands are dealt), it is too
late. The game after a take-back is the game replayed from its record without that move, so a
record only ever holds moves that stood (docs/rules.md, "Taking back a misclick").
"""

from __future__ import annotations

from typing import Any

from .errors import NothingToTakeBack
from .game import Game, Phase
from .record import load_game, record_document


def last_move(game: Game) -> tuple[int, str] | None:
    """The seat and kind ("bid" or "card") of the game's last move, if it was made in the deal
    being played; None otherwise (no move yet in this deal, or the game is over)."""
    if game.phase not in (Phase.BIDDING, Phase.PLAYING) or not game.deals:
        return None
    log = game.deals[-1]
    if log.tricks and log.tricks[-1]:
        return log.tricks[-1][-1][0], "card"
    n = game.rules.players
    order = [(log.dealer + 1 + k) % n for k in range(n)]
    placed = [seat for seat in order if log.bids[seat] is not None]
    return (placed[-1], "bid") if placed else None


def can_take_back(game: Game, seat: int) -> bool:
    move = last_move(game)
    return move is not None and move[0] == seat


def take_back(game: Game, seat: int) -> Game:
    """The game as it was before the seat's last move (a new Game); raises
    :class:`NothingToTakeBack` when that move may not be taken back. ``game`` is unchanged."""
    move = last_move(game)
    if move is None or move[0] != seat:
        raise NothingToTakeBack(seat)
    document = record_document(game)
    _drop_last(document["deals"][-1], move)
    replayed = load_game(document, game.seed)
    return replayed


def _drop_last(deal: dict[str, Any], move: tuple[int, str]) -> None:
    seat, kind = move
    if kind == "card":
        tricks = deal["tricks"]
        tricks[-1] = tricks[-1][:-1]
        if not tricks[-1]:
            tricks.pop()
        return
    deal["bids"][seat] = None
    if "blind" in deal:
        deal["blind"][seat] = False
