"""What a reader sees of a finished game's review and replay (docs/review.md), privately and in
their own language: the review's totals and each deal's figures, a page at a time; the
replay's steps (a deal's hands and bids, then each trick), every seat's cards shown.

Pure functions of plain data: the cog (cogs/review.py) reads the stored review or record and
sends what these return.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot.i18n import N_, Translations
from kachuful_core import Game
from kachuful_core.review import DealReview, GameReview, SeatDeal

from .cards import hand_text, label, trump_text
from .deal import trump_of
from .numbers import signed, signed_whole, tenths, whole
from .specs import ButtonSpec, MessageSpec, clip
from .words import bid_taken, deal_result, pair, plain

COLOUR_REVIEW = discord.Colour.blurple()

REFUSALS = {
    "not_finished": N_(
        "Game #{game} is not over: a game is reviewed and replayed once it has ended."
    ),
    "nothing_finished": N_("No game has finished here yet."),
    "no_played_deal": N_("Game #{game} has no deal played out to review."),
    "review_failed": N_(
        "The review of game #{game} could not be computed just now; nothing was saved. "
        "Ask again in a moment."
    ),
    "no_deal": N_("Game #{game} has no deal {deal} played out."),
}

NOTICES = {
    "computing": N_(
        "The review of game #{game} is being computed (about a second a deal); it appears "
        "here when ready."
    ),
}


def refusal(code: str, tr: Translations, **values: Any) -> str:
    return "⚠️ " + tr.gettext(REFUSALS[code]).format(**values)


def notice(code: str, tr: Translations, **values: Any) -> str:
    return tr.gettext(NOTICES[code]).format(**values)


def _nav(action: str, game_id: int, page: int, pages: int, tr: Translations) -> list[ButtonSpec]:
    _ = tr.gettext
    return [
        ButtonSpec((action, game_id, max(page - 1, 0)), _("Previous"), disabled=page == 0),
        ButtonSpec(
            (action, game_id, min(page + 1, pages - 1)), _("Next"), disabled=page >= pages - 1
        ),
    ]


# ---- review ---------------------------------------------------------------------------------


def review_pages(review: GameReview) -> int:
    """The totals, then one page a deal."""
    return 1 + len(review.deals)


def review_page(game_id: int, review: GameReview, page: int, tr: Translations) -> MessageSpec:
    _ = tr.gettext
    pages = review_pages(review)
    page = max(0, min(page, pages - 1))
    if page == 0:
        embed = _totals(game_id, review, tr)
    else:
        embed = _deal(game_id, review, review.deals[page - 1], tr)
    embed.set_footer(
        text=_("Page {page} of {pages} · how each figure is measured: /kachuful help").format(
            page=page + 1, pages=pages
        )
    )
    buttons = [
        *_nav("review", game_id, page, pages, tr),
        ButtonSpec(("replay", game_id, 0), _("Replay"), "primary", emoji="▶"),
    ]
    return MessageSpec(embeds=(embed,), buttons=tuple(buttons))


def _totals(game_id: int, review: GameReview, tr: Translations) -> discord.Embed:
    _ = tr.gettext
    embed = discord.Embed(
        title=_("Review of game #{game}").format(game=game_id),
        description=_(
            "**Bids**: how often you bid as the Expert would have with your cards, and the "
            "points your other bids gave away by its reckoning. **Play**: tricks nearer to "
            "your bid (+) or further from it (−) than the Expert playing your cards. "
            "**Luck**: your cards against an average hand, in expected points."
        ),
        colour=COLOUR_REVIEW,
    )
    for seat, name in enumerate(review.players):
        totals = review.totals(seat)
        lines = [
            tr.ngettext("{score} point", "{score} points", abs(totals.score)).format(
                score=whole(totals.score, tr)
            ),
            pair(
                _("Bids"),
                _("{same} of {deals} as the Expert's · points given away: {points}").format(
                    same=totals.same_bid,
                    deals=totals.compared,
                    points=tenths(totals.bid_cost, tr),
                ),
                tr,
            ),
            pair(
                _("Play"),
                tr.ngettext(
                    "{n} trick against the Expert",
                    "{n} tricks against the Expert",
                    abs(totals.play),
                ).format(n=signed_whole(totals.play, tr)),
                tr,
            ),
            pair(_("Luck"), signed(totals.luck, tr), tr),
        ]
        embed.add_field(name=clip(plain(name), 256), value="\n".join(lines), inline=False)
    return embed


def _deal(game_id: int, review: GameReview, deal: DealReview, tr: Translations) -> discord.Embed:
    _ = tr.gettext
    embed = discord.Embed(
        title=_("Review of game #{game}").format(game=game_id),
        description=tr.ngettext(
            "Deal {deal} · {n} card", "Deal {deal} · {n} cards", deal.hand_size
        ).format(deal=deal.index + 1, n=deal.hand_size),
        colour=COLOUR_REVIEW,
    )
    for name, row in zip(review.players, deal.seats, strict=True):
        embed.add_field(name=clip(plain(name), 256), value=_seat_deal(row, tr), inline=False)
    return embed


def _seat_deal(row: SeatDeal, tr: Translations) -> str:
    _ = tr.gettext
    lines = [deal_result(row.bid, row.tricks, row.score, tr)]
    if row.expert_bid is not None and row.expected_tricks is not None:
        expert = _("The Expert bids {bid} (expected tricks: {tricks})").format(
            bid=row.expert_bid, tricks=tenths(row.expected_tricks, tr)
        )
        if row.bid_cost is not None and row.expert_bid != row.bid:
            expert += " · " + _("points this bid gives away: {points}").format(
                points=tenths(row.bid_cost, tr)
            )
        lines.append(expert)
    if row.expert_tricks is not None and row.play is not None:
        lines.append(
            _("The Expert playing these cards takes {tricks}; the play: {play}").format(
                tricks=row.expert_tricks, play=signed_whole(row.play, tr)
            )
        )
    if row.luck is not None:
        lines.append(pair(_("Luck"), signed(row.luck, tr), tr))
    if row.expert_bid is None:
        lines.append(_("Not compared: this seat did not see its own cards."))
    return "\n".join(lines)


# ---- replay ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    deal: int  # position of the deal in the game's list of deals
    tricks: int  # tricks shown played (0: the hands as dealt, and the bids)


def replay_steps(game: Game) -> list[Step]:
    """Every step of the game's played-out deals: the deal as dealt, then each trick."""
    steps: list[Step] = []
    for position, log in enumerate(game.deals):
        if log.scores is None:
            break
        steps.extend(Step(position, t) for t in range(len(log.tricks) + 1))
    return steps


def replay_page(
    game_id: int, game: Game, step_no: int, names: list[str], tr: Translations
) -> MessageSpec:
    _ = tr.gettext
    steps = replay_steps(game)
    step_no = max(0, min(step_no, len(steps) - 1))
    step = steps[step_no]
    log = game.deals[step.deal]
    trump = trump_of(game, log.index)
    played = {card for trick in log.tricks[: step.tricks] for _seat, card in trick}
    title = tr.ngettext(
        "Replay of game #{game} · deal {deal} · {n} card",
        "Replay of game #{game} · deal {deal} · {n} cards",
        len(log.hands[0]),
    ).format(game=game_id, deal=log.index + 1, n=len(log.hands[0]))
    if step.tricks == 0:
        moment = _("The hands as dealt, and the bids")
    else:
        trick = log.tricks[step.tricks - 1]
        winner = log.trick_winners[step.tricks - 1]
        # Each card after its player, as the live table's "This trick" reads (a "name: card"
        # pair would put colons inside the line's own "Trick 3: …").
        cards = " · ".join(
            f"{plain(names[seat])} {label(card, tr)}" + (" 🏆" if seat == winner else "")
            for seat, card in trick
        )
        moment = _("Trick {n}: {cards}").format(n=step.tricks, cards=cards)
    won = [log.trick_winners[: step.tricks].count(s) for s in range(len(names))]
    embed = discord.Embed(
        title=clip(title, 256),
        description=clip(
            trump_line(trump, tr) + "\n" + moment,
            4096,
        ),
        colour=COLOUR_REVIEW,
    )
    for seat, name in enumerate(names):
        left = [c for c in log.hands[seat] if c not in played]
        dealer = " 🂠" if seat == log.dealer else ""
        bid = log.bids[seat]
        assert bid is not None  # a replay shows only deals played out
        value = bid_taken(bid, won[seat], tr, blind=log.blind[seat]) + "\n" + hand_text(left, tr)
        embed.add_field(name=clip(plain(name) + dealer, 256), value=value, inline=False)
    embed.set_footer(
        text=_("Step {step} of {steps} · 🂠 marks who deals").format(
            step=step_no + 1, steps=len(steps)
        )
    )
    buttons = [
        *_nav("replay", game_id, step_no, len(steps), tr),
        ButtonSpec(("practise", game_id, log.index + 1), _("Practise this deal"), "success"),
        ButtonSpec(("review", game_id, 0), _("Review"), emoji="🔍"),
    ]
    return MessageSpec(embeds=(embed,), buttons=tuple(buttons))


def trump_line(trump: int | None, tr: Translations) -> str:
    if trump is None:
        return tr.gettext("No trump")
    return tr.gettext("Trump: {trump}").format(trump=trump_text(trump, tr))
