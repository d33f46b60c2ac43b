"""Public table messages: the lobby, the draw, each deal, each trick, scores and standings."""

from __future__ import annotations

import discord

from bot.model import GameRow, TableOptions
from bot.options import resolve_max_hand
from bot.pace import DEFAULT_PACE, Pace
from bot.registry import LENGTH_BUTTONS
from kachuful_core import Game, Phase
from kachuful_core.rules import MIN_PLAYERS

from .cards import label
from .specs import ButtonSpec, MessageSpec, clip
from .words import (
    length_lines,
    lobby_rules_lines,
    name_of,
    option_lines,
    plain,
    rules_lines,
    seat_kind,
)

COLOUR_TABLE = discord.Colour.dark_green()
COLOUR_LOBBY = discord.Colour.blurple()
COLOUR_SCORES = discord.Colour.teal()
COLOUR_FINAL = discord.Colour.gold()
COLOUR_OVER = discord.Colour.dark_grey()


def hand_button(row: GameRow) -> ButtonSpec:
    return ButtonSpec(("hand", row.id), "Your hand", style="primary", emoji="🂠")


# ---- lobby ----------------------------------------------------------------------------------


def lobby(
    row: GameRow, *, timeout_minutes: int, pace: Pace = DEFAULT_PACE, closed: str | None = None
) -> MessageSpec:
    """The lobby, with Join · Leave · Add computer player · Start, and the host's choice of
    length; ``closed`` ends it. The length shows the deals and time for the seats taken (3 at
    least: the fewest a game starts with), the empty ones counted as people."""
    seats = [
        f"{index + 1}. {plain(seat.name)}{seat_kind(seat)}" for index, seat in enumerate(row.seats)
    ]
    seats += [f"{index + 1}. —" for index in range(len(row.seats), row.max_seats)]
    embed = discord.Embed(
        title="Kachuful — a table is open" if closed is None else "Kachuful — lobby closed",
        description=(
            "Bid the exact number of tricks you will take. Join, then the host starts the game."
            if closed is None
            else closed
        ),
        colour=COLOUR_LOBBY if closed is None else COLOUR_OVER,
    )
    embed.add_field(name="Host", value=host_name(row), inline=True)
    embed.add_field(name="Seats", value=f"{len(row.seats)} of {row.max_seats}", inline=True)
    embed.add_field(name="Players", value=clip("\n".join(seats), 1024), inline=False)
    players = max(MIN_PLAYERS, len(row.seats))
    humans = players - sum(1 for seat in row.seats if seat.user_id is None)
    length = length_lines(row.options, players, humans, pace)
    embed.add_field(name="Length", value=clip("\n".join(length), 1024), inline=False)
    embed.add_field(name="Rules", value=clip("\n".join(option_lines(row.options)), 1024))
    if closed is None:
        needs = "3 seats" if row.max_seats == 3 else f"3 to {row.max_seats} seats"
        embed.set_footer(
            text=f"Needs {needs}. Closes in {timeout_minutes} minutes unless the host starts it."
        )
        full = len(row.seats) >= row.max_seats
        buttons: tuple[ButtonSpec, ...] = (
            ButtonSpec(("join", row.id, row.version), "Join", "success", disabled=full),
            ButtonSpec(("leave", row.id, row.version), "Leave", "secondary"),
            ButtonSpec(("cpu", row.id, row.version), "Add computer player", disabled=full),
            ButtonSpec(
                ("start", row.id, row.version),
                "Start (host)",
                "primary",
                disabled=len(row.seats) < 3,
            ),
            *length_buttons(row),
        )
    else:
        buttons = ()
    invited = invited_waiting(row) if closed is None else []
    if invited:
        # A rematch: the players of the last game are asked back (the mention notifies them
        # once, when the lobby is posted; edits do not notify again).
        people = " ".join(f"<@{user_id}>" for user_id in invited)
        content = f"🔁 Rematch! {people}: click **Join** to take your seat again."
        return MessageSpec(
            content=content, embeds=(embed,), buttons=buttons, mention_ids=tuple(invited)
        )
    return MessageSpec(embeds=(embed,), buttons=buttons)


def length_buttons(row: GameRow) -> tuple[ButtonSpec, ...]:
    """Quick game · Classic game · Full game, for the host: the length chosen is shown pressed
    (and cannot be chosen again)."""
    chosen = row.options.max_hand
    return tuple(
        ButtonSpec(
            ("length", row.id, length),
            words,
            "primary" if length == chosen else "secondary",
            disabled=length == chosen,
            row=1,
        )
        for length, words in LENGTH_BUTTONS.items()
    )


def invited_waiting(row: GameRow) -> list[int]:
    invited = row.options.invited
    if invited is None:
        return []
    seated = {seat.user_id for seat in row.seats}
    return [user_id for user_id in invited if isinstance(user_id, int) and user_id not in seated]


def host_name(row: GameRow) -> str:
    """The host by name (a mention in an embed field shows as raw ``<@id>`` text)."""
    seat = row.seat_of(row.host_id)
    return plain(row.seats[seat].name) if seat is not None else "—"


def lobby_started(row: GameRow, thread_id: int | None = None) -> MessageSpec:
    if row.status == "running":
        where = f"in the thread <#{thread_id}>" if thread_id else "see the messages below"
        if row.options.mode == "thread" and not thread_id:
            where = "in a thread (opening…)"
        title, description = "Kachuful — game started", f"The game is on: {where}."
    elif row.status == "finished":
        title = "Kachuful — game over"
        description = "See the final standings" + (
            f" (game played in <#{thread_id}>)." if thread_id else "."
        )
    else:
        title, description = "Kachuful — game stopped", "The game was stopped without a result."
    embed = discord.Embed(title=title, description=description, colour=COLOUR_OVER)
    embed.add_field(
        name="Players",
        value=clip(
            "\n".join(f"{i + 1}. {plain(s.name)}{seat_kind(s)}" for i, s in enumerate(row.seats)),
            1024,
        ),
    )
    return MessageSpec(embeds=(embed,))


# ---- the game -------------------------------------------------------------------------------


def start_message(row: GameRow, game: Game) -> MessageSpec:
    """The game's first message: the first dealer's draw and the rules in force."""
    lines = []
    for number, draw_round in enumerate(game.draw or ()):
        cards = " · ".join(f"{name_of(row, seat)} `{label(card)}`" for seat, card in draw_round)
        prefix = "Draw" if number == 0 else "Tie — draw again"
        lines.append(f"{prefix}: {cards}")
    lines.append(f"Highest card deals first: {name_of(row, game.first_dealer)}.")
    note = resolve_note(row)
    if note:
        lines.append(f"Note: {note}.")
    embed = discord.Embed(
        title="Rules in force at this table",
        description=clip("\n".join(rules_lines(game.rules)), 4096),
    )
    commitment = game.game_commitment()
    if commitment:
        embed.set_footer(text=fairness_line(commitment))
    return MessageSpec(content=clip("🎴 " + "\n".join(lines), 2000), embeds=(embed,))


# The game's commitment is shown once, before the first deal, by its first hex digits: enough
# to compare by eye (64 bits); the export has the full value and every deal's seed.
SHORT_HEX = 16


def fairness_line(commitment: str) -> str:
    return (
        f"Fair dealing · shuffles committed: {commitment[:SHORT_HEX]}… · "
        "the seeds are in /kachuful export after the game"
    )


def resolve_note(row: GameRow) -> str | None:
    return resolve_max_hand(row.options.max_hand, len(row.seats))[1]


def final_standings(row: GameRow, game: Game) -> MessageSpec:
    totals = list(game.totals)
    winners_seats = game.winners or ()
    order = sorted(range(len(row.seats)), key=lambda s: (-totals[s], s))
    lines = []
    rank = 0
    previous: int | None = None
    for position, seat in enumerate(order, start=1):
        if totals[seat] != previous:
            rank = position
            previous = totals[seat]
        crown = " 🏆" if seat in winners_seats else ""
        lines.append(f"{rank}. {name_of(row, seat)} — {totals[seat]}{crown}")
    winners = [name_of(row, seat) for seat in winners_seats]
    if len(winners) == 1:
        headline = f"{winners[0]} wins!"
    else:
        headline = f"Shared win: {', '.join(winners[:-1])} and {winners[-1]}!"
    embed = discord.Embed(
        title="Kachuful — final standings",
        description=clip(headline + "\n\n" + "\n".join(lines), 4096),
        colour=COLOUR_FINAL,
    )
    embed.set_footer(text="Results saved: see /kachuful leaderboard · /kachuful stats")
    embed.set_image(url=f"attachment://{CHART_FILE}")
    again = ButtonSpec(("again", row.id), "Play again", "success", emoji="🔁")
    # The chart's bytes are drawn by the publisher, off the event loop, when it posts this.
    return MessageSpec(embeds=(embed,), buttons=(again,), attachment=(CHART_FILE, b""))


CHART_FILE = "kachuful-scores.png"


def scoreboard(row: GameRow, game: Game) -> MessageSpec:
    """/kachuful score: totals so far and the current deal."""
    lines = []
    for seat, entry in enumerate(row.seats):
        bid = game.bids[seat]
        now = (
            f"bid {bid}, won {game.tricks_won[seat]}"
            if bid is not None and game.phase is not Phase.FINISHED
            else "—"
        )
        lines.append(f"{name_of(row, seat)}{seat_kind(entry)}: **{game.totals[seat]}** ({now})")
    if game.phase is Phase.FINISHED:
        title = "Kachuful — final scores"
    else:
        title = f"Kachuful — scores so far (deal {game.deal_number} of {game.num_deals} in play)"
    embed = discord.Embed(
        title=title, description=clip("\n".join(lines), 4096), colour=COLOUR_SCORES
    )
    if game.turn is not None and game.phase is not Phase.FINISHED:
        verb = "bid" if game.phase is Phase.BIDDING else "play"
        embed.set_footer(text=f"{row.seats[game.turn].name} to {verb}.")
    return MessageSpec(embeds=(embed,))


def rules_message(rules_text_lines: list[str], title: str) -> MessageSpec:
    embed = discord.Embed(title=title, description=clip("\n".join(rules_text_lines), 4096))
    return MessageSpec(embeds=(embed,))


def game_rules(game: Game) -> MessageSpec:
    return rules_message(rules_lines(game.rules), "Rules in force at this table")


def lobby_rules(options: TableOptions) -> MessageSpec:
    """/kachuful rules while the table is still a lobby: the options chosen."""
    return rules_message(lobby_rules_lines(options), "Rules chosen for this table")


def level_chooser(row: GameRow, levels: list[str]) -> MessageSpec:
    """After "Add computer player": the levels this table allows, weakest first."""
    from bot.registry import LEVEL_DESCRIPTIONS

    from .words import level_name, notice

    lines = [notice("choose_level")]
    lines += [f"**{level_name(level)}**: {LEVEL_DESCRIPTIONS.get(level, '')}" for level in levels]
    buttons = tuple(
        ButtonSpec(("level", row.id, row.version, level), level_name(level), "primary", emoji="🤖")
        for level in levels
    )
    return MessageSpec(content="\n".join(lines), buttons=buttons)
