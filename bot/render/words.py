"""Shared wording: names, mentions, rules and the refusals a player can meet."""

from __future__ import annotations

from typing import Any

import discord

from bot.model import GameRow, Seat, TableOptions
from bot.options import table_rules
from bot.pace import Pace, duration_text, game_seconds
from bot.registry import LEVEL_NAMES, OPTIONS, RULES_TEXT_OPTIONS
from kachuful_core import (
    BidOutOfRange,
    BlindBidAfterLooking,
    CardNotInHand,
    DealerBidForbidden,
    InvalidSeat,
    KachufulError,
    MustFollowSuit,
    NotYourTurn,
    OptionNotEnabled,
    RecordError,
    Rules,
    WrongPhase,
)
from kachuful_core.cards import SUIT_NAMES
from kachuful_core.rules import LENGTHS

from .cards import hand_text, label

SCHEDULE_NAMES = OPTIONS["schedule"].words_of
TRUMP_NAMES = OPTIONS["trump"].words_of
SCORING_NAMES = OPTIONS["scoring"].words_of


def plain(name: str) -> str:
    """A display name made safe to show: no markdown, no mentions."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(name))


def seat_name(seat: Seat) -> str:
    return f"**{plain(seat.name)}**"


def seat_ref(seat: Seat, *, mention: bool = False) -> str:
    """A mention for a human who is playing, else the bold name."""
    if mention and seat.user_id is not None and not seat.away:
        return f"<@{seat.user_id}>"
    return seat_name(seat)


def level_name(level: str | None) -> str:
    """A computer level as a player reads it: "Expert", "Casual", "Beginner"."""
    return LEVEL_NAMES.get(level or "heuristic", level or "computer")


def seat_kind(seat: Seat) -> str:
    if seat.user_id is None:
        kind = f"computer · {level_name(seat.level)}"
        return f" ({kind})" if seat.left_user_id is None else f" ({kind} — player left)"
    if seat.away:
        return " (away — computer playing)"
    return ""


def name_of(row: GameRow, seat: int) -> str:
    return seat_name(row.seats[seat])


def max_hand_text(choice: Any) -> str:
    """A table's ``max_hand`` option as players read it: a length, or a number of cards."""
    if choice is None or choice in LENGTHS:
        return "Length: " + OPTIONS["length"].words(choice or OPTIONS["length"].default)
    count = int(choice)
    return f"Max hand: {count} card{'s' if count != 1 else ''} (at most 52 ÷ players)"


def lobby_rules_lines(options: TableOptions) -> list[str]:
    """The options chosen at /kachuful start, before the number of players is known."""
    return [max_hand_text(options.max_hand), *option_lines(options)]


def option_lines(options: TableOptions) -> list[str]:
    """The table options besides the length, one line each, as the registry words them."""
    lines = []
    for name in RULES_TEXT_OPTIONS:
        option = OPTIONS[name]
        lines.append(f"{option.label}: {option.words(getattr(options, name))}")
    return lines


def length_lines(options: TableOptions, players: int, humans: int, pace: Pace) -> list[str]:
    """How long the game will be with ``players`` seats (``humans`` of them people): the
    length chosen, the number of deals, and the time it takes at the table's pace."""
    rules, _ = table_rules(options, players)
    minutes = duration_text(game_seconds(rules, humans, pace))
    choice = options.max_hand
    chosen = (
        OPTIONS["length"].words(choice or OPTIONS["length"].default)
        if choice is None or choice in LENGTHS
        else max_hand_text(choice)
    )
    return [
        chosen,
        f"**{rules.num_deals} deals** with {players} players ({minutes} at this table's pace)",
        "The host picks a quick, classic or full game below.",
    ]


def rules_lines(rules: Rules) -> list[str]:
    """The rules in force for a running game."""
    sizes = rules.hand_sizes
    return [
        f"Players: {rules.players}",
        f"Hands: {' '.join(str(s) for s in sizes)} ({rules.num_deals} deals)"
        if len(sizes) <= 25
        else f"Hands: {sizes[0]} … {min(sizes)} … {sizes[-1]} ({rules.num_deals} deals)",
        f"Schedule: {SCHEDULE_NAMES[rules.schedule]}",
        f"Trump: {TRUMP_NAMES[rules.trump]}",
        "Hook rule: on — the dealer may not bid so that the bids add up to the tricks"
        if rules.hook
        else "Hook rule: off",
        f"Scoring: {SCORING_NAMES[rules.scoring]}",
        "Blind bids: on — an exact blind bid scores double"
        if rules.blind_bids
        else "Blind bids: off",
        "Forehead one-card deal: on — you see everyone's card but your own"
        if rules.forehead
        else "Forehead one-card deal: off",
    ]


# ---- refusals ------------------------------------------------------------------------------

REFUSALS = {
    "stale": "That button is out of date: the table has moved on since it was shown. "
    "Nothing was changed.",
    "no_table": "There is no game at this table any more.",
    "no_game_here": "There is no Kachuful game in this channel. Start one with `/kachuful start`.",
    "not_seated": "You are not seated at this table.",
    "already_seated": "You already have a seat at this table.",
    "table_full": "Every seat is taken.",
    "not_host": "Only the host can do that.",
    "not_host_or_manager": "Only the host or someone with Manage Server can stop the game.",
    "need_players": "At least 3 seats must be filled to start.",
    "not_lobby": "The game has already started.",
    "not_running": "The game is not running.",
    "not_away": "Your seat is not being played by the computer: you are already at the table.",
    "not_your_seat": "That is not your seat.",
    "not_a_player": "Only the players of that game can start a rematch.",
    "away": "The computer is playing your seat after your time-outs: click “I'm back” "
    "(on the message that said so) to take it back.",
    "record_hidden": "A game record shows every hand: it can be exported once the game is over.",
    "no_finished_game": "No finished game in this channel to export yet.",
    "guild_only": "Kachuful is played in a server channel, not in direct messages.",
    "dead_button": "This button no longer works.",
    "bad_length": "A game is quick, classic or full: nothing was changed.",
    "damaged": "This channel's game could not be restored after the bot restarted. The host or "
    "someone with Manage Server can close it with `/kachuful stop`; then start a new one.",
}

# What the bot tells players about changes at the table (lobby, seats, time-outs, failures).
NOTICES = {
    "joined": "You joined the table.",
    "left_lobby": "You left the table.",
    "new_host": "You left the table. <@{host}> is the host now.",
    "computer_sits": "{name} takes a seat.",
    "choose_level": "Which computer player? The level shows at its seat.",
    "no_computers": "Computer players cannot join tables in this channel.",
    "host_left_lobby_closed": "The host left; the lobby is closed.",
    "you_left_lobby_closed": "You left; the lobby is closed.",
    "lobby_closed_by": "The lobby was closed by {by}.",
    "lobby_timed_out": "Nobody started the game within {minutes} minutes.",
    "game_started": "The game has started.",
    "length_already": "This table is already set for a {length}.",
    "max_hand_lowered": "Note: {note}.",
    "busy": "A game is already open in this channel.",
    "busy_running": "A game is already running in this channel: {link}",
    "busy_lobby": "A game is already waiting for players in this channel: {link}",
    "you_left_game": "You left the game.",
    "back": "👋 {name} is back at the table.",
    "welcome_back": "Welcome back: your seat is yours again.",
    "damaged_stopped": "🛑 The game that could not be restored was closed by {by}. "
    "It does not count for the leaderboard.",
    "export": "Record of game #{game} (kachuful-record/1).",
    "click_failed": "Something went wrong with that click; please try again.",
    "command_failed": "Something went wrong; the table is unchanged. Please try again.",
    "busy_db": "The table is busy (its database is locked for a moment): nothing was changed. "
    "Please try again in a few seconds.",
    "cannot_save": "⚠️ The bot cannot save anything right now (its storage is full or "
    "failing), so nothing was changed. Please try again later.",
    "already_bid": "Your bid of {bid} was placed (your first click counted).",
    "already_played": "You played {card} (your first click counted).",
    "you_stopped": "You stopped the game.",
    "restarting": "The bot is restarting: nothing was changed. Please try again in a moment.",
    "game_started_thread": "The game has started in a thread opened from the lobby.",
    "thread_needs_channel": "a channel that is not a thread",
    "thread_name": "Kachuful #{game}: {names}",
    "hand_game_stopped": "The game was stopped: there is nothing more to play.",
    "hand_expired": "⌛ This message stopped updating: Discord lets the bot change it for 15 "
    "minutes only. Click Refresh below, “Your hand” in the channel, or `/kachuful hand` for a "
    "fresh one.",
}


def thread_fallback(missing: list[str]) -> str:
    """/kachuful start mode:thread where the bot cannot open threads: the channel instead."""
    wanted = ", ".join(name.replace("_", " ").title() for name in missing)
    return (
        f"I cannot play this game in a thread here (I need: {wanted}), so it is played in this "
        "channel instead. Grant those permissions to use thread mode next time."
    )


COMPUTER_NAMES = ("Ada", "Babbage", "Turing", "Hopper", "Lovelace", "Knuth", "Shannon")


def missing_permissions(names: list[str]) -> str:
    """/kachuful start where the bot cannot post the table: what to grant."""
    wanted = ", ".join(name.replace("_", " ").title() for name in names)
    return (
        "I cannot run a table in this channel: I need these permissions here: "
        f"{wanted}. Ask someone with Manage Server or Manage Channels to grant them."
    )


def hours_text(hours: float) -> str:
    """A duration in hours as a person writes it: "1 hour", "1.5 hours", "24 hours"."""
    return f"{hours:g} hour{'' if hours == 1 else 's'}"


def notice(code: str, **values: Any) -> str:
    return NOTICES[code].format(**values)


def computer_name(taken: set[str], seat_number: int) -> str:
    """A name for a new computer player that no seat has yet."""
    return next(
        (f"{n} 🤖" for n in COMPUTER_NAMES if f"{n} 🤖" not in taken),
        f"Computer {seat_number} 🤖",
    )


def refused_move(error: KachufulError, row: GameRow) -> str:
    """The notice on a hand message when the rules refused a bid or a card."""
    return "⚠️ " + engine_error(error, row)


def refusal(code: str) -> str:
    return REFUSALS.get(code) or "That cannot be done now."


def engine_error(error: KachufulError, row: GameRow) -> str:
    """The words for each refusal of the rules engine."""

    def who(seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(row.seats):
            return "nobody"
        return name_of(row, seat)

    if isinstance(error, NotYourTurn):
        return f"It is not your turn: {who(error.expected)} is to play."
    if isinstance(error, WrongPhase):
        if error.expected == "bidding":
            return "Bidding is over for this deal: it is time to play cards."
        if error.expected == "playing":
            return "Bidding is not over yet: cards are played once everyone has bid."
        return "The game is not at that stage."
    if isinstance(error, MustFollowSuit):
        return (
            f"You must follow {SUIT_NAMES[error.suit]}: you hold "
            f"{hand_text(error.held)}, so {label(error.played)} cannot be played."
        )
    if isinstance(error, CardNotInHand):
        card = label(error.card) if isinstance(error.card, int) and 0 <= error.card < 52 else "?"
        return f"{card} is not in your hand."
    if isinstance(error, DealerBidForbidden):
        return (
            f"As the dealer you may not bid {error.forbidden}: the bids would add up to the "
            "number of tricks (hook rule), and someone must miss."
        )
    if isinstance(error, BidOutOfRange):
        return f"Bids run from {error.low} to {error.high}."
    if isinstance(error, BlindBidAfterLooking):
        return "You have looked at your hand, so you can no longer bid blind."
    if isinstance(error, OptionNotEnabled):
        names = {"blind_bids": "Blind bids", "forehead": "The forehead deal"}
        return f"{names.get(error.option, error.option)} is not in play at this table."
    if isinstance(error, InvalidSeat):
        return "There is no such seat at this table."
    if isinstance(error, RecordError):
        return f"The game record is not valid: {error}"
    return "The rules do not allow that."
