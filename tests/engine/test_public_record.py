"""public_record / deal_in_progress: what a running game's players may export. No card still
held by anyone (nor one on the table in an unfinished trick) appears in either."""

from __future__ import annotations

import json

import pytest

from kachuful_core import (
    Game,
    Rules,
    card_str,
    deal_in_progress,
    load_game,
    public_record,
    record_document,
)
from kachuful_core.players import HeuristicPlayer, act


def cards_in(value: object) -> set[str]:
    text = json.dumps(value)
    return {card_str(c) for c in range(52) if f'"{card_str(c)}"' in text}


@pytest.mark.parametrize("trump", ["cycle", "turned"])
@pytest.mark.parametrize("stop_after", [0, 1, 5, 9, 14, 27, 40])
def test_public_part_of_a_running_game_hides_every_unplayed_card(
    trump: str, stop_after: int
) -> None:
    game = Game.new(
        Rules(players=3, max_hand=4, schedule="down", trump=trump), "s", players=["A", "B", "C"]
    )
    bots = [HeuristicPlayer(seed=i) for i in range(3)]
    for _ in range(stop_after):
        assert game.turn is not None
        act(game, game.turn, bots[game.turn])
    document = record_document(game)
    before = json.dumps(document, sort_keys=True)
    public = public_record(document)
    progress = deal_in_progress(document)
    assert json.dumps(document, sort_keys=True) == before  # pure
    # Cards that are public: the first-dealer draw, completed tricks, turned cards.
    shown = {card_str(card) for r in game.draw or () for _, card in r}
    for deal in game.deals:
        for trick in deal.tricks:
            if len(trick) == 3:
                shown |= {card_str(card) for _, card in trick}
        if deal.turned is not None:
            shown.add(card_str(deal.turned))
    assert cards_in(public) <= shown
    assert cards_in(progress) <= shown
    # The public record is itself a valid record, replaying to the finished deals.
    replayed = load_game(public)
    finished = [d for d in game.deals if d.scores is not None]
    assert len(public["deals"]) == len(finished)
    assert list(replayed.totals) == [sum(d.scores[s] for d in finished) for s in range(3)]
    current = next((d for d in game.deals if d.scores is None), None)
    if current is None:
        assert progress is None
    else:
        assert progress is not None and progress["deal"] == current.index
        assert progress["bids"] == list(current.bids)
        assert len(progress["tricks"]) == sum(1 for t in current.tricks if len(t) == 3)


def test_a_finished_game_is_public_in_full() -> None:
    game = Game.new(Rules(players=3, max_hand=2, schedule="down"), "t", players=["A", "B", "C"])
    bots = [HeuristicPlayer(seed=i) for i in range(3)]
    while game.turn is not None:
        act(game, game.turn, bots[game.turn])
    document = record_document(game)
    assert public_record(document) == document
    assert deal_in_progress(document) is None
