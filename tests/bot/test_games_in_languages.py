"""Whole games with the real catalogues, on a French and on an Italian server whose players'
clients speak other languages: every public message reads in the table's language and every
private message in its reader's, with no sentence of another language left in either.

"A sentence of another language" is any stretch of two words or more that a catalogue holds
for one language and not for the reader's (the English source included): a message that
leaks a single untranslated string fails, whichever string it is."""

from __future__ import annotations

import re
from functools import cache

import discord
import pytest
import simcord
from babel.messages.pofile import read_po

from bot import i18n

from .helpers import Table
from .locales import speak

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store("the words of each language; the store takes no part"),
]

PLACEHOLDER = re.compile(r"\{[^{}]*\}")
MARKUP = re.compile(r"[*_`#>|()\[\]“”«»\"]")
SEVERAL_WORDS = re.compile(r"\S{2,}(?:\s+\S{2,})+")


def _pieces(text: str) -> set[str]:
    """The literal stretches of a catalogue string of two words or more, cut at placeholders,
    markup and line ends."""
    found: set[str] = set()
    for part in PLACEHOLDER.split(text):
        for line in MARKUP.sub("\n", part).splitlines():
            for match in SEVERAL_WORDS.finditer(line.strip(" ·:;,.!?—–-")):
                found.add(match.group(0))
    return found


@cache
def _strings(language: str) -> frozenset[str]:
    """Every stretch of several words a language's catalogue holds (English: the msgids)."""
    catalogue = "fr" if language == "en" else language
    with (i18n.LOCALE_DIR / catalogue / "LC_MESSAGES" / "kachuful.po").open("rb") as file:
        messages = [m for m in read_po(file) if m.id]
    found: set[str] = set()
    for message in messages:
        texts = message.id if language == "en" else message.string
        for text in texts if isinstance(texts, tuple | list) else (texts,):
            found |= _pieces(text)
    return frozenset(found)


@cache
def _foreign(language: str) -> frozenset[str]:
    """Stretches of the other languages that the reader's own catalogue never says."""
    own = _strings(language)
    others = set().union(*(_strings(other) for other in i18n.LANGUAGES if other != language))
    return frozenset(piece for piece in others if not any(piece in mine for mine in own))


def _text(message: discord.Message) -> str:
    parts = [message.content or ""]
    for embed in message.embeds:
        parts += [embed.title or "", embed.description or "", embed.footer.text or ""]
        parts += [f"{field.name}\n{field.value}" for field in embed.fields]
    for row in message.components:
        for item in getattr(row, "children", []):
            parts.append(getattr(item, "label", None) or "")
            parts += [option.label for option in getattr(item, "options", [])]
    return "\n".join(parts)


# A negative number written with an ASCII hyphen ("-10"): every number a player reads has a
# true minus (U+2212), as the review's "−" and the rules' "miss −10" do.
ASCII_MINUS = re.compile(r"(?<![\w-])-\d")


def _ascii_minus(messages: list[discord.Message]) -> list[str]:
    return [_text(m)[:80] for m in messages if ASCII_MINUS.search(_text(m))]


def _leaks(messages: list[discord.Message], language: str) -> list[str]:
    foreign = _foreign(language)
    texts = [_text(m) for m in messages]
    return sorted(
        {f"{piece!r} in {text[:80]!r}" for text in texts for piece in foreign if piece in text}
    )


class SpokenTable(Table):
    """A table driven by the buttons' ids: their labels are in the table's language."""

    def last_public_with_id(self, prefix: str) -> discord.Message:
        for message in reversed(self.public()):
            if any((b.custom_id or "").startswith(prefix) for b in _buttons(message)):
                return message
        raise AssertionError(f"no public message with a {prefix} button")

    async def open_hand(self, member: simcord.MemberActor) -> discord.Message:
        message = self.last_public_with_id("kf:h:")
        hand = next(b for b in _buttons(message) if (b.custom_id or "").startswith("kf:h:"))
        result = await member.click(message, custom_id=hand.custom_id)
        assert result.ephemeral and result.response is not None
        self.hand_ids[member.id] = result.response.id
        return self.message(result.response.id, member)


def _buttons(message: discord.Message) -> list[discord.Button]:
    return [item for row in message.components for item in getattr(row, "children", [])]


async def _play_a_game(
    env: simcord.Env,
    channel: simcord.ChannelHandle,
    members: list[simcord.MemberActor],
    max_hand: int = 2,
) -> SpokenTable:
    host = members[0]
    # Scored "Judgement" (exact +10, miss −10): with the hook rule someone misses every deal,
    # so score tables, standings and statistics show negative numbers.
    started = await host.slash(
        channel,
        "kachuful start",
        players=len(members),
        max_hand=max_hand,
        schedule="down",
        scoring="judgement",
    )
    assert not started.ephemeral
    for member in members[1:]:
        await member.slash(channel, "kachuful join")
    lobby = next(m for m in channel.history() if not m.flags.ephemeral and m.embeds)
    start = next(b for b in _buttons(lobby) if (b.custom_id or "").startswith("kf:l:start"))
    await host.click(lobby, custom_id=start.custom_id)
    table = SpokenTable(env, channel, members)
    # Each player meets a refusal too: joining a table they already sit at.
    for member in members:
        await table.open_hand(member)
        refused = await member.slash(channel, "kachuful join")
        assert refused.ephemeral
    await table.play_to_end()
    await env.advance_time(60)
    for member in members:
        await member.slash(channel, "kachuful stats")
        await member.slash(channel, "kachuful help")
        await member.slash(channel, "kachuful rules")
    await host.slash(channel, "kachuful leaderboard")
    await host.slash(channel, "kachuful history")
    return table


def _private(table: SpokenTable, member: simcord.MemberActor) -> list[discord.Message]:
    return [m for m in table.seen_by(member) if m.flags.ephemeral]


@pytest.mark.parametrize(
    ("server", "players"),
    [
        ("fr", {"amelie": "fr", "priya": "hi", "marco": "it"}),
        ("it", {"giulia": "it", "camille": "fr", "arjun": "hi"}),
    ],
)
async def test_a_whole_game_reads_in_the_tables_and_each_readers_language(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, server: str, players: dict[str, str]
) -> None:
    guild = env.create_guild("Club", preferred_locale=server)
    channel = guild.create_text_channel("carte")
    members = [guild.add_member(env.create_user(name)) for name in players]
    speak(monkeypatch, {m.id: players[m.name] for m in members})
    table = await _play_a_game(env, channel, members)

    public = table.public()
    assert len(public) >= 10  # lobby, deals, tricks, scores, standings, leaderboard, history
    assert _leaks(public, server) == []
    assert _ascii_minus(public) == []
    assert any("\u2212" in _text(m) for m in public)  # the negative scores were shown
    tr = i18n.translation(server)
    titles = {e.title for m in public for e in m.embeds}
    assert tr.gettext("Kachuful — final standings") in titles
    assert tr.gettext("Kachuful — game over") in titles  # the lobby, edited at the end

    for member in members:
        language = players[member.name]
        private = _private(table, member)
        assert len(private) >= 5  # the hand, a refusal, stats, help, rules
        assert _leaks(private, language) == [], member.name
        assert _ascii_minus(private) == [], member.name
        hand = table.hand(member).embeds[0]
        assert hand.footer.text == i18n.translation(language).gettext("Only you see this message")
        if language == "hi":
            assert all(re.search("[\u0900-\u097f]", _text(m)) for m in private)


@pytest.mark.one_store("message sizes, 8 s a language; the store takes no part")
@pytest.mark.parametrize("language", ["fr", "it", "hi"])
async def test_the_largest_table_fits_discord_in_each_language(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    """7 players with long names, 52 ÷ 7 = 7 cards down to 1: every request the bot sends in
    the game, public and private, is checked against Discord's API description when the test
    ends (tests/bot/conftest.py), and every message reads in its language."""
    guild = env.create_guild("Club", preferred_locale=language)
    channel = guild.create_text_channel("cards")
    names = [f"Aishwarya-Raghunathan-Vel-{seat}" for seat in range(7)]
    members = [guild.add_member(env.create_user(name)) for name in names]
    speak(monkeypatch, {m.id: language for m in members})
    table = await _play_a_game(env, channel, members, max_hand=7)
    tr = i18n.translation(language)
    assert tr.gettext("Kachuful — final standings") in {
        e.title for m in table.public() for e in m.embeds
    }
    assert _leaks(table.public(), language) == []
    assert _leaks(_private(table, members[0]), language) == []
    assert _ascii_minus(table.public() + _private(table, members[0])) == []


def test_the_leak_check_sees_one_english_sentence() -> None:
    """A French message with one English sentence in it fails the check; a French one
    passes."""
    tr = i18n.translation("fr")
    french = tr.gettext("You are not seated at this table.")
    english = "You are not seated at this table."
    assert not any(piece in french for piece in _foreign("fr"))
    assert any(piece in f"{french}\n{english}" for piece in _foreign("fr"))
