"""A display name made safe to show in Discord markdown: no markdown, no mentions.

The same rules as discord.py's ``utils.escape_markdown`` (its default: every markdown
character escaped, links left alone) and ``utils.escape_mentions``, written out here because
importing them would load the whole ``discord`` package into the change path, which draws
its words for any front (a Discord click or the web table's socket) and loads no Discord code
(tests/bot/table/test_requests.py). tests/bot/render/test_escape.py checks that both give
the same text for any name.
"""

from __future__ import annotations

import re

_COMMON = r"^>(?:>>)?\s|\[.+\]\(.+\)|^#{1,3}|^\s*-"
_URL = r"(?P<url><[^: >]+:\/[^ >]+>|(?:https?|steam):\/\/[^\s<]+[^<.,:;\"\'\]\s])"
_MARKDOWN = re.compile(rf"(?:{_URL}|(?P<markdown>[_\\~|\*`]|{_COMMON}))", re.MULTILINE)
_MENTION = re.compile(r"@(everyone|here|[!&]?[0-9]{17,20})")


def _escaped(match: re.Match[str]) -> str:
    url = match.group("url")
    return url if url else "\\" + match.group("markdown")


def escape_markdown(text: str) -> str:
    return _MARKDOWN.sub(_escaped, text)


def escape_mentions(text: str) -> str:
    return _MENTION.sub("@\u200b\\1", text)


def plain(name: str) -> str:
    """A display name made safe to show: no markdown, no mentions."""
    return escape_mentions(escape_markdown(name))
