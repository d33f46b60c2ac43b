"""**Open the table**: the link button to a table's web page (bot/web/links.py gives its
address, only when the web table is on), added to a message's buttons where a row has room."""

from __future__ import annotations

from bot.i18n import Translations

from .limits import MAX_ROWS
from .specs import ButtonSpec

MAX_ROW_BUTTONS = 5  # Discord's


def open_table_button(url: str, tr: Translations, row: int = 0) -> ButtonSpec:
    return ButtonSpec(("open",), tr.gettext("Open the table"), row=row, url=url)


def with_open_table(
    buttons: tuple[ButtonSpec, ...], url: str | None, tr: Translations, prefer: int = 0
) -> tuple[ButtonSpec, ...]:
    """``buttons`` and the link, in row ``prefer`` if it has room, else the first row that has
    (the message's own buttons keep their places); unchanged without an address or room."""
    if url is None:
        return buttons
    used = [sum(1 for b in buttons if b.row == r) for r in range(MAX_ROWS)]
    rows = [prefer, *(r for r in range(MAX_ROWS) if r != prefer)]
    free = next((r for r in rows if used[r] < MAX_ROW_BUTTONS), None)
    if free is None:
        return buttons
    return (*buttons, open_table_button(url, tr, free))
