"""Cards drawn as cards: what each picture shows, read back from its pixels, and which
messages carry one."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image

from bot import render
from bot.i18n import EN, translation
from bot.model import TableOptions
from bot.render import pictures
from bot.render.cards import hand_picture, rank_name
from bot.render.deal import trick, trick_picture
from bot.render.pictures import Card, HandPicture, TrickPicture, draw, name_label
from kachuful_core import Game, Phase, Rules
from kachuful_core.views import view as seat_view

from .test_render import row_for


def image(png: bytes) -> Image.Image:
    picture = Image.open(io.BytesIO(png))
    assert picture.format == "PNG"
    return picture.convert("RGB")


def colours(png: bytes) -> set[tuple[int, int, int]]:
    return {colour for _, colour in image(png).getcolors(1 << 16) or []}


def suit_ink(suit: int) -> tuple[int, int, int]:
    value = pictures.SUIT_COLOURS[suit].lstrip("#")
    red, green, blue = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return red, green, blue


def test_each_suit_has_its_own_colour_in_a_hand() -> None:
    """A hand of one suit shows that suit's ink and no other suit's."""
    for suit in range(4):
        png = draw(HandPicture(tuple(Card(rank, suit) for rank in ("A", "10", "2"))))
        shown = colours(png)
        assert suit_ink(suit) in shown
        assert not {suit_ink(other) for other in range(4) if other != suit} & shown


@pytest.mark.parametrize(("cards", "rows"), [(1, 1), (7, 1), (8, 2), (13, 2), (17, 3)])
def test_a_hand_takes_rows_of_at_most_seven_cards(cards: int, rows: int) -> None:
    png = draw(HandPicture(tuple(Card("9", n % 4) for n in range(cards))))
    width, height = image(png).size
    per_row = -(-cards // rows)
    assert width == pictures.GAP + per_row * (pictures.CARD_W + pictures.GAP)
    assert rows * pictures.CARD_H < height < (rows + 1) * pictures.CARD_H


def test_a_dimmed_card_is_drawn_darker() -> None:
    plain = draw(HandPicture((Card("K", 1), Card("Q", 1))))
    dimmed = draw(HandPicture((Card("K", 1), Card("Q", 1)), dimmed=frozenset({1})))
    dim = pictures.ImageColor.getrgb(pictures.DIMMED)
    assert dim in colours(dimmed) and dim not in colours(plain)


def test_a_trick_marks_its_winner_and_shows_places_still_to_play() -> None:
    places = (("Asha", Card("K", 1)), ("Bilal", Card("A", 1)), ("Chen", None))
    done = image(draw(TrickPicture((*places[:2], ("Chen", Card("2", 1))), winner=1, trump=0)))
    live = image(draw(TrickPicture(places, trump=0)))
    gold = pictures.ImageColor.getrgb(pictures.WINNER)
    assert gold in {c for _, c in done.getcolors(1 << 16) or []}
    assert gold not in {c for _, c in live.getcolors(1 << 16) or []}
    assert done.size == live.size
    # Seven seats take two rows: the picture stays narrow enough for a phone.
    seven = image(draw(TrickPicture(tuple((f"P{n}", None) for n in range(7)))))
    assert seven.size[0] < done.size[0] * 2 and seven.size[1] > done.size[1] * 1.5


def test_a_name_is_drawn_without_what_no_font_can_write() -> None:
    assert name_label("Asha", 0) == "Asha"
    assert name_label("राहुल", 2) == "राहुल"  # Lohit Devanagari, as on the score chart
    # A computer seat's emoji is left out, not the whole name.
    assert name_label("Ada 🤖", 1) == "Ada"
    assert name_label("🎴 cards", 2) == "cards"
    # Only a name with nothing drawable is shown by its seat number.
    assert name_label("🎴🤖", 2) == "#3"
    assert name_label("漢字", 0) == "#1"
    assert name_label("A very long display name", 1) == "A very long…"
    # Each name is written with a font that has every one of its characters.
    assert pictures._name_font("राहुल") == pictures.DEVANAGARI_FONT
    assert pictures._name_font("Amélie") != pictures.DEVANAGARI_FONT


def test_equal_pictures_are_drawn_once() -> None:
    picture = HandPicture((Card("7", 2), Card("J", 3), Card("5", 0)))
    assert pictures.drawn_before(picture) is None
    png = draw(picture)
    # An equal description (another object) finds it, without drawing again.
    assert pictures.drawn_before(HandPicture((Card("7", 2), Card("J", 3), Card("5", 0)))) is png
    assert draw(picture) is png


def game_in_play(players: int = 4) -> Game:
    """A game at its second card of the first trick."""
    game = Game.new(Rules(players=players, max_hand=5), "pictures", players=list("ABCD")[:players])
    while game.phase is Phase.BIDDING:
        game.bid(game.turn, game.legal_bids(game.turn)[0])
    game.play(game.turn, game.legal_cards(game.turn)[0])
    return game


def test_the_hand_message_shows_the_seat_s_cards_and_dims_what_it_may_not_play() -> None:
    game = game_in_play()
    row = row_for(4)
    seat = game.turn
    view = seat_view(game, seat)
    spec = render.hand_message(row, view, EN, version=3)
    assert spec.picture is not None
    assert spec.embeds[0].image.url == "attachment://hand.png"
    shown = [(c.rank, c.suit) for c in spec.picture.cards]
    assert sorted(shown) == sorted((rank_name(c % 13, EN), c // 13) for c in view.hand)
    dimmed = {spec.picture.cards[i] for i in spec.picture.dimmed}
    legal = {(rank_name(c % 13, EN), c // 13) for c in game.legal_cards(seat)}
    assert all((c.rank, c.suit) not in legal for c in dimmed)
    assert len(dimmed) == len(view.hand) - len(legal)
    # Another seat's hand message: its own cards, nothing dimmed (not its turn).
    other = seat_view(game, (seat + 1) % 4)
    spec = render.hand_message(row, other, EN, version=3)
    assert spec.picture is not None and not spec.picture.dimmed
    assert len(spec.picture.cards) == len(other.hand or ())


def test_a_french_hand_prints_french_corners() -> None:
    picture = hand_picture([11, 10, 9], translation("fr"), playable=None, chosen=None)
    assert [c.rank for c in picture.cards] == ["R", "D", "V"]


def test_the_trick_message_pictures_the_table_from_the_leader() -> None:
    game = game_in_play()
    row = row_for(4)
    log = game.deals[0]
    leader = log.tricks[0][0][0]
    picture = trick_picture(row, game, 0, 0, EN)
    assert picture is not None and picture.winner is None
    assert [name for name, _ in picture.places] == [
        row.seats[(leader + k) % 4].name for k in range(4)
    ]
    assert [card is not None for _, card in picture.places] == [True, False, False, False]
    assert trick(row, game, 0, 0, None, EN).picture == picture
    while len(log.trick_winners) < 1:
        game.play(game.turn, game.legal_cards(game.turn)[0])
    done = trick_picture(row, game, 0, 0, EN)
    assert done is not None and done.winner is not None
    assert done.places[done.winner][0] == row.seats[log.trick_winners[0]].name


def test_the_channel_setting_turns_pictures_off() -> None:
    game = game_in_play()
    row = replace(row_for(4), options=TableOptions(pictures=False))
    assert trick(row, game, 0, 0, None, EN).picture is None
    spec = render.hand_message(row, seat_view(game, game.turn), EN, version=3)
    assert spec.picture is None and not spec.embeds[0].image
