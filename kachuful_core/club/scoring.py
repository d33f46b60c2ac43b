"""How finished tables become an event's standings (docs/events.md#scoring).

- **Rotation**: at each table a player earns one event point for every opponent (computer
  players included) whose final score they beat, and half a point for each they tie with.
- **Duplicate**: every table of a round plays the same deals, seat k holding the same cards
  at every table. Each deal is scored by matchpoints: a seat's points for that deal are
  compared with the same seat's at every other table of the round that has finished, one
  event point for each it beat and half a point for each it tied. With one table there is
  nothing to compare with: the round is scored as in rotation.
- **Tiebreak**: the player's game scores added up over the event.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

FORMATS = ("rotation", "duplicate")
# An event seats at least this many players (computer players fill the rest of the tables).
MIN_EVENT_PLAYERS = 2


def table_seeds(format: str, tables: int, new_seed: Callable[[], str]) -> list[str]:
    """The secret seed each table of a round deals from: in duplicate one seed for every
    table (seat k holds the same cards everywhere), in rotation a seed of its own each."""
    if format not in FORMATS:
        raise ValueError(f"no event format {format!r}")
    if format == "duplicate":
        return [new_seed()] * tables
    return [new_seed() for _ in range(tables)]


@dataclass(frozen=True)
class TableResult:
    """One finished table: who sat where (a player's id, None for a computer player) and
    the points each seat scored in each deal."""

    round_index: int
    table: int
    players: tuple[int | None, ...]
    deal_scores: tuple[tuple[int, ...], ...]

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(
            sum(deal[seat] for deal in self.deal_scores) for seat in range(len(self.players))
        )


@dataclass(frozen=True)
class Standing:
    player: int
    rank: int
    points: float
    tiebreak: int
    tables: int


def _beaten(mine: int, others: Sequence[int]) -> float:
    return sum(1.0 if mine > other else 0.5 if mine == other else 0.0 for other in others)


def table_points(totals: Sequence[int]) -> list[float]:
    """Each seat's event points at a rotation table: opponents beaten, half for a tie."""
    return [
        _beaten(total, [other for seat, other in enumerate(totals) if seat != index])
        for index, total in enumerate(totals)
    ]


def deal_matchpoints(tables: Sequence[TableResult]) -> list[list[list[float]]]:
    """The matchpoints of one round deal by deal (a duplicate event's travellers): for each
    table, each deal, each seat, what its score for that deal earned against the same seat
    at the other tables (which played the same cards): 1 for each it beat, ½ for each tie."""
    if len({len(t.players) for t in tables}) > 1 or len({len(t.deal_scores) for t in tables}) > 1:
        raise ValueError("duplicate tables of a round must have the same seats and deals")
    return [
        [
            [
                _beaten(score, [o.deal_scores[deal][seat] for o in others])
                for seat, score in enumerate(scores)
            ]
            for deal, scores in enumerate(table.deal_scores)
        ]
        for table, others in (
            (table, [o for other, o in enumerate(tables) if other != index])
            for index, table in enumerate(tables)
        )
    ]


def duplicate_points(tables: Sequence[TableResult]) -> list[list[float]]:
    """Matchpoints of every seat of every table of one round, deal by deal against the same
    seat at the other tables (which played the same cards), added up."""
    return [
        [sum(deal[seat] for deal in deals) for seat in range(len(table.players))]
        for table, deals in zip(tables, deal_matchpoints(tables), strict=True)
    ]


def round_points(format: str, tables: Sequence[TableResult]) -> list[list[float]]:
    """The event points of each seat of each finished table of one round."""
    if format not in FORMATS:
        raise ValueError(f"no event format {format!r}")
    if format == "duplicate" and len(tables) > 1:
        return duplicate_points(tables)
    return [table_points(t.totals) for t in tables]


def event_standings(
    format: str, results: Sequence[TableResult], players: Sequence[int]
) -> list[Standing]:
    """The standings after the finished tables ``results``: every player of ``players``
    (registration order breaks no tie: equal points and tiebreak share a rank), best first."""
    points = {player: 0.0 for player in players}
    tiebreak = dict.fromkeys(players, 0)
    tables = dict.fromkeys(players, 0)
    for round_index in sorted({r.round_index for r in results}):
        finished = [r for r in results if r.round_index == round_index]
        for table, seat_points in zip(finished, round_points(format, finished), strict=True):
            totals = table.totals
            for seat, player in enumerate(table.players):
                if player is None or player not in points:
                    continue
                points[player] += seat_points[seat]
                tiebreak[player] += totals[seat]
                tables[player] += 1
    order = sorted(players, key=lambda p: (-points[p], -tiebreak[p]))
    standings: list[Standing] = []
    for place, player in enumerate(order):
        rank = place + 1
        if standings:
            last = standings[-1]
            if (last.points, last.tiebreak) == (points[player], tiebreak[player]):
                rank = last.rank
        standings.append(Standing(player, rank, points[player], tiebreak[player], tables[player]))
    return standings
