"""The private hand message: built only from the seat's own view (kachuful_core.SeatView)."""

from __future__ import annotations

from datetime import datetime

import discord

from bot.i18n import Translations
from bot.model import Table
from kachuful_core import Phase, SeatView

from .cards import (
    CARD_ROWS,
    card_rows,
    hand_picture,
    hand_text,
    label,
    number_rows,
    pictures_on,
    trump_text,
)
from .numbers import whole
from .open_table import TableLink, with_open_table
from .specs import ButtonSpec, MessageSpec, Style, clip, with_picture
from .words import bid_taken, name_of, pair

COLOUR_HAND = discord.Colour.dark_blue()
CONTROL_ROW = CARD_ROWS  # the fifth row


def _bids_field(row: Table, view: SeatView, tr: Translations) -> str:
    """Every seat's tricks taken against its bid, yours marked."""
    _ = tr.gettext
    parts = []
    for seat, bid in enumerate(view.bids):
        taken = view.tricks_won[seat]
        if bid is None:
            shown = _("no bid yet")
        else:
            shown = bid_taken(bid, taken, tr, blind=view.blind[seat])
        name = name_of(row, seat)
        if seat == view.seat:
            name = _("{name} (you)").format(name=name)
        parts.append(pair(name, shown, tr))
    total = sum(b for b in view.bids if b is not None)
    bid_for = tr.ngettext(
        "{total} bid for {n} trick", "{total} bid for {n} tricks", view.hand_size
    ).format(total=total, n=view.hand_size)
    return clip("\n".join(parts) + "\n" + bid_for, 1024)


def _status(row: Table, view: SeatView, tr: Translations) -> str:
    _ = tr.gettext
    if view.phase is Phase.FINISHED:
        return _("The game is over.")
    if view.turn is None:
        return _("Waiting for the next deal.")
    if view.my_turn:
        if view.phase is Phase.BIDDING:
            return _("**Your turn to bid.**")
        if view.play_unseen:
            return _("**Your turn:** play your card without seeing it.")
        return _("**Your turn to play a card.**") if view.current_trick else _("**Your lead.**")
    name = name_of(row, view.turn)
    if view.phase is Phase.BIDDING:
        return _("Waiting for {name} to bid.").format(name=name)
    return _("Waiting for {name} to play.").format(name=name)


def _forbidden_reason(view: SeatView, tr: Translations) -> str | None:
    if view.forbidden_bid is None or not view.my_turn or view.phase is not Phase.BIDDING:
        return None
    others = sum(b for b in view.bids if b is not None)
    return tr.ngettext(
        "You are the dealer: you may not bid **{bid}**. The others bid {others}, so {bid} "
        "would make the bids add up to the {n} trick (hook rule): someone must miss.",
        "You are the dealer: you may not bid **{bid}**. The others bid {others}, so {bid} "
        "would make the bids add up to the {n} tricks (hook rule): someone must miss.",
        view.hand_size,
    ).format(bid=view.forbidden_bid, others=others, n=view.hand_size)


def hand_expired(spec: MessageSpec, table: int, tr: Translations) -> MessageSpec:
    """A hand message whose token is about to die: it says so, and keeps only Refresh (a
    click is a new interaction, which can redraw it)."""
    refresh = ButtonSpec(("refresh", table), tr.gettext("Refresh"), row=0, emoji="🔄")
    text = notice_text("hand_expired", tr)
    return MessageSpec(content=text, embeds=spec.embeds, buttons=(refresh,))


def notice_text(code: str, tr: Translations) -> str:
    from .words import notice

    return notice(code, tr)


def hand_message(
    row: Table,
    view: SeatView,
    tr: Translations,
    *,
    version: int,
    notice: str | None = None,
    deadline: datetime | None = None,
    stopped: bool = False,
    undo: str | None = None,
    chosen: int | None = None,
    table_link: TableLink | None = None,
) -> MessageSpec:
    """The seat's hand, bid buttons (its turn to bid) or card buttons (legal ones enabled);
    ``undo``: "bid" or "card", the player's own last move, which they may still take back;
    ``chosen``: the card a player who confirms each card has chosen, to confirm."""
    _ = tr.gettext
    table = row.id
    title = _("Your hand — deal {deal} of {deals}").format(
        deal=view.deal_number, deals=view.num_deals
    )
    if view.phase is Phase.FINISHED:
        title = _("Your hand — the game is over")
    if stopped:
        return MessageSpec(content=notice_text("hand_game_stopped", tr))
    # A hidden hand is a forehead deal unless the seat may still bid blind (bot.tables lets
    # every seat see its hand once bidding is over).
    forehead = view.hand is None and not view.may_bid_blind and view.phase is not Phase.FINISHED
    played = any(seat == view.seat for seat, _ in view.current_trick)
    if view.hand is not None:
        description = hand_text(view.hand, tr)
    elif forehead:
        description = _("Forehead deal: you cannot see your own card.")
    elif view.may_bid_blind:
        description = _(
            "You have not looked at your cards yet: bid blind now (an exact blind bid scores "
            "double) or click “Look at my hand”."
        )
    else:
        description = _("(no cards)")
    embed = discord.Embed(title=title, description=description, colour=COLOUR_HAND)
    picture = None
    if view.hand and pictures_on(row) and view.phase is not Phase.FINISHED:
        playing = view.phase is Phase.PLAYING and view.my_turn
        picture = hand_picture(
            view.hand, tr, playable=set(view.legal_cards) if playing else None, chosen=chosen
        )
        with_picture(embed, picture)
    if view.phase is not Phase.FINISHED:
        turned = (
            " " + _("(turned {card})").format(card=label(view.turned, tr))
            if view.turned is not None
            else ""
        )
        embed.add_field(name=_("Trump"), value=trump_text(view.trump, tr) + turned, inline=True)
        embed.add_field(name=_("Dealer"), value=name_of(row, view.dealer), inline=True)
        points = view.totals[view.seat]
        embed.add_field(
            name=_("Totals"),
            # The plural follows the count's size: French writes "−1 point" as "1 point".
            value=tr.ngettext("You: {n} point", "You: {n} points", abs(points)).format(
                n=whole(points, tr)
            ),
            inline=True,
        )
        if view.visible_cards:
            seen = " · ".join(
                f"{name_of(row, seat)} {label(card, tr)}"
                for seat, card in sorted(view.visible_cards.items())
            )
            embed.add_field(name=_("Cards you can see"), value=clip(seen, 1024), inline=False)
        embed.add_field(name=_("Bids and tricks"), value=_bids_field(row, view, tr), inline=False)
        if view.phase is Phase.PLAYING:
            trick = " · ".join(
                f"{name_of(row, seat)} {label(card, tr)}" for seat, card in view.current_trick
            ) or _("No card yet.")
            embed.add_field(name=_("This trick"), value=clip(trick, 1024), inline=False)
    status = _status(row, view, tr)
    if deadline is not None and view.my_turn and view.phase is not Phase.FINISHED:
        when = f"<t:{int(deadline.timestamp())}:R>"
        status += f" ⏳ {when}"  # the reader's client writes it in its language (countdown)
    reason = _forbidden_reason(view, tr)
    embed.add_field(
        name=_("Now"), value=clip(status + (f"\n{reason}" if reason else ""), 1024), inline=False
    )
    if view.phase is Phase.FINISHED:
        standing = " · ".join(
            pair(row.seats[s].name, whole(view.totals[s], tr), tr) for s in range(len(row.seats))
        )
        embed.add_field(name=_("Final totals"), value=clip(standing, 1024), inline=False)
    embed.set_footer(text=_("Only you see this message"))

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
                        _("Blind {n}").format(n=n)
                        if blind
                        else (_("{n} (not allowed)").format(n=n) if forbidden else str(n)),
                        style="danger" if forbidden else ("primary" if n in legal else "secondary"),
                        disabled=n not in legal,
                        row=row_index,
                    )
                )
    elif view.phase is Phase.PLAYING and view.hand is not None and choosing:
        legal_cards = set(view.legal_cards)
        confirming = row.seats[view.seat].confirm_cards
        for row_index, cards in enumerate(card_rows(view.hand)):
            for card in cards:
                style: Style = "success" if card == chosen else "primary"
                buttons.append(
                    ButtonSpec(
                        ("choose" if confirming else "play", table, version, card),
                        label(card, tr),
                        style=style if card in legal_cards else "secondary",
                        disabled=card not in legal_cards,
                        row=row_index,
                    )
                )
        if confirming and chosen in legal_cards:
            buttons.append(
                ButtonSpec(
                    ("play", table, version, chosen),
                    _("Play {card}").format(card=label(chosen, tr)),
                    "success",
                    row=CONTROL_ROW,
                )
            )
    if view.phase is not Phase.FINISHED:
        buttons.append(ButtonSpec(("refresh", table), _("Refresh"), row=CONTROL_ROW, emoji="🔄"))
    if view.may_bid_blind:
        buttons.append(
            ButtonSpec(("look", table, version), _("Look at my hand"), "success", row=CONTROL_ROW)
        )
    if undo is not None:
        buttons.append(
            ButtonSpec(
                ("undo", table, version),
                _("Take back my card (until the next move)")
                if undo == "card"
                else _("Take back my bid (until the next move)"),
                "danger",
                row=CONTROL_ROW,
                emoji="↩️",
            )
        )
    if view.phase is Phase.PLAYING and view.my_turn and not forehead and len(view.hand or ()) > 1:
        # Always offered on the seat's turn: whether it is certain depends on the cards only
        # the claimant can see, so its presence tells nothing (docs/rules.md, Claims).
        buttons.append(
            ButtonSpec(("claim", table, version), _("Claim the rest"), row=CONTROL_ROW, emoji="🏁")
        )
    if view.phase is not Phase.FINISHED and not view.my_turn:
        # The player's choices, set between turns: on their turn the row holds what they
        # play with (at most five buttons a row).
        seat = row.seats[view.seat]
        toggles = (
            (
                "single_card",
                seat.single_card,
                _("Only card played for me: on"),
                _("Only card played for me: off"),
            ),
            (
                "confirm_cards",
                seat.confirm_cards,
                _("Confirm each card: on"),
                _("Confirm each card: off"),
            ),
        )
        for choice, on, on_label, off_label in toggles:
            buttons.append(
                ButtonSpec(
                    ("choice", table, choice, not on),
                    on_label if on else off_label,
                    "success" if on else "secondary",
                    row=CONTROL_ROW,
                )
            )
    if view.phase is Phase.PLAYING and forehead and not played:
        buttons.append(
            ButtonSpec(
                ("unseen", table, version),
                _("Play my card (unseen)"),
                "primary",
                disabled=not view.play_unseen,
                row=CONTROL_ROW,
            )
        )
    if view.phase is not Phase.FINISHED:
        shown = with_open_table(tuple(buttons), table_link, tr, prefer=CONTROL_ROW)
    else:
        shown = tuple(buttons)
    return MessageSpec(
        content=notice, embeds=(embed,), buttons=shown, picture=picture, keep_files=False
    )
