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

from bot.model import GameRow, Seat
from kachuful_core import Game, Phase
from kachuful_core.game import DealLog

from .cards import label, suit_symbol, trump_text
from .specs import MessageSpec, clip
from .words import hours_text, name_of, seat_name

COLOUR_BIDDING = discord.Colour.dark_green()
COLOUR_SCORES = discord.Colour.teal()


def countdown(deadline: datetime | None) -> str:
    """A Discord timestamp that counts down in every reader's client."""
    return "" if deadline is None else f" · clock <t:{int(deadline.timestamp())}:R>"


@dataclass(frozen=True)
class Turn:
    """Who is to act now, as the live message says it (no mention: the ping mentions)."""

    seat: int
    deadline: datetime | None


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def deal_title(game: Game, index: int) -> str:
    size = game.rules.hand_sizes[index]
    return (
        f"Deal {index + 1} of {game.num_deals} · {plural(size, 'card')} · "
        f"trump {trump_text(_trump(game, index))}"
    )


def _trump(game: Game, index: int) -> int | None:
    log = game.deals[index]
    if game.rules.trump == "turned":
        return None if log.turned is None else log.turned // 13
    return game.rules.trump_for(index)


def _tricks_won(log: DealLog, seats: int, upto: int) -> list[int]:
    won = [0] * seats
    for winner in log.trick_winners[:upto]:
        won[winner] += 1
    return won


def _bid_text(log: DealLog, seat: int) -> str:
    bid = log.bids[seat]
    if bid is None:
        return "…"
    return f"{bid} (blind)" if log.blind[seat] else str(bid)


def _total_line(log: DealLog, size: int) -> str:
    bids = [b for b in log.bids if b is not None]
    total = sum(bids)
    line = f"{total} bid for {plural(size, 'trick')}"
    if len(bids) == len(log.bids):
        if total > size:
            line += f": overbid by {total - size}"
        elif total < size:
            line += f": underbid by {size - total}"
    return line


def _turn_text(row: GameRow, game: Game, turn: Turn | None, verb: str) -> str:
    if turn is None:
        return ""
    entry = row.seats[turn.seat]
    if all(seat.computer_plays for seat in row.seats):
        return ""  # paused: the newest message's seat notes say so, and until when
    if entry.computer_plays:
        return f"▶ {seat_name(entry)} to {verb}: computer thinking…"
    return f"▶ {seat_name(entry)} to {verb}{countdown(turn.deadline)}"


def bidding(
    row: GameRow, game: Game, index: int, turn: Turn | None, tricks: Sequence[str] = ()
) -> MessageSpec:
    """The deal's bidding message: live while bids come in, then the bids as they stand;
    ``tricks`` (compact mode) follow the bids in the description."""
    log = game.deals[index]
    size = game.rules.hand_sizes[index]
    lines = []
    for seat in range(len(row.seats)):
        dealer = " (dealer)" if seat == log.dealer else ""
        lines.append(f"{name_of(row, seat)}{dealer}: {_bid_text(log, seat)}")
    embed = discord.Embed(title=deal_title(game, index), colour=COLOUR_BIDDING)
    embed.description = clip("\n".join(lines), 4096)
    total = _total_line(log, size)
    live = turn is not None and game.deal_index == index and game.phase is Phase.BIDDING
    if live and game.forbidden_bid is not None:
        total += f"\nThe dealer, {name_of(row, log.dealer)}, may not bid {game.forbidden_bid}."
    if tricks:
        # Fields come after the description: the bids' total goes in it, so that the message
        # reads seats, bids, then the tricks in order.
        body = "\n".join(lines) + f"\n**Bids:** {total}\n\n" + "\n".join(tricks)
        embed.description = clip(body, 4096)
    else:
        embed.add_field(name="Bids", value=total, inline=False)
    if log.turned is not None:
        embed.add_field(name="Turned card", value=f"`{label(log.turned)}`", inline=True)
    elif game.rules.trump == "turned" and log.hands:
        embed.add_field(name="Turned card", value="none left: no trump", inline=True)
    if game.rules.is_forehead_deal(size):
        embed.add_field(
            name="Forehead deal",
            value="You see everyone's card but your own: open “Your hand”.",
            inline=False,
        )
    content = _turn_text(row, game, turn, "bid") if live else None
    return MessageSpec(content=content or None, embeds=(embed,))


def _cards_text(row: GameRow, trick: Sequence[tuple[int, int]]) -> str:
    return " · ".join(f"`{label(card)}` {name_of(row, seat)}" for seat, card in trick)


def _standing(row: GameRow, log: DealLog, won: Sequence[int]) -> str:
    return " · ".join(
        f"{name_of(row, seat)} {won[seat]}/{log.bids[seat]}" for seat in range(len(row.seats))
    )


def trick_lines(row: GameRow, game: Game, index: int, number: int, turn: Turn | None) -> str:
    """Trick ``number`` (0-based) of deal ``index``: its cards, then its winner and the tricks
    taken against the bids, or (while it is played) the led suit and who is to play."""
    log = game.deals[index]
    size = game.rules.hand_sizes[index]
    cards = log.tricks[number] if number < len(log.tricks) else []
    head = f"**Trick {number + 1} of {size}**"
    played = _cards_text(row, cards) if cards else "No card yet."
    if number < len(log.trick_winners):
        winner = log.trick_winners[number]
        won = _tricks_won(log, len(row.seats), number + 1)
        return (
            f"{head}: {played}\n→ {name_of(row, winner)} takes it. "
            f"Tricks/bids: {_standing(row, log, won)}"
        )
    led = f" · led {suit_symbol(cards[0][1] // 13)}" if cards else ""
    verb = "lead" if not cards else "play"
    text = f"{head}{led}: {played}"
    turn_text = _turn_text(row, game, turn, verb)
    return text + (f"\n{turn_text}" if turn_text else "")


def trick(row: GameRow, game: Game, index: int, number: int, turn: Turn | None) -> MessageSpec:
    """One trick's message (per-trick mode)."""
    title = f"Deal {index + 1} of {game.num_deals} · trump {trump_text(_trump(game, index))}"
    return MessageSpec(
        content=clip(f"-# {title}\n" + trick_lines(row, game, index, number, turn), 2000)
    )


def tricks_from(row: GameRow, game: Game, index: int, first: int, turn: Turn | None) -> MessageSpec:
    """The tricks of a deal from trick ``first`` on, a line each, in one message: where the
    channel fell behind a fast deal (per-trick mode), so that the live trick is not stuck
    behind the finished ones."""
    log = game.deals[index]
    playing = game.deal_index == index and game.phase is Phase.PLAYING
    count = len(log.tricks)
    if playing and count == len(log.trick_winners):
        count += 1  # the next trick has no card yet: say who leads it
    lines = [
        trick_lines(row, game, index, number, turn if playing else None)
        for number in range(first, count)
    ]
    title = f"Deal {index + 1} of {game.num_deals} · trump {trump_text(_trump(game, index))}"
    embed = discord.Embed(title=title, description=clip("\n".join(lines), 4096))
    return MessageSpec(embeds=(embed,))


def compact(row: GameRow, game: Game, index: int, turn: Turn | None) -> MessageSpec:
    """Compact mode: the whole deal in one message, bids first, then a line per trick."""
    log = game.deals[index]
    playing = game.deal_index == index and game.phase is Phase.PLAYING
    lines = []
    for number in range(len(log.tricks)):
        lines.append(trick_lines(row, game, index, number, turn if playing else None))
    if playing and len(log.tricks) == len(log.trick_winners):
        # The next trick has no card yet: say who leads it.
        lines.append(trick_lines(row, game, index, len(log.tricks), turn))
    spec = bidding(row, game, index, turn if game.phase is Phase.BIDDING else None, lines)
    embed = spec.embeds[0]
    content = spec.content if game.phase is Phase.BIDDING and game.deal_index == index else None
    if content is None and playing and not lines:
        content = _turn_text(row, game, turn, "lead") or None
    return MessageSpec(content=content, embeds=(embed,))


def _display_width(text: str) -> int:
    """Columns a monospace font gives ``text`` (wide characters such as emoji take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def deal_scores(row: GameRow, game: Game, index: int) -> MessageSpec:
    """The running score table after a deal."""
    log = game.deals[index]
    assert log.scores is not None
    totals = [
        sum(d.scores[s] for d in game.deals[: index + 1] if d.scores) for s in range(len(row.seats))
    ]
    won = _tricks_won(log, len(row.seats), len(log.trick_winners))
    names = [entry.name[:16] for entry in row.seats]
    width = max(6, *(_display_width(name) for name in names))
    lines = [f"{'Player':<{width}} Bid Won  Pts Total"]
    for seat, name in enumerate(names):
        blind = "*" if log.blind[seat] else " "
        padded = name + " " * (width - _display_width(name))
        lines.append(
            f"{padded} {log.bids[seat]:>2}{blind}{won[seat]:>3} "
            f"{log.scores[seat]:>4} {totals[seat]:>5}"
        )
    body = "```\n" + "\n".join(line.replace("`", "'") for line in lines) + "\n```"
    if any(log.blind):
        body += "\n\\* blind bid"
    embed = discord.Embed(
        title=f"Scores after deal {index + 1} of {game.num_deals}",
        description=clip(body, 4096),
        colour=COLOUR_SCORES,
    )
    return MessageSpec(embeds=(embed,))


def seat_notes(row: GameRow, idle_hours: float) -> list[str]:
    """What the table should know about its seats: time-outs, away players, a pause."""
    notes = []
    for entry in row.seats:
        if entry.user_id is None:
            continue
        if entry.away:
            notes.append(
                f"💤 {seat_name(entry)} is away: the computer plays the seat until they click "
                "“I'm back”."
            )
        elif entry.timeouts:
            notes.append(
                f"⏰ {seat_name(entry)} ran out of time; the computer played for them "
                f"({entry.timeouts} in a row)."
            )
    if row.seats and all(entry.computer_plays for entry in row.seats):
        notes.append(
            f"⏸️ Nobody is playing: the game waits for “I'm back” and closes after "
            f"{hours_text(idle_hours)} (or `/kachuful stop` ends it)."
        )
    return notes


def away_seats(row: GameRow) -> list[tuple[int, Seat]]:
    return [(index, seat) for index, seat in enumerate(row.seats) if seat.away and seat.user_id]
