"""**Open the table**: the button to a table's web page (bot/web/links.py gives it, only when
the web table is on), added to a message's buttons where a row has room: a link to the page,
or, when the operator turns the Activity on, a button whose click launches the Activity in the
channel (bot/ui/activity_button.py)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import Translations

from .limits import MAX_ROWS
from .specs import ButtonSpec, MessageSpec

MAX_ROW_BUTTONS = 5  # Discord's


@dataclass(frozen=True)
class TableLink:
    """Where **Open the table** leads: the table's page ``url``, or with ``activity`` the
    Activity launched in the channel (which finds table ``table`` itself)."""

    url: str
    table: int
    activity: bool = False


def open_table_button(link: TableLink, tr: Translations, row: int = 0) -> ButtonSpec:
    label = tr.gettext("Open the table")
    if link.activity:
        return ButtonSpec(("activity", link.table), label, style="primary", row=row)
    return ButtonSpec(("open",), label, row=row, url=link.url)


def with_open_table(
    buttons: tuple[ButtonSpec, ...], link: TableLink | None, tr: Translations, prefer: int = 0
) -> tuple[ButtonSpec, ...]:
    """``buttons`` and the link, in row ``prefer`` if it has room, else the first row that has
    (the message's own buttons keep their places); unchanged without an address or room."""
    if link is None:
        return buttons
    used = [sum(1 for b in buttons if b.row == r) for r in range(MAX_ROWS)]
    rows = [prefer, *(r for r in range(MAX_ROWS) if r != prefer)]
    free = next((r for r in rows if used[r] < MAX_ROW_BUTTONS), None)
    if free is None:
        return buttons
    return (*buttons, open_table_button(link, tr, free))


def web_table_off(tr: Translations) -> str:
    return tr.gettext("The web table is not on for this bot.")


def web_table_answer(link: TableLink, tr: Translations) -> MessageSpec:
    """/kachuful table: the table's page, or its Activity."""
    return MessageSpec(
        content=tr.gettext("This table in your browser: your hand, the trick, the scores."),
        buttons=(open_table_button(link, tr),),
    )


def activity_refused(link: TableLink, tr: Translations) -> MessageSpec:
    """Where Discord would not launch the Activity: the table's page instead."""
    browser = TableLink(link.url, link.table, activity=False)
    return MessageSpec(
        content=tr.gettext("Discord did not open the table here: open it in your browser."),
        buttons=(open_table_button(browser, tr),),
    )
