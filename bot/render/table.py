"""Public table messages: the lobby, the draw, each deal, each trick, scores and standings."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

import discord

from bot.store.models import GameRow, Leaderboard
from kachuful_core import Game, Phase
from kachuful_core.events import (
    BidPlaced,
    CardPlayed,
    DealScored,
    DealStarted,
    Event,
    FirstDealerDrawn,
    GameEnded,
    TrickWon,
)

from .cards import label, trump_text
from .specs import ButtonSpec, MessageSpec, clip
from .words import (
    hours_text,
    lobby_rules_lines,
    name_of,
    plain,
    rules_lines,
    seat_kind,
    seat_ref,
)

COLOUR_TABLE = discord.Colour.dark_green()
COLOUR_LOBBY = discord.Colour.blurple()
COLOUR_SCORES = discord.Colour.teal()
COLOUR_FINAL = discord.Colour.gold()
COLOUR_OVER = discord.Colour.dark_grey()


def hand_button(row: GameRow) -> ButtonSpec:
    return ButtonSpec(("hand", row.id), "Your hand", style="primary", emoji="🂠")


def _mentions(row: GameRow, seats: Sequence[int | None]) -> tuple[int, ...]:
    ids = []
    for seat in seats:
        if seat is None:
            continue
        entry = row.seats[seat]
        if entry.user_id is not None and not entry.away:
            ids.append(entry.user_id)
    return tuple(ids)


# ---- lobby ----------------------------------------------------------------------------------


def lobby(row: GameRow, *, timeout_minutes: int, closed: str | None = None) -> MessageSpec:
    """The lobby, with Join · Leave · Add computer player · Start; ``closed`` ends it."""
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
    embed.add_field(name="Host", value=f"<@{row.host_id}>", inline=True)
    embed.add_field(name="Seats", value=f"{len(row.seats)} of {row.max_seats}", inline=True)
    embed.add_field(name="Players", value=clip("\n".join(seats), 1024), inline=False)
    embed.add_field(name="Rules", value=clip("\n".join(lobby_rules_lines(row.rules)), 1024))
    if closed is None:
        embed.set_footer(
            text=f"Needs 3 to {row.max_seats} seats. Closes in {timeout_minutes} minutes "
            "unless the host starts it."
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
        )
    else:
        buttons = ()
    return MessageSpec(embeds=(embed,), buttons=buttons)


def lobby_started(row: GameRow) -> MessageSpec:
    embed = discord.Embed(
        title="Kachuful — game started",
        description="The game is on: see the messages below.",
        colour=COLOUR_OVER,
    )
    embed.add_field(
        name="Players",
        value=clip(
            "\n".join(f"{i + 1}. {plain(s.name)}{seat_kind(s)}" for i, s in enumerate(row.seats)),
            1024,
        ),
    )
    return MessageSpec(embeds=(embed,))


# ---- the game -------------------------------------------------------------------------------


def draw(row: GameRow, event: FirstDealerDrawn) -> MessageSpec:
    lines = []
    for number, draw_round in enumerate(event.rounds):
        cards = " · ".join(f"{name_of(row, seat)} {label(card)}" for seat, card in draw_round)
        prefix = "Draw" if number == 0 else "Tie — draw again"
        lines.append(f"{prefix}: {cards}")
    lines.append(f"Highest card deals first: {name_of(row, event.dealer)}.")
    return MessageSpec(content=clip("🎴 " + "\n".join(lines), 2000))


def _bids_line(row: GameRow, game: Game) -> str:
    parts = []
    for seat in range(len(row.seats)):
        bid = game.bids[seat]
        blind = " (blind)" if game.blind[seat] else ""
        parts.append(f"{name_of(row, seat)} {'—' if bid is None else str(bid) + blind}")
    return " · ".join(parts)


def _bid_total_line(game: Game) -> str:
    total = sum(b for b in game.bids if b is not None)
    line = f"{total} bid for {game.hand_size} trick{'s' if game.hand_size != 1 else ''}"
    if all(b is not None for b in game.bids):
        diff = total - game.hand_size
        if diff > 0:
            line += f" — overbid by {diff}"
        elif diff < 0:
            line += f" — underbid by {-diff}"
    return line


def _turn_line(row: GameRow, game: Game, *, mention: bool) -> tuple[str, tuple[int, ...]]:
    seat = game.turn
    if seat is None or game.phase not in (Phase.BIDDING, Phase.PLAYING):
        return "", ()
    ref = seat_ref(row.seats[seat], mention=mention)
    if game.phase is Phase.BIDDING:
        text = f"{ref} to bid"
        if seat == game.dealer and game.forbidden_bid is not None:
            text += f" (dealer: may not bid {game.forbidden_bid})"
    elif not game.current_trick:
        text = f"{ref} to lead"
    else:
        text = f"{ref} to play"
    if all(entry.computer_plays for entry in row.seats):
        text += " — paused: everyone is away until someone clicks “I'm back”."
    elif row.seats[seat].computer_plays:
        text += " — computer thinking…"
    else:
        text += "."
    return text, _mentions(row, [seat]) if mention else ()


def deal_table(row: GameRow, game: Game, started: DealStarted | None = None) -> MessageSpec:
    """The public table message that opens a deal (edited while bids come in)."""
    size = game.hand_size
    title = (
        f"Deal {game.deal_number} of {game.num_deals} — {size} card{'s' if size != 1 else ''}"
        f" — trump {trump_text(game.trump)}"
    )
    embed = discord.Embed(title=title, colour=COLOUR_TABLE)
    embed.add_field(name="Dealer", value=name_of(row, game.dealer), inline=True)
    embed.add_field(name="Bids", value=_bid_total_line(game), inline=True)
    turned = game.turned if game.turned is not None else (started and started.turned)
    if turned is not None:
        embed.add_field(name="Turned card", value=label(turned), inline=True)
    elif game.rules.trump == "turned":
        embed.add_field(name="Turned card", value="none left: no trump", inline=True)
    embed.add_field(name="Bids so far", value=clip(_bids_line(row, game), 1024), inline=False)
    if game.is_forehead_deal:
        embed.add_field(
            name="Forehead deal",
            value="You see everyone's card but your own: open “Your hand”.",
            inline=False,
        )
    commitment = started.commitment if started is not None else game.commitment(game.deal_index)
    if commitment:
        embed.set_footer(text=f"Deal commitment (sha256): {commitment}")
    turn, mentions = _turn_line(row, game, mention=game.phase is Phase.BIDDING)
    content = turn if game.phase is Phase.BIDDING else "Bidding is over. " + turn
    return MessageSpec(
        content=content or None, embeds=(embed,), buttons=(hand_button(row),), mention_ids=mentions
    )


def restored_table(row: GameRow, game: Game) -> MessageSpec:
    """After the bot restarted: the deal's table message again (the posts of the last move may
    have been lost), with the trick in progress, and the player to act mentioned."""
    spec = deal_table(row, game)
    embed = spec.embeds[0]
    if game.phase is Phase.PLAYING:
        cards = " · ".join(
            f"{name_of(row, seat)} {label(card)}" for seat, card in game.current_trick
        )
        embed.add_field(name="This trick", value=clip(cards or "No card yet.", 1024), inline=False)
        embed.add_field(
            name="Tricks/bids",
            value=clip(_tricks_line(row, game.bids, game.tricks_won), 1024),
            inline=False,
        )
    turn, mentions = _turn_line(row, game, mention=True)
    content = "♻️ The bot restarted; the game goes on." + (f"\n{turn}" if turn else "")
    return MessageSpec(
        content=content, embeds=spec.embeds, buttons=spec.buttons, mention_ids=mentions
    )


def _tricks_line(row: GameRow, bids: Sequence[int | None], tricks_won: Sequence[int]) -> str:
    return " · ".join(
        f"{name_of(row, seat)} {tricks_won[seat]}/{bids[seat]}" for seat in range(len(row.seats))
    )


def trick(
    row: GameRow,
    event: TrickWon,
    *,
    hand_size: int,
    bids: Sequence[int | None],
    tricks_won: Sequence[int],
) -> str:
    """A finished trick: cards in play order, who takes it, tricks taken against bids."""
    cards = " · ".join(f"{name_of(row, seat)} {label(card)}" for seat, card in event.cards)
    return (
        f"**Trick {event.trick_number} of {hand_size}:** {cards}\n"
        f"→ {name_of(row, event.seat)} takes it. "
        f"Tricks/bids: {_tricks_line(row, bids, tricks_won)}"
    )


def _display_width(text: str) -> int:
    """Columns a monospace font gives ``text`` (wide characters such as emoji take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def deal_scores(row: GameRow, game: Game, event: DealScored) -> MessageSpec:
    """The running score table after a deal."""
    names = [entry.name[:16] for entry in row.seats]
    width = max(6, *(_display_width(name) for name in names))
    lines = [f"{'Player':<{width}} Bid Won  Pts Total"]
    for seat, name in enumerate(names):
        blind = "*" if event.blind[seat] else " "
        padded = name + " " * (width - _display_width(name))
        lines.append(
            f"{padded} {event.bids[seat]:>2}{blind}{event.tricks_won[seat]:>3} "
            f"{event.scores[seat]:>4} {event.totals[seat]:>5}"
        )
    number = event.deal_index + 1
    body = "```\n" + "\n".join(line.replace("`", "'") for line in lines) + "\n```"
    if any(event.blind):
        body += "\n\\* blind bid"
    embed = discord.Embed(
        title=f"Scores after deal {number} of {game.num_deals}",
        description=clip(body, 4096),
        colour=COLOUR_SCORES,
    )
    if event.seed_reveal:
        embed.set_footer(text=f"Deal {number} seed (check the commitment): {event.seed_reveal}")
    return MessageSpec(embeds=(embed,))


def final_standings(row: GameRow, event: GameEnded) -> MessageSpec:
    order = sorted(range(len(row.seats)), key=lambda s: (-event.totals[s], s))
    lines = []
    rank = 0
    previous: int | None = None
    for position, seat in enumerate(order, start=1):
        if event.totals[seat] != previous:
            rank = position
            previous = event.totals[seat]
        crown = " 🏆" if seat in event.winners else ""
        lines.append(f"{rank}. {name_of(row, seat)} — {event.totals[seat]}{crown}")
    winners = [name_of(row, seat) for seat in event.winners]
    if len(winners) == 1:
        headline = f"{winners[0]} wins!"
    else:
        headline = f"Shared win: {', '.join(winners[:-1])} and {winners[-1]}!"
    embed = discord.Embed(
        title="Kachuful — final standings",
        description=clip(headline + "\n\n" + "\n".join(lines), 4096),
        colour=COLOUR_FINAL,
    )
    embed.set_footer(text="Results saved: see /kachuful leaderboard · /kachuful export")
    return MessageSpec(embeds=(embed,), mention_ids=_mentions(row, list(event.winners)))


def action_posts(
    row: GameRow,
    game: Game,
    events: Sequence[Event],
    *,
    note: str | None = None,
) -> list[MessageSpec]:
    """The public messages for the events of one applied action, in order.

    A bid or a card gives one short line naming what happened and who is next (mentioned);
    a finished trick gives the trick; a finished deal its scores; a new deal its table
    message; the end of the game the final standings.
    """
    posts: list[MessageSpec] = []
    lines: list[str] = [note] if note else []
    # The deal a TrickWon belongs to: the game may have moved on to the next deal already.
    scored: DealScored | None = next((e for e in events if isinstance(e, DealScored)), None)
    hand_size = game.hand_size
    bids: Sequence[int | None] = game.bids
    tricks_won: Sequence[int] = game.tricks_won
    if scored is not None:
        bids, tricks_won = scored.bids, scored.tricks_won
        hand_size = game.rules.hand_sizes[scored.deal_index]
    for event in events:
        if isinstance(event, BidPlaced):
            blind = " blind" if event.blind else ""
            lines.append(f"{name_of(row, event.seat)} bids{blind} **{event.bid}**.")
        elif isinstance(event, CardPlayed):
            if not any(isinstance(e, TrickWon) for e in events):
                lines.append(f"{name_of(row, event.seat)} plays **{label(event.card)}**.")
        elif isinstance(event, TrickWon):
            lines.append(trick(row, event, hand_size=hand_size, bids=bids, tricks_won=tricks_won))
    game_over = any(isinstance(e, GameEnded) for e in events)
    new_deal = next((e for e in events if isinstance(e, DealStarted)), None)
    if lines:
        content = "\n".join(lines)
        mentions: tuple[int, ...] = ()
        if scored is None and not game_over:
            if any(isinstance(e, BidPlaced) for e in events):
                content += "\n" + _bid_total_line(game) + "."
            turn, mentions = _turn_line(row, game, mention=True)
            if turn:
                content += "\n" + turn
        buttons = () if game_over else (hand_button(row),)
        posts.append(
            MessageSpec(content=clip(content, 2000), buttons=buttons, mention_ids=mentions)
        )
    if scored is not None:
        posts.append(deal_scores(row, game, scored))
    for event in events:
        if isinstance(event, GameEnded):
            posts.append(final_standings(row, event))
    if new_deal is not None:
        posts.append(deal_table(row, game, new_deal))
    return posts


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
        title = f"Kachuful — scores before deal {game.deal_number} of {game.num_deals} ends"
    embed = discord.Embed(
        title=title, description=clip("\n".join(lines), 4096), colour=COLOUR_SCORES
    )
    turn, _ = _turn_line(row, game, mention=False)
    if turn:
        embed.set_footer(text=turn.replace("*", ""))
    return MessageSpec(embeds=(embed,))


def rules_message(rules_text_lines: list[str], title: str) -> MessageSpec:
    embed = discord.Embed(title=title, description=clip("\n".join(rules_text_lines), 4096))
    return MessageSpec(embeds=(embed,))


def game_rules(game: Game) -> MessageSpec:
    return rules_message(rules_lines(game.rules), "Rules in force at this table")


def lobby_rules(options: dict[str, Any]) -> MessageSpec:
    """/kachuful rules while the table is still a lobby: the options chosen."""
    return rules_message(lobby_rules_lines(options), "Rules chosen for this table")


def stopped(row: GameRow, by: str) -> MessageSpec:
    return MessageSpec(
        content=f"🛑 The game was stopped by {by}. It does not count for the leaderboard."
    )


def idle_stopped(row: GameRow, *, hours: float) -> MessageSpec:
    """A paused table (everyone away) that nobody came back to is closed, like a stop."""
    return MessageSpec(
        content=f"⌛ Everyone at this table has been away for {hours_text(hours)}, so the game "
        "was closed. It does not count for the leaderboard. Start a new one with "
        "`/kachuful start`."
    )


def timed_out(
    row: GameRow,
    seat: int,
    *,
    now_away: bool,
    nobody_left: bool = False,
    idle_hours: float | None = None,
) -> tuple[str, tuple[ButtonSpec, ...]]:
    entry = row.seats[seat]
    text = f"⏰ {seat_ref(entry, mention=False)} ran out of time; the computer played for them."
    if now_away:
        text += (
            f" After {entry.timeouts} time-outs in a row the computer keeps the seat until "
            f"<@{entry.user_id}> clicks “I'm back”."
        )
        if nobody_left:
            text += (
                "\n⏸️ Nobody is playing any more: the game is paused until a player clicks "
                "“I'm back” (or `/kachuful stop` ends it)."
            )
            if idle_hours is not None:
                text += f" If nobody is back within {hours_text(idle_hours)}, it is closed."
        return text, (ButtonSpec(("back", row.id, seat), "I'm back", "success"),)
    return text, ()


LEADERBOARD_SCOPES = {"channel": "this channel", "server": "this server"}


def leaderboard(board: Leaderboard, *, scope: str) -> MessageSpec:
    """``scope``: "channel" or "server"."""
    scope = LEADERBOARD_SCOPES.get(scope, scope)
    if not board.rows:
        embed = discord.Embed(
            title=f"Kachuful leaderboard — {scope}",
            description="No finished games yet. Start one with `/kachuful start`.",
        )
        return MessageSpec(embeds=(embed,))
    lines = []
    for place, entry in enumerate(board.rows, start=1):
        rate = "—" if entry.exact_bid_rate is None else f"{entry.exact_bid_rate:.0%}"
        wins = f"{entry.wins} win{'s' if entry.wins != 1 else ''}"
        games = f"{entry.games} game{'s' if entry.games != 1 else ''}"
        lines.append(
            f"**{place}.** <@{entry.user_id}> — {wins} in {games} · avg {entry.average_score:.1f}"
            f" · exact bids {rate} · best {entry.best_score} (game #{entry.best_game_id})"
        )
    embed = discord.Embed(
        title=f"Kachuful leaderboard — {scope}",
        description=clip("\n".join(lines), 4096),
        colour=COLOUR_FINAL,
    )
    embed.set_footer(
        text=f"{board.total_games} finished game{'s' if board.total_games != 1 else ''}. "
        "Shared wins count as wins."
    )
    return MessageSpec(embeds=(embed,))
