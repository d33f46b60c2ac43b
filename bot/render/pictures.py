"""Cards drawn as cards: a private hand, and the public trick as a picture of the table.

A picture is described by a small frozen value (:class:`HandPicture`, :class:`TrickPicture`)
that the render puts in a message spec beside the text (which still says every fact, for a
screen reader and a search). The sender draws it with :func:`draw`, off the event loop; equal
descriptions draw once (an LRU cache), so a live trick redrawn for each reader costs one
drawing.

Suits have four colours *and* four shapes (the four-colour deck of online rooms: spades black,
hearts red, diamonds blue, clubs green), so a colour-blind player tells them apart by shape.
The glyphs come from DejaVu Sans, which matplotlib (a dependency, for the score chart) ships,
and Devanagari names from the bundled Lohit Devanagari (as on the chart); what neither can
write (an emoji, say) is left out of a name, and a name with nothing else is shown by its seat
number, which the text beside the picture gives too.
"""

from __future__ import annotations

import importlib.util
import io
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from PIL import Image, ImageColor, ImageDraw, ImageFont

from .chart import DEVANAGARI_FONT  # the bundled Lohit Devanagari (chart.py imports no more)
from .names import clip_name

HAND_FILE = "hand.png"
TRICK_FILE = "trick.png"

SUITS = "♠♥♦♣"  # the engine's suit order (kachuful_core.cards)
SUIT_COLOURS = ("#1b1b1b", "#c62828", "#1565c0", "#2e7d32")
FELT = "#1d5c3a"
CARD = "#fbfbf8"
CARD_EDGE = "#8a8a8a"
DIMMED = "#b9b9b4"  # a card that may not be played now
WINNER = "#f2c14e"
NAME = "#f4f4f4"
EMPTY = "#6f9c82"  # the outline of a place whose card is still to come

# Drawn at twice the size they are read at: phones show pictures at two or three device pixels
# a point, and Discord scales a picture down to the message's width on a desktop.
S = 2
CARD_W, CARD_H = 64 * S, 90 * S
GAP = 8 * S
PER_ROW = 7  # a hand of up to 7 cards on one line: readable at phone width
NAME_LEN = 12


@dataclass(frozen=True)
class Card:
    rank: str  # as the reader's language prints the corner: "10", "K", "R"
    suit: int


@dataclass(frozen=True)
class HandPicture:
    """A player's hand, in display order; ``dimmed``: indexes of cards not playable now;
    ``chosen``: the index of the card chosen and waiting for confirmation."""

    cards: tuple[Card, ...]
    dimmed: frozenset[int] = frozenset()
    chosen: int | None = None

    file_name = HAND_FILE


@dataclass(frozen=True)
class TrickPicture:
    """A trick as the table sees it: every seat in playing order from the leader, its name
    and its card (None: not played yet); ``winner``: the index of the winning place once the
    trick is complete; ``trump``: the trump suit, drawn in a corner (None: no trump)."""

    places: tuple[tuple[str, Card | None], ...]
    winner: int | None = None
    trump: int | None = None

    file_name = TRICK_FILE


Picture = HandPicture | TrickPicture


def _font_file(name: str) -> Path:
    spec = importlib.util.find_spec("matplotlib")
    assert spec is not None and spec.submodule_search_locations
    return Path(spec.submodule_search_locations[0]) / "mpl-data" / "fonts" / "ttf" / name


@cache
def _devanagari(size: int) -> ImageFont.FreeTypeFont:
    """Devanagari names in the font the score chart writes them with, shaped by Raqm."""
    return ImageFont.truetype(str(DEVANAGARI_FONT), size, layout_engine=ImageFont.Layout.RAQM)


@cache
def _font(size: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(_font_file(name)), size)


@cache
def _writable(path: Path) -> frozenset[int]:
    """The code points the font at ``path`` has a glyph for (fontTools comes with matplotlib)."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

    with TTFont(str(path), lazy=True) as font:
        return frozenset(font.getBestCmap())


NAME_FONTS = ("DejaVuSans.ttf", DEVANAGARI_FONT)


def _font_path(font: str | Path) -> Path:
    return font if isinstance(font, Path) else _font_file(font)


def _name_font(name: str) -> Path | None:
    """The font that writes every character of ``name``, or None."""
    for font in NAME_FONTS:
        path = _font_path(font)
        if all(ord(ch) in _writable(path) for ch in name):
            return path
    return None


def _drawable(name: str) -> str:
    """``name`` with only what one of the fonts can draw: the font that draws most of it keeps
    its characters, the others (an emoji, a symbol no font here has) are left out."""
    best = ""
    for font in NAME_FONTS:
        writable = _writable(_font_path(font))
        kept = "".join(ch for ch in name if ord(ch) in writable)
        if len(kept) > len(best):
            best = kept
    return " ".join(best.split())


def name_label(name: str, place: int) -> str:
    """A seat's name as the picture can write it: shortened, without the characters no font
    here has ("Ada 🤖" is drawn "Ada"); its seat number only when none of it can be drawn."""
    name = _drawable(name)
    if not name:
        return f"#{place + 1}"
    return name if len(name) <= NAME_LEN else clip_name(name, NAME_LEN - 1) + "…"


def _card(canvas: Image.Image, x: int, y: int, card: Card, *, dim: bool = False) -> None:
    canvas.paste(_face(card, dim), (x, y))


@lru_cache(maxsize=512)
def _face(card: Card, dim: bool) -> Image.Image:
    """One card, drawn once on the felt (its rounded corners show the felt) and pasted after:
    drawing glyphs is most of a picture's cost."""
    image = Image.new("RGB", (CARD_W, CARD_H), FELT)
    draw = ImageDraw.Draw(image)
    face = DIMMED if dim else CARD
    draw.rounded_rectangle(
        (0, 0, CARD_W - 1, CARD_H - 1), 7 * S, fill=face, outline=CARD_EDGE, width=S
    )
    colour = SUIT_COLOURS[card.suit]
    suit = SUITS[card.suit]
    draw.text((6 * S, 3 * S), card.rank, font=_font(20 * S), fill=colour)
    draw.text((7 * S, 25 * S), suit, font=_font(16 * S), fill=colour)
    draw.text((CARD_W - 8 * S, CARD_H - 6 * S), suit, font=_font(34 * S), fill=colour, anchor="rs")
    return image


@lru_cache(maxsize=512)
def _name(label: str, won: bool) -> Image.Image:
    """A seat's name as drawn under its card, on the felt, once per name."""
    path = _name_font(label)
    if path is None or path == DEVANAGARI_FONT:
        font = _devanagari(13 * S)
    else:
        font = _font(13 * S, bold=won)
    left, top, right, bottom = (int(edge) for edge in font.getbbox(label))
    image = Image.new("RGB", (max(1, right - left), max(1, bottom - top)), FELT)
    ImageDraw.Draw(image).text((-left, -top), label, font=font, fill=WINNER if won else NAME)
    return image


def _empty_place(canvas: Image.Image, x: int, y: int) -> None:
    draw = ImageDraw.Draw(canvas)
    draw.rounded_rectangle(
        (x, y, x + CARD_W - 1, y + CARD_H - 1), 7 * S, outline=EMPTY, width=2 * S, fill=FELT
    )


def _blends() -> Image.Image:
    """The pictures' palette: each ink over each ground it is drawn on, in eight steps (the
    edges of anti-aliased glyphs and lines)."""
    inks_on = [(ink, ground) for ink in SUIT_COLOURS for ground in (CARD, DIMMED)]
    inks_on += [(NAME, FELT), (WINNER, FELT), (WINNER, CARD), (CARD_EDGE, CARD)]
    inks_on += [(CARD_EDGE, DIMMED), (CARD_EDGE, FELT), (CARD, FELT), (DIMMED, FELT)]
    inks_on += [(EMPTY, FELT)]
    colours: dict[tuple[int, ...], None] = {}
    for ink, ground in inks_on:
        a, b = ImageColor.getrgb(ink), ImageColor.getrgb(ground)
        for step in range(8):
            t = step / 7
            colours[tuple(round(a[k] * t + b[k] * (1 - t)) for k in range(3))] = None
    flat = [value for colour in colours for value in colour]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette


PALETTE = _blends()


def _png(canvas: Image.Image) -> bytes:
    # Mapped to a fixed palette (every colour a picture can hold): a fifth of the time of
    # computing one, and PNG takes a third of the bytes of full colour.
    small = canvas.quantize(palette=PALETTE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, "PNG", compress_level=6)
    return out.getvalue()


def _hand(picture: HandPicture) -> bytes:
    count = max(1, len(picture.cards))
    rows = -(-count // PER_ROW)
    per_row = -(-count // rows)  # rows as even as can be: 8 cards are 4 + 4, not 7 + 1
    width = GAP + per_row * (CARD_W + GAP)
    height = GAP + rows * (CARD_H + GAP) + 4 * S
    canvas = Image.new("RGB", (width, height), FELT)
    for index, card in enumerate(picture.cards):
        row, column = divmod(index, per_row)
        x, y = GAP + column * (CARD_W + GAP), GAP + row * (CARD_H + GAP)
        if index == picture.chosen:
            y -= 4 * S  # the chosen card stands out, as a raised card in a hand
            ImageDraw.Draw(canvas).rounded_rectangle(
                (x - 3 * S, y + S, x + CARD_W + 2 * S, y + CARD_H + 6 * S),
                9 * S,
                outline=WINNER,
                width=3 * S,
            )
        _card(canvas, x, y + 4 * S, card, dim=index in picture.dimmed)
    return _png(canvas)


TRICK_PER_ROW = 4  # places a row: 5 to 7 seats take two rows, readable at phone width


def _trick(picture: TrickPicture) -> bytes:
    place_w, place_h = CARD_W + 34 * S, CARD_H + 34 * S  # room for a name under each card
    top = 26 * S
    count = len(picture.places)
    rows = -(-count // TRICK_PER_ROW)
    per_row = -(-count // rows)
    canvas = Image.new("RGB", (GAP + per_row * place_w, top + rows * place_h), FELT)
    draw = ImageDraw.Draw(canvas)
    if picture.trump is not None:
        colour = SUIT_COLOURS[picture.trump]
        draw.rounded_rectangle((6 * S, 4 * S, 30 * S, 22 * S), 5 * S, fill=CARD)
        draw.text(
            (18 * S, 13 * S), SUITS[picture.trump], font=_font(15 * S), fill=colour, anchor="mm"
        )
    for place, (name, card) in enumerate(picture.places):
        row, column = divmod(place, per_row)
        x = GAP + column * place_w + (place_w - CARD_W) // 2 - GAP // 2
        y = top + row * place_h
        won = place == picture.winner
        if won:
            draw.rounded_rectangle(
                (x - 4 * S, y - 4 * S, x + CARD_W + 3 * S, y + CARD_H + 3 * S),
                10 * S,
                outline=WINNER,
                width=4 * S,
            )
        if card is None:
            _empty_place(canvas, x, y)
        else:
            _card(canvas, x, y, card)
        if place == 0:  # the leader: an arrow over the first card
            middle = x + CARD_W // 2
            draw.polygon(
                [(middle - 7 * S, 8 * S), (middle + 7 * S, 8 * S), (middle, 20 * S)], fill=NAME
            )
        label = _name(name_label(name, place), won)
        centre = x + CARD_W // 2
        canvas.paste(label, (centre - label.width // 2, y + CARD_H + 16 * S - label.height // 2))
    return _png(canvas)


# Pictures drawn lately, by description, newest last (a live trick is redrawn for each reader,
# a watcher's hand at every move): looked up on the event loop without a thread's hop.
_DRAWN: OrderedDict[Picture, bytes] = OrderedDict()
_DRAWN_LOCK = threading.Lock()
DRAWN_KEPT = 256


def drawn_before(picture: Picture) -> bytes | None:
    """The PNG of ``picture`` if it was drawn lately (cheap: safe on the event loop)."""
    with _DRAWN_LOCK:
        png = _DRAWN.get(picture)
        if png is not None:
            _DRAWN.move_to_end(picture)
        return png


def draw(picture: Picture) -> bytes:
    """The picture as PNG bytes, kept for the next time. Thread-safe: called off the event
    loop."""
    png = drawn_before(picture)
    if png is None:
        png = draw_anew(picture)
        with _DRAWN_LOCK:
            _DRAWN[picture] = png
            while len(_DRAWN) > DRAWN_KEPT:
                _DRAWN.popitem(last=False)
    return png


def draw_anew(picture: Picture) -> bytes:
    """The picture drawn now, whatever was drawn before (the card faces and names aside)."""
    if isinstance(picture, HandPicture):
        return _hand(picture)
    return _trick(picture)
