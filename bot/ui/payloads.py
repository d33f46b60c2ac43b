"""Discord message payloads from the render layer's specs: buttons as component payloads, and
the keyword arguments of a send or an edit. Below the table code and the buttons' callbacks
(``bot.ui.items``), which both use it."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import discord

from bot.i18n import EN, Translations
from bot.render.pictures import draw, drawn_before
from bot.render.specs import ButtonSpec, MessageSpec, without_picture

from .custom_ids import custom_id

log = logging.getLogger(__name__)

MAX_ROWS = 5
MAX_ROW_BUTTONS = 5

_STYLES = {
    "primary": discord.ButtonStyle.primary.value,
    "secondary": discord.ButtonStyle.secondary.value,
    "success": discord.ButtonStyle.success.value,
    "danger": discord.ButtonStyle.danger.value,
}


class ComponentsView(discord.ui.View):
    """A message's buttons as Discord component payloads, for sending only.

    Every button is a DynamicItem, answered by its custom_id wherever it is clicked, so the
    bot never needs a sent view again. Building discord.py Items for every message (and the
    view <-> item reference cycles only the garbage collector frees) was the bot's largest
    cost per click; discord.py only asks a sent view for what is defined here.
    """

    timeout = None

    def __init__(self, components: list[dict[str, Any]]) -> None:
        # View.__init__ is not called on purpose: no items, no timeout task, nothing to stop.
        self._components = components

    def to_components(self) -> list[dict[str, Any]]:
        return self._components

    def is_finished(self) -> bool:
        return True  # discord.py stores unfinished views to dispatch clicks; not this one

    def is_dispatchable(self) -> bool:
        return False

    def has_components_v2(self) -> bool:
        return False

    def __len__(self) -> int:
        return len(self._components)

    def __repr__(self) -> str:
        return object.__repr__(self)  # View's would read the items this view does not have


def page_buttons(
    page: int, pages: int, custom_id: Callable[[str, int], str], tr: Translations = EN
) -> ComponentsView | None:
    """Previous / Next under a paged reply, in the reply's language; ``custom_id(direction,
    page)`` ("p" or "n"). None when there is only one page: two disabled buttons would only
    take room."""
    if pages <= 1:
        return None

    def button(direction: str, label: str, target: int, disabled: bool) -> dict[str, Any]:
        return {
            "type": 2,
            "style": discord.ButtonStyle.secondary.value,
            "label": label,
            "custom_id": custom_id(direction, target),
            "disabled": disabled,
        }

    previous = button("p", tr.gettext("Previous"), max(page - 1, 0), page <= 0)
    following = button("n", tr.gettext("Next"), min(page + 1, pages - 1), page >= pages - 1)
    return ComponentsView([{"type": 1, "components": [previous, following]}])


@functools.cache
def _emoji(text: str) -> tuple[tuple[str, Any], ...]:
    return tuple(discord.PartialEmoji.from_str(text).to_dict().items())


def _button(spec: ButtonSpec) -> dict[str, Any]:
    if spec.url is not None:
        return {
            "type": 2,
            "style": discord.ButtonStyle.link.value,
            "label": spec.label,
            "url": spec.url,
        }
    payload: dict[str, Any] = {
        "type": 2,
        "style": _STYLES[spec.style],
        "disabled": spec.disabled,
        "custom_id": custom_id(spec.action),
        "label": spec.label,
    }
    if spec.emoji is not None:
        payload["emoji"] = dict(_emoji(spec.emoji))
    return payload


def build_view(buttons: tuple[ButtonSpec, ...]) -> ComponentsView | None:
    """Action rows of buttons, by row number then in order (as discord.py lays out a View)."""
    if not buttons:
        return None
    rows: dict[int, list[dict[str, Any]]] = {}
    for spec in buttons:
        if not 0 <= spec.row < MAX_ROWS:
            raise ValueError(f"button row {spec.row}: Discord allows rows 0 to {MAX_ROWS - 1}")
        row = rows.setdefault(spec.row, [])
        if len(row) == MAX_ROW_BUTTONS:
            raise ValueError(f"row {spec.row}: Discord allows {MAX_ROW_BUTTONS} buttons a row")
        row.append(_button(spec))
    return ComponentsView([{"type": 1, "components": rows[row]} for row in sorted(rows)])


def send_kwargs(spec: MessageSpec, *, edit: bool = False, shown: Any = None) -> dict[str, Any]:
    """Keyword arguments for send / edit / send_message / edit_message from a spec.

    On an edit every part is given, so that what the spec leaves out is removed; but a picture
    equal to ``shown`` (the one the message has) is not sent again: Discord keeps a message's
    files when an edit does not name them.
    """
    kwargs: dict[str, Any] = {
        "content": spec.content,
        "embeds": list(spec.embeds),
        "view": build_view(spec.buttons),
        "allowed_mentions": spec.allowed_mentions,
    }
    files = _files(spec)
    if not edit:
        if kwargs["content"] is None:
            del kwargs["content"]
        if kwargs["view"] is None:
            del kwargs["view"]
        if files:
            kwargs["files"] = files
    elif _replaces_files(spec, shown):
        kwargs["attachments"] = files  # what the message shows now, in place of its files
    return kwargs


def _replaces_files(spec: MessageSpec, shown: Any) -> bool:
    """Whether an edit names the message's files anew: a new picture, or none where the
    message's files must go; an equal picture (``shown``) stays as it is."""
    if spec.picture is not None and spec.picture == shown:
        return False
    return spec.picture_png is not None or not spec.keep_files


def _files(spec: MessageSpec) -> list[discord.File]:
    named = [spec.attachment] if spec.attachment is not None else []
    if spec.picture is not None and spec.picture_png is not None:
        named.append((spec.picture.file_name, spec.picture_png))
    return [discord.File(io.BytesIO(data), filename=name) for name, data in named if data]


async def drawn(spec: MessageSpec) -> MessageSpec:
    """``spec`` with its picture drawn, off the event loop (a picture drawn before comes from
    the cache at once). A picture that cannot be drawn is left out: the text says it all."""
    if spec.picture is None or spec.picture_png is not None:
        return spec
    png = drawn_before(spec.picture)
    if png is not None:
        return replace(spec, picture_png=png)
    try:
        png = await asyncio.to_thread(draw, spec.picture)
    except Exception as error:
        log.warning("no card picture (%s)", type(error).__name__)
        return replace(spec, picture=None, embeds=tuple(map(without_picture, spec.embeds)))
    return replace(spec, picture_png=png)


async def tell(interaction: discord.Interaction[Any], text: str) -> None:
    """``text`` to the one who clicked or typed, privately: the answer to the interaction, or
    a follow-up once it was answered. A send Discord refuses is let go: nothing depended on
    it, and the click itself is already answered or expired."""
    with contextlib.suppress(discord.HTTPException):
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
