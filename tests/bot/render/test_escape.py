"""Names escaped for Discord markdown as discord.py escapes them (bot/render/escape.py)."""

from __future__ import annotations

import discord
from hypothesis import given
from hypothesis import strategies as st

from bot.render.escape import plain

MARKDOWN_HEAVY = st.text(
    alphabet=st.sampled_from(list("ab _*~|`\\>#-[]()<>:/@!&0123456789\n.hps")), max_size=40
)


def discord_plain(name: str) -> str:
    return discord.utils.escape_mentions(discord.utils.escape_markdown(name))


@given(st.one_of(MARKDOWN_HEAVY, st.text(max_size=40)))
def test_a_name_is_escaped_as_discord_py_escapes_it(name: str) -> None:
    assert plain(name) == discord_plain(name)


def test_examples_a_player_could_type() -> None:
    for name in (
        "john_doe",
        "**bold**",
        "> quote",
        "# big",
        "- item",
        "[link](https://example.com)",
        "see https://example.com/a_b_c",
        "@everyone",
        "<@12345678901234567>",
        "@12345678901234567",
        "back\\slash",
        "ps~|`x",
    ):
        assert plain(name) == discord_plain(name), name
    assert plain("@everyone") != "@everyone"
    assert plain("**x**") == "\\*\\*x\\*\\*"
