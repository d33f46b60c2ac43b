"""The club pages' sentences that are built from a replay's step (the rest of their words are
in the templates, through the same catalogue): what happened at this step."""

from __future__ import annotations

from bot.i18n import Translations
from bot.render.cards import label

from .replay import Moment


def action(moment: Moment, tr: Translations) -> str:
    """ "🂠 Asha deals.", "Bilal bids 2", "Chen plays 10♥ · Chen wins trick 3"."""
    kind, seat = moment.action
    dealer = next(s for s in moment.seats if s.dealer)
    if kind == "dealt" or seat is None:
        return tr.gettext("🂠 {name} deals.").format(name=dealer.name)
    who = moment.seats[seat]
    if kind == "bid":
        assert who.bid is not None
        if who.blind:
            return tr.gettext("{name} bids {bid} blind").format(name=who.name, bid=who.bid)
        return tr.gettext("{name} bids {bid}").format(name=who.name, bid=who.bid)
    played = next(card for at, card in moment.trick if at == seat)
    words = tr.gettext("{name} plays {card}").format(name=who.name, card=label(played, tr))
    if moment.winner is not None:
        words += " · " + tr.gettext("{name} wins trick {n}").format(
            name=moment.seats[moment.winner].name, n=moment.trick_number
        )
    if moment.scored:
        words += " · " + tr.gettext("the deal is scored")
    return words
