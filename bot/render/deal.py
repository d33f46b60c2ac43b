"""A deal as it is shown in the channel: the bidding message, one message per trick (or, in
compact mode, one message with the tricks as lines), and the score message.

Everything is read from the engine's log of the deal (``Game.deals[i]``), so a message can be
drawn again at any time from the committed game: the publisher compares what it draws with
what it delivered.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import discord

from bot.i18n import Translations
from bot.model import Seat, Table
from kachuful_core import Game, Phase
from kachuful_core.game import DealLog

from .cards import label, picture_card, pictures_on, suit_symbol, trump_text
from .names import clip_name
from .numbers import whole
from .pictures import TrickPicture
from .specs import MessageSpec, clip, with_picture
from .words import hours_text, name_of, pair, seat_name

COLOUR_BIDDING = discord.Colour.dark_green()
COLOUR_SCORES = discord.Colour.teal()


def countdown(deadline: datetime | None) -> str:
    """A Discord timestamp that counts down in every reader's client, after an hourglass.

    No words of the table's language go with it: each client writes the timestamp in its own
    language ("in 30 seconds", "dans 30 secondes"), so a phrase around it would mix two
    languages for any reader whose client is not in the table's."""
    if deadline is None:
        return ""
    return f" · ⏳ <t:{int(deadline.timestamp())}:R>"


@dataclass(frozen=True)
class Turn:
    """Who is to act now, as the live message says it (no mention: the ping mentions)."""

    seat: int
    deadline: datetime | None


def deal_heading(game: Game, index: int, tr: Translations) -> str:
    """ "Deal 3 of 19 · trump ♥ Hearts", or "Deal 3 of 19 · no trump": a whole sentence each
    (a trump put into the first would read "atout Sans atout" in French)."""
    trump = trump_of(game, index)
    if trump is None:
        return tr.gettext("Deal {deal} of {deals} · no trump").format(
            deal=index + 1, deals=game.num_deals
        )
    return tr.gettext("Deal {deal} of {deals} · trump {trump}").format(
        deal=index + 1, deals=game.num_deals, trump=trump_text(trump, tr)
    )


def deal_title(game: Game, index: int, tr: Translations) -> str:
    size, trump = game.rules.hand_sizes[index], trump_of(game, index)
    if trump is None:
        return tr.ngettext(
            "Deal {deal} of {deals} · {n} card · no trump",
            "Deal {deal} of {deals} · {n} cards · no trump",
            size,
        ).format(deal=index + 1, deals=game.num_deals, n=size)
    return tr.ngettext(
        "Deal {deal} of {deals} · {n} card · trump {trump}",
        "Deal {deal} of {deals} · {n} cards · trump {trump}",
        size,
    ).format(deal=index + 1, deals=game.num_deals, n=size, trump=trump_text(trump, tr))


def trump_of(game: Game, index: int) -> int | None:
    """The trump of the game's deal ``index`` (its place in the schedule): by the cycle, or
    the turned card's suit. A game may start mid-schedule (a practice deal)."""
    log = next(d for d in game.deals if d.index == index)
    if game.rules.trump == "turned":
        return None if log.turned is None else log.turned // 13
    return game.rules.trump_for(index)


def _tricks_won(log: DealLog, seats: int, upto: int) -> list[int]:
    won = [0] * seats
    for winner in log.trick_winners[:upto]:
        won[winner] += 1
    return won


def _bid_text(log: DealLog, seat: int, tr: Translations) -> str:
    bid = log.bids[seat]
    if bid is None:
        return "…"
    return tr.gettext("{bid} (blind)").format(bid=bid) if log.blind[seat] else str(bid)


def _total_line(log: DealLog, size: int, tr: Translations) -> str:
    bids = [b for b in log.bids if b is not None]
    total = sum(bids)
    line = tr.ngettext("{total} bid for {n} trick", "{total} bid for {n} tricks", size).format(
        total=total, n=size
    )
    # After a dot, not a colon: the line follows its own label ("Bids: …") in compact mode.
    if len(bids) == len(log.bids):
        if total > size:
            line += " · " + tr.gettext("overbid by {n}").format(n=total - size)
        elif total < size:
            line += " · " + tr.gettext("underbid by {n}").format(n=size - total)
    return line


def _turn_text(row: Table, game: Game, turn: Turn | None, verb: str, tr: Translations) -> str:
    if turn is None:
        return ""
    entry = row.seats[turn.seat]
    if all(seat.computer_plays for seat in row.seats):
        return ""  # paused: the newest message's seat notes say so, and until when
    _ = tr.gettext
    if verb == "bid":
        thinking, waiting = _("▶ {name} to bid: computer thinking…"), _("▶ {name} to bid{clock}")
    elif verb == "lead":
        thinking, waiting = _("▶ {name} to lead: computer thinking…"), _("▶ {name} to lead{clock}")
    else:
        thinking, waiting = _("▶ {name} to play: computer thinking…"), _("▶ {name} to play{clock}")
    if entry.computer_plays:
        return thinking.format(name=seat_name(entry))
    return waiting.format(name=seat_name(entry), clock=countdown(turn.deadline))


def bidding(
    row: Table,
    game: Game,
    index: int,
    turn: Turn | None,
    tr: Translations,
    tricks: Sequence[str] = (),
) -> MessageSpec:
    """The deal's bidding message: live while bids come in, then the bids as they stand;
    ``tricks`` (compact mode) follow the bids in the description."""
    _ = tr.gettext
    log = game.deals[index]
    size = game.rules.hand_sizes[index]
    lines = []
    for seat in range(len(row.seats)):
        name = name_of(row, seat)
        if seat == log.dealer:
            name = _("{name} (dealer)").format(name=name)
        lines.append(pair(name, _bid_text(log, seat, tr), tr))
    embed = discord.Embed(title=deal_title(game, index, tr), colour=COLOUR_BIDDING)
    embed.description = clip("\n".join(lines), 4096)
    total = _total_line(log, size, tr)
    live = turn is not None and game.deal_index == index and game.phase is Phase.BIDDING
    if live and game.forbidden_bid is not None:
        total += "\n" + _("The dealer, {name}, may not bid {bid}.").format(
            name=name_of(row, log.dealer), bid=game.forbidden_bid
        )
    if tricks:
        # Fields come after the description: the bids' total goes in it, so that the message
        # reads seats, bids, then the tricks in order.
        bids = _("**Bids:** {total}").format(total=total)
        body = "\n".join(lines) + f"\n{bids}\n\n" + "\n".join(tricks)
        embed.description = clip(body, 4096)
    else:
        embed.add_field(name=_("Bids"), value=total, inline=False)
    if log.turned is not None:
        embed.add_field(name=_("Turned card"), value=f"`{label(log.turned, tr)}`", inline=True)
    elif game.rules.trump == "turned" and log.hands:
        embed.add_field(name=_("Turned card"), value=_("none left: no trump"), inline=True)
    if game.rules.is_forehead_deal(size):
        embed.add_field(
            name=_("Forehead deal"),
            value=_("You see everyone's card but your own: open “Your hand”."),
            inline=False,
        )
    content = _turn_text(row, game, turn, "bid", tr) if live else None
    return MessageSpec(content=content or None, embeds=(embed,))


def _cards_text(row: Table, trick: Sequence[tuple[int, int]], tr: Translations) -> str:
    return " · ".join(f"`{label(card, tr)}` {name_of(row, seat)}" for seat, card in trick)


def _standing(row: Table, log: DealLog, won: Sequence[int]) -> str:
    return " · ".join(
        f"{name_of(row, seat)} {won[seat]}/{log.bids[seat]}" for seat in range(len(row.seats))
    )


def _claimed(row: Table, seat: int, index: int, number: int) -> bool:
    """Whether the seat took trick ``number`` of deal ``index`` by a claim."""
    return any(deal == index and number >= first for deal, first in row.seats[seat].claimed)


def trick_lines(
    row: Table, game: Game, index: int, number: int, turn: Turn | None, tr: Translations
) -> str:
    """Trick ``number`` (0-based) of deal ``index``: its cards, then its winner and the tricks
    taken against the bids, or (while it is played) the led suit and who is to play."""
    _ = tr.gettext
    log = game.deals[index]
    size = game.rules.hand_sizes[index]
    cards = log.tricks[number] if number < len(log.tricks) else []
    head = _("**Trick {trick} of {tricks}**").format(trick=number + 1, tricks=size)
    played = _cards_text(row, cards, tr) if cards else _("No card yet.")
    if number < len(log.trick_winners):
        winner = log.trick_winners[number]
        won = _tricks_won(log, len(row.seats), number + 1)
        taken = (
            _("→ {name} takes it, as claimed. Tricks/bids: {standing}")
            if _claimed(row, winner, index, number)
            else _("→ {name} takes it. Tricks/bids: {standing}")
        )
        return (
            pair(head, played, tr)
            + "\n"
            + taken.format(name=name_of(row, winner), standing=_standing(row, log, won))
        )
    led = " · " + _("led {suit}").format(suit=suit_symbol(cards[0][1] // 13)) if cards else ""
    verb = "lead" if not cards else "play"
    text = pair(f"{head}{led}", played, tr)
    turn_text = _turn_text(row, game, turn, verb, tr)
    return text + (f"\n{turn_text}" if turn_text else "")


def trick_picture(
    row: Table, game: Game, index: int, number: int, tr: Translations
) -> TrickPicture | None:
    """Trick ``number`` of deal ``index`` as a picture of the table: every seat from the leader
    on, with its card once played; None before its first card (the text says who leads) or
    when the channel turned pictures off."""
    log = game.deals[index]
    if not pictures_on(row) or not 0 <= number < len(log.tricks) or not log.tricks[number]:
        return None
    cards = dict(log.tricks[number])
    leader, seats = log.tricks[number][0][0], len(row.seats)
    order = [(leader + step) % seats for step in range(seats)]
    winner = log.trick_winners[number] if number < len(log.trick_winners) else None
    return TrickPicture(
        tuple(
            (
                row.seats[seat].name,
                None if seat not in cards else picture_card(cards[seat], tr),
            )
            for seat in order
        ),
        winner=None if winner is None else order.index(winner),
        trump=trump_of(game, index),
    )


def _last_played(game: Game, index: int) -> int:
    """The last trick of deal ``index`` with a card in it (-1: none yet)."""
    tricks = game.deals[index].tricks
    return max((n for n, cards in enumerate(tricks) if cards), default=-1)


def trick(
    row: Table, game: Game, index: int, number: int, turn: Turn | None, tr: Translations
) -> MessageSpec:
    """One trick's message (per-trick mode), with its picture under the text. The deal's
    heading, in small print, only over its first trick: it marks where a deal's tricks begin,
    and the next tricks of the deal follow right under it (the heading on every trick was a
    line repeated down the channel)."""
    lines = trick_lines(row, game, index, number, turn, tr)
    if number == 0:
        lines = f"-# {deal_heading(game, index, tr)}\n" + lines
    return MessageSpec(
        content=clip(lines, 2000), picture=trick_picture(row, game, index, number, tr)
    )


def tricks_from(
    row: Table, game: Game, index: int, first: int, turn: Turn | None, tr: Translations
) -> MessageSpec:
    """The tricks of a deal from trick ``first`` on, a line each, in one message: where the
    channel fell behind a fast deal (per-trick mode), so that the live trick is not stuck
    behind the finished ones."""
    log = game.deals[index]
    playing = game.deal_index == index and game.phase is Phase.PLAYING
    count = len(log.tricks)
    if playing and count == len(log.trick_winners):
        count += 1  # the next trick has no card yet: say who leads it
    lines = [
        trick_lines(row, game, index, number, turn if playing else None, tr)
        for number in range(first, count)
    ]
    title = deal_heading(game, index, tr)
    embed = discord.Embed(title=title, description=clip("\n".join(lines), 4096))
    picture = trick_picture(row, game, index, max(first, _last_played(game, index)), tr)
    return MessageSpec(embeds=(with_picture(embed, picture),), picture=picture)


def compact(row: Table, game: Game, index: int, turn: Turn | None, tr: Translations) -> MessageSpec:
    """Compact mode: the whole deal in one message, bids first, then a line per trick."""
    log = game.deals[index]
    playing = game.deal_index == index and game.phase is Phase.PLAYING
    lines = []
    for number in range(len(log.tricks)):
        lines.append(trick_lines(row, game, index, number, turn if playing else None, tr))
    if playing and len(log.tricks) == len(log.trick_winners):
        # The next trick has no card yet: say who leads it.
        lines.append(trick_lines(row, game, index, len(log.tricks), turn, tr))
    spec = bidding(row, game, index, turn if game.phase is Phase.BIDDING else None, tr, lines)
    embed = spec.embeds[0]
    content = spec.content if game.phase is Phase.BIDDING and game.deal_index == index else None
    if content is None and playing and not lines:
        content = _turn_text(row, game, turn, "lead", tr) or None
    picture = trick_picture(row, game, index, _last_played(game, index), tr)
    return MessageSpec(content=content, embeds=(with_picture(embed, picture),), picture=picture)


def _display_width(text: str) -> int:
    """Columns a monospace font gives ``text``: wide characters such as emoji take two, and
    combining marks (Devanagari's nukta, anusvara, virama, vowel signs above or below) none."""
    return sum(_char_width(ch) for ch in text)


def _char_width(ch: str) -> int:
    if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def _column(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded to ``width`` columns (a translated heading may be wider or narrower)."""
    pad = " " * max(0, width - _display_width(text))
    return pad + text if right else text + pad


def deal_scores(row: Table, game: Game, index: int, tr: Translations) -> MessageSpec:
    """The running score table after a deal."""
    _ = tr.gettext
    log = game.deals[index]
    assert log.scores is not None
    totals = [
        sum(d.scores[s] for d in game.deals[: index + 1] if d.scores) for s in range(len(row.seats))
    ]
    won = _tricks_won(log, len(row.seats), len(log.trick_winners))
    names = [clip_name(entry.name, 16) for entry in row.seats]
    heads = [_("Player"), _("Bid"), _("Won"), _("Pts"), _("Total")]
    widths = [max(6, _display_width(heads[0]), *(_display_width(name) for name in names))]
    widths += [
        max(minimum, _display_width(head))
        for minimum, head in zip((3, 3, 4, 5), heads[1:], strict=True)
    ]
    lines = [
        " ".join(
            _column(head, w, right=i > 0)
            for i, (head, w) in enumerate(zip(heads, widths, strict=True))
        )
    ]
    for seat, name in enumerate(names):
        blind = "*" if log.blind[seat] else " "
        cells = [
            _column(name, widths[0]),
            _column(str(log.bids[seat]), widths[1] - 1, right=True) + blind,
            _column(str(won[seat]), widths[2], right=True),
            _column(whole(log.scores[seat], tr), widths[3], right=True),
            _column(whole(totals[seat], tr), widths[4], right=True),
        ]
        lines.append(" ".join(cells))
    body = "```\n" + "\n".join(line.replace("`", "'") for line in lines) + "\n```"
    if any(log.blind):
        body += "\n\\* " + _("blind bid")
    embed = discord.Embed(
        title=_("Scores after deal {deal} of {deals}").format(deal=index + 1, deals=game.num_deals),
        description=clip(body, 4096),
        colour=COLOUR_SCORES,
    )
    return MessageSpec(embeds=(embed,))


def seat_notes(row: Table, idle_hours: float, tr: Translations) -> list[str]:
    """What the table should know about its seats: time-outs, away players, a pause."""
    notes = []
    for entry in row.seats:
        if entry.user_id is None:
            continue
        if entry.away:
            notes.append(
                "💤 "
                + tr.gettext(
                    "{name} is away: the computer plays the seat until they click “I'm back”."
                ).format(name=seat_name(entry))
            )
        elif entry.timeouts:
            notes.append(
                "⏰ "
                + tr.ngettext(
                    "{name} ran out of time; the computer played for them ({n} in a row).",
                    "{name} ran out of time; the computer played for them ({n} in a row).",
                    entry.timeouts,
                ).format(name=seat_name(entry), n=entry.timeouts)
            )
    if row.seats and all(entry.computer_plays for entry in row.seats):
        notes.append(
            "⏸️ "
            + tr.gettext(
                "Nobody is playing: the game waits for “I'm back” and closes after "
                "{hours} (or `/kachuful stop` ends it)."
            ).format(hours=hours_text(idle_hours, tr))
        )
    return notes


def away_seats(row: Table) -> list[tuple[int, Seat]]:
    return [(index, seat) for index, seat in enumerate(row.seats) if seat.away and seat.user_id]
