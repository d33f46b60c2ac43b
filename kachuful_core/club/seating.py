"""Who sits at which table in a round of an event.

Every round the registered players are spread over as few tables as hold them, computer
players filling the empty seats evenly (a table never has two computers more than another).
From the second round on, players are seated so that they meet opponents they have not met
yet, and, more and more as the event goes on, players close in the standings meet each other
(Swiss-like: the leaders meet late). The seating is a local search from the standings' order,
deterministic for a given seed, so a seating can be recomputed and checked.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from itertools import combinations

Pair = frozenset[int]

# A pair meeting again costs more than any difference of standing can save.
REMATCH_COST = 1000.0


def table_count(players: int, table_size: int) -> int:
    """How many tables seat ``players`` at tables of ``table_size`` (computers fill the rest)."""
    if players < 1 or not 3 <= table_size <= 7:
        raise ValueError("an event needs players and tables of 3 to 7 seats")
    return -(-players // table_size)


def computer_seats(players: int, table_size: int) -> int:
    return table_count(players, table_size) * table_size - players


def _rng(seed: bytes, round_index: int) -> random.Random:
    return random.Random(hashlib.sha256(b"kachuful/seating/%d/" % round_index + seed).digest())


def _humans_per_table(players: int, table_size: int) -> list[int]:
    tables = table_count(players, table_size)
    base, extra = divmod(players, tables)
    return [base + (1 if index < extra else 0) for index in range(tables)]


def _cost(
    table: Sequence[int], met: Mapping[Pair, int], rank: Mapping[int, int], weight: float
) -> float:
    cost = 0.0
    for a, b in combinations(table, 2):
        # Squared: a third meeting of one pair is worse than second meetings of two pairs.
        cost += REMATCH_COST * met.get(frozenset((a, b)), 0) ** 2
        cost += weight * abs(rank[a] - rank[b])
    return cost


def _improve(
    tables: list[list[int]], met: Mapping[Pair, int], rank: Mapping[int, int], weight: float
) -> None:
    """Swap players between tables while a swap lowers the total cost (first improvement)."""
    improved = True
    passes = 0
    while improved and passes < 50:
        improved = False
        passes += 1
        for i, j in combinations(range(len(tables)), 2):
            for a in range(len(tables[i])):
                for b in range(len(tables[j])):
                    before = _cost(tables[i], met, rank, weight) + _cost(
                        tables[j], met, rank, weight
                    )
                    tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
                    after = _cost(tables[i], met, rank, weight) + _cost(
                        tables[j], met, rank, weight
                    )
                    if after < before - 1e-9:
                        improved = True
                    else:
                        tables[i][a], tables[j][b] = tables[j][b], tables[i][a]


def seat_round(
    standing: Sequence[int],
    *,
    table_size: int,
    round_index: int,
    rounds: int,
    met: Mapping[Pair, int],
    seed: bytes,
) -> list[list[int | None]]:
    """The tables of one round: each a list of ``table_size`` seats, a player's id or None
    for a computer player, in seat order.

    ``standing`` is every player still in the event, best first (registration order before
    the first round); ``met`` counts how often each pair has shared a table. In the first
    round the order is shuffled from the seed; later, the players are dealt into tables in
    standing order and then swapped between tables while that makes fewer pairs meet again
    or, weighed more in later rounds, brings players of close standing together.
    """
    if len(set(standing)) != len(standing):
        raise ValueError("a player is listed twice")
    rng = _rng(seed, round_index)
    order = list(standing)
    if round_index == 0:
        rng.shuffle(order)
    rank = {player: place for place, player in enumerate(order)}
    tables: list[list[int]] = []
    start = 0
    for size in _humans_per_table(len(order), table_size):
        tables.append(order[start : start + size])
        start += size
    if round_index > 0 and len(tables) > 1:
        # Standing counts for little at first and most in the last round.
        weight = round_index / max(1, rounds - 1)
        _improve(tables, met, rank, weight)
    seated: list[list[int | None]] = []
    for table in tables:
        seats: list[int | None] = [*table, *([None] * (table_size - len(table)))]
        rng.shuffle(seats)
        seated.append(seats)
    return seated


def meetings(rounds: Sequence[Sequence[Sequence[int | None]]]) -> dict[Pair, int]:
    """How often each pair of players shared a table in the rounds seated so far."""
    met: dict[Pair, int] = {}
    for tables in rounds:
        for table in tables:
            humans = [seat for seat in table if seat is not None]
            for a, b in combinations(humans, 2):
                pair = frozenset((a, b))
                met[pair] = met.get(pair, 0) + 1
    return met
