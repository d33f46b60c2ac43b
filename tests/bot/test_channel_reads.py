"""The channel reads cleanly, as players see it through SimCord: suits drawn as text glyphs in
every message, the fairness commitment shown once (and checkable from the export), no line
shown twice between the table and its turn ping, leaderboard rows that fit a phone's line,
page buttons only when there are pages, and a help that lists every command."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from typing import Any

import discord
import pytest
import simcord
from discord import app_commands

from kachuful_core import Phase
from kachuful_core.dealing import commitment, game_commitment

from .helpers import Table, buttons, start_game, world
from .test_results_commands import finish_directly

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store("what the channel reads; the store takes no part"),
]

SUITS = "♠♥♦♣"
BARE_SUIT = re.compile(f"[{SUITS}](?!\ufe0e)")


def message_texts(message: discord.Message) -> list[str]:
    """Every text of a message a player reads: content, embeds and button labels."""
    texts = [message.content or ""]
    for embed in message.embeds:
        texts += [embed.title or "", embed.description or ""]
        texts += [embed.footer.text or "", embed.author.name or ""]
        for item in embed.fields:
            texts += [item.name or "", item.value or ""]
    texts += [b.label or "" for b in buttons(message)]
    return [text for text in texts if text]


def bare_suits(messages: list[discord.Message]) -> list[str]:
    return [text for m in messages for text in message_texts(m) if BARE_SUIT.search(text)]


def suits_in(messages: list[discord.Message]) -> int:
    return sum(text.count(s) for m in messages for text in message_texts(m) for s in SUITS)


def everything_seen(table: Table, members: list[simcord.MemberActor]) -> list[discord.Message]:
    """The channel as each member sees it: public messages and their own private replies."""
    seen: dict[tuple[int, int], discord.Message] = {}
    for member in members:
        for message in table.seen_by(member):
            seen[(member.id, message.id)] = message
    return list(seen.values())


async def test_every_suit_in_every_message_is_a_text_glyph(env: simcord.Env) -> None:
    """A suit symbol without U+FE0E is drawn by Discord as an emoji (♠ and ♣ near-black on
    the dark theme). Through a whole game, the hand messages, the rules, help, scores, stats,
    leaderboard and history, every suit carries it."""
    channel, members = world(env, "asha", "bilal", "chen")
    asha = members[0]
    await asha.slash(channel, "kachuful rules")  # the general rules: ♠ ♦ ♣ ♥ in turn
    await asha.slash(channel, "kachuful help")
    table = await start_game(env, channel, members, max_hand=3, trump="cycle")
    await asha.slash(channel, "kachuful rules")  # the table's rules: "Cycle ♠ ♦ ♣ ♥"
    bare: list[str] = []
    seen = 0
    while table.session is not None and table.session.row.status == "running":
        member = table.member_at(table.game.turn)
        assert member is not None
        await table.act(member)
        if table.session is not None and table.session.row.status == "running":
            await member.slash(channel, "kachuful score")
        messages = everything_seen(table, members)
        bare += bare_suits(messages)
        seen = max(seen, suits_in(messages))
    await env.advance_time(60)
    for member in members:
        await member.slash(channel, "kachuful stats")  # by trump: ♠ spades, ♥ hearts, …
    await asha.slash(channel, "kachuful leaderboard")
    await asha.slash(channel, "kachuful history")
    await asha.slash(channel, "kachuful export")
    messages = everything_seen(table, members)
    bare += bare_suits(messages)
    assert bare == []
    # The check saw suits: cards played, trumps, hands, the stats by trump.
    assert seen > 30
    unique = {m.id: m for m in messages}.values()
    stats = [m for m in unique if m.embeds and "statistics" in (m.embeds[0].title or "")]
    assert len(stats) == 3 and all(suits_in([m]) >= 4 for m in stats)
    # The options offered by /kachuful start and /kachuful-settings too.
    group = env.bot.tree.get_command("kachuful")
    assert isinstance(group, app_commands.Group)
    commands = [group.get_command("start"), env.bot.tree.get_command("kachuful-settings")]
    choices = [
        choice.name
        for command in commands
        for parameter in command.parameters  # type: ignore[union-attr]
        for choice in parameter.choices
    ]
    assert any("♠" in name for name in choices)
    assert not [name for name in choices if BARE_SUIT.search(name)]


async def test_the_deal_commitment_is_shown_once_and_checks_against_the_export(
    env: simcord.Env,
) -> None:
    """One commitment for the whole game, shown before the first deal (not a footer on every
    deal and score message); after the game the export's seeds reproduce it."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=2)
    deals = table.game.num_deals
    [start] = [m for m in table.public() if m.embeds and "Rules in force" in m.embeds[0].title]
    shown = re.search(r"committed: ([0-9a-f]{16})…", start.embeds[0].footer.text or "")
    assert shown is not None
    assert "/kachuful export" in (start.embeds[0].footer.text or "")
    await table.play_to_end()
    await env.advance_time(60)
    public = table.public()
    assert len(public) > 10  # the deals, the tricks, the scores and the final standings
    hex_runs = [
        (m.id, run)
        for m in public
        for text in message_texts(m)
        for run in re.findall(r"[0-9a-f]{12,}", text)
    ]
    assert hex_runs == [(start.id, shown[1])]  # once, and nowhere else
    seeds_named = [t for m in public for t in message_texts(m) if "seed" in t.lower()]
    assert seeds_named == [start.embeds[0].footer.text]

    exported = await members[1].slash(channel, "kachuful export")
    record_file, seeds_file = exported.response.attachments
    seeds = json.loads(await seeds_file.read())
    assert seeds["game_commitment"].startswith(shown[1])
    assert "game_commitment" in exported.response.content
    # What a player checks, with hashlib alone: each seed's SHA-256 is its deal's
    # commitment, and the SHA-256 of those, in order, is the value the game showed.
    record = json.loads(await record_file.read())
    assert len(seeds["deals"]) == len(record["deals"]) == deals
    deals = seeds["deals"]
    digests = [hashlib.sha256(bytes.fromhex(deal["seed"])).digest() for deal in deals]
    assert [d.hex() for d in digests] == [deal["commitment"] for deal in deals]
    assert hashlib.sha256(b"".join(digests)).hexdigest() == seeds["game_commitment"]
    assert (
        game_commitment([commitment(bytes.fromhex(d["seed"])) for d in deals])
        == (seeds["game_commitment"])
    )


def live_table_message(table: Table) -> discord.Message:
    return table.last_public_with("Your hand")


def ping_of(table: Table) -> discord.Message | None:
    pings = [m for m in table.public() if (m.content or "").startswith("🔔")]
    assert len(pings) <= 1
    return pings[0] if pings else None


async def test_the_ping_repeats_no_line_of_the_table(env: simcord.Env) -> None:
    """The table's live message says who is to act and until when; the ping only mentions
    that player (a new message notifies, an edit does not): no line appears in both, and the
    clock is shown once."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    checked = 0
    while table.session is not None and table.session.row.status == "running":
        seat = table.game.turn
        member = table.member_at(seat)
        assert member is not None
        ping = ping_of(table)
        assert ping is not None, "a human is to act: their ping is in the channel"
        live = live_table_message(table)
        table_lines = {line for text in message_texts(live) for line in text.splitlines()}
        assert member.name in "\n".join(table_lines)  # the table says whose turn
        ping_lines = (ping.content or "").splitlines()
        assert ping_lines and not set(ping_lines) & table_lines
        verbs = "bid" if table.game.phase is Phase.BIDDING else "lead|play"
        assert re.fullmatch(rf"🔔 <@{member.id}>, your turn to ({verbs})\.", ping.content or "")
        clocks = [m for m in table.public() if "<t:" in (m.content or "")]
        assert clocks == [live]  # the countdown once, on the table
        assert member.mention not in (live.content or "")  # the mention is the ping's
        checked += 1
        await table.act(member)
    # Three deals of 3, 2 and 1 cards: 9 bids, and the cards clicked before each deal's
    # forced ending (at least the first trick of the first two deals).
    assert checked >= 9 + 6


def visible(line: str) -> str:
    """A line of markdown as it is shown: no markup, no escapes, no zero-width spaces."""
    line = line.replace("\u200b", "")
    line = re.sub(r"\\(.)", r"\1", line.replace("**", "").replace("`", ""))
    return line.strip("*").replace("*", "") if line.startswith("*") else line


def shown_columns(text: str) -> int:
    """Columns a line takes: wide characters (CJK, fullwidth, emoji) count two."""
    return sum(
        2 if unicodedata.east_asian_width(ch) in "WF" or ord(ch) >= 0x1F000 else 1 for ch in text
    )


# An embed's line on a phone holds about 290 px of text (SimCord's preview of Discord at 400 px
# wide): a row of 34 characters, its name 12 Ws (the widest letter), fits; 16 Ws wrapped.
PHONE_LINE = 34


async def test_leaderboard_rows_fit_one_line_of_a_phone(env: simcord.Env) -> None:
    channel, members = world(env, "asha")
    asha = members[0]
    names = [
        "W" * 32,  # Discord display names are at most 32 characters
        "Ｗ" * 32,  # fullwidth: two columns each
        "😀" * 16,
        "Esperanza **Bold** <@123> `code`",
        "x",
    ]
    for index in range(12):
        await finish_directly(
            env,
            env.guild.id,
            channel.id,
            [
                (7000 + 2 * index, names[index % len(names)], 5 * index),
                (7001 + 2 * index, names[(index + 2) % len(names)], 1000 + index),
                (None, "Robo 🤖", 0),
            ],
        )
    await finish_directly(env, env.guild.id, channel.id, [(asha.id, "asha", -3), (None, "R", 0)])
    rows = 0
    for sort in ("rating", "wins", "average", "exact"):
        for scope in ("channel", "server"):
            result = await asha.slash(channel, "kachuful leaderboard", sort=sort, scope=scope)
            embed = result.response.embeds[0]
            lines = (embed.description or "").splitlines()
            lines += [item.value for item in embed.fields]  # the viewer's own row
            assert len(lines) == 12  # the heading, 10 players, asha's own row
            for line in lines:
                shown = visible(line)
                assert shown_columns(shown) <= PHONE_LINE, (sort, shown, shown_columns(shown))
                rows += 1
    assert rows == 96


async def test_page_buttons_only_when_there_are_pages(env: simcord.Env) -> None:
    channel, members = world(env, "asha")
    asha = members[0]
    await finish_directly(
        env, env.guild.id, channel.id, [(asha.id, "asha", 30), (8000, "bo", 20), (None, "R", 0)]
    )

    def page_buttons(message: discord.Message) -> list[Any]:
        return [b for b in buttons(message) if b.label in ("Previous", "Next")]

    board = await asha.slash(channel, "kachuful leaderboard")
    history = await asha.slash(channel, "kachuful history")
    for result, message in zip((board, history), channel.history()[-2:], strict=True):
        assert message.id == result.response.id
        assert page_buttons(message) == [] and message.components == []
        assert "page" not in (message.embeds[0].footer.text or "")
    # Eleven games, 22 players: a second page of each, so the buttons.
    for index in range(10):
        seats = [(9000 + 2 * index, f"p{index}", index), (9001 + 2 * index, f"q{index}", 0)]
        await finish_directly(env, env.guild.id, channel.id, seats)
    board = await asha.slash(channel, "kachuful leaderboard")
    assert "page 1 of 3" in (board.response.embeds[0].footer.text or "")
    assert [b.label for b in page_buttons(channel.history()[-1])] == ["Previous", "Next"]
    history = await asha.slash(channel, "kachuful history")
    assert "page 1 of 2" in (history.response.embeds[0].footer.text or "")
    assert [b.label for b in page_buttons(channel.history()[-1])] == ["Previous", "Next"]


async def test_help_lists_every_command(env: simcord.Env) -> None:
    """Every /kachuful subcommand the bot registers is in the help, and the help names no
    command that does not exist: a new command without a help line fails here."""
    channel, members = world(env, "asha")
    result = await members[0].slash(channel, "kachuful help")
    assert result.ephemeral
    text = "\n".join(message_texts(result.response))
    listed = set(re.findall(r"`/(kachuful(?: \w[\w-]*|-[\w-]+))", text))
    group = env.bot.tree.get_command("kachuful")
    assert isinstance(group, app_commands.Group)
    registered = {f"kachuful {command.name}" for command in group.commands}
    registered |= {c.name for c in env.bot.tree.get_commands() if c.name != "kachuful"}
    assert {"kachuful stats", "kachuful history", "kachuful export"} <= registered
    assert {"kachuful leaderboard", "kachuful-settings", "kachuful-event"} <= registered
    assert listed == registered
