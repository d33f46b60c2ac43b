"""The address of a table's web page, for the **Open the table** link buttons in Discord (the
lobby, the hand messages, /kachuful table): only when the web table is on, else None and every
message stays exactly as it is without it."""

from __future__ import annotations

from typing import Any

from .club.links import club_base


def table_url(settings: Any, table_id: int) -> str | None:
    """``<base>/table/<id>`` when the web table is on."""
    base = club_base(settings)
    return None if base is None else f"{base.rstrip('/')}/table/{table_id}"
