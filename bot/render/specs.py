"""Message specifications: what to send, as plain data (no Discord I/O, no event loop).

The render layer builds these; ``bot.ui.build_view`` turns the buttons into Discord components
(custom_ids that the DynamicItems of ``bot.ui.items`` answer).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

import discord

from .limits import (
    MAX_CONTENT,
    MAX_DESCRIPTION,
    MAX_EMBED_TOTAL,
    MAX_FIELD_NAME,
    MAX_FIELD_VALUE,
    MAX_FIELDS,
    MAX_LABEL,
    MAX_ROWS,
    MAX_TITLE,
)
from .pictures import Picture

Style = Literal["primary", "secondary", "success", "danger"]


@dataclass(frozen=True)
class ButtonSpec:
    """One button. ``action`` names what it does; bot.ui maps it to a DynamicItem.

    Actions: ("join"|"leave"|"cpu"|"start", table, version), ("hand", table),
    ("refresh", table), ("bid", table, version, n, blind), ("play", table, version, card),
    ("unseen", table, version), ("look", table, version), ("back", table, seat),
    ("level", table, version, level name), ("again", table), ("length", table, length name).
    """

    action: tuple[str | int | bool, ...]  # a level or length name is the only text
    label: str
    style: Style = "secondary"
    disabled: bool = False
    row: int = 0
    emoji: str | None = None
    # A link button (Discord's style 5): opens this address, sends the bot no click.
    url: str | None = None


@dataclass(frozen=True)
class MessageSpec:
    content: str | None = None
    embeds: tuple[discord.Embed, ...] = ()
    buttons: tuple[ButtonSpec, ...] = ()
    # Users the content mentions on purpose (the player to act, the winners). When empty, no
    # mention in the message notifies anyone; never roles or @everyone.
    mention_ids: tuple[int, ...] = ()
    # A file attachment: (file name, bytes), e.g. a game record export.
    attachment: tuple[str, bytes] | None = None
    # Cards drawn as cards (bot.render.pictures): the description, and the PNG drawn from it
    # off the event loop by the sender (``bot.ui.payloads.drawn``), which is not part of what
    # the message shows (``digest``): the description is.
    picture: Picture | None = None
    picture_png: bytes | None = field(default=None, compare=False, repr=False)
    # On an edit, whether files the message already has stay (a chart, a record) or go (a
    # hand message whose picture is gone with its cards).
    keep_files: bool = True

    @property
    def allowed_mentions(self) -> discord.AllowedMentions:
        # ``users=True`` ({"parse": ["users"]}) rather than a list of ids: discord.py sends
        # ids as integers, which Discord's API description does not allow (snowflake strings).
        # Only the intended players are mentioned in content (names are escaped), so parsing
        # user mentions notifies exactly them.
        return discord.AllowedMentions(
            everyone=False, roles=False, replied_user=False, users=bool(self.mention_ids)
        )


def with_picture(embed: discord.Embed, picture: Picture | None) -> discord.Embed:
    """``embed`` showing ``picture`` (attached by the sender under its file name), if any."""
    if picture is not None:
        embed.set_image(url=f"attachment://{picture.file_name}")
    return embed


def without_picture(embed: discord.Embed) -> discord.Embed:
    """``embed`` without the attached picture it shows (a copy; ``embed`` itself if none)."""
    if not (embed.image and (embed.image.url or "").startswith("attachment://")):
        return embed
    copy = embed.copy()
    copy.set_image(url=None)
    return copy


def clip(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters, marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def embed_size(embed: discord.Embed) -> int:
    """The characters Discord counts towards the 6000 total of an embed."""
    total = len(embed.title or "") + len(embed.description or "")
    total += len(embed.footer.text or "") if embed.footer else 0
    total += len(embed.author.name or "") if embed.author else 0
    for item in embed.fields:
        total += len(item.name or "") + len(item.value or "")
    return total


def check_limits(spec: MessageSpec) -> list[str]:
    """Every Discord limit this message would break (empty when it is fine)."""
    problems: list[str] = []
    if spec.content is not None and len(spec.content) > MAX_CONTENT:
        problems.append(f"content has {len(spec.content)} characters")
    total = 0
    for embed in spec.embeds:
        size = embed_size(embed)
        total += size
        if len(embed.title or "") > MAX_TITLE:
            problems.append("embed title too long")
        if len(embed.description or "") > MAX_DESCRIPTION:
            problems.append("embed description too long")
        if len(embed.fields) > MAX_FIELDS:
            problems.append(f"embed has {len(embed.fields)} fields")
        for item in embed.fields:
            if len(item.value or "") > MAX_FIELD_VALUE:
                problems.append(f"field {item.name!r} value too long")
            if len(item.name or "") > MAX_FIELD_NAME:
                problems.append(f"field {item.name!r} name too long")
    if total > MAX_EMBED_TOTAL:
        problems.append(f"embeds total {total} characters")
    rows: dict[int, int] = {}
    for button in spec.buttons:
        if len(button.label) > MAX_LABEL:
            problems.append(f"button label {button.label!r} too long")
        if not 0 <= button.row < MAX_ROWS:
            problems.append(f"button row {button.row}")
        rows[button.row] = rows.get(button.row, 0) + 1
    problems.extend(f"row {row} has {count} buttons" for row, count in rows.items() if count > 5)
    return problems


def digest(spec: MessageSpec) -> str:
    """What a message shows, in 16 hex digits: equal digests mean nothing to edit."""
    data: dict[str, Any] = {
        "c": spec.content,
        "e": [embed.to_dict() for embed in spec.embeds],
        # A link's address only when there is one: every other message keeps its digest.
        "b": [
            (b.action, b.label, b.style, b.disabled, b.row, b.emoji, *((b.url,) if b.url else ()))
            for b in spec.buttons
        ],
        "m": spec.mention_ids,
        "a": None if spec.attachment is None else spec.attachment[0],
        "p": None if spec.picture is None else repr(spec.picture),
    }
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
