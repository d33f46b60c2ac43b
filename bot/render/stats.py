"""Words and embeds of the results commands: leaderboard, player statistics, history, export,
channel settings. Pure: plain data in, message specs out (the buttons are added by the cogs,
whose DynamicItems own their custom_ids)."""

from __future__ import annotations

import unicodedata
from typing import Any

import discord

from bot.i18n import Translations
from bot.rating import shown
from bot.registry import LEVEL_NAMES, SETTINGS_OPTIONS
from bot.registry import option as registry_option
from bot.store.models import BoardPage, BoardRow, HistoryPage, PlayerStats, SplitStat

from .cards import text_suits
from .specs import MessageSpec, clip

COLOUR = discord.Colour.dark_gold()

SCOPE_WORDS = {"channel": "this channel", "server": "this server"}
PERIOD_WORDS = {"all": "all time", "30d": "last 30 days", "7d": "last 7 days"}
TRUMP_WORDS = {
    key: text_suits(words)
    for key, words in {
        "S": "♠ spades",
        "H": "♥ hearts",
        "D": "♦ diamonds",
        "C": "♣ clubs",
        "N": "no trump",
    }.items()
}

REFUSALS = {
    "bad_option": "`{name}` must be one of {choices}.",
    "guild_only": "Kachuful is played in a server channel, not in direct messages.",
    "no_stats": "{name} has not finished a game in this server yet.",
    "no_game": "There is no game {game} in this channel.",
    "no_finished_game": "No finished game to export in this channel yet.",
    "not_your_game": "Game {game} is still being played: only its players can export it so far.",
    "not_manager": "Only members with **Manage Server** can change this channel's settings.",
    "bad_setting": "{problem}",
}


def refusal(code: str, **values: Any) -> str:
    return REFUSALS[code].format(**values)


def _name(text: str) -> str:
    """A display name as plain text: no markdown, and nothing Discord would draw as a
    mention (a zero-width space after "<" breaks <@id>, <#id> and <@&id>)."""
    text = discord.utils.escape_mentions(discord.utils.escape_markdown(text))
    return text.replace("<", "<\u200b")


def _percent(rate: float | None) -> str:
    return "–" if rate is None else f"{rate:.0%}"


def rating_text(ordinal: float | None) -> str:
    return "unrated" if ordinal is None else f"{shown(ordinal):,}"


# A leaderboard row must fit one line of an embed on a phone. In SimCord's preview of Discord
# at 400 px wide, an embed's line holds about 290 px of text: a row with a 16-letter name of
# Ws wrapped there, one with 12 did not. So a row holds the rank, the name (cut to
# NAME_COLUMNS), the figure sorted by and the games played: 34 characters at most (tested);
# the other figures are in /kachuful stats.
NAME_COLUMNS = 12
SORT_HEADINGS = {"rating": "rating", "wins": "wins", "average": "average", "exact": "exact bids"}


def columns(text: str) -> int:
    """Columns ``text`` takes as shown (wide characters such as emoji take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _cut(name: str, width: int) -> str:
    if columns(name) <= width:
        return name
    while columns(name) > width - 1:
        name = name[:-1]
    return name.rstrip() + "…"


def _sorted_figure(row: BoardRow, sort: str) -> str:
    if sort == "wins":
        return str(row.wins)
    if sort == "average":
        return f"{row.average_score:.1f}"
    if sort == "exact":
        return _percent(row.exact_bid_rate)
    return rating_text(row.rating)


def _board_line(row: BoardRow, sort: str) -> str:
    """``#3 Asha · **1,234** · 12``: rank, name, the figure sorted by, games played."""
    name = _name(_cut(row.name, NAME_COLUMNS))
    return f"`#{row.rank}` {name} · **{_sorted_figure(row, sort)}** · {row.games}"


def _board_heading(sort: str) -> str:
    return f"*player · **{SORT_HEADINGS[sort]}** · games*"


def leaderboard(page: BoardPage, viewer_name: str | None = None) -> MessageSpec:
    """One page of the leaderboard (10 players) and, below it, the viewer's own row."""
    title = f"Kachuful leaderboard — {SCOPE_WORDS[page.scope]}, {PERIOD_WORDS[page.period]}"
    if page.rows:
        lines = [_board_heading(page.sort), *(_board_line(row, page.sort) for row in page.rows)]
        description = "\n".join(lines)
    else:
        description = (
            "No finished games here yet."
            if page.period == "all"
            else (f"No finished games in the {PERIOD_WORDS[page.period]}.")
        )
    embed = discord.Embed(title=title, description=description, colour=COLOUR)
    if page.viewer is not None:
        embed.add_field(
            name=clip(f"{viewer_name or page.viewer.name} (you)", 256),
            value=_board_line(page.viewer, page.sort),
            inline=False,
        )
    pages = f"page {page.page + 1} of {page.pages} · " if page.pages > 1 else ""
    embed.set_footer(
        text=f"{pages}{page.players} player{'s' if page.players != 1 else ''}"
        " · ratings are per server; computers are not ranked"
    )
    return MessageSpec(embeds=(embed,))


def _split_line(stat: SplitStat, label: str) -> str:
    return (
        f"{label}: exact {stat.exact}/{stat.deals} ({_percent(stat.exact_rate)}),"
        f" {stat.average_points:.1f} points a deal"
    )


def _trend(values: list[float]) -> str:
    if not values:
        return "no rated games yet"
    numbers = [shown(value) for value in values]
    change = numbers[-1] - numbers[0]
    arrow = "▲" if change > 0 else "▼" if change < 0 else "▶"
    sparks = "▁▂▃▄▅▆▇█"
    low, high = min(numbers), max(numbers)
    line = "".join(
        sparks[0 if high == low else round((n - low) / (high - low) * (len(sparks) - 1))]
        for n in numbers
    )
    return f"{line} {arrow} {change:+,} over the last {len(numbers)} game(s)"


def player_stats(stats: PlayerStats, name: str | None = None) -> MessageSpec:
    who = _name(name or stats.name)
    embed = discord.Embed(title=f"Kachuful statistics — {who}", colour=COLOUR)
    rank = (
        f" (#{stats.rating_rank} of {stats.rated_players} in this server)"
        if stats.rating_rank is not None
        else ""
    )
    embed.add_field(
        name="Rating",
        value=f"**{rating_text(stats.rating)}**{rank}\n{_trend(stats.trend)}",
        inline=False,
    )
    embed.add_field(
        name="Games",
        value=(
            f"{stats.games} played · {stats.wins} won ({stats.wins / stats.games:.0%}, shared"
            f" wins count)\naverage {stats.average_score:.1f} · best {stats.best_score}"
            f" (game {stats.best_game_id})"
        ),
        inline=False,
    )
    zero = (
        f"{stats.zero_exact}/{stats.zero_bids} ({stats.zero_exact / stats.zero_bids:.0%})"
        if stats.zero_bids
        else "never bid zero"
    )
    embed.add_field(
        name="Bids",
        value=f"exact {_percent(stats.exact_bid_rate)} overall · zero bids made {zero}",
        inline=False,
    )
    if stats.by_hand_size:
        lines = [
            _split_line(s, f"{s.key} card{'s' if s.key != '1' else ''}")
            for s in sorted(stats.by_hand_size, key=lambda s: int(s.key))
        ]
        embed.add_field(name="By hand size", value=clip("\n".join(lines), 1024), inline=False)
    if stats.by_trump:
        ranked = sorted(stats.by_trump, key=lambda s: (s.average_points, s.exact_rate))
        best, worst = ranked[-1], ranked[0]
        lines = [_split_line(s, TRUMP_WORDS.get(s.key, s.key)) for s in stats.by_trump]
        if len(ranked) > 1:
            lines.append(
                f"best **{TRUMP_WORDS.get(best.key, best.key)}**,"
                f" worst **{TRUMP_WORDS.get(worst.key, worst.key)}**"
            )
        embed.add_field(name="By trump", value=clip("\n".join(lines), 1024), inline=False)
    embed.set_footer(text="This server's games · rating = 1000 + 40 × (μ − 3σ), openskill")
    return MessageSpec(embeds=(embed,))


def history(page: HistoryPage, guild_id: int, channel_id: int) -> MessageSpec:
    lines = []
    for entry in page.entries:
        when = discord.utils.format_dt(entry.ended_at, "d")
        players = ", ".join(_name(seat.name) for seat in entry.seats)
        if entry.status == "stopped":
            outcome = "stopped, no result"
        else:
            winners = entry.winners
            best = ", ".join(f"{_name(s.name)} {s.score}" for s in winners) or "–"
            outcome = f"won by {best}"
        link = ""
        if entry.message_id is not None:
            where = entry.link_channel_id or channel_id
            url = f"https://discord.com/channels/{guild_id}/{where}/{entry.message_id}"
            link = f" · [table]({url})"
        lines.append(clip(f"**Game {entry.game_id}** · {when} · {players} — {outcome}{link}", 400))
    embed = discord.Embed(
        title="Kachuful games in this channel",
        description="\n".join(lines) if lines else "No games have ended in this channel yet.",
        colour=COLOUR,
    )
    pages = f" · page {page.page + 1} of {page.pages}" if page.pages > 1 else ""
    embed.set_footer(
        text=f"Newest first{pages} · {page.games} game(s)"
        " · /kachuful export game:<number> for a record"
    )
    return MessageSpec(embeds=(embed,))


def export_notice(game_id: int, *, partial: bool) -> str:
    if partial:
        return (
            f"The record of game {game_id} so far (format kachuful-record/1): every completed"
            " trick; cards not yet played are left out."
        )
    return (
        f"The record of game {game_id} (format kachuful-record/1), with every deal's seed"
        " revealed in the second file: its game_commitment is the one the game showed before"
        " its first deal, and kachuful_core.dealing checks every deal."
    )


def setting_line(key: str, value: Any, tr: Translations) -> str:
    """One channel setting as players read it, with the option's name to change it."""
    if key not in SETTINGS_OPTIONS:
        return f"`{key}`: `{value}`"
    option = registry_option(key)
    if key == "computer_levels" and isinstance(value, list):
        words = ", ".join(tr.gettext(LEVEL_NAMES.get(level, str(level))) for level in value)
    elif key == "turn_seconds":
        words = f"{value} s"
    else:
        words = option.words(value, tr)
    return f"**{option.title(tr)}** (`{key}`): {words}"


def settings_summary(values: dict[str, Any], tr: Translations, *, changed: bool) -> MessageSpec:
    _ = tr.gettext
    lines = [setting_line(key, value, tr) for key, value in values.items()] or [
        _("No settings: every new game starts with the defaults.")
    ]
    head = (
        _("Saved. These apply to the next game here (not to one already running):")
        if changed
        else _("This channel's settings for new games:")
    )
    embed = discord.Embed(
        title=_("Kachuful — channel settings"),
        description=head + "\n" + "\n".join(lines),
        colour=COLOUR,
    )
    return MessageSpec(embeds=(embed,))
