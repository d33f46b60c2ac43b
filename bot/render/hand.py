"""The private hand message: built only from the seat's own view (kachuful_core.SeatView)."""

from __future__ import annotations

from datetime import datetime

import discord

from bot.model import GameRow
from kachuful_core import Phase, SeatView

from .cards import CARD_ROWS, card_rows, hand_text, label, number_rows, trump_text
from .specs import ButtonSpec, MessageSpec, clip
from .words import name_of

COLOUR_HAND = discord.Colour.dark_blue()
CONTROL_ROW = CARD_ROWS  # the fifth row


def _bids_field(row: GameRow, view: SeatView) -> str:
    """Every seat's tricks taken against its bid, yours marked."""
    parts = []
    for seat, bid in enumerate(view.bids):
        mark = " blind" if view.blind[seat] else ""
        you = " (you)" if seat == view.seat else ""
        taken = view.tricks_won[seat]
        shown = f"bid {bid}{mark}, took {taken}" if bid is not None else "no bid yet"
        parts.append(f"{name_of(row, seat)}{you}: {shown}")
    total = sum(b for b in view.bids if b is not None)
    tricks = f"{view.hand_size} trick{'s' if view.hand_size != 1 else ''}"
    return clip("\n".join(parts) + f"\n{total} bid for {tricks}", 1024)


def _status(row: GameRow, view: SeatView) -> str:
    if view.phase is Phase.FINISHED:
        return "The game is over."
    if view.turn is None:
        return "Waiting for the next deal."
    if view.my_turn:
        if view.phase is Phase.BIDDING:
            return "**Your turn to bid.**"
        if view.play_unseen:
            return "**Your turn:** play your card without seeing it."
        return "**Your turn to play a card.**" if view.current_trick else "**Your lead.**"
    action = "bid" if view.phase is Phase.BIDDING else "play"
    return f"Waiting for {name_of(row, view.turn)} to {action}."


def _forbidden_reason(view: SeatView) -> str | None:
    if view.forbidden_bid is None or not view.my_turn or view.phase is not Phase.BIDDING:
        return None
    others = sum(b for b in view.bids if b is not None)
    return (
        f"You are the dealer: you may not bid **{view.forbidden_bid}**. The others bid {others}, "
        f"so {view.forbidden_bid} would make the bids add up to the {view.hand_size} "
        "tricks (hook rule): someone must miss."
    )


def hand_expired(spec: MessageSpec, table: int) -> MessageSpec:
    """A hand message whose token is about to die: it says so, and keeps only Refresh (a
    click is a new interaction, which can redraw it)."""
    refresh = ButtonSpec(("refresh", table), "Refresh", row=0, emoji="🔄")
    return MessageSpec(content=notice_text("hand_expired"), embeds=spec.embeds, buttons=(refresh,))


def notice_text(code: str) -> str:
    from .words import notice

    return notice(code)


def hand_message(
    row: GameRow,
    view: SeatView,
    *,
    version: int,
    notice: str | None = None,
    deadline: datetime | None = None,
    stopped: bool = False,
) -> MessageSpec:
    """The seat's hand, bid buttons (its turn to bid) or card buttons (legal ones enabled)."""
    table = row.id
    title = f"Your hand — deal {view.deal_number} of {view.num_deals}"
    if view.phase is Phase.FINISHED:
        title = "Your hand — the game is over"
    if stopped:
        return MessageSpec(content=notice_text("hand_game_stopped"))
    # A hidden hand is a forehead deal unless the seat may still bid blind (bot.tables lets
    # every seat see its hand once bidding is over).
    forehead = view.hand is None and not view.may_bid_blind and view.phase is not Phase.FINISHED
    played = any(seat == view.seat for seat, _ in view.current_trick)
    if view.hand is not None:
        description = hand_text(view.hand)
    elif forehead:
        description = "Forehead deal: you cannot see your own card."
    elif view.may_bid_blind:
        description = (
            "You have not looked at your cards yet: bid blind now (an exact blind bid scores "
            "double) or click “Look at my hand”."
        )
    else:
        description = "(no cards)"
    embed = discord.Embed(title=title, description=description, colour=COLOUR_HAND)
    if view.phase is not Phase.FINISHED:
        turned = f" (turned {label(view.turned)})" if view.turned is not None else ""
        embed.add_field(name="Trump", value=trump_text(view.trump) + turned, inline=True)
        embed.add_field(name="Dealer", value=name_of(row, view.dealer), inline=True)
        embed.add_field(name="Totals", value=f"You: {view.totals[view.seat]} points", inline=True)
        if view.visible_cards:
            seen = " · ".join(
                f"{name_of(row, seat)} {label(card)}"
                for seat, card in sorted(view.visible_cards.items())
            )
            embed.add_field(name="Cards you can see", value=clip(seen, 1024), inline=False)
        embed.add_field(name="Bids and tricks", value=_bids_field(row, view), inline=False)
        if view.phase is Phase.PLAYING:
            trick = (
                " · ".join(
                    f"{name_of(row, seat)} {label(card)}" for seat, card in view.current_trick
                )
                or "No card yet."
            )
            embed.add_field(name="This trick", value=clip(trick, 1024), inline=False)
    status = _status(row, view)
    if deadline is not None and view.my_turn and view.phase is not Phase.FINISHED:
        status += f" Clock runs out <t:{int(deadline.timestamp())}:R>."
    reason = _forbidden_reason(view)
    embed.add_field(
        name="Now", value=clip(status + (f"\n{reason}" if reason else ""), 1024), inline=False
    )
    if view.phase is Phase.FINISHED:
        standing = " · ".join(
            f"{row.seats[s].name}: {view.totals[s]}" for s in range(len(row.seats))
        )
        embed.add_field(name="Final totals", value=clip(standing, 1024), inline=False)
    embed.set_footer(text="Only you see this message")

    buttons: list[ButtonSpec] = []
    # Bid and card buttons only for the seat to act: a watcher's would all be disabled, and
    # its cards are listed above (each redraw of a watcher's message stays small).
    choosing = view.my_turn or view.may_bid_blind
    if view.phase is Phase.BIDDING and choosing:
        blind = view.may_bid_blind
        legal = set(view.legal_bids)
        for row_index, values in enumerate(number_rows(view.hand_size + 1)):
            for n in values:
                forbidden = view.my_turn and n == view.forbidden_bid
                buttons.append(
                    ButtonSpec(
                        ("bid", table, version, n, blind),
                        f"Blind {n}" if blind else (f"{n} (not allowed)" if forbidden else str(n)),
                        style="danger" if forbidden else ("primary" if n in legal else "secondary"),
                        disabled=n not in legal,
                        row=row_index,
                    )
                )
    elif view.phase is Phase.PLAYING and view.hand is not None and choosing:
        legal_cards = set(view.legal_cards)
        for row_index, cards in enumerate(card_rows(view.hand)):
            for card in cards:
                buttons.append(
                    ButtonSpec(
                        ("play", table, version, card),
                        label(card),
                        style="primary" if card in legal_cards else "secondary",
                        disabled=card not in legal_cards,
                        row=row_index,
                    )
                )
    if view.phase is not Phase.FINISHED:
        buttons.append(ButtonSpec(("refresh", table), "Refresh", row=CONTROL_ROW, emoji="🔄"))
    if view.may_bid_blind:
        buttons.append(
            ButtonSpec(("look", table, version), "Look at my hand", "success", row=CONTROL_ROW)
        )
    if view.phase is Phase.PLAYING and forehead and not played:
        buttons.append(
            ButtonSpec(
                ("unseen", table, version),
                "Play my card (unseen)",
                "primary",
                disabled=not view.play_unseen,
                row=CONTROL_ROW,
            )
        )
    return MessageSpec(content=notice, embeds=(embed,), buttons=tuple(buttons))
