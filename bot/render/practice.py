"""A practice deal as its player sees it (docs/review.md#practice), privately: the deal so far,
their hand (in words and drawn as cards, as at a table) with a button per bid or card, a hint
when asked for, and at the end what each seat made. The other seats' cards stay hidden until
the deal is over."""

from __future__ import annotations

from typing import Any

import discord

from bot.i18n import N_, Translations
from kachuful_core import Game
from kachuful_core.game import Phase
from kachuful_core.review import Hint

from .cards import hand_picture, hand_text, label
from .deal import trump_of
from .numbers import tenths
from .pictures import HandPicture
from .review import trump_line
from .specs import ButtonSpec, MessageSpec, clip, with_picture
from .words import bid_taken, deal_result, level_name, pair, plain

COLOUR_PRACTICE = discord.Colour.dark_teal()
ROW = 5

REFUSALS = {
    "not_yours": N_(
        "This practice deal is someone else's: start your own with /kachuful practice."
    ),
    "moved_on": N_("This practice deal had moved on since: here it is as it stands."),
    "no_practice": N_("There is no such practice deal any more."),
    "illegal": N_("The rules do not allow that: nothing was changed."),
    "no_deal": N_("Game #{game} has no deal {deal} played out."),
    "no_hint": N_("There is nothing to decide just now."),
    "forehead": N_(
        "A forehead deal cannot be practised here: this message would show you your own card."
    ),
}


def refusal(code: str, tr: Translations, **values: Any) -> str:
    return "⚠️ " + tr.gettext(REFUSALS[code]).format(**values)


def seat_names(names: list[str], me: int, tr: Translations) -> list[str]:
    return [tr.gettext("You") if seat == me else plain(name) for seat, name in enumerate(names)]


def practice_page(
    practice_id: int,
    version: int,
    game: Game,
    me: int,
    level: str,
    tr: Translations,
    hint: str | None = None,
) -> MessageSpec:
    _ = tr.gettext
    names = seat_names(list(game.players), me, tr)
    log = game.deals[-1]
    size = len(log.hands[0])
    over = game.deal_index != log.index or game.phase is Phase.FINISHED
    title = tr.ngettext(
        "Practice · deal {deal} · {n} card", "Practice · deal {deal} · {n} cards", size
    ).format(deal=log.index + 1, n=size)
    trump = trump_of(game, log.index)
    lines = [
        trump_line(trump, tr),
        _("Unrated: computer players ({level}) hold the other seats.").format(
            level=level_name(level, tr)
        ),
    ]
    won = [log.trick_winners.count(s) for s in range(len(names))]
    bids = []
    for seat, name in enumerate(names):
        bid = log.bids[seat]
        dealer = " 🂠" if seat == log.dealer else ""
        said = "…" if bid is None else bid_taken(bid, won[seat], tr, blind=log.blind[seat])
        bids.append(pair(f"**{name}**{dealer}", said, tr))
    embed = discord.Embed(
        title=clip(title, 256), description="\n".join(lines), colour=COLOUR_PRACTICE
    )
    embed.add_field(name=_("Bids"), value="\n".join(bids), inline=False)
    trick = log.tricks[-1] if log.tricks else []
    if trick:
        number = len(log.tricks)
        winner = log.trick_winners[number - 1] if len(trick) == len(names) else None
        cards = " · ".join(
            pair(names[seat], label(card, tr), tr) + (" 🏆" if seat == winner else "")
            for seat, card in trick
        )
        embed.add_field(name=_("Trick {n}").format(n=number), value=cards, inline=False)
    buttons: list[ButtonSpec] = []
    picture: HandPicture | None = None
    if over:
        embed.add_field(name=_("Result"), value=_result(log, me, names, tr), inline=False)
        buttons = [
            ButtonSpec(("pagain", practice_id, 0), _("Play it again"), "success", emoji="🔁"),
            ButtonSpec(("pagain", practice_id, 1), _("New deal"), emoji="🎲"),
        ]
    else:
        held = game.hand(me)
        embed.add_field(name=_("Your hand"), value=hand_text(held, tr), inline=False)
        buttons = _moves(practice_id, version, game, me, tr)
        playing = game.phase is Phase.PLAYING and game.turn == me
        picture = hand_picture(
            held, tr, playable=set(game.legal_cards(me)) if playing else None, chosen=None
        )
        with_picture(embed, picture)
    if hint is not None:
        embed.add_field(name=_("Hint"), value=hint, inline=False)
    # keep_files=False: at the end the hand's picture goes with the hand.
    return MessageSpec(embeds=(embed,), buttons=tuple(buttons), picture=picture, keep_files=False)


def _moves(
    practice_id: int, version: int, game: Game, me: int, tr: Translations
) -> list[ButtonSpec]:
    _ = tr.gettext
    buttons: list[ButtonSpec] = []
    if game.turn == me and game.phase is Phase.BIDDING:
        legal = set(game.legal_bids(me))
        for n in range(game.hand_size + 1):
            buttons.append(
                ButtonSpec(
                    ("pbid", practice_id, version, n),
                    str(n),
                    "primary",
                    disabled=n not in legal,
                    row=n // ROW,
                )
            )
    elif game.turn == me and game.phase is Phase.PLAYING:
        legal = set(game.legal_cards(me))
        for i, card in enumerate(sorted(game.hand(me), key=lambda c: (c // 13, -(c % 13)))):
            buttons.append(
                ButtonSpec(
                    ("pcard", practice_id, version, card),
                    label(card, tr),
                    "primary",
                    disabled=card not in legal,
                    row=i // ROW,
                )
            )
    if buttons:
        last = max(b.row for b in buttons) + 1
        buttons.append(ButtonSpec(("phint", practice_id, version), _("Hint"), row=last, emoji="💡"))
    return buttons


def _result(log: Any, me: int, names: list[str], tr: Translations) -> str:
    _ = tr.gettext
    assert log.scores is not None
    lines = []
    for seat, name in enumerate(names):
        took = log.trick_winners.count(seat)
        text = deal_result(log.bids[seat], took, log.scores[seat], tr)
        lines.append(pair(f"**{name}**" if seat == me else name, text, tr))
    hands = [pair(name, hand_text(log.hands[seat], tr), tr) for seat, name in enumerate(names)]
    return "\n".join(lines) + "\n\n" + _("The hands as dealt:") + "\n" + "\n".join(hands)


def bid_hint(outlook: Hint, tricks: float, tr: Translations) -> str:
    """The Expert's bid for the player's cards, with what it expects (whole sentences: a
    fragment added to another reads badly once translated)."""
    if outlook.expected is None:
        return tr.gettext("The Expert bids {bid} (expected tricks: {tricks}).").format(
            bid=outlook.choice, tricks=tenths(tricks, tr)
        )
    return tr.gettext(
        "The Expert bids {bid} (expected tricks: {tricks}; expected points: {points})."
    ).format(bid=outlook.choice, tricks=tenths(tricks, tr), points=tenths(outlook.expected, tr))


def card_hint(outlook: Hint, tr: Translations) -> str:
    assert outlook.choice is not None
    card = label(outlook.choice, tr)
    if outlook.expected is None:
        return tr.gettext("The Expert plays {card}.").format(card=card)
    return tr.gettext("The Expert plays {card} (expected points: {points}).").format(
        card=card, points=tenths(outlook.expected, tr)
    )
