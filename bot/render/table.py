"""Public table messages: the lobby, the draw, each deal, each trick, scores and standings."""

from __future__ import annotations

import discord

from bot.i18n import Translations
from bot.model import Table, TableOptions
from bot.pace import DEFAULT_PACE, Pace
from bot.registry import LENGTH_BUTTONS, resolve_max_hand
from kachuful_core import Game, Phase
from kachuful_core.rules import MIN_PLAYERS

from .cards import label
from .numbers import whole
from .open_table import TableLink, with_open_table
from .specs import ButtonSpec, MessageSpec, clip
from .words import (
    length_lines,
    lobby_rules_lines,
    name_of,
    option_lines,
    pair,
    plain,
    rules_lines,
    seat_kind,
    standing_lines,
)

COLOUR_TABLE = discord.Colour.dark_green()
COLOUR_LOBBY = discord.Colour.blurple()
COLOUR_SCORES = discord.Colour.teal()
COLOUR_FINAL = discord.Colour.gold()
COLOUR_OVER = discord.Colour.dark_grey()


def hand_button(row: Table, tr: Translations) -> ButtonSpec:
    return ButtonSpec(("hand", row.id), tr.gettext("Your hand"), style="primary", emoji="🂠")


# ---- lobby ----------------------------------------------------------------------------------


def lobby(
    row: Table,
    tr: Translations,
    *,
    timeout_minutes: int,
    pace: Pace = DEFAULT_PACE,
    closed: str | None = None,
    table_link: TableLink | None = None,
) -> MessageSpec:
    """The lobby, with Join · Leave · Add computer player · Start, and the host's choice of
    length; ``closed`` ends it. The length shows the deals and time for the seats taken (3 at
    least: the fewest a game starts with), the empty ones counted as people."""
    _ = tr.gettext
    seats = [
        f"{index + 1}. {plain(seat.name)}{seat_kind(seat, tr)}"
        for index, seat in enumerate(row.seats)
    ]
    seats += [f"{index + 1}. —" for index in range(len(row.seats), row.max_seats)]
    embed = discord.Embed(
        title=_("Kachuful — a table is open") if closed is None else _("Kachuful — lobby closed"),
        description=(
            _("Bid the exact number of tricks you will take. Join, then the host starts the game.")
            if closed is None
            else closed
        ),
        colour=COLOUR_LOBBY if closed is None else COLOUR_OVER,
    )
    embed.add_field(name=_("Host"), value=host_name(row), inline=True)
    embed.add_field(
        name=_("Seats"),
        value=_("{taken} of {seats}").format(taken=len(row.seats), seats=row.max_seats),
        inline=True,
    )
    embed.add_field(name=_("Players"), value=clip("\n".join(seats), 1024), inline=False)
    players = max(MIN_PLAYERS, len(row.seats))
    humans = players - sum(1 for seat in row.seats if seat.user_id is None)
    length = length_lines(row.options, players, humans, pace, tr)
    embed.add_field(name=_("Length"), value=clip("\n".join(length), 1024), inline=False)
    embed.add_field(name=_("Rules"), value=clip("\n".join(option_lines(row.options, tr)), 1024))
    if closed is None:
        if row.max_seats == 3:
            needs = _("Needs 3 seats.")
        else:
            needs = _("Needs 3 to {seats} seats.").format(seats=row.max_seats)
        closes = tr.ngettext(
            "Closes in {n} minute unless the host starts it.",
            "Closes in {n} minutes unless the host starts it.",
            timeout_minutes,
        ).format(n=timeout_minutes)
        embed.set_footer(text=f"{needs} {closes}")
        full = len(row.seats) >= row.max_seats
        buttons: tuple[ButtonSpec, ...] = (
            ButtonSpec(("join", row.id, row.version), _("Join"), "success", disabled=full),
            ButtonSpec(("leave", row.id, row.version), _("Leave"), "secondary"),
            ButtonSpec(("cpu", row.id, row.version), _("Add computer player"), disabled=full),
            ButtonSpec(
                ("start", row.id, row.version),
                _("Start (host)"),
                "primary",
                disabled=len(row.seats) < 3,
            ),
            *length_buttons(row, tr),
        )
        buttons = with_open_table(buttons, table_link, tr)
    else:
        buttons = ()
    invited = invited_waiting(row) if closed is None else []
    if invited:
        # A rematch: the players of the last game are asked back (the mention notifies them
        # once, when the lobby is posted; edits do not notify again).
        people = " ".join(f"<@{user_id}>" for user_id in invited)
        content = "🔁 " + _("Rematch! {people}: click **Join** to take your seat again.").format(
            people=people
        )
        return MessageSpec(
            content=content, embeds=(embed,), buttons=buttons, mention_ids=tuple(invited)
        )
    return MessageSpec(embeds=(embed,), buttons=buttons)


def length_buttons(row: Table, tr: Translations) -> tuple[ButtonSpec, ...]:
    """Quick game · Classic game · Full game, for the host: the length chosen is shown pressed
    (and cannot be chosen again)."""
    chosen = row.options.rules["max_hand"]
    return tuple(
        ButtonSpec(
            ("length", row.id, length),
            tr.gettext(words),
            "primary" if length == chosen else "secondary",
            disabled=length == chosen,
            row=1,
        )
        for length, words in LENGTH_BUTTONS.items()
    )


def invited_waiting(row: Table) -> list[int]:
    invited = row.options.invited
    if invited is None:
        return []
    seated = {seat.user_id for seat in row.seats}
    return [user_id for user_id in invited if isinstance(user_id, int) and user_id not in seated]


def host_name(row: Table) -> str:
    """The host by name (a mention in an embed field shows as raw ``<@id>`` text)."""
    seat = row.seat_of(row.host_id)
    return plain(row.seats[seat].name) if seat is not None else "—"


def lobby_started(
    row: Table,
    tr: Translations,
    thread_id: int | None = None,
    game: Game | None = None,
    table_link: TableLink | None = None,
) -> MessageSpec:
    """The lobby once its game started: where the game is played and its seats; once it is
    over, who won instead (seats listed in order beside the final standings would read as a
    ranking), or that it was stopped."""
    _ = tr.gettext
    if row.status == "finished":
        return lobby_over(row, tr, thread_id, game)
    if row.status == "running":
        title = _("Kachuful — game started")
        if thread_id:
            description = _("The game is on: in the thread {thread}.").format(
                thread=f"<#{thread_id}>"
            )
        elif row.options.mode == "thread":
            description = _("The game is on: in a thread (opening…).")
        else:
            description = _("The game is on: see the messages below.")
    else:
        title = _("Kachuful — game stopped")
        description = _("The game was stopped without a result.")
    embed = discord.Embed(title=title, description=description, colour=COLOUR_OVER)
    embed.add_field(
        name=_("Players"),
        value=clip(
            "\n".join(
                f"{i + 1}. {plain(s.name)}{seat_kind(s, tr)}" for i, s in enumerate(row.seats)
            ),
            1024,
        ),
    )
    # While the game runs, its web table (when the web table is on).
    link = table_link if row.status == "running" else None
    return MessageSpec(embeds=(embed,), buttons=with_open_table((), link, tr))


def lobby_over(
    row: Table, tr: Translations, thread_id: int | None, game: Game | None
) -> MessageSpec:
    """A finished game's lobby: its winner (or shared winners) and where its final standings
    are (in the thread it was played in, linked)."""
    _ = tr.gettext
    where = (
        _("See the final standings (game played in {thread}).").format(thread=f"<#{thread_id}>")
        if thread_id
        else _("See the final standings.")
    )
    lines = [where]
    if game is not None and game.winners:
        lines.insert(0, "🏆 " + winners_headline(row, game, tr))
    embed = discord.Embed(
        title=_("Kachuful — game over"), description="\n".join(lines), colour=COLOUR_OVER
    )
    return MessageSpec(embeds=(embed,))


# ---- the game -------------------------------------------------------------------------------


def start_message(row: Table, game: Game, tr: Translations) -> MessageSpec:
    """The game's first message: the first dealer's draw and the rules in force."""
    _ = tr.gettext
    lines = []
    for number, draw_round in enumerate(game.draw or ()):
        cards = " · ".join(f"{name_of(row, seat)} `{label(card, tr)}`" for seat, card in draw_round)
        if number == 0:
            lines.append(_("Draw: {cards}").format(cards=cards))
        else:
            lines.append(_("Tie — draw again: {cards}").format(cards=cards))
    lines.append(
        _("Highest card deals first: {name}.").format(name=name_of(row, game.first_dealer))
    )
    note = resolve_note(row, tr)
    if note:
        lines.append(_("Note: {note}.").format(note=note))
    embed = discord.Embed(
        title=_("Rules in force at this table"),
        description=clip("\n".join(rules_lines(game.rules, tr)), 4096),
    )
    commitment = game.game_commitment()
    if commitment:
        embed.set_footer(text=fairness_line(commitment, tr))
    return MessageSpec(content=clip("🎴 " + "\n".join(lines), 2000), embeds=(embed,))


# The game's commitment is shown once, before the first deal, by its first hex digits: enough
# to compare by eye (64 bits); the export has the full value and every deal's seed.
SHORT_HEX = 16


def fairness_line(commitment: str, tr: Translations) -> str:
    return tr.gettext(
        "Fair dealing · shuffles committed: {commitment}… · "
        "the seeds are in /kachuful export after the game"
    ).format(commitment=commitment[:SHORT_HEX])


def resolve_note(row: Table, tr: Translations) -> str | None:
    max_hand, lowered = resolve_max_hand(row.options.rules["max_hand"], len(row.seats))
    if not lowered:
        return None
    return tr.gettext(
        "max hand lowered from {wanted} to {limit} (52 cards for {players} players)"
    ).format(wanted=row.options.rules["max_hand"], limit=max_hand, players=len(row.seats))


def winners_headline(row: Table, game: Game, tr: Translations) -> str:
    """Who won a finished game: its winner, or its shared winners."""
    winners = [name_of(row, seat) for seat in game.winners or ()]
    if len(winners) == 1:
        return tr.gettext("{name} wins!").format(name=winners[0])
    return tr.gettext("Shared win: {names} and {last}!").format(
        names=", ".join(winners[:-1]), last=winners[-1]
    )


def final_standings(
    row: Table, game: Game, tr: Translations, url: str | None = None
) -> MessageSpec:
    """The final standings; with ``url`` (the game's club page, when the web table is on)
    its title links the page of the game (scores, replay, review)."""
    _ = tr.gettext
    totals = list(game.totals)
    winners_seats = game.winners or ()
    names = [name_of(row, seat) for seat in range(len(row.seats))]
    lines = standing_lines(names, totals, winners_seats, tr)
    headline = winners_headline(row, game, tr)
    embed = discord.Embed(
        title=_("Kachuful — final standings"),
        description=clip(headline + "\n\n" + "\n".join(lines), 4096),
        colour=COLOUR_FINAL,
        url=url,
    )
    embed.set_footer(text=_("Results saved: see /kachuful leaderboard · /kachuful stats"))
    embed.set_image(url=f"attachment://{CHART_FILE}")
    again = ButtonSpec(("again", row.id), _("Play again"), "success", emoji="🔁")
    review = ButtonSpec(("review", row.id, 0), _("Review"), emoji="🔍")
    # An event's table has its next round seated by the event: no "Play again".
    buttons = (review,) if row.options.event_title is not None else (again, review)
    # The chart's bytes are drawn by the publisher, off the event loop, when it posts this.
    return MessageSpec(embeds=(embed,), buttons=buttons, attachment=(CHART_FILE, b""))


CHART_FILE = "kachuful-scores.png"


def scoreboard(row: Table, game: Game, tr: Translations) -> MessageSpec:
    """/kachuful score: totals so far and the current deal."""
    _ = tr.gettext
    lines = []
    for seat, entry in enumerate(row.seats):
        bid = game.bids[seat]
        now = (
            _("bid {bid}, won {won}").format(bid=bid, won=game.tricks_won[seat])
            if bid is not None and game.phase is not Phase.FINISHED
            else "—"
        )
        total = f"**{whole(game.totals[seat], tr)}** ({now})"
        lines.append(pair(f"{name_of(row, seat)}{seat_kind(entry, tr)}", total, tr))
    if game.phase is Phase.FINISHED:
        title = _("Kachuful — final scores")
    else:
        title = _("Kachuful — scores so far (deal {deal} of {deals} in play)").format(
            deal=game.deal_number, deals=game.num_deals
        )
    embed = discord.Embed(
        title=title, description=clip("\n".join(lines), 4096), colour=COLOUR_SCORES
    )
    if game.turn is not None and game.phase is not Phase.FINISHED:
        name = row.seats[game.turn].name
        if game.phase is Phase.BIDDING:
            embed.set_footer(text=_("{name} to bid.").format(name=name))
        else:
            embed.set_footer(text=_("{name} to play.").format(name=name))
    return MessageSpec(embeds=(embed,))


def rules_message(rules_text_lines: list[str], title: str) -> MessageSpec:
    embed = discord.Embed(title=title, description=clip("\n".join(rules_text_lines), 4096))
    return MessageSpec(embeds=(embed,))


def game_rules(game: Game, tr: Translations) -> MessageSpec:
    return rules_message(rules_lines(game.rules, tr), tr.gettext("Rules in force at this table"))


def lobby_rules(options: TableOptions, tr: Translations) -> MessageSpec:
    """/kachuful rules while the table is still a lobby: the options chosen."""
    return rules_message(lobby_rules_lines(options, tr), tr.gettext("Rules chosen for this table"))


def level_chooser(row: Table, levels: list[str], tr: Translations) -> MessageSpec:
    """After "Add computer player": the levels this table allows, weakest first."""
    from bot.registry import LEVEL_DESCRIPTIONS

    from .words import level_name, notice

    lines = [notice("choose_level", tr)]
    lines += [
        pair(f"**{level_name(level, tr)}**", tr.gettext(LEVEL_DESCRIPTIONS[level]), tr)
        for level in levels
        if level in LEVEL_DESCRIPTIONS
    ]
    buttons = tuple(
        ButtonSpec(
            ("level", row.id, row.version, level), level_name(level, tr), "primary", emoji="🤖"
        )
        for level in levels
    )
    return MessageSpec(content="\n".join(lines), buttons=buttons)
