"""A game's results as the store keeps them, and its score chart: pure derivations from the
engine's game (no SQL, no Discord).

The table code calls :func:`game_results` when a game ends and passes the list to
``Store.save_game(results=...)``: the store writes the results, aggregates and ratings in
the transaction that marks the game finished. :func:`game_chart` draws the chart so far (for
``/kachuful score`` and the final standings) off the event loop.
"""

from __future__ import annotations

from bot.deal_lines import deal_lines_from_record, deal_lines_from_summary
from bot.model import Table
from bot.store.values import DealLine, ResultRow
from kachuful_core import Game, score_summary
from kachuful_core.rules import made_bid

__all__ = [
    "DEFAULT_LEVEL",
    "chart_data",
    "deal_lines_from_record",
    "deal_lines_from_summary",
    "exact_bids",
    "game_chart",
    "game_results",
]

DEFAULT_LEVEL = "heuristic"


def exact_bids(deals: tuple[DealLine, ...]) -> int:
    """How many of a seat's scored deals it took exactly the tricks it bid."""
    return sum(1 for deal in deals if made_bid(deal.bid, deal.tricks))


def game_results(row: Table, game: Game) -> list[ResultRow]:
    """One result per seat of a finished game, with everything the statistics need: name,
    computer level, and every scored deal (so the store need not replay the record)."""
    summary = score_summary(game)
    winners = set(summary["winners"] or ())
    lines = deal_lines_from_summary(summary, len(row.seats))
    results = []
    for seat, entry in enumerate(row.seats):
        deals = lines[seat]
        level = None
        if entry.user_id is None:
            # Seats get a computer level with the levels; until then the heuristic player.
            level = getattr(entry, "level", None) or DEFAULT_LEVEL
        results.append(
            ResultRow(
                seat=seat,
                user_id=entry.user_id,
                score=summary["totals"][seat],
                won=seat in winners,
                bids_exact=exact_bids(deals),
                bids=len(deals),
                name=entry.name,
                level=level,
                deals=deals,
            )
        )
    return results


def chart_data(row: Table, game: Game) -> tuple[list[str], list[list[int]]]:
    """Names and cumulative scores per deal so far, by seat."""
    from bot.render.chart import cumulative_scores  # matplotlib only when a chart is drawn

    players = len(row.seats)
    return [seat.name for seat in row.seats], cumulative_scores(game.deal_scores, players)


async def game_chart(row: Table, game: Game) -> bytes:
    """The score chart so far as PNG bytes, drawn in a worker thread, in the table's language.
    Call it without holding the table's lock: take :func:`chart_data` under the lock (it
    copies), then draw."""
    from bot.i18n import for_table
    from bot.render.chart import chart_labels, score_chart

    names, cumulative = chart_data(row, game)
    return await score_chart(names, cumulative, labels=chart_labels(for_table(row.options)))
