"""**Open the table** (bot/render/open_table.py): on the lobby and the hand messages only when
the web table gives an address, and always where a row has room (Discord allows five buttons
a row, five rows)."""

from __future__ import annotations

from bot import render
from bot.i18n import EN, translation
from bot.render.open_table import TableLink, with_open_table
from bot.render.specs import ButtonSpec
from bot.ui.payloads import build_view

from .test_views import USERS, table_of

URL = "https://cards.example.org/table/5"
LINK = TableLink(URL, 5)


def links(buttons: tuple[ButtonSpec, ...]) -> list[tuple[str, str | None]]:
    return [(b.label, b.url) for b in buttons if b.url]


def test_the_lobby_links_its_table_only_with_an_address() -> None:
    from kachuful_core import Game, Rules

    row = table_of(Game.new(Rules(players=3, max_hand=3), "links"))
    row.status = "lobby"
    with_link = render.lobby(row, translation("fr"), timeout_minutes=15, table_link=LINK)
    assert links(with_link.buttons) == [("Ouvrir la table", URL)]
    without = render.lobby(row, translation("fr"), timeout_minutes=15)
    assert links(without.buttons) == []
    assert [b for b in with_link.buttons if not b.url] == list(without.buttons)
    # Sent as Discord's link button: no custom id, style 5.
    view = build_view(with_link.buttons)
    assert view is not None
    sent = [c for row in view.to_components() for c in row["components"] if "url" in c]
    assert sent == [{"type": 2, "style": 5, "label": "Ouvrir la table", "url": URL}]


def test_the_link_goes_where_a_row_has_room() -> None:
    full_row = tuple(ButtonSpec(("x", n), str(n), row=4) for n in range(5))
    placed = with_open_table(full_row, LINK, EN, prefer=4)
    assert [b.row for b in placed if b.url] == [0]
    everything = tuple(ButtonSpec(("x", r, n), "x", row=r) for r in range(5) for n in range(5))
    assert with_open_table(everything, LINK, EN) == everything  # no room: no link
    assert with_open_table(full_row, None, EN) == full_row


def test_a_hand_message_links_the_table_until_the_game_is_over() -> None:
    from kachuful_core import Game, Phase, Rules
    from kachuful_core.views import view as seat_view

    game = Game.new(Rules(players=3, max_hand=3), "hand links")
    row = table_of(game)
    seat = row.seat_of(USERS[0])
    assert seat is not None
    spec = render.hand_message(row, seat_view(game, seat), EN, version=3, table_link=LINK)
    assert links(spec.buttons) == [("Open the table", URL)]
    assert build_view(spec.buttons) is not None  # within Discord's rows
    plain = render.hand_message(row, seat_view(game, seat), EN, version=3)
    assert links(plain.buttons) == []
    while game.phase is not Phase.FINISHED:
        turn = game.turn
        assert turn is not None
        if game.phase is Phase.BIDDING:
            game.bid(turn, game.legal_bids(turn)[0])
        else:
            game.play(turn, game.legal_cards(turn)[0])
    over = render.hand_message(row, seat_view(game, seat), EN, version=9, table_link=LINK)
    assert links(over.buttons) == []
