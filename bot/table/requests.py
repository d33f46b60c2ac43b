"""A move as a plain request: who acts, at which table, at which move counter, doing what, in
which language. Every front turns its input into one (a Discord button: bot/ui/items.py; the
web table's socket: bot/web/) and hands it to the change path (``moves.py``), which answers
with a :class:`~bot.table.outcome.Step`. Nothing here knows Discord or the web.

Who acts is a fact the front has proven (Discord says who clicked; the web table's session
was opened by Discord's OAuth2), never a claim of the client; everything else in a request
is a claim the change path checks, as it checks a forged button."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Choice = Literal["single_card", "confirm_cards"]
CHOICES: tuple[Choice, ...] = ("single_card", "confirm_cards")


@dataclass(frozen=True)
class Bid:
    n: int
    blind: bool = False


@dataclass(frozen=True)
class PlayCard:
    """A card of the actor's hand; ``None``: the forehead deal's one card, played unseen."""

    card: int | None


@dataclass(frozen=True)
class Look:
    """Blind bids: look at the hand (after which a blind bid is no longer possible)."""


@dataclass(frozen=True)
class Choose:
    """A card chosen by a player who confirms each card: offered to confirm, not played."""

    card: int


@dataclass(frozen=True)
class Claim:
    """ "Claim the rest": the actor takes every remaining trick of the deal."""


@dataclass(frozen=True)
class TakeBack:
    """The actor's own last bid or card, while nothing else has happened at the table."""


@dataclass(frozen=True)
class SetChoice:
    """A choice kept on the actor's seat (bot/table/choices.py): not a move of the game."""

    choice: Choice
    on: bool


@dataclass(frozen=True)
class Back:
    """ "I'm back": the owner of an away seat takes it back from the computer."""

    seat: int


Move = Bid | PlayCard | Look | Choose | Claim | TakeBack | SetChoice | Back

# The moves a request must carry a move counter for (it was drawn at one: a stale one is
# refused); the others mean the same whatever the table showed.
COUNTED = (Bid, PlayCard, Look, Choose, Claim, TakeBack)


@dataclass(frozen=True)
class Request:
    """``user_id``: who acts, as the front proved it. ``table``: the table's id. ``version``:
    the move counter the move was drawn at. ``language``: the actor's (bot.i18n), for the
    answer. ``channel_id``: where a Discord button was clicked (its table must be that
    channel's or its thread's); None for a front that is not in a channel (the web table),
    whose actor may only act for their own seat anyway."""

    user_id: int
    table: int
    move: Move
    version: int | None = None
    language: str = "en"
    channel_id: int | None = None
