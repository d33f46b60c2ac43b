"""The layout of every button's custom_id: written here only (:func:`custom_id`), parsed back by
the templates of ``bot.ui.items``."""

from __future__ import annotations

import re

# Templates match ASCII digits only: in a str pattern \d also matches ３ or ٣, which int()
# reads as 3. At most 18 digits keeps every number inside SQLite's 64-bit integers.
NUMBER = r"[0-9]{1,18}"
_ASCII_NUMBER = re.compile(NUMBER)


def number(text: str) -> int:
    """A number of a custom_id; ValueError unless it is 1 to 18 ASCII digits."""
    if not text.isascii() or not _ASCII_NUMBER.fullmatch(text):
        raise ValueError(f"not an ASCII number: {text!r}")
    return int(text)


LOBBY_ACTS = ("join", "leave", "cpu", "start")


def custom_id(action: tuple[str | int | bool, ...]) -> str:
    """The custom_id of a button action (see ButtonSpec): the one place its layout is written;
    each DynamicItem's template below parses it back."""
    kind, *args = action
    if kind == "level":
        return f"kf:c:{int(args[0])}:{int(args[1])}:{args[2]}"
    if kind == "length":
        return f"kf:n:{int(args[0])}:{args[1]}"
    if kind == "event":  # Register · Withdraw · Remind me, on an event's message
        return f"kf:e:{args[1]}:{int(args[0])}"
    if kind == "choice":
        return f"kf:s:{int(args[0])}:{args[1]}:{int(args[2])}"
    fields = ":".join(str(int(arg)) for arg in args)  # bools as 0/1
    if kind in LOBBY_ACTS:
        return f"kf:l:{kind}:{fields}"
    prefix = _PREFIXES.get(str(kind))
    if prefix is None:
        raise ValueError(f"unknown button action {kind!r}")
    return f"{prefix}:{fields}"


_PREFIXES = {
    "again": "kf:again",
    "activity": "kf:act",  # table: Open the table, launching the Activity
    "hand": "kf:h",
    "refresh": "kf:r",
    "bid": "kf:b",
    "play": "kf:p",
    "unseen": "kf:u",
    "look": "kf:k",
    "back": "kf:back",
    "claim": "kf:m",
    "choose": "kf:q",
    "undo": "kf:z",
    # Reviews, replays and practice deals (cogs/review.py, cogs/practice.py).
    "review": "kf:rv",  # game, page
    "replay": "kf:rp",  # game, step
    "practise": "kf:pf",  # game, deal: a practice deal from a finished game's deal
    "pbid": "kf:pb",  # practice deal, version, bid
    "pcard": "kf:pc",  # practice deal, version, card
    "phint": "kf:ph",  # practice deal, version
    "pagain": "kf:pa",  # practice deal: the same deal again
    # A score pad's message (cogs/scorepad.py): pad, version[, number].
    "padjoin": "kf:sj",
    "padleave": "kf:sl",
    "padstart": "kf:ss",
    "padstop": "kf:sx",
    "padbid": "kf:sb",
    "padtricks": "kf:st",
}
