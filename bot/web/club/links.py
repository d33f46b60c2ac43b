"""The addresses of the club pages, for links from Discord's messages (the event's message,
the final standings, /kachuful history) when the bot's web server is on."""

from __future__ import annotations

from typing import Any


def club_url(base_url: str, guild_id: int, *path: object) -> str:
    """``<base>/club/<server>/<path…>``."""
    return "/".join([f"{base_url.rstrip('/')}/club/{guild_id}", *(str(part) for part in path)])


def club_base(settings: Any) -> str | None:
    """The web server's public address when the web table is on, else None (then every
    message stays exactly as it is without it)."""
    if getattr(settings, "web_port", None) is None:
        return None
    base = getattr(settings, "web_base_url", None)
    return str(base) if base else None
