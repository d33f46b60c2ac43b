"""Shared wording: names, mentions, rules and the refusals a player can meet."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from bot.i18n import EN, N_, Translations
from bot.model import Seat, Table, TableOptions
from bot.options import table_rules
from bot.pace import Pace, game_seconds, rounded_minutes
from bot.rating import places
from bot.registry import LEVEL_NAMES, OPTIONS, rules_text_options
from kachuful_core import (
    BidOutOfRange,
    BlindBidAfterLooking,
    CardNotAllowed,
    CardNotInHand,
    ClaimNotCertain,
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
from kachuful_core.errors import NothingToTakeBack
from kachuful_core.rules import LENGTHS, made_bid

from . import escape, numbers
from .cards import hand_text, label, suit_name
from .permissions import fill, permission_names

# Each message takes the translations of its reader (a private message) or of its table (a
# public one) as ``tr``: words written here in English are the catalogue's source (bot/i18n.py).


plain = escape.plain  # a display name made safe to show: no markdown, no mentions


def seat_name(seat: Seat) -> str:
    return f"**{plain(seat.name)}**"


def seat_ref(seat: Seat, *, mention: bool = False) -> str:
    """A mention for a human who is playing, else the bold name."""
    if mention and seat.user_id is not None and not seat.away:
        return f"<@{seat.user_id}>"
    return seat_name(seat)


def level_name(level: str | None, tr: Translations) -> str:
    """A computer level as a player reads it: "Expert", "Casual", "Beginner"."""
    name = LEVEL_NAMES.get(level or "heuristic")
    return tr.gettext(name) if name else level or tr.gettext("computer")


def seat_kind(seat: Seat, tr: Translations) -> str:
    if seat.user_id is None:
        level = level_name(seat.level, tr)
        if seat.left_user_id is None:
            return " " + tr.gettext("(computer · {level})").format(level=level)
        return " " + tr.gettext("(computer · {level} — player left)").format(level=level)
    if seat.away:
        return " " + tr.gettext("(away — computer playing)")
    return ""


def name_of(row: Table, seat: int) -> str:
    return seat_name(row.seats[seat])


def max_hand_text(choice: Any, tr: Translations) -> str:
    """A table's ``max_hand`` option as players read it: a length, or a number of cards."""
    if choice is None or choice in LENGTHS:
        length = OPTIONS["length"]
        words = length.words(choice or length.default, tr)
        return tr.gettext("Length: {length}").format(length=words)
    count = int(choice)
    return tr.ngettext(
        "Max hand: {n} card (at most 52 ÷ players)",
        "Max hand: {n} cards (at most 52 ÷ players)",
        count,
    ).format(n=count)


def lobby_rules_lines(options: TableOptions, tr: Translations) -> list[str]:
    """The options chosen at /kachuful start, before the number of players is known."""
    return [max_hand_text(options.rules["max_hand"], tr), *option_lines(options, tr)]


def option_lines(options: TableOptions, tr: Translations) -> list[str]:
    """The table options besides the length, one line each, as the registry words them."""
    return rule_lines(options.rules, tr)


def rule_lines(values: Mapping[str, Any], tr: Translations, *, in_force: bool = False) -> list[str]:
    """The rules texts' lines, generated from the registry for the lobby and the running game
    alike (``values``: each rule's value by its name; ``in_force``: a running game's words):
    one per rule option but the length, in the registry's order."""
    return [o.rule_line(values[o.name], tr, in_force=in_force) for o in rules_text_options()]


def duration_text(seconds: float, tr: Translations) -> str:
    """ "under a minute", "about 7 min", "about 25 min", "about 1 h 50 min"."""
    minutes = rounded_minutes(seconds)
    if minutes == 0:
        return tr.gettext("under a minute")
    if minutes < 60:
        return tr.gettext("about {minutes} min").format(minutes=minutes)
    hours, rest = divmod(minutes, 60)
    # Counted by the hours: Hindi says "1 घंटा" but "2 घंटे".
    if rest == 0:
        return tr.ngettext("about {hours} h", "about {hours} h", hours).format(hours=hours)
    return tr.ngettext(
        "about {hours} h {minutes} min", "about {hours} h {minutes} min", hours
    ).format(hours=hours, minutes=rest)


def length_lines(
    options: TableOptions, players: int, humans: int, pace: Pace, tr: Translations
) -> list[str]:
    """How long the game will be with ``players`` seats (``humans`` of them people): the
    length chosen, the number of deals, and the time it takes at the table's pace."""
    rules, _ = table_rules(options, players)
    minutes = duration_text(game_seconds(rules, humans, pace), tr)
    choice = options.rules["max_hand"]
    chosen = (
        OPTIONS["length"].words(choice or OPTIONS["length"].default, tr)
        if choice is None or choice in LENGTHS
        else max_hand_text(choice, tr)
    )
    deals = tr.ngettext("**{n} deal**", "**{n} deals**", rules.num_deals).format(n=rules.num_deals)
    return [
        chosen,
        tr.ngettext(
            "{deals} with {n} player ({minutes} at this table's pace)",
            "{deals} with {n} players ({minutes} at this table's pace)",
            players,
        ).format(deals=deals, n=players, minutes=minutes),
        tr.gettext("The host picks a quick, classic or full game below."),
    ]


def rules_lines(rules: Rules, tr: Translations) -> list[str]:
    """The rules in force for a running game."""
    sizes = rules.hand_sizes
    hands = (
        " ".join(str(s) for s in sizes)
        if len(sizes) <= 25
        else f"{sizes[0]} … {min(sizes)} … {sizes[-1]}"
    )
    deals = tr.ngettext("{n} deal", "{n} deals", rules.num_deals).format(n=rules.num_deals)
    return [
        tr.gettext("Players: {n}").format(n=rules.players),
        tr.gettext("Hands: {hands} ({deals})").format(hands=hands, deals=deals),
        *rule_lines(rules.options(), tr, in_force=True),
    ]


# ---- refusals ------------------------------------------------------------------------------

REFUSALS = {
    "stale": N_(
        "That button is out of date: the table has moved on since it was shown. "
        "Nothing was changed."
    ),
    "no_table": N_("There is no game at this table any more."),
    "no_game_here": N_(
        "There is no Kachuful game in this channel. Start one with `/kachuful start`."
    ),
    "not_seated": N_("You are not seated at this table."),
    "already_seated": N_("You already have a seat at this table."),
    "table_full": N_("Every seat is taken."),
    "not_host": N_("Only the host can do that."),
    "not_host_or_manager": N_("Only the host or someone with {manage_guild} can stop the game."),
    "need_players": N_("At least 3 seats must be filled to start."),
    "not_lobby": N_("The game has already started."),
    "not_running": N_("The game is not running."),
    "not_away": N_("Your seat is not being played by the computer: you are already at the table."),
    "not_your_seat": N_("That is not your seat."),
    "not_a_player": N_("Only the players of that game can start a rematch."),
    "away": N_(
        "The computer is playing your seat after your time-outs: click “I'm back” "
        "(on the message that said so) to take it back."
    ),
    "record_hidden": N_(
        "A game record shows every hand: it can be exported once the game is over."
    ),
    "guild_only": N_("Kachuful is played in a server channel, not in direct messages."),
    "dead_button": N_("This button no longer works."),
    "bad_length": N_("A game is quick, classic or full: nothing was changed."),
    "damaged": N_(
        "This channel's game could not be restored after the bot restarted. The host or "
        "someone with {manage_guild} can close it with `/kachuful stop`; then start a new one."
    ),
    # The results commands (cogs/leaderboard.py, stats.py, history.py, settings.py).
    "bad_option": N_("`{name}` must be one of {choices}."),
    "no_stats": N_("{name} has not finished a game in this server yet."),
    "board_unreadable": N_("Sorry, the leaderboard could not be read just now."),
    "no_game": N_("There is no game {game} in this channel."),
    "no_finished_game": N_("No finished game to export in this channel yet."),
    "not_your_game": N_(
        "Game {game} is still being played: only its players can export it so far."
    ),
    "not_manager": N_("Only members with **{manage_guild}** can change this channel's settings."),
    "bad_setting": "{problem}",
}

# What the bot tells players about changes at the table (lobby, seats, time-outs, failures).
NOTICES = {
    "joined": N_("You joined the table."),
    "left_lobby": N_("You left the table."),
    "new_host": N_("You left the table. <@{host}> is the host now."),
    "computer_sits": N_("{name} takes a seat."),
    "choose_level": N_("Which computer player? The level shows at its seat."),
    "no_computers": N_("Computer players cannot join tables in this channel."),
    "host_left_lobby_closed": N_("The host left; the lobby is closed."),
    "you_left_lobby_closed": N_("You left; the lobby is closed."),
    "lobby_closed_by": N_("The lobby was closed by {by}."),
    "game_started": N_("The game has started."),
    # One sentence per length (a length put into one sentence would need another case of it
    # in Hindi: "छोटे गेम के लिए", not "छोटा गेम के लिए").
    "length_already_quick": N_("This table is already set for a quick game."),
    "length_already_classic": N_("This table is already set for a classic game."),
    "length_already_full": N_("This table is already set for a full game."),
    "max_hand_lowered": N_("Note: {note}."),
    "busy": N_("A game is already open in this channel."),
    "busy_running": N_("A game is already running in this channel: {link}"),
    "busy_lobby": N_("A game is already waiting for players in this channel: {link}"),
    # Play again clicked in the thread a game was played in: the lobby is in its channel.
    "lobby_opened_in": N_("The new table is open in {channel}: the players join it there."),
    "you_left_game": N_("You left the game."),
    "back": N_("👋 {name} is back at the table."),
    "welcome_back": N_("Welcome back: your seat is yours again."),
    "taken_back": N_("Taken back: it is your turn again."),
    "confirm_cards_on": N_(
        "From now on, a card you click counts only once you confirm it with the green button."
    ),
    "confirm_cards_off": N_("From now on, a card you click counts at once."),
    "confirm_card": N_("Play {card}? Confirm with the green button, or choose another card."),
    "single_card_on": N_(
        "From now on, when you have only one card you may play, it is played for you."
    ),
    "single_card_off": N_("Your cards now wait for your click, even when only one may be played."),
    "damaged_stopped": N_(
        "🛑 The game that could not be restored was closed by {by}. "
        "It does not count for the leaderboard."
    ),
    "export": N_("Record of game #{game} (kachuful-record/1)."),
    "click_failed": N_("Something went wrong with that click; please try again."),
    "counted": N_("Done: that counted. Open your hand again to see it."),
    "command_failed": N_("Something went wrong; the table is unchanged. Please try again."),
    "busy_db": N_(
        "The table is busy (its database is locked for a moment): nothing was changed. "
        "Please try again in a few seconds."
    ),
    "cannot_save": N_(
        "⚠️ The bot cannot save anything right now (its storage is full or "
        "failing), so nothing was changed. Please try again later."
    ),
    "already_bid": N_("Your bid of {bid} was placed (your first click counted)."),
    "already_played": N_("You played {card} (your first click counted)."),
    "you_stopped": N_("You stopped the game."),
    "restarting": N_("The bot is restarting: nothing was changed. Please try again in a moment."),
    "game_started_thread": N_("The game has started in a thread opened from the lobby."),
    "thread_name": N_("Kachuful #{game}: {names}"),
    "hand_game_stopped": N_("The game was stopped: there is nothing more to play."),
    "hand_expired": N_(
        "⌛ This message stopped updating: Discord lets the bot change it for 15 "
        "minutes only. Click Refresh below, “Your hand” in the channel, or `/kachuful hand` for a "
        "fresh one."
    ),
}


def pair(name: str, value: str, tr: Translations) -> str:
    """ "**asha**: bid 1, took 0": a name and what it has, with the language's separator
    (French puts a no-break space before the colon)."""
    return tr.gettext("{name}: {value}").format(name=name, value=value)


def thread_fallback(missing: list[str], tr: Translations) -> str:
    """/kachuful start mode:thread where the bot cannot open threads: the channel instead."""
    return tr.ngettext(
        "This game cannot be played in a thread here without this permission: {wanted}. It "
        "is played in this channel instead; grant it to use thread mode next time.",
        "This game cannot be played in a thread here without these permissions: {wanted}. It "
        "is played in this channel instead; grant them to use thread mode next time.",
        len(missing),
    ).format(wanted=permission_names(missing, tr))


def thread_in_thread(tr: Translations) -> str:
    """/kachuful start mode:thread typed inside a thread: a thread cannot hold another."""
    return tr.gettext(
        "This is a thread already, and a thread cannot open another: the game is played "
        "here, in this thread."
    )


COMPUTER_NAMES = ("Ada", "Babbage", "Turing", "Hopper", "Lovelace", "Knuth", "Shannon")


def missing_permissions(names: list[str], tr: Translations) -> str:
    """/kachuful start where the bot cannot post the table: what to grant."""
    message = tr.ngettext(
        "I cannot run a table in this channel without this permission: {wanted}. Ask "
        "someone with {manage_guild} or {manage_channels} to grant it.",
        "I cannot run a table in this channel without these permissions: {wanted}. Ask "
        "someone with {manage_guild} or {manage_channels} to grant them.",
        len(names),
    )
    return fill(message, tr, wanted=permission_names(names, tr))


def posts_refused(channel: str, names: list[str], tr: Translations) -> str:
    """To the host, in a direct message, once: Discord refused a table's message for a missing
    permission; nothing is lost, the messages follow once it is granted."""
    if not names:
        return tr.gettext(
            "Discord refused to let me post your Kachuful table's messages in {channel} (a "
            "permission is missing there). The game goes on, and nothing is lost: its messages "
            "are posted as soon as the permission is back."
        ).format(channel=channel)
    return tr.ngettext(
        "Discord refused to let me post your Kachuful table's messages in {channel} without "
        "the {wanted} permission. The game goes on, and nothing is lost: its messages are "
        "posted as soon as it is granted.",
        "Discord refused to let me post your Kachuful table's messages in {channel} without "
        "these permissions: {wanted}. The game goes on, and nothing is lost: its messages are "
        "posted as soon as they are granted.",
        len(names),
    ).format(channel=channel, wanted=permission_names(names, tr))


def hours_text(hours: float, tr: Translations) -> str:
    """A duration in hours as a person writes it: "1 hour", "1.5 hours", "24 hours" (and "1,5
    heure": French keeps the singular below 2)."""
    count = numbers.count_for(hours, tr)
    return tr.ngettext("{hours} hour", "{hours} hours", count).format(
        hours=numbers.short(hours, tr)
    )


def notice(code: str, tr: Translations, **values: Any) -> str:
    return tr.gettext(NOTICES[code]).format(**values)


def host_seat_name(tr: Translations) -> str:
    """The seat of a rematch's host whose name the last game no longer has (they left it)."""
    return tr.gettext("Host")


def computer_name(taken: set[str], seat_number: int, tr: Translations = EN) -> str:
    """A name for a new computer player that no seat has yet, in the table's language ``tr``
    when every name of the list is taken ("Ordinateur 3 🤖")."""
    return next(
        (f"{n} 🤖" for n in COMPUTER_NAMES if f"{n} 🤖" not in taken),
        tr.gettext("Computer {n}").format(n=seat_number) + " 🤖",
    )


def refused_move(error: KachufulError, row: Table, tr: Translations) -> str:
    """The notice on a hand message when the rules refused a bid or a card."""
    return "⚠️ " + engine_error(error, row, tr)


def refusal(code: str, tr: Translations, **values: Any) -> str:
    """A refusal's words, with ``values`` filled in (a name, a game number)."""
    words = REFUSALS.get(code)
    if not words:
        return tr.gettext("That cannot be done now.")
    return fill(tr.gettext(words), tr, **values)


def engine_error(error: KachufulError, row: Table, tr: Translations) -> str:
    """The words for each refusal of the rules engine."""
    _ = tr.gettext

    def who(seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(row.seats):
            return _("nobody")
        return name_of(row, seat)

    if isinstance(error, NotYourTurn):
        return _("It is not your turn: {name} is to play.").format(name=who(error.expected))
    if isinstance(error, WrongPhase):
        if error.expected == "bidding":
            return _("Bidding is over for this deal: it is time to play cards.")
        if error.expected == "playing":
            return _("Bidding is not over yet: cards are played once everyone has bid.")
        return _("The game is not at that stage.")
    if isinstance(error, MustFollowSuit):
        return _("You must follow {suit}: you hold {hand}, so {card} cannot be played.").format(
            suit=suit_name(error.suit, tr),
            hand=hand_text(error.held, tr),
            card=label(error.played, tr),
        )
    if isinstance(error, CardNotAllowed):  # another rule of play: the registry names it
        option = OPTIONS.get(error.rule)
        return _("{card} cannot be played under the rule “{rule}”: you may play {hand}.").format(
            card=label(error.played, tr),
            rule=option.title(tr) if option is not None else error.rule,
            hand=hand_text(error.allowed, tr),
        )
    if isinstance(error, CardNotInHand):
        card = (
            label(error.card, tr) if isinstance(error.card, int) and 0 <= error.card < 52 else "?"
        )
        return _("{card} is not in your hand.").format(card=card)
    if isinstance(error, DealerBidForbidden):
        return _(
            "As the dealer you may not bid {bid}: the bids would add up to the "
            "number of tricks (hook rule), and someone must miss."
        ).format(bid=error.forbidden)
    if isinstance(error, BidOutOfRange):
        return _("Bids run from {low} to {high}.").format(low=error.low, high=error.high)
    if isinstance(error, BlindBidAfterLooking):
        return _("You have looked at your hand, so you can no longer bid blind.")
    if isinstance(error, OptionNotEnabled):
        if error.option == "blind_bids":
            return _("Blind bids are not in play at this table.")
        if error.option == "forehead":
            return _("The forehead deal is not in play at this table.")
        return _("The rules do not allow that.")
    if isinstance(error, NothingToTakeBack):
        return _("Too late to take it back: the table has moved on since.")
    if isinstance(error, ClaimNotCertain):
        return _(
            "Not certain: with the cards you cannot see, another player could still take one "
            "of the remaining tricks. Play on."
        )
    if isinstance(error, InvalidSeat):
        return _("There is no such seat at this table.")
    if isinstance(error, RecordError):
        return _("The game record is not valid: {error}").format(error=error)
    return _("The rules do not allow that.")


def bid_taken(bid: int, taken: int, tr: Translations, *, blind: bool = False) -> str:
    """ "bid 2, took 1" (or "bid 2 blind, took 1"): a seat's bid and the tricks it took."""
    if blind:
        return tr.gettext("bid {bid} blind, took {taken}").format(bid=bid, taken=taken)
    return tr.gettext("bid {bid}, took {taken}").format(bid=bid, taken=taken)


def deal_result(bid: int, taken: int, score: int, tr: Translations) -> str:
    """ "bid 2, took 2 — made (12)" or "… — missed (0)": a seat's scored deal (a dash, not a
    colon: it follows a name and its colon, "asha: bid 2, took 2 — made (12)")."""
    if made_bid(bid, taken):
        words = tr.gettext("bid {bid}, took {taken} — made ({score})")
    else:
        words = tr.gettext("bid {bid}, took {taken} — missed ({score})")
    return words.format(bid=bid, taken=taken, score=numbers.whole(score, tr))


def standing_lines(
    names: Sequence[str], totals: Sequence[int], winners: Collection[int], tr: Translations
) -> list[str]:
    """Final standings, best first: "1\\. asha — 21 🏆", equal totals sharing a rank (the
    dot escaped: Discord renumbers lines starting "1." as a list, and a tie would show as 1
    and 2); a negative total with a true minus ("−10")."""
    ranks = places(totals)
    return [
        f"{ranks[seat]}\\. {names[seat]} — {numbers.whole(totals[seat], tr)}"
        + (" 🏆" if seat in winners else "")
        for seat in sorted(range(len(names)), key=lambda s: (-totals[s], s))
    ]
