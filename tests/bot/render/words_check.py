"""What the words tests check in every rendered text: no placeholder left raw, no English word
left in a translated message (quoted commands, mentions and names aside)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.render.specs import MessageSpec

from .test_render import LONG

LANGUAGES = ("fr", "it", "hi")
PLACEHOLDER = re.compile(r"\{[a-z_]*\}")
# English words that no translated message may keep (names, commands and card ranks aside).
ENGLISH = re.compile(
    r"\b(the|of|your|you|and|bid|bids|trick|tricks|played|won|never|dealer|points?|clock|"
    r"deal|trump|hours?|players?|games?|exact|overall|average|best)\b",
    re.IGNORECASE,
)
# English words that are words of the language too.
SAME_WORDS = {"fr": {"point", "points", "exact"}, "it": set(), "hi": set()}
QUOTED = re.compile(r"`[^`]*`|<[^>]*>|\*\*[^*]*\*\*|/kachuful[\w -]*")


class Filler(dict[str, str]):
    """Any placeholder filled with a name (what the bot puts there is a name or a number)."""

    def __missing__(self, key: str) -> str:
        return "asha"


def texts(spec: MessageSpec) -> Iterator[str]:
    yield spec.content or ""
    for embed in spec.embeds:
        yield embed.title or ""
        yield embed.description or ""
        yield embed.footer.text or "" if embed.footer else ""
        for item in embed.fields:
            yield item.name or ""
            yield item.value or ""
    for button in spec.buttons:
        yield button.label


def raw_placeholders(found: list[str]) -> list[str]:
    return [text for text in found if PLACEHOLDER.search(text)]


def english_left(language: str, found: list[str]) -> list[tuple[str, str]]:
    """(word, text) for each English word left in a text, quoted commands and names aside."""
    return [
        (word, text[:80])
        for text in found
        for word in ENGLISH.findall(QUOTED.sub(" ", text).replace(LONG[:-1], " "))
        if word.lower() not in SAME_WORDS.get(language, set())
    ]
