"""What one socket of the web table may see of a table (the view contract: WEB.md,
docs/web.md): a seat's view (its own hand, the moves it may make now) or a watcher's (the
public table). A pure function of the table's state: no socket, no Discord.

Privacy is decided here and only here: the engine's own seat view (kachuful_core.views) is the
only source of a hand, and a viewer without a seat gets no seat's view at all. The tests read
every frame for a card of another seat before it is played."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.model import Table
from kachuful_core import Game, Phase
from kachuful_core.cards import SUIT_LETTERS
from kachuful_core.views import SeatView
from kachuful_core.views import view as seat_view

from .words import words


@dataclass(frozen=True)
class Viewer:
    """Who looks: their Discord id (proven by the login), their language, and the card they
    have chosen to confirm (a player who confirms each card), if any, at ``chosen_at``."""

    user_id: int
    language: str = "en"
    chosen: int | None = None
    chosen_at: int | None = None


@dataclass(frozen=True)
class TableState:
    """What a view is drawn from: the table's row and game, its turn clock, and what its
    last mover may take back (``undo``: user id and move counter, TableSession.taken_by)."""

    row: Table
    game: Game | None
    deadline: datetime | None = None
    taken_by: tuple[int, int] | None = None


def table_view(state: TableState, viewer: Viewer) -> dict[str, Any]:
    """The view of ``state`` for ``viewer``: their seat's if they have one, else a watcher's."""
    row, game = state.row, state.game
    seat = row.seat_of(viewer.user_id)
    out: dict[str, Any] = {
        "table": row.id,
        "version": row.version,
        "language": viewer.language,
        "you": seat,
        "phase": phase_of(row, game),
        "words": words(viewer.language),
        "deal": None,
        "seats": _seats(row, game),
        "trick": [],
        "last_trick": None,
        "last_winner": None,
        "hand": None,
        "legal": [],
        "bids": [],
        "blind": False,
        "unseen": False,
        "visible": [],
        "can": {"takeback": False, "claim": False, "look": False},
        "chosen": None,
        "confirm_cards": bool(seat is not None and row.seats[seat].confirm_cards),
        "clock": None,
        "scores": [],
        "standings": None,
    }
    if game is None:
        return out
    out["deal"] = {
        "number": game.deal_number,
        "of": game.num_deals,
        "hand_size": game.hand_size,
        "trump": None if game.trump is None else SUIT_LETTERS[game.trump],
        "dealer": game.dealer,
    }
    out["trick"] = [{"seat": s, "card": c} for s, c in game.current_trick]
    last = _last_trick(game)
    if last is not None:
        out["last_trick"] = [{"seat": s, "card": c} for s, c in last[0]]
        out["last_winner"] = last[1]
    out["scores"] = [list(points) for points in game.deal_scores]
    if game.phase is Phase.FINISHED:
        out["standings"] = _standings(game.totals)
    if state.deadline is not None and game.turn is not None and row.status == "running":
        out["clock"] = {"seat": game.turn, "deadline_ms": int(state.deadline.timestamp() * 1000)}
    if seat is not None and row.status == "running":
        _own_seat(out, state, seat_view(game, seat), viewer)
    return out


def _own_seat(out: dict[str, Any], state: TableState, view: SeatView, viewer: Viewer) -> None:
    """What only the seat itself sees: its hand, its legal moves, its own choices."""
    row = state.row
    playing = view.phase is Phase.PLAYING and view.my_turn
    out["hand"] = list(view.hand) if view.hand is not None else None
    out["visible"] = [{"seat": s, "card": c} for s, c in sorted(view.visible_cards.items())]
    if playing:
        out["legal"] = list(view.legal_cards)
        out["unseen"] = view.play_unseen
    if view.phase is Phase.BIDDING and (view.my_turn or view.may_bid_blind):
        out["bids"] = list(view.legal_bids) if view.my_turn else []
        out["blind"] = view.may_bid_blind
    forehead = view.hand is None and not view.may_bid_blind
    out["can"] = {
        "takeback": _may_take_back(state, viewer.user_id, view.seat),
        "claim": playing and not forehead and len(view.hand or ()) > 1,
        "look": view.may_bid_blind,
    }
    if viewer.chosen is not None and viewer.chosen_at == row.version and playing:
        out["chosen"] = viewer.chosen if viewer.chosen in view.legal_cards else None


def _may_take_back(state: TableState, user_id: int, seat: int) -> bool:
    """As TableSession.undo_for: the player's own click made the table's last change."""
    row, game = state.row, state.game
    if state.taken_by != (user_id, row.version) or game is None or row.seats[seat].away:
        return False
    from kachuful_core.takeback import last_move

    move = last_move(game)
    return move is not None and move[0] == seat


def phase_of(row: Table, game: Game | None) -> str:
    if row.status == "stopped":
        return "stopped"
    if game is None:
        return "finished" if row.status == "finished" else "lobby"
    if game.phase is Phase.FINISHED or row.status == "finished":
        return "finished"
    if game.phase is Phase.BIDDING:
        return "bidding"
    if game.phase is Phase.PLAYING:
        return "playing"
    return "deal_over"


def _seats(row: Table, game: Game | None) -> list[dict[str, Any]]:
    seats = []
    for index, seat in enumerate(row.seats):
        entry: dict[str, Any] = {
            "name": seat.name,
            "bot": seat.is_computer,
            "bid": None,
            "tricks": 0,
            "score": 0,
            "cards_left": 0,
            "turn": False,
            "dealer": False,
            "connected": not seat.away,
        }
        if game is not None:
            # How many cards a seat holds is public (it is the hand size less what it played).
            entry["bid"] = game.bids[index]
            entry["tricks"] = game.tricks_won[index]
            entry["score"] = game.totals[index]
            entry["cards_left"] = len(game.hand(index))
            entry["turn"] = game.turn == index and row.status == "running"
            entry["dealer"] = game.dealer == index
        seats.append(entry)
    return seats


def _last_trick(game: Game) -> tuple[list[tuple[int, int]], int] | None:
    """The last trick completed (in this deal, or the previous deal's last), and its winner."""
    players = game.rules.players
    for log in reversed(game.deals):
        done = [trick for trick in log.tricks if len(trick) == players]
        if done:
            return list(done[-1]), log.trick_winners[len(done) - 1]
    return None


def _standings(totals: list[int]) -> list[dict[str, int]]:
    """Seats by total, ties sharing a rank (1, 1, 3)."""
    order = sorted(range(len(totals)), key=lambda s: (-totals[s], s))
    out: list[dict[str, int]] = []
    for place, seat in enumerate(order):
        rank = place + 1
        if place and totals[seat] == totals[order[place - 1]]:
            rank = out[-1]["rank"]
        out.append({"seat": seat, "score": totals[seat], "rank": rank})
    return out
