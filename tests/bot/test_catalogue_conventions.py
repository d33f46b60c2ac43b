"""Each catalogue keeps the conventions its header records: one term per concept, the dealer
without a gendered noun, the register and typography of its language. A translation that slips
back to a word the header rules out fails here, whichever message it is in."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from .catalogue import ROOT, TRANSLATED, po_path, read_catalogue

# Forms each header rules out, with why. A rule's own name may keep its noun (RULE_NAMES).
RULED_OUT: dict[str, dict[str, str]] = {
    "fr": {
        "donneur": "who deals is « à la donne » or « qui distribue »",
        "'": "the typographic apostrophe ’",
        "Rejoins": "the channel is spoken to as vous",
    },
    "it": {
        "mazziere": "who deals is « dà le carte » or « chi dà le carte »",
        "tempo di gioco": "the turn clock is the tempo per turno",
        "’": "the straight apostrophe '",
        "iniziatene": "tu to one reader",
    },
    "hi": {
        "संदेश": "a message is मैसेज",
        "स्तर": "a level is लेवल",
        "बाकी": "बाक़ी with its nukta",
        "खत्म": "ख़त्म with its nukta",
        "अंतिम": "final standings are the आख़िरी रैंकिंग",
        "अंधी": "a blind bid is a ब्लाइंड बोली",
        "सहेज": "save is सेव",
        "चला गया": "a played card is खेला गया, never gone away",
        "चले गए": "a played card is खेला गया, never gone away",
        "चले जाते": "a played card is खेला गया, never gone away",
        "चले नहीं": "a played card is खेला गया, never gone away",
        "पत्तों का क्रम": "the schedule is the राउंड का क्रम",
        "बाँटने वाला": "who deals is said with the cards as subject",
        "चूक": "a miss is always बोली टूटना",
    },
}
# Typography the French header records, as patterns: a no-break space (U+00A0) before : ; ! ?
# and », after « and n°.
FRENCH_SPACING = {
    "a : ; ! or ? without a no-break space before it": re.compile(r"[^\u00a0][:;!?](?=\s|$)"),
    "n° without a no-break space after it": re.compile("n°(?!\u00a0)"),
    "« or » without a no-break space inside": re.compile("«(?!\u00a0)|(?<!\u00a0)»"),
}
RULE_NAMES = {"fr": "règle du donneur", "it": "regola del mazziere", "hi": "बाँटने वाले का नियम"}


def strings(language: str) -> list[tuple[str, str]]:
    """Every (message, translation) of a catalogue, each plural form on its own."""
    found = []
    for message in read_catalogue(language):
        if not message.id:
            continue
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        values = message.string if isinstance(message.string, tuple) else (message.string,)
        found += [(msgid, value) for value in values]
    return found


def slips(language: str, found: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(form, why, message) for each ruled-out form in a translation, rule names aside."""
    rule_name = re.compile(re.escape(RULE_NAMES[language]), re.IGNORECASE)
    return [
        (form, why, msgid[:50])
        for msgid, value in found
        for form, why in RULED_OUT[language].items()
        if form.lower() in rule_name.sub("", value).lower()
    ]


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_header_records_the_catalogues_conventions(language: str) -> None:
    header = po_path(language).read_text(encoding="utf-8").split('msgid ""')[0]
    assert "Conventions of this catalogue" in header
    assert "one term per concept" in header
    assert "Plural-Forms" in header


@pytest.mark.parametrize("language", TRANSLATED)
def test_no_message_uses_a_form_its_header_rules_out(language: str) -> None:
    assert slips(language, strings(language)) == []


@pytest.mark.parametrize(
    ("language", "text", "caught"),
    [
        ("fr", "Tu es le donneur (règle du donneur)", ["donneur"]),
        ("it", "Regola del mazziere: tempo di gioco", ["tempo di gioco"]),
        ("hi", "यह संदेश बाकी है (बाँटने वाले का नियम)", ["संदेश", "बाकी"]),
    ],
)
def test_a_slip_is_caught_and_a_rules_name_is_not(
    language: str, text: str, caught: list[str]
) -> None:
    assert [form for form, _why, _msgid in slips(language, [("m", text)])] == caught


def spacing_slips(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [
        (why, value[max(0, hit.start() - 20) : hit.end() + 5])
        for _msgid, value in found
        for why, pattern in FRENCH_SPACING.items()
        for hit in pattern.finditer(value)
    ]


def test_french_punctuation_keeps_its_no_break_spaces() -> None:
    assert spacing_slips(strings("fr")) == []
    caught = spacing_slips(
        [("m", "La partie n°7\u00a0: «\u00a0fin\u00a0»"), ("m", "Fin\u00a0: ok")]
    )
    assert [why.split()[0] for why, _ in caught] == ["n°"]
    caught = spacing_slips([("m", "Fin: ok ; «x»")])
    assert len(caught) == 4


# ---- kinds the native readers found, caught wherever they come back -------------------------

# What ``ngettext`` may count: a size that cannot be negative. A score, a total, a difference
# or a change can be ("-1 points"): it is counted by its size, ``abs(...)`` (or
# ``numbers.count_for``), and written with its sign by the number's own words.
NON_NEGATIVE = {
    "count", "games", "hand_size", "hidden", "hours", "lobby_minutes", "n", "num_deals",
    "players", "rated_players", "rounds", "size", "table_size", "tables", "timeout_minutes",
    "timeouts", "value", "wins", "zero_bids",
}  # fmt: skip
SIZES = {"abs", "len", "int", "count_for"}


def counted_by_size(node: ast.expr) -> bool:
    """Whether an ngettext count is a size: abs(...), len(...), a whole number literal, or a
    name or attribute that can only be a count."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and node.value >= 0
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        return name in SIZES
    if isinstance(node, ast.Name):
        return node.id in NON_NEGATIVE
    if isinstance(node, ast.Attribute):
        return node.attr in NON_NEGATIVE
    return False


def signed_counts(roots: tuple[Path, ...]) -> list[str]:
    """Every ``ngettext`` call whose count may be negative, as file:line: expression."""
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call) or getattr(node.func, "attr", "") != "ngettext":
                    continue
                count = node.args[2] if len(node.args) > 2 else None
                if count is None or not counted_by_size(count):
                    shown = ast.unparse(count) if count is not None else "?"
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {shown}")
    return found


def test_no_signed_number_is_counted_by_ngettext() -> None:
    """A signed total counted as it is reads "-1 points" (French counts 1 as singular, and
    gettext puts every negative number in the plural)."""
    assert signed_counts((ROOT / "bot", ROOT / "cogs")) == []


def test_the_signed_count_check_sees_a_score() -> None:
    call = ast.parse('tr.ngettext("{n} point", "{n} points", totals.score)').body[0]
    assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
    assert not counted_by_size(call.value.args[2])
    fixed = ast.parse('tr.ngettext("{n} point", "{n} points", abs(totals.score))').body[0]
    assert isinstance(fixed, ast.Expr) and isinstance(fixed.value, ast.Call)
    assert counted_by_size(fixed.value.args[2])
