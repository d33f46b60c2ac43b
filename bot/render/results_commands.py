"""Words and embeds of the results commands: leaderboard, player statistics, history, export,
channel settings. Pure: plain data in, message specs out (the buttons are added by the cogs,
whose DynamicItems own their custom_ids)."""

from __future__ import annotations

import unicodedata
from typing import Any

import discord

from bot.i18n import N_, Translations
from bot.rating import shown
from bot.registry import LEVEL_NAMES, SETTINGS_OPTIONS
from bot.registry import option as registry_option
from bot.result_pages import BoardPage, BoardRow, HistoryPage, PlayerStats, SplitStat

from . import numbers
from .cards import text_suits
from .dates import seconds
from .names import clip_name
from .numbers import signed_whole
from .specs import MessageSpec, clip
from .words import pair

COLOUR = discord.Colour.dark_gold()

SCOPE_WORDS = {"channel": N_("this channel"), "server": N_("this server")}
PERIOD_WORDS = {"all": N_("all time"), "30d": N_("last 30 days"), "7d": N_("last 7 days")}
# One whole sentence per period: a period's name does not take the case a sentence gives it
# in every language (Hindi's "पिछले 30 दिनों में").
EMPTY_BOARD = {
    "all": N_("No finished games here yet."),
    "30d": N_("No finished games in the last 30 days."),
    "7d": N_("No finished games in the last 7 days."),
}
# The suits by the store's letters, each with its symbol (drawn as text).
SUIT_OF = {"S": ("♠", N_("spades")), "H": ("♥", N_("hearts")), "D": ("♦", N_("diamonds"))}
SUIT_OF["C"] = ("♣", N_("clubs"))


def trump_words(key: str, tr: Translations) -> str:
    """A trump of the statistics: "♠ spades", "no trump"."""
    if key == "N":
        return tr.gettext("no trump")
    if key not in SUIT_OF:
        return key
    symbol, name = SUIT_OF[key]
    return text_suits(f"{symbol} {tr.gettext(name)}")


def _name(text: str) -> str:
    """A display name as plain text: no markdown, and nothing Discord would draw as a
    mention (a zero-width space after "<" breaks <@id>, <#id> and <@&id>)."""
    text = discord.utils.escape_mentions(discord.utils.escape_markdown(text))
    return text.replace("<", "<\u200b")


def _percent(rate: float | None, tr: Translations) -> str:
    return "–" if rate is None else numbers.percent(rate, tr)


def rating_text(ordinal: float | None, tr: Translations) -> str:
    return tr.gettext("unrated") if ordinal is None else numbers.whole(shown(ordinal), tr)


# A leaderboard row must fit one line of an embed on a phone. In SimCord's preview of Discord
# at 400 px wide, an embed's line holds about 290 px of text: a row with a 16-letter name of
# Ws wrapped there, one with 12 did not. So a row holds the rank, the name (cut to
# NAME_COLUMNS), the figure sorted by and the games played: 34 characters at most (tested);
# the other figures are in /kachuful stats.
NAME_COLUMNS = 12
SORT_HEADINGS = {
    "rating": N_("rating"),
    "wins": N_("wins"),
    "average": N_("average"),
    "exact": N_("exact bids"),
}


def columns(text: str) -> int:
    """Columns ``text`` takes as shown (wide characters such as emoji take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _cut(name: str, width: int) -> str:
    if columns(name) <= width:
        return name
    while columns(name) > width - 1:
        name = clip_name(name, len(name) - 1)
    return name.rstrip() + "…"


def sorted_figure(row: BoardRow, sort: str, tr: Translations) -> str:
    if sort == "wins":
        return str(row.wins)
    if sort == "average":
        return numbers.tenths(row.average_score, tr)
    if sort == "exact":
        return _percent(row.exact_bid_rate, tr)
    return rating_text(row.rating, tr)


def _board_line(row: BoardRow, sort: str, tr: Translations) -> str:
    """``#3 Asha · **1,234** · 12``: rank (an ordinal of the language: "3e", "3º"), name, the
    figure sorted by, games played."""
    name = _name(_cut(row.name, NAME_COLUMNS))
    place = numbers.rank(row.rank, tr)
    return f"`{place}` {name} · **{sorted_figure(row, sort, tr)}** · {row.games}"


def _board_heading(sort: str, tr: Translations) -> str:
    return tr.gettext("*player · **{sorted_by}** · games*").format(
        sorted_by=tr.gettext(SORT_HEADINGS[sort])
    )


def leaderboard(page: BoardPage, tr: Translations, viewer_name: str | None = None) -> MessageSpec:
    """One page of the leaderboard (10 players) and, below it, the viewer's own row."""
    _ = tr.gettext
    period = _(PERIOD_WORDS[page.period])
    title = _("Kachuful leaderboard — {scope}, {period}").format(
        scope=_(SCOPE_WORDS[page.scope]), period=period
    )
    if page.rows:
        lines = [
            _board_heading(page.sort, tr),
            *(_board_line(row, page.sort, tr) for row in page.rows),
        ]
        description = "\n".join(lines)
    else:
        description = _(EMPTY_BOARD[page.period])
    embed = discord.Embed(title=title, description=description, colour=COLOUR)
    if page.viewer is not None:
        embed.add_field(
            name=clip(_("{name} (you)").format(name=viewer_name or page.viewer.name), 256),
            value=_board_line(page.viewer, page.sort, tr),
            inline=False,
        )
    pages = (
        _("page {page} of {pages}").format(page=page.page + 1, pages=page.pages) + " · "
        if page.pages > 1
        else ""
    )
    players = tr.ngettext(
        "{n} player · ratings are per server; computers are not ranked",
        "{n} players · ratings are per server; computers are not ranked",
        page.players,
    ).format(n=page.players)
    embed.set_footer(text=pages + players)
    return MessageSpec(embeds=(embed,))


def _split_line(stat: SplitStat, label: str, tr: Translations) -> str:
    return tr.gettext("{label}: exact {exact}/{deals} ({rate}), average {points} a deal").format(
        label=label,
        exact=stat.exact,
        deals=stat.deals,
        rate=_percent(stat.exact_rate, tr),
        points=numbers.tenths(stat.average_points, tr),
    )


def _trend(values: list[float], tr: Translations) -> str:
    if not values:
        return tr.gettext("no rated games yet")
    numbers = [shown(value) for value in values]
    change = numbers[-1] - numbers[0]
    arrow = "▲" if change > 0 else "▼" if change < 0 else "▶"
    sparks = "▁▂▃▄▅▆▇█"
    low, high = min(numbers), max(numbers)
    line = "".join(
        sparks[0 if high == low else round((n - low) / (high - low) * (len(sparks) - 1))]
        for n in numbers
    )
    return tr.ngettext(
        "{line} {arrow} {change} over the last {n} game",
        "{line} {arrow} {change} over the last {n} games",
        len(numbers),
    ).format(line=line, arrow=arrow, change=signed_whole(change, tr), n=len(numbers))


def _games_lines(stats: PlayerStats, tr: Translations) -> str:
    """Games played and won, each count with its own plural (a whole phrase each)."""
    played = tr.ngettext("{n} game played", "{n} games played", stats.games).format(n=stats.games)
    won = tr.ngettext(
        "{n} won ({rate}, shared wins count)", "{n} won ({rate}, shared wins count)", stats.wins
    ).format(n=stats.wins, rate=numbers.percent(stats.wins / stats.games, tr))
    best = tr.gettext("average {average} · best {best} (game {game})").format(
        average=numbers.tenths(stats.average_score, tr),
        best=numbers.whole(stats.best_score, tr),
        game=stats.best_game_id,
    )
    return f"{played} · {won}\n{best}"


def _bids_line(stats: PlayerStats, tr: Translations) -> str:
    """Exact bids overall and zero bids: one sentence for a player who bid zero, another for
    one who never did (a filled-in "never" would read "zero bids made: never")."""
    rate = _percent(stats.exact_bid_rate, tr)
    if not stats.zero_bids:
        return tr.gettext("exact {rate} overall · never bid zero").format(rate=rate)
    return tr.ngettext(
        "exact {rate} overall · zero bids made {made} of {n} ({zero_rate})",
        "exact {rate} overall · zero bids made {made} of {n} ({zero_rate})",
        stats.zero_bids,
    ).format(
        rate=rate,
        made=stats.zero_exact,
        n=stats.zero_bids,
        zero_rate=numbers.percent(stats.zero_exact / stats.zero_bids, tr),
    )


def player_stats(stats: PlayerStats, tr: Translations, name: str | None = None) -> MessageSpec:
    _ = tr.gettext
    who = _name(name or stats.name)
    embed = discord.Embed(title=_("Kachuful statistics — {name}").format(name=who), colour=COLOUR)
    rank = (
        " "
        + tr.ngettext(
            "({rank} of {n} player in this server)",
            "({rank} of {n} players in this server)",
            stats.rated_players,
        ).format(rank=numbers.rank(stats.rating_rank, tr), n=stats.rated_players)
        if stats.rating_rank is not None
        else ""
    )
    embed.add_field(
        name=_("Rating"),
        value=f"**{rating_text(stats.rating, tr)}**{rank}\n{_trend(stats.trend, tr)}",
        inline=False,
    )
    embed.add_field(
        name=_("Games"),
        value=_games_lines(stats, tr),
        inline=False,
    )
    embed.add_field(
        name=_("Bids"),
        value=_bids_line(stats, tr),
        inline=False,
    )
    if stats.by_hand_size:
        lines = [
            _split_line(s, tr.ngettext("{n} card", "{n} cards", int(s.key)).format(n=s.key), tr)
            for s in sorted(stats.by_hand_size, key=lambda s: int(s.key))
        ]
        embed.add_field(name=_("By hand size"), value=clip("\n".join(lines), 1024), inline=False)
    if stats.by_trump:
        ranked = sorted(stats.by_trump, key=lambda s: (s.average_points, s.exact_rate))
        best, worst = ranked[-1], ranked[0]
        lines = [_split_line(s, trump_words(s.key, tr), tr) for s in stats.by_trump]
        if len(ranked) > 1:
            lines.append(
                _("best **{best}**, worst **{worst}**").format(
                    best=trump_words(best.key, tr), worst=trump_words(worst.key, tr)
                )
            )
        embed.add_field(name=_("By trump"), value=clip("\n".join(lines), 1024), inline=False)
    embed.set_footer(text=_("This server's games · rating = 1000 + 40 × (μ − 3σ), openskill"))
    return MessageSpec(embeds=(embed,))


def history(
    page: HistoryPage,
    guild_id: int,
    channel_id: int,
    tr: Translations,
    club: str | None = None,
) -> MessageSpec:
    """A channel's games; with ``club`` (the server's club pages, when the web table is on)
    each finished game links its page there too."""
    _ = tr.gettext
    lines = []
    for entry in page.entries:
        when = discord.utils.format_dt(entry.ended_at, "d")
        players = ", ".join(_name(seat.name) for seat in entry.seats)
        if entry.status == "stopped":
            outcome = _("stopped, no result")
        else:
            winners = entry.winners
            best = ", ".join(f"{_name(s.name)} {numbers.whole(s.score or 0, tr)}" for s in winners)
            best = best or "–"
            outcome = _("won by {winners}").format(winners=best)
        link = ""
        if entry.message_id is not None:
            where = entry.link_channel_id or channel_id
            url = f"https://discord.com/channels/{guild_id}/{where}/{entry.message_id}"
            word = _("table")
            link = f" · [{word}]({url})"
        if club is not None and entry.status == "finished":
            link += f" · [{_('Replay')}]({club}/game/{entry.game_id})"
        game = _("**Game {game}**").format(game=entry.game_id)
        # Two lines a game: the number, day and link, then who played and how it ended. On a
        # phone one long line wrapped anywhere, splitting a name or the link from its game.
        lines.append(clip(f"{game} · {when}{link}\n{players} — {outcome}", 400))
    embed = discord.Embed(
        title=_("Kachuful games in this channel"),
        description="\n".join(lines) if lines else _("No games have ended in this channel yet."),
        colour=COLOUR,
    )
    pages = (
        " · " + _("page {page} of {pages}").format(page=page.page + 1, pages=page.pages)
        if page.pages > 1
        else ""
    )
    games = tr.ngettext("{n} game", "{n} games", page.games).format(n=page.games)
    first = _("Newest first")
    embed.set_footer(
        text=f"{first}{pages} · {games} · " + _("/kachuful export game:<number> for a record")
    )
    return MessageSpec(embeds=(embed,))


# The files of /kachuful export, named in the reader's language (letters, digits and hyphens:
# a name Discord keeps as it is).
EXPORT_FILES = {
    "game": N_("kachuful-game-{number}.json"),
    "seeds": N_("kachuful-game-{number}-seeds.json"),
    "so_far": N_("kachuful-game-{number}-so-far.json"),
    "current_deal": N_("kachuful-game-{number}-current-deal.json"),
    "scorepad": N_("kachuful-scorepad-{number}.json"),
    "event": N_("kachuful-event-{number}.json"),
}


def export_file_name(kind: str, number: int, tr: Translations) -> str:
    """ "kachuful-game-12-so-far.json", "kachuful-partie-12-en-cours.json"."""
    return tr.gettext(EXPORT_FILES[kind]).format(number=number)


def export_notice(game_id: int, tr: Translations, *, partial: bool) -> str:
    if partial:
        return tr.gettext(
            "The record of game {game} so far (format kachuful-record/1): every completed"
            " trick; cards not yet played are left out."
        ).format(game=game_id)
    return tr.gettext(
        "The record of game {game} (format kachuful-record/1), with every deal's seed"
        " revealed in the second file: its game_commitment is the one the game showed before"
        " its first deal, and kachuful_core.dealing checks every deal."
    ).format(game=game_id)


def setting_line(key: str, value: Any, tr: Translations) -> str:
    """One channel setting as players read it, with the option's name to change it."""
    if key not in SETTINGS_OPTIONS:
        return pair(f"`{key}`", f"`{value}`", tr)
    option = registry_option(key)
    if key == "computer_levels" and isinstance(value, list):
        words = ", ".join(tr.gettext(LEVEL_NAMES.get(level, str(level))) for level in value)
    elif key == "turn_seconds" and isinstance(value, int):
        words = seconds(value, tr)
    else:
        words = option.words(value, tr)
    return pair(f"**{option.title(tr)}** (`{key}`)", words, tr)


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
