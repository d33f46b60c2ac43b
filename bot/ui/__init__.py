"""Discord UI: the buttons that answer clicks (``items``: DynamicItems, parsed by the layout of
``custom_ids``), and message payloads built from the render layer's specs (``payloads``)."""

from __future__ import annotations

import discord

from .custom_ids import custom_id
from .items import DYNAMIC_ITEMS, answer_unknown_click, matches_any
from .payloads import ComponentsView, build_view, page_buttons, send_kwargs

__all__ = [
    "DYNAMIC_ITEMS",
    "ComponentsView",
    "answer_unknown_click",
    "build_view",
    "custom_id",
    "matches_any",
    "page_buttons",
    "register",
    "send_kwargs",
]


def register(client: discord.Client) -> None:
    """Make every button ever posted answerable again (call from setup_hook)."""
    client.add_dynamic_items(*DYNAMIC_ITEMS)
