"""The view of a table for one socket (bot/web/views.py), a pure function: a seat sees its
own cards and only its own; in a forehead deal the others' cards but never its own; a
watcher sees the public table only."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.model import Seat, Table, TableOptions
from bot.web.views import TableState, Viewer, table_view
from kachuful_core import Game, Phase, Rules

USERS = (11, 12, 13)


def table_of(game: Game) -> Table:
    now = datetime.now(UTC)
    return Table(
        id=5,
        guild_id=1,
        channel_id=2,
        host_id=USERS[0],
        status="running",
        options=TableOptions(),
        max_seats=3,
        seats=[Seat(user_id=u, name=f"p{u}") for u in USERS],
        created_at=now,
        updated_at=now,
        version=3,
    )


def cards_in(view: dict[str, object]) -> set[int]:
    """Every card a view names outside the table's trick (where cards are played)."""
    found: set[int] = set(view["hand"] or ())  # type: ignore[call-overload]
    found |= set(view["legal"])  # type: ignore[call-overload]
    found |= {entry["card"] for entry in view["visible"]}  # type: ignore[attr-defined]
    return found


def test_each_seat_sees_its_own_cards_and_a_watcher_none() -> None:
    game = Game.new(Rules(players=3, max_hand=3), "views")
    state = TableState(table_of(game), game)
    for seat, user in enumerate(USERS):
        view = table_view(state, Viewer(user, "fr"))
        assert view["you"] == seat and view["hand"] == game.hand(seat)
        assert cards_in(view) == set(game.hand(seat))
        assert view["words"]["claim"] == "Revendiquer le reste"
        turn = game.turn == seat
        assert (view["bids"] == game.legal_bids(seat)) if turn else view["bids"] == []
    watcher = table_view(state, Viewer(99))
    assert watcher["you"] is None and cards_in(watcher) == set() and watcher["bids"] == []
    assert [s["cards_left"] for s in watcher["seats"]] == [len(game.hand(s)) for s in range(3)]


def test_a_forehead_deal_shows_the_others_cards_never_ones_own() -> None:
    game = Game.new(Rules(players=3, max_hand=1, forehead=True, schedule="down"), "forehead")
    assert game.is_forehead_deal and game.phase is Phase.BIDDING
    state = TableState(table_of(game), game)
    for seat, user in enumerate(USERS):
        view = table_view(state, Viewer(user))
        assert view["hand"] is None
        others = {game.hand(s)[0] for s in range(3) if s != seat}
        assert cards_in(view) == others
    assert cards_in(table_view(state, Viewer(99))) == set()


def test_the_final_view_ranks_the_totals() -> None:
    game = Game.new(Rules(players=3, max_hand=1, schedule="down"), "end")
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        assert seat is not None
        if game.phase is Phase.BIDDING:
            game.bid(seat, game.legal_bids(seat)[0])
        else:
            game.play(seat, game.legal_cards(seat)[0])
    row = table_of(game)
    row.status = "finished"
    view = table_view(TableState(row, game), Viewer(USERS[0]))
    assert view["phase"] == "finished" and view["hand"] is None
    ranks = {entry["seat"]: entry["rank"] for entry in view["standings"]}
    for a in range(3):
        for b in range(3):
            if game.totals[a] > game.totals[b]:
                assert ranks[a] < ranks[b]
            if game.totals[a] == game.totals[b]:
                assert ranks[a] == ranks[b]
