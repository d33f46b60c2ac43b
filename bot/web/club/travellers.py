"""A duplicate round's travellers, as a bridge club posts them after a session: for each deal,
every table's bids, tricks and points seat by seat, with the matchpoints each earned against
the same seat at the other tables (kachuful_core.club.deal_matchpoints: the very points the
standings add up), and the hands as dealt once every table of the round has finished.

Pure: from each table of the round and its game (rebuilt from its stored record) to plain
data a template draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.club.model import EventTable
from bot.render.deal import trump_of
from kachuful_core import Game
from kachuful_core.club import TableResult, deal_matchpoints
from kachuful_core.game import DealLog

# A table's game as the round's page has it: None while it has not been opened; its status.
CLOSED = ("finished", "stopped")


@dataclass(frozen=True)
class RoundTable:
    table: EventTable
    status: str | None  # the game's status (None: no game yet)
    game: Game | None  # the game, once finished (its record read back)
    game_id: int | None


@dataclass(frozen=True)
class TravellerRow:
    """One table's line of one deal's traveller."""

    table_no: int
    game_id: int | None
    names: tuple[str, ...]
    bids: tuple[int | None, ...]
    blind: tuple[bool, ...]
    tricks: tuple[int, ...]
    points: tuple[int, ...]
    matchpoints: tuple[float, ...] | None  # None: no other finished table to compare with


@dataclass(frozen=True)
class Traveller:
    number: int  # the deal's place in the game, 1-based
    deal_number: int  # its place in the schedule, 1-based (as Discord counts deals)
    hand_size: int
    trump: int | None
    dealer: int
    hands: tuple[tuple[int, ...], ...] | None  # shown once the round is over everywhere
    rows: tuple[TravellerRow, ...]


@dataclass(frozen=True)
class RoundTravellers:
    round: int
    finished: bool  # every table of the round has finished (or was stopped)
    playing: tuple[int, ...]  # the tables still playing (numbers)
    compared: int  # finished tables compared deal by deal
    tables: int  # tables seated in the round
    deals: tuple[Traveller, ...]


def round_travellers(round_number: int, tables: Sequence[RoundTable]) -> RoundTravellers:
    """The travellers of one round of a duplicate event."""
    done = [t for t in tables if t.status == "finished" and t.game is not None]
    over = bool(tables) and all(t.status in CLOSED for t in tables)
    results = [
        TableResult(round_number - 1, t.table.table_no, _players(t), tuple(_scores(t)))
        for t in done
    ]
    # The engine's matchpoints: the same function the standings add up (docs/events.md).
    points = deal_matchpoints(results) if len(results) > 1 else None
    deals: list[Traveller] = []
    count = min((len(_played(t)) for t in done), default=0)
    for number in range(count):
        first = _played(done[0])[number]
        rows = []
        for index, entry in enumerate(done):
            log = _played(entry)[number]
            assert log.scores is not None
            rows.append(
                TravellerRow(
                    table_no=entry.table.table_no,
                    game_id=entry.game_id,
                    names=tuple(seat.name for seat in entry.table.seats),
                    bids=tuple(log.bids),
                    blind=tuple(log.blind),
                    tricks=tuple(log.trick_winners.count(s) for s in range(len(log.hands))),
                    points=tuple(log.scores),
                    matchpoints=None if points is None else tuple(points[index][number]),
                )
            )
        game = done[0].game
        assert game is not None
        deals.append(
            Traveller(
                number=number + 1,
                deal_number=first.index + 1,
                hand_size=len(first.hands[0]),
                trump=trump_of(game, first.index),
                dealer=first.dealer,
                hands=first.hands if over else None,
                rows=tuple(rows),
            )
        )
    playing = tuple(t.table.table_no for t in tables if t.status not in CLOSED)
    return RoundTravellers(round_number, over, playing, len(results), len(tables), tuple(deals))


def _players(entry: RoundTable) -> tuple[int | None, ...]:
    return tuple(seat.user_id for seat in entry.table.seats)


def _scores(entry: RoundTable) -> list[tuple[int, ...]]:
    assert entry.game is not None
    return list(entry.game.deal_scores)


def _played(entry: RoundTable) -> list[DealLog]:
    assert entry.game is not None
    return [log for log in entry.game.deals if log.scores is not None]
