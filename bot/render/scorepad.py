"""A score pad's one public message (docs/scorepad.md): the players joining, then each deal's
bids and tricks with their buttons and the running score, then the final standings with the
chart. A view of the committed pad, drawn again at every click."""

from __future__ import annotations

from typing import Any

import discord

from bot.i18n import N_, Translations
from bot.options import table_rules
from bot.scorepad.model import Board, Pad
from kachuful_core import Rules
from kachuful_core.scorepad import ScorePad

from .cards import trump_text
from .chart import cumulative_scores
from .numbers import whole
from .permissions import fill
from .specs import ButtonSpec, MessageSpec, clip
from .words import bid_taken, pair, plain, rules_lines, standing_lines

COLOUR_PAD = discord.Colour.dark_gold()
ROW = 5
CHART_FILE = "kachuful-scorepad.png"

REFUSALS = {
    "busy": N_("This channel has a score pad open already: one at a time."),
    "not_host": N_("Only the host of this score pad can do that."),
    "not_seated": N_("You are not playing on this score pad."),
    "seated": N_("You are on this score pad already."),
    "full": N_("Every seat of this score pad is taken."),
    "few": N_("A score pad needs at least 3 players (players so far: {n})."),
    "not_open": N_("This score pad has started already."),
    "moved_on": N_("The score pad had moved on since: here it is as it stands."),
    "not_your_turn": N_("It is {name}'s turn to bid."),
    "bad_bid": N_("The rules do not allow that bid: nothing was changed."),
    "too_many": N_(
        "That makes {total} tricks, and this deal has {n}: nothing was changed. Check the counts."
    ),
    "no_pad": N_("There is no such score pad any more."),
    "bad_rules": N_(
        "A score pad keeps every table option except blind bids, the forehead deal and the "
        "turned trump: the bot cannot see the cards."
    ),
    "not_manager": N_("Only members with **{manage_guild}** can choose where score pads count."),
}

NOTICES = {
    "together": N_(
        "Score pads of this server now count on the same boards as online games (from the "
        "next one that ends)."
    ),
    "apart": N_(
        "Score pads of this server now count on boards of their own: /kachuful leaderboard "
        "cards:{real_deck} (from the next one that ends)."
    ),
}
# The leaderboard's choice of the boards of score pads (cogs/leaderboard.py): a sentence that
# sends players to it names it as their client shows it, in their language.
REAL_DECK = N_("Real deck (score pads)")


def refusal(code: str, tr: Translations, **values: Any) -> str:
    return "⚠️ " + fill(tr.gettext(REFUSALS[code]), tr, **values)


def notice(code: str, tr: Translations) -> str:
    return tr.gettext(NOTICES[code]).format(real_deck=tr.gettext(REAL_DECK))


def pad_message(pad: Pad, tr: Translations) -> MessageSpec:
    if pad.status == "open":
        return _lobby(pad, tr)
    engine = ScorePad.from_document(pad.record or {})
    if pad.status == "finished":
        return _final(pad, engine, tr)
    return _deal(pad, engine, tr)


def _names(pad: Pad) -> list[str]:
    return [plain(seat.name) for seat in pad.seats]


def _lobby(pad: Pad, tr: Translations) -> MessageSpec:
    _ = tr.gettext
    embed = discord.Embed(
        title=_("Score pad (real cards)"),
        description=_(
            "A game played with your own deck: the bot deals no card. Each deal it asks each "
            "player for their bid, then for the tricks they took, and keeps the score. Sit in "
            "the order you join, clockwise; the host deals first."
        ),
        colour=COLOUR_PAD,
    )
    players = "\n".join(f"{i}. {name}" for i, name in enumerate(_names(pad), start=1))
    embed.add_field(name=_("Players"), value=players, inline=False)
    embed.add_field(name=_("Rules"), value="\n".join(rules_lines(_rules(pad), tr)), inline=False)
    buttons = (
        ButtonSpec(("padjoin", pad.id, pad.version), _("Join"), "success"),
        ButtonSpec(("padleave", pad.id, pad.version), _("Leave")),
        ButtonSpec(("padstart", pad.id, pad.version), _("Start (host)"), "primary"),
        ButtonSpec(("padstop", pad.id, pad.version), _("Stop (host)"), "danger"),
    )
    return MessageSpec(embeds=(embed,), buttons=buttons)


def _rules(pad: Pad) -> Rules:
    """The rules for the players seated so far (three at least)."""
    return table_rules(pad.options, max(3, len(pad.seats)))[0]


def _title(engine: ScorePad, tr: Translations) -> str:
    size = engine.hand_size()
    return tr.ngettext(
        "Score pad · deal {deal} of {deals} · {n} card",
        "Score pad · deal {deal} of {deals} · {n} cards",
        size,
    ).format(deal=engine.deal_index + 1, deals=engine.rules.num_deals, n=size)


def _deal(pad: Pad, engine: ScorePad, tr: Translations) -> MessageSpec:
    _ = tr.gettext
    names = _names(pad)
    trump = engine.trump()
    lines = [
        tr.gettext("No trump")
        if trump is None
        else _("Trump: {trump}").format(trump=trump_text(trump, tr)),
        _("🂠 {name} deals.").format(name=names[engine.dealer()]),
    ]
    deal = engine.current
    rows = []
    for seat, name in enumerate(names):
        bid, took = deal.bids[seat], deal.tricks[seat]
        if bid is None:
            said = "…"
        elif took is None:
            said = _("bid {bid}, took …").format(bid=bid)
        else:
            said = bid_taken(bid, took, tr)
        rows.append(pair(f"**{name}**", said, tr))
    if engine.stage == "bidding":
        assert engine.turn is not None
        lines.append(_("{name} to bid.").format(name=names[engine.turn]))
    else:
        lines.append(_("Bidding is over. Each player: click the number of tricks you took."))
        short = engine.mismatch()
        if short is not None:
            size = engine.hand_size()
            lines.append(
                tr.ngettext(
                    "The tricks entered add up to {total}, but this deal has {n} trick: "
                    "please correct them.",
                    "The tricks entered add up to {total}, but this deal has {n} tricks: "
                    "please correct them.",
                    size,
                ).format(total=short, n=size)
            )
    embed = discord.Embed(title=_title(engine, tr), description="\n".join(lines), colour=COLOUR_PAD)
    embed.add_field(name=_("This deal"), value="\n".join(rows), inline=False)
    embed.add_field(name=_("Scores"), value=_totals(names, engine.totals, tr), inline=False)
    embed.set_footer(text=_("Real cards: the bot dealt nothing; it keeps the score."))
    return MessageSpec(embeds=(embed,), buttons=_buttons(pad, engine, tr))


def _buttons(pad: Pad, engine: ScorePad, tr: Translations) -> tuple[ButtonSpec, ...]:
    size = engine.hand_size()
    if engine.stage == "bidding":
        legal = set(engine.legal_bids())
        kind = "padbid"
    else:
        legal = set(range(size + 1))
        kind = "padtricks"
    buttons = [
        ButtonSpec(
            (kind, pad.id, pad.version, n),
            str(n),
            "primary" if kind == "padbid" else "success",
            disabled=n not in legal,
            row=n // ROW,
        )
        for n in range(size + 1)
    ]
    last = size // ROW + 1
    buttons.append(
        ButtonSpec(("padstop", pad.id, pad.version), tr.gettext("Stop (host)"), "danger", row=last)
    )
    return tuple(buttons)


def _totals(names: list[str], totals: list[int], tr: Translations) -> str:
    order = sorted(range(len(names)), key=lambda s: -totals[s])
    return "\n".join(pair(names[s], whole(totals[s], tr), tr) for s in order)


def _final(pad: Pad, engine: ScorePad, tr: Translations) -> MessageSpec:
    _ = tr.gettext
    names = _names(pad)
    totals = engine.totals
    winners = engine.winners() or ()
    lines = standing_lines(names, totals, winners, tr)
    embed = discord.Embed(
        title=_("Score pad (real cards) — final standings"),
        description=clip("\n".join(lines), 4096),
        colour=COLOUR_PAD,
    )
    embed.set_footer(text=board_words(pad.board or "apart", tr))
    embed.set_image(url=f"attachment://{CHART_FILE}")
    return MessageSpec(embeds=(embed,), attachment=(CHART_FILE, b""))


def board_words(board: Board, tr: Translations) -> str:
    if board == "together":
        return tr.gettext(
            "Counted on this server's boards with its online games (the cards were not dealt "
            "by the bot)."
        )
    return tr.gettext(
        "Counted apart from online games: /kachuful leaderboard cards:{real_deck}."
    ).format(real_deck=tr.gettext(REAL_DECK))


def chart_data(pad: Pad) -> tuple[list[str], list[list[int]]]:
    engine = ScorePad.from_document(pad.record or {})
    return _names(pad), cumulative_scores(engine.scores(), engine.n)


def stopped(tr: Translations) -> MessageSpec:
    embed = discord.Embed(
        title=tr.gettext("Score pad (real cards)"),
        description=tr.gettext("This score pad was stopped; nothing was counted."),
        colour=COLOUR_PAD,
    )
    return MessageSpec(embeds=(embed,))


def board_note(cards: str, kept: Board, tr: Translations) -> str | None:
    """What a leaderboard says of score pads: on the real-deck board, that its cards were not
    dealt by the bot; on the online board, whether the server's pads count there too."""
    if cards == "real":
        if kept == "together":
            return tr.gettext(
                "This server counts its score pads with its online games: this board holds "
                "only those played before that choice."
            )
        return tr.gettext(
            "Games played with a real deck, kept on score pads: the bot dealt none of these cards."
        )
    if kept == "together":
        return tr.gettext(
            "Includes games played with a real deck (score pads): the bot dealt none of their "
            "cards."
        )
    return None
