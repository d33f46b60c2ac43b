"""Players' names cut to fit a column, a button or a picture, as a reader would cut them."""

from __future__ import annotations

import unicodedata

VIRAMA = "\u094d"  # joins the consonants of a Devanagari conjunct


def clip_name(name: str, length: int) -> str:
    """``name`` cut to at most ``length`` characters without splitting a letter from its marks:
    Devanagari's vowel signs and virama belong to the consonant before them, and a cut between
    them would leave a dangling mark ("प्रिय" is never cut to "प्")."""
    if len(name) <= length:
        return name
    cut = length
    while cut > 0 and (unicodedata.category(name[cut])[0] == "M" or name[cut - 1] == VIRAMA):
        cut -= 1
    return name[:cut] if cut else name[:length]  # one cluster longer than ``length``: cut it
