"""Discord UI: DynamicItem buttons, and views built from the render layer's button specs."""

from __future__ import annotations

from typing import Any

import discord

from bot.render.specs import ButtonSpec, MessageSpec

from .items import (
    DYNAMIC_ITEMS,
    BackButton,
    BidButton,
    HandButton,
    LobbyButton,
    LookButton,
    PlayButton,
    RefreshButton,
    UnseenButton,
)

__all__ = ["DYNAMIC_ITEMS", "build_view", "register", "send_kwargs"]

_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


def register(client: discord.Client) -> None:
    """Make every button ever posted answerable again (call from setup_hook)."""
    client.add_dynamic_items(*DYNAMIC_ITEMS)


def _item(spec: ButtonSpec) -> discord.ui.Item[Any]:
    kind, *args = spec.action
    button: dict[str, Any] = {
        "label": spec.label,
        "style": _STYLES[spec.style],
        "disabled": spec.disabled,
        "row": spec.row,
        "emoji": spec.emoji,
    }
    if kind in ("join", "leave", "cpu", "start"):
        return LobbyButton(str(kind), int(args[0]), int(args[1]), **button)
    if kind == "hand":
        return HandButton(int(args[0]), **button)
    if kind == "refresh":
        return RefreshButton(int(args[0]), **button)
    if kind == "bid":
        return BidButton(int(args[0]), int(args[1]), int(args[2]), bool(args[3]), **button)
    if kind == "play":
        return PlayButton(int(args[0]), int(args[1]), int(args[2]), **button)
    if kind == "unseen":
        return UnseenButton(int(args[0]), int(args[1]), **button)
    if kind == "look":
        return LookButton(int(args[0]), int(args[1]), **button)
    if kind == "back":
        return BackButton(int(args[0]), int(args[1]), **button)
    raise ValueError(f"unknown button action {kind!r}")


def build_view(buttons: tuple[ButtonSpec, ...]) -> discord.ui.View | None:
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    for spec in buttons:
        view.add_item(_item(spec))
    return view


def send_kwargs(spec: MessageSpec, *, edit: bool = False) -> dict[str, Any]:
    """Keyword arguments for send / edit / send_message / edit_message from a spec.

    On an edit every part is given, so that what the spec leaves out is removed.
    """
    kwargs: dict[str, Any] = {
        "content": spec.content,
        "embeds": list(spec.embeds),
        "view": build_view(spec.buttons),
        "allowed_mentions": spec.allowed_mentions,
    }
    if not edit:
        if kwargs["content"] is None:
            del kwargs["content"]
        if kwargs["view"] is None:
            del kwargs["view"]
        if spec.attachment is not None:
            name, data = spec.attachment
            import io

            kwargs["file"] = discord.File(io.BytesIO(data), filename=name)
    return kwargs
