"""The club pages' templates (bot/web/club/templates): every word a reader sees goes through
the catalogue, and every value is escaped."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import jinja2
from jinja2 import nodes

from bot.i18n import translation
from bot.web.club.html import ENVIRONMENT, TEMPLATES, helpers, render

# Words a template may write as they are: none but names of things that are not words.
NOT_WORDS = {"Kachuful"}


def bare_words(source: str) -> list[str]:
    """Text of a template outside its tags and expressions that holds a word (two letters in
    a row), or a string constant written out as it is rather than through ``_``."""
    tree = ENVIRONMENT.parse(source)
    # The template's HTML with a mark where each value goes (a tag may hold values).
    html = "".join(
        node.data if isinstance(node, nodes.TemplateData) else "\0"
        for output in tree.find_all(nodes.Output)
        for node in output.nodes
    )
    found = [
        text.strip() for text in _no_tags(html).split("\0") if re.search(r"[^\W\d_]{2,}", text)
    ]
    for const in tree.find_all(nodes.Const):
        if isinstance(const.value, str) and re.search(r"[^\W\d_]{2,}\s", const.value):
            found.append(const.value)
    translated = {
        arg.value
        for call in tree.find_all(nodes.Call)
        if isinstance(call.node, nodes.Name) and call.node.name in ("_", "ngettext")
        for arg in call.args
        if isinstance(arg, nodes.Const)
    }
    return [
        text
        for text in found
        if text not in translated and re.sub(r"[\W\d_]+", " ", text).strip() not in NOT_WORDS
    ]


def _no_tags(text: str) -> str:
    """The text of HTML without its tags, attributes and entities."""
    return re.sub(r"&\w+;", " ", re.sub(r"<[^>]*>", " ", text))


def in_every_template(check: Callable[[str], list[str]]) -> dict[str, list[str]]:
    """What ``check`` finds in each template, by its file's name (the ones it finds nothing in
    left out)."""
    return {
        path.name: found
        for path in sorted(TEMPLATES.glob("*.html"))
        if (found := check(path.read_text(encoding="utf-8")))
    }


def test_every_word_of_the_templates_goes_through_the_catalogue() -> None:
    assert in_every_template(bare_words) == {}


def test_the_check_sees_a_bare_word() -> None:
    assert bare_words("<p>{{ _('Hello there') }} Game over</p>") == ["Game over"]
    assert bare_words("<p>{{ x or 'no cards here' }}</p>") == ["no cards here"]


def test_values_are_escaped() -> None:
    assert ENVIRONMENT.autoescape is True
    page = render(
        "message.html",
        translation("en"),
        lang="en",
        base="/club/1",
        guild_name="<script>alert(1)</script>",
        who=None,
        public=True,
        here="/club/1?x=<b>",
        style="/assets/x/club/club.css",
        text="<img src=x onerror=alert(1)>",
    )
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;" in page
    assert isinstance(ENVIRONMENT.undefined, type) and issubclass(
        ENVIRONMENT.undefined, jinja2.StrictUndefined
    )
    assert Path(TEMPLATES).is_dir()


POINTS = re.compile(r"score|points|total")


def raw_points(source: str) -> list[str]:
    """Points written as they are (``{{ g.score }}``) rather than through a helper that writes
    a negative one with a true minus sign and the reader's grouping (``whole``, ``short``...).
    Values in an attribute (``data-points="..."``, read by the tests) are not shown."""
    found = []
    for output in ENVIRONMENT.parse(source).find_all(nodes.Output):
        before = ""
        for node in output.nodes:
            if isinstance(node, nodes.TemplateData):
                before = node.data
                continue
            if isinstance(node, nodes.Call | nodes.Filter) or before.rstrip().endswith('="'):
                continue
            names = [n.name for n in node.find_all(nodes.Name)]
            names += [n.attr for n in node.find_all(nodes.Getattr)]
            if isinstance(node, nodes.Name):
                names.append(node.name)
            if isinstance(node, nodes.Getattr):
                names.append(node.attr)
            if any(POINTS.search(name) for name in names):
                found.append(", ".join(names))
    return found


def test_points_are_written_with_a_true_minus_sign() -> None:
    assert in_every_template(raw_points) == {}
    # The check sees points written as they are, and not those in an attribute or a helper.
    assert raw_points('<td>{{ g.score }}</td><td data-points="{{ s.points }}">{{ whole(x) }}</td>')
    assert raw_points('<td data-points="{{ s.points }}">{{ whole(s.points) }}</td>') == []
    # What the helper writes: a true minus and the reader's grouping.
    shown = ENVIRONMENT.from_string("{{ whole(v) }}").render(**helpers(translation("fr")), v=-1234)
    assert shown == "\u22121\u202f234"
