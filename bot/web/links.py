"""The address of a table's web page, for the **Open the table** buttons in Discord (the
lobby, the hand messages, /kachuful table): only when the web table is on, else None and every
message stays exactly as it is without it. With ``KACHUFUL_ACTIVITY`` the button launches the
Activity in the channel instead (the address stays for /kachuful table and for a client that
cannot launch it)."""

from __future__ import annotations

from typing import Any

from bot.render.open_table import TableLink

from .club.links import club_base


def table_link(settings: Any, table_id: int) -> TableLink | None:
    """``<base>/table/<id>`` when the web table is on (and whether to launch the Activity)."""
    base = club_base(settings)
    if base is None:
        return None
    url = f"{base.rstrip('/')}/table/{table_id}"
    return TableLink(url, table_id, activity=bool(getattr(settings, "activity", False)))
