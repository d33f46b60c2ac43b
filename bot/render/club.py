"""Everything a player or an organiser reads about an event (docs/events.md): the event's one
live message in its channel (registration, then the standings and each round's tables, then
the final standings), the head of each event table's thread, and the private answers.

Pure functions of plain data, like the rest of ``bot/render``: the conductor (bot/club) hands
them what is committed and posts or edits what they return.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import discord

from bot.club.model import Crown, Entrant, Event, EventTable, SeasonPlayer
from bot.i18n import N_, Translations
from bot.model import Table
from bot.options import table_rules
from kachuful_core.club import Standing

from .dates import day, season_name
from .numbers import count_for, short, whole
from .permissions import fill, permission_names
from .specs import ButtonSpec, MessageSpec, clip
from .words import level_name, pair, plain, rules_lines

COLOUR_EVENT = discord.Colour.gold()
THREAD_NAME_LIMIT = 100
# Lines of the standings shown (the rest are counted): the field holds 1,024 characters.
STANDING_LINES = 20


@dataclass(frozen=True)
class EventView:
    """What the event's message shows: the event, its players, the standings so far, every
    table seated (with its thread) and which tables have finished."""

    event: Event
    entrants: Sequence[Entrant]
    standings: Sequence[Standing]
    tables: Sequence[EventTable]
    finished: frozenset[tuple[int, int]]  # (round, table) of the tables whose game is over


FORMAT_WORDS = {
    "rotation": N_(
        "Rotation: every round you meet new opponents; the leaders meet in the last rounds. "
        "At each table you earn a point for every opponent you outscore (half for a tie)."
    ),
    "duplicate": N_(
        "Duplicate: every table of a round plays the same deals, seat for seat. Each deal "
        "scores you a point for every other table where the same seat scored less (half for "
        "a tie): you are measured against players who held your cards."
    ),
}
SINGLE_TABLE = N_(
    "With a single table there is no other table to compare with: duplicate rounds are "
    "scored as in rotation."
)
STATUS_WORDS = {
    "registering": N_("Registration is open: click Register to play."),
    "running": N_("Round {round} of {rounds} is being played."),
    "paused": N_("Paused by the organiser after round {round} of {rounds}."),
    "finished": N_("Final standings."),
    "closed": N_("Closed by the organiser after round {round} of {rounds}: final standings."),
}

NOTICES = {
    "opened": N_("Event **{name}** is open: players register with the button below it."),
    "registered": N_("You are registered for **{name}**."),
    "withdrawn": N_("You have withdrawn from **{name}**."),
    "remind_on": N_("You will get a direct message before **{name}** starts."),
    "remind_off": N_("No direct message before **{name}**: the reminder is in the channel."),
    "started": N_("**{name}** has started: round 1 is seated."),
    "paused": N_("**{name}** is paused: the next round waits until you resume it."),
    "resumed": N_("**{name}** goes on."),
    "dropped": N_("{player} is out of **{name}**; a computer player takes their seat."),
    "closed": N_("**{name}** is closed; its final standings are posted."),
    "role_set": N_("Members with {role} may now organise events."),
    "role_cleared": N_("Only members with {manage_guild} may organise events now."),
    "exported": N_(
        "**{name}**: its pairings, and each finished table's seeds and record. Tables still "
        "playing show neither."
    ),
    "reminder": N_("⏰ **{name}** starts soon: ⏳ {when}\n{players}"),
}

REFUSALS = {
    "no_event": N_("There is no such event in this server."),
    "not_organiser": N_(
        "Only the organiser, a member with {manage_guild} or with the server's event role "
        "may do that."
    ),
    "registration_closed": N_("Registration for this event is closed."),
    "already_registered": N_("You are registered already."),
    "not_registered": N_("You are not registered for this event."),
    "too_few": N_("An event needs at least {n} registered players (registered so far: {count})."),
    "already_started": N_("This event has started already."),
    "not_running": N_("This event is not being played."),
    "not_paused": N_("This event is not paused."),
    "over": N_("This event is over."),
    "bad_start_time": N_(
        "Write the start time as YYYY-MM-DD HH:MM (UTC) or paste a Discord timestamp "
        "like `<t:1767225600:F>`; it must be in the future."
    ),
    "bad_name": N_("An event's name needs 1 to 60 characters."),
    "bad_rounds": N_("An event has 1 to 20 rounds."),
    "bad_choice": N_("That is not one of the choices offered."),
    "thread_channel": N_("Open events in a text channel: their tables play in its threads."),
}


# Why an event opened with a start time has no Discord scheduled event (it is open all the
# same): told to the organiser with the answer to /kachuful-event open.
SCHEDULE_NOTES = {
    "no_permission": N_(
        "It has no Discord scheduled event: creating one needs the {create_events} "
        "permission, which the bot does not have in this server."
    ),
    "refused": N_(
        "Discord refused to create its scheduled event: the bot needs the {create_events} "
        "permission in this server."
    ),
    "failed": N_("Discord could not create its scheduled event just now."),
}


def notice(code: str, tr: Translations, **values: Any) -> str:
    return fill(tr.gettext(NOTICES[code]), tr, **values)


def refusal(code: str, tr: Translations, **values: Any) -> str:
    return "⚠️ " + fill(tr.gettext(REFUSALS[code]), tr, **values)


def schedule_note(code: str, tr: Translations) -> str:
    return "⚠️ " + fill(tr.gettext(SCHEDULE_NOTES[code]), tr)


def no_threads(missing: Sequence[str], tr: Translations) -> str:
    """/kachuful-event open where the bot may neither open threads nor make channels."""
    message = tr.ngettext(
        "An event's tables play in threads of its channel, and here the bot lacks this "
        "permission for them: {wanted}. Grant it, or grant {manage_channels} to give each "
        "table a channel of its own, then open the event.",
        "An event's tables play in threads of its channel, and here the bot lacks these "
        "permissions for them: {wanted}. Grant them, or grant {manage_channels} to give each "
        "table a channel of its own, then open the event.",
        len(missing),
    )
    return "⚠️ " + fill(message, tr, wanted=permission_names(missing, tr))


def table_title(event: Event, round_number: int, table_no: int, tr: Translations) -> str:
    """The name of a table's thread: the event, round and table (Discord allows 100)."""
    title = tr.gettext("{event} · round {round} · table {table}").format(
        event=event.name, round=round_number, table=table_no
    )
    return title[:THREAD_NAME_LIMIT]


def rank_mark(rank: int) -> str:
    """ "1." with its dot escaped: Discord reads lines starting "1." as a numbered list and
    renumbers them, so two players tied first would show as 1 and 2."""
    return f"{rank}\\."


def points_text(points: float, tr: Translations) -> str:
    """ "3.5 pts", "1 pt": a number of event or season points, which may end in a half ("0,5
    pt" in French, which keeps the singular below 2)."""
    count = count_for(points, tr)
    return tr.ngettext("{points} pt", "{points} pts", count).format(points=short(points, tr))


def _standing_lines(view: EventView, tr: Translations) -> list[str]:
    names = {e.user_id: e.name for e in view.entrants}
    out: list[str] = []
    if not any(standing.tables for standing in view.standings):
        return out
    for standing in view.standings[:STANDING_LINES]:
        out.append(
            tr.ngettext(
                "{rank} **{name}** — {points} · tiebreak {tiebreak} · {n} table",
                "{rank} **{name}** — {points} · tiebreak {tiebreak} · {n} tables",
                standing.tables,
            ).format(
                rank=rank_mark(standing.rank),
                name=plain(names.get(standing.player, "?")),
                points=points_text(standing.points, tr),
                tiebreak=whole(standing.tiebreak, tr),
                n=standing.tables,
            )
        )
    hidden = len(view.standings) - STANDING_LINES
    if hidden > 0:
        out.append(tr.ngettext("… and {n} more", "… and {n} more", hidden).format(n=hidden))
    return out


def _table_line(table: EventTable, finished: bool, tr: Translations) -> str:
    where = f"<#{table.thread_id}>" if table.thread_id else tr.gettext("opening…")
    names = ", ".join(plain(seat.name) for seat in table.seats)
    mark = "✅ " if finished else "▶ "
    return tr.gettext("{mark}Table {table} {where}: {names}").format(
        mark=mark, table=table.table_no, where=where, names=names
    )


def _winners(view: EventView, tr: Translations) -> str | None:
    best = [s for s in view.standings if s.rank == 1 and s.tables > 0]
    if not best:
        return None
    names = {e.user_id: e.name for e in view.entrants}
    shown = ", ".join(f"**{plain(names.get(s.player, '?'))}**" for s in best)
    return tr.ngettext("🏆 Winner: {names}", "🏆 Winners: {names}", len(best)).format(names=shown)


def event_message(view: EventView, tr: Translations, url: str | None = None) -> MessageSpec:
    """The event's live message: registration, standings and tables, final standings; with
    ``url`` (its club page, when the web table is on) its title links the event's page."""
    event = view.event
    _ = tr.gettext
    # Where the event stands first (and at the end who won), then how it is played.
    lines = [_(STATUS_WORDS[event.status]).format(round=event.round, rounds=event.rounds)]
    if event.starts_at is not None and event.status == "registering":
        stamp = int(event.starts_at.timestamp())
        lines.append(_("Starts <t:{stamp}:F> (<t:{stamp}:R>).").format(stamp=stamp))
    over = event.status in ("finished", "closed")
    winners = _winners(view, tr) if over else None
    if winners:
        lines.append(winners)
    lines.append("")
    lines.append(_(FORMAT_WORDS[event.format]))
    tables_per_round = max((t.table_no for t in view.tables if t.round == 1), default=0)
    if event.format == "duplicate" and tables_per_round == 1:
        lines.append(_(SINGLE_TABLE))
    embed = discord.Embed(
        title=f"🏆 {clip(event.name, 200)}",
        description="\n".join(lines),
        colour=COLOUR_EVENT,
        url=url,
    )
    rules = table_rules(event.options, event.table_size)[0]
    settings = [
        tr.ngettext("{n} round", "{n} rounds", event.rounds).format(n=event.rounds),
        tr.ngettext("tables of {n}", "tables of {n}", event.table_size).format(n=event.table_size),
        _("computer players: {level}").format(level=level_name(event.level, tr)),
    ]
    embed.add_field(
        name=_("Event"),
        value=clip(" · ".join(settings) + "\n" + "\n".join(rules_lines(rules, tr)[1:3]), 1024),
        inline=False,
    )
    active = [e for e in view.entrants if e.status == "registered"]
    if event.status == "registering":
        names = "\n".join(f"{i + 1}. {plain(e.name)}" for i, e in enumerate(active))
        embed.add_field(
            name=tr.ngettext("{n} player registered", "{n} players registered", len(active)).format(
                n=len(active)
            ),
            value=clip(names or _("Nobody yet."), 1024),
            inline=False,
        )
    else:
        standing = "\n".join(_standing_lines(view, tr)) or _("No table has finished yet.")
        embed.add_field(name=_("Standings"), value=clip(standing, 1024), inline=False)
        _round_fields(embed, view, tr, every_round=over)
    buttons: tuple[ButtonSpec, ...] = ()
    if event.status == "registering":
        buttons = (
            ButtonSpec(("event", event.id, "register"), _("Register"), "success"),
            ButtonSpec(("event", event.id, "withdraw"), _("Withdraw"), "secondary"),
            ButtonSpec(
                ("event", event.id, "remind"), _("Remind me by DM"), "secondary", emoji="🔔"
            ),
        )
    return MessageSpec(embeds=(embed,), buttons=buttons)


def _round_fields(
    embed: discord.Embed, view: EventView, tr: Translations, *, every_round: bool
) -> None:
    """The current round's tables, or at the end every round's (links to every game)."""
    rounds = sorted({t.round for t in view.tables})
    shown = rounds if every_round else rounds[-1:]
    for round_number in shown[-20:]:
        lines = [
            _table_line(t, t.key in view.finished, tr)
            for t in view.tables
            if t.round == round_number
        ]
        embed.add_field(
            name=tr.gettext("Round {round}").format(round=round_number),
            value=clip("\n".join(lines), 1024),
            inline=False,
        )


def table_head(row: Table, tr: Translations) -> MessageSpec:
    """The first message of an event table's thread: whose table it is (each player is
    mentioned once, which also adds them to the thread)."""
    humans = [seat.user_id for seat in row.seats if seat.user_id is not None]
    embed = discord.Embed(
        title=f"🏆 {clip(row.options.event_title or '', 200)}",
        description=tr.gettext(
            "Your table for this round: the game starts below. Please do not watch the other "
            "tables of the round while you play: in a duplicate event they hold your cards."
        ),
        colour=COLOUR_EVENT,
    )
    embed.add_field(
        name=tr.gettext("Players"),
        value=clip("\n".join(f"{i + 1}. {plain(s.name)}" for i, s in enumerate(row.seats)), 1024),
    )
    return MessageSpec(
        content=" ".join(f"<@{user}>" for user in humans) or None,
        embeds=(embed,),
        mention_ids=tuple(humans),
    )


def reminder(event: Event, players: Sequence[int], tr: Translations) -> MessageSpec:
    """The one reminder before a scheduled event: a new message, so its mentions notify."""
    when = f"<t:{int(event.starts_at.timestamp())}:R>" if event.starts_at else ""
    mentions = " ".join(f"<@{user}>" for user in players)
    return MessageSpec(
        content=notice("reminder", tr, name=plain(event.name), when=when, players=mentions),
        mention_ids=tuple(players),
    )


def export_summary(
    event: Event, tables: Sequence[EventTable], records: Mapping[int, Any]
) -> dict[str, Any]:
    """An event's export: its settings, the seating of every round, and for each finished
    table its game's seed and record (``records``, by game id; a table still playing shows
    neither, its seed deals cards still hidden). See docs/events.md#checking-an-event."""
    return {
        "format": "kachuful-event/1",
        "event": {
            "id": event.id,
            "name": event.name,
            "format": event.format,
            "table_size": event.table_size,
            "rounds": event.rounds,
            "computer_level": event.level,
            "status": event.status,
        },
        "tables": [
            {
                "round": t.round,
                "table": t.table_no,
                "seats": [{"user_id": s.user_id, "name": s.name} for s in t.seats],
                "game_id": t.game_id,
                "seed": t.seed if t.game_id in records else None,
                "record": records.get(t.game_id) if t.game_id is not None else None,
            }
            for t in tables
        ],
    }


# ---- seasons ----------------------------------------------------------------------------------

SEASON_NOTICES = {
    "season_set": N_("Seasons are on: {kind}. Champions are announced in {channel}."),
    "season_off": N_("Seasons are off in this server; its champions stay in the hall."),
    "no_seasons": N_(
        "This server has no seasons: someone with the {manage_guild} permission can start "
        "them with /kachuful-season setup."
    ),
    "bad_dates": N_(
        "A season between dates needs its first and last day, as YYYY-MM-DD, the last "
        "after the first."
    ),
    "no_champions": N_("No season has ended here yet."),
    "role_no_permission": N_(
        "⚠️ The champions cannot be given {role}: that needs the {manage_roles} permission, "
        "which the bot does not have in this server. Grant it, or the champions are only "
        "announced."
    ),
    "role_out_of_reach": N_(
        "⚠️ The champions cannot be given {role}: the bot can give only a role below its own "
        "highest role (Server Settings → Roles). Move the bot's role above it, or the "
        "champions are only announced."
    ),
    "role_managed": N_(
        "⚠️ The champions cannot be given {role}: Discord or an app manages that role, and "
        "nobody can give it. Choose another role, or the champions are only announced."
    ),
}
KIND_WORDS = {
    "monthly": N_("monthly"),
    "quarterly": N_("quarterly"),
    "dates": N_("from {first} to {last}"),
}


def season_notice(code: str, tr: Translations, **values: Any) -> str:
    return fill(tr.gettext(SEASON_NOTICES[code]), tr, **values)


def kind_words(
    kind: str, tr: Translations, first: date | None = None, last: date | None = None
) -> str:
    """ "monthly", or the days of a season between dates as the language writes them."""
    return tr.gettext(KIND_WORDS[kind]).format(
        first=day(first, tr) if first else "", last=day(last, tr) if last else ""
    )


def _season_lines(
    standings: Sequence[SeasonPlayer], tr: Translations, limit: int = 20
) -> list[str]:
    lines = [
        tr.ngettext(
            "{rank} **{name}** — {points} · wins: {wins} · {n} game",
            "{rank} **{name}** — {points} · wins: {wins} · {n} games",
            player.games,
        ).format(
            rank=rank_mark(player.rank),
            name=plain(player.name),
            points=points_text(player.points, tr),
            wins=whole(player.wins, tr),
            n=player.games,
        )
        for player in standings[:limit]
    ]
    hidden = len(standings) - limit
    if hidden > 0:
        lines.append(tr.ngettext("… and {n} more", "… and {n} more", hidden).format(n=hidden))
    return lines


def season_board(
    season_key: str, end: date, standings: Sequence[SeasonPlayer], tr: Translations
) -> MessageSpec:
    """The current season's standings (``/kachuful-season standings``); ``end``: its last day."""
    _ = tr.gettext
    embed = discord.Embed(
        title=_("🏅 The {season} season").format(season=season_name(season_key, tr)),
        description="\n".join(_season_lines(standings, tr))
        or _("No game finished this season yet."),
        colour=COLOUR_EVENT,
    )
    embed.set_footer(
        text=_(
            "A game gives a point for each opponent you outscore, half for a tie. "
            "The season ends on {end}."
        ).format(end=day(end, tr))
    )
    return MessageSpec(embeds=(embed,))


def champions_message(crown: Crown, tr: Translations) -> MessageSpec:
    """The announcement of a season's end: its champions (mentioned) and its standings."""
    _ = tr.gettext
    champions = crown.champions
    if champions:
        names = ", ".join(f"<@{p.user_id}>" for p in champions)
        headline = tr.ngettext(
            "🏆 Champion of the {season} season: {names}",
            "🏆 Champions of the {season} season: {names}",
            len(champions),
        ).format(season=season_name(crown.season, tr), names=names)
    else:
        headline = _("The {season} season is over: no game was finished in it.").format(
            season=season_name(crown.season, tr)
        )
    embed = discord.Embed(
        title=_("🏅 The {season} season").format(season=season_name(crown.season, tr)),
        description="\n".join(_season_lines(crown.standings, tr, 10)) or None,
        colour=COLOUR_EVENT,
    )
    return MessageSpec(
        content=headline, embeds=(embed,), mention_ids=tuple(p.user_id for p in champions)
    )


def hall_of_champions(crowns: Sequence[Crown], tr: Translations) -> MessageSpec:
    """``/kachuful-season champions``: every ended season and its champions, newest first."""
    _ = tr.gettext
    lines = []
    for crown in crowns[:40]:
        names = ", ".join(f"**{plain(p.name)}**" for p in crown.champions) or "—"
        lines.append(pair(season_name(crown.season, tr), names, tr))
    embed = discord.Embed(
        title=_("🏆 Hall of champions"),
        description=clip("\n".join(lines), 4096) or season_notice("no_champions", tr),
        colour=COLOUR_EVENT,
    )
    return MessageSpec(embeds=(embed,))
