"""Club play in the engine: seating the rounds of an event and scoring its tables."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kachuful_core.club import (
    TableResult,
    computer_seats,
    deal_matchpoints,
    duplicate_points,
    event_standings,
    meetings,
    round_points,
    seat_round,
    table_count,
    table_points,
)


def seat_event(players: int, size: int, rounds: int, seed: bytes = b"s") -> list:
    seated: list = []
    standing = list(range(1, players + 1))
    for index in range(rounds):
        seated.append(
            seat_round(
                standing,
                table_size=size,
                round_index=index,
                rounds=rounds,
                met=meetings(seated),
                seed=seed,
            )
        )
    return seated


@given(players=st.integers(1, 40), size=st.integers(3, 7), index=st.integers(0, 3))
@settings(max_examples=60, deadline=None)
def test_every_player_sits_once_and_computers_fill_evenly(players, size, index):
    tables = seat_round(
        list(range(100, 100 + players)),
        table_size=size,
        round_index=index,
        rounds=4,
        met={},
        seed=b"seed",
    )
    seated = [seat for table in tables for seat in table if seat is not None]
    assert sorted(seated) == list(range(100, 100 + players))
    assert len(tables) == table_count(players, size)
    assert all(len(table) == size for table in tables)
    computers = [table.count(None) for table in tables]
    assert sum(computers) == computer_seats(players, size)
    assert max(computers) - min(computers) <= 1


def test_seating_is_deterministic_for_a_seed_and_differs_between_seeds():
    assert seat_event(12, 4, 3, b"a") == seat_event(12, 4, 3, b"a")
    assert seat_event(12, 4, 1, b"a") != seat_event(12, 4, 1, b"b")


@pytest.mark.parametrize(
    ("players", "size", "rounds"),
    [(16, 4, 3), (28, 4, 4), (12, 3, 4), (9, 4, 3), (9, 3, 4), (25, 5, 3)],
)
def test_rotation_meets_new_opponents_while_it_can(players, size, rounds):
    """While every player can still meet only players they have not met, nobody meets anyone
    twice."""
    met = meetings(seat_event(players, size, rounds))
    assert max(met.values()) == 1


def test_twenty_eight_players_over_eight_rounds_spread_their_meetings():
    met = meetings(seat_event(28, 4, 8))
    assert max(met.values()) == 2
    # Each player meets 3 opponents a round: 24 meetings, of which most are new.
    assert len(met) >= 300


def test_the_leaders_meet_in_the_last_round():
    """Last round of a 3-round event, nobody has met: the seating follows the standings."""
    standing = list(range(1, 13))
    tables = seat_round(standing, table_size=4, round_index=2, rounds=3, met={}, seed=b"x")
    assert [sorted(s for s in table if s) for table in tables] == [
        [1, 2, 3, 4],
        [5, 6, 7, 8],
        [9, 10, 11, 12],
    ]


def test_bad_seatings_are_refused():
    with pytest.raises(ValueError):
        seat_round([1, 1, 2], table_size=3, round_index=0, rounds=1, met={}, seed=b"")
    with pytest.raises(ValueError):
        table_count(5, 8)
    with pytest.raises(ValueError):
        table_count(0, 4)


def test_table_points_count_opponents_beaten_and_half_ties():
    assert table_points([30, 12, 30, 5]) == [2.5, 1.0, 2.5, 0.0]


def result(round_index, table, players, deals):
    return TableResult(round_index, table, tuple(players), tuple(tuple(d) for d in deals))


def test_duplicate_compares_each_seat_deal_by_deal_with_the_same_seat_elsewhere():
    # Three tables, two deals, three seats; seat 0's deal scores 11, 0, 11 at tables A, B, C.
    a = result(0, 0, [1, 2, 3], [[11, 0, 12], [0, 10, 0]])
    b = result(0, 1, [4, 5, 6], [[0, 0, 12], [10, 10, 0]])
    c = result(0, 2, [7, 8, 9], [[11, 11, 0], [0, 0, 0]])
    points = duplicate_points([a, b, c])
    # Table A seat 0: deal 1 beats B (11>0), ties C (11=11): 1.5; deal 2 loses to B, ties
    # C: 0.5. Seat 1: deal 1 ties B, loses to C: 0.5; deal 2 ties B, beats C: 1.5.
    assert points[0] == [2.0, 2.0, 2.5]
    assert points[1] == [2.0, 2.0, 2.5]
    assert points[2] == [2.0, 2.0, 1.0]
    # Each deal gives each seat position one point per pair of tables: 3 pairs, 2 deals.
    assert [sum(column) for column in zip(*points, strict=True)] == [6.0, 6.0, 6.0]
    assert round_points("duplicate", [a, b, c]) == points


def test_duplicate_with_one_table_scores_as_rotation():
    a = result(0, 0, [1, 2, 3], [[11, 0, 12], [0, 10, 0]])
    assert round_points("duplicate", [a]) == [table_points(a.totals)]
    with pytest.raises(ValueError):
        round_points("knockout", [a])


def test_duplicate_refuses_tables_that_did_not_play_the_same_deals():
    a = result(0, 0, [1, 2, 3], [[11, 0, 12]])
    b = result(0, 1, [4, 5, 6], [[11, 0, 12], [0, 0, 10]])
    with pytest.raises(ValueError):
        duplicate_points([a, b])


def test_standings_add_up_rounds_and_share_ranks_on_equal_points_and_tiebreak():
    first = result(0, 0, [1, 2, None], [[11, 11, 0]])
    second = result(1, 0, [2, 1, None], [[0, 12, 0]])
    standings = event_standings("rotation", [first, second], [1, 2, 3])
    by_player = {s.player: s for s in standings}
    assert by_player[1].points == 1.5 + 2.0
    assert by_player[2].points == 1.5 + 0.5
    assert by_player[1].tiebreak == 23
    assert by_player[3].tables == 0
    assert [s.player for s in standings] == [1, 2, 3]
    tied = event_standings("rotation", [first], [1, 2])
    assert [s.rank for s in tied] == [1, 1]


# ---- seasons


def test_monthly_and_quarterly_seasons_and_the_last_one_ended():
    from datetime import date

    from kachuful_core.club import last_ended, season_of

    december = season_of("monthly", date(2026, 12, 4))
    assert (december.key, december.first, december.end) == (
        "2026-12",
        date(2026, 12, 1),
        date(2027, 1, 1),
    )
    assert date(2026, 12, 31) in december and date(2027, 1, 1) not in december
    q4 = season_of("quarterly", date(2026, 11, 30))
    assert (q4.key, q4.first, q4.end) == ("2026-Q4", date(2026, 10, 1), date(2027, 1, 1))
    assert last_ended("monthly", date(2027, 1, 1)).key == "2026-12"
    assert last_ended("quarterly", date(2026, 12, 31)).key == "2026-Q3"


def test_a_season_between_dates_ends_the_day_after_its_last():
    from datetime import date

    from kachuful_core.club import last_ended, season_of

    first, last = date(2026, 11, 10), date(2026, 12, 9)
    season = season_of("dates", date(2026, 12, 9), first, last)
    assert season.key == "2026-11-10..2026-12-09"
    assert season_of("dates", date(2026, 12, 10), first, last) is None
    assert last_ended("dates", date(2026, 12, 9), first, last) is None
    assert last_ended("dates", date(2026, 12, 10), first, last) == season
    with pytest.raises(ValueError):
        season_of("dates", first, last, first)
    with pytest.raises(ValueError):
        season_of("weekly", first)


def test_season_standings_count_opponents_beaten_then_wins_then_points():
    from kachuful_core.club import season_standings

    games = [
        [(1, 40, True), (2, 30, False), (None, 20, False)],  # 1: 2 points, 2: 1
        [(2, 50, True), (1, 10, False), (3, 10, False)],  # 2: 2, 1: 0.5, 3: 0.5
        [(3, 25, True), (None, 25, True), (1, 0, False)],  # 3: 1.5, 1: 0
    ]
    standings = season_standings(games)
    assert [(s.player, s.rank, s.points, s.wins, s.games) for s in standings] == [
        (2, 1, 3.0, 1, 2),
        (1, 2, 2.5, 1, 3),
        (3, 3, 2.0, 1, 2),
    ]
    tied = season_standings([[(1, 10, True), (2, 10, True)]])
    assert [s.rank for s in tied] == [1, 1]


def test_duplicate_tables_share_one_seed_and_rotation_tables_have_their_own():
    from itertools import count

    from kachuful_core.club import table_seeds

    fresh = count()
    assert table_seeds("duplicate", 3, lambda: f"s{next(fresh)}") == ["s0", "s0", "s0"]
    assert table_seeds("rotation", 3, lambda: f"s{next(fresh)}") == ["s1", "s2", "s3"]
    with pytest.raises(ValueError):
        table_seeds("swiss", 2, lambda: "s")


def test_the_travellers_matchpoints_are_the_rounds_points_deal_by_deal():
    a = result(0, 0, [1, 2, 3], [[11, 0, 12], [0, 10, 0]])
    b = result(0, 1, [4, 5, 6], [[0, 0, 12], [10, 10, 0]])
    c = result(0, 2, [7, 8, 9], [[11, 11, 0], [0, 0, 0]])
    deals = deal_matchpoints([a, b, c])
    # Table A, deal 1: seat 0 beats B and ties C (1.5), seat 1 ties B and loses to C (0.5),
    # seat 2 ties B and beats C (1.5); deal 2: 0.5, 1.5, 1.0.
    assert deals[0] == [[1.5, 0.5, 1.5], [0.5, 1.5, 1.0]]
    # Every deal shares out one point per pair of tables at each seat position.
    for deal in range(2):
        assert [sum(t[deal][seat] for t in deals) for seat in range(3)] == [3.0, 3.0, 3.0]
    added = [[sum(d[seat] for d in table) for seat in range(3)] for table in deals]
    assert added == duplicate_points([a, b, c])
