"""With ``review_games`` on and a worker process (the defaults outside tests), a game is
reviewed as it ends, in the background: its Review button then answers from the store at
once. The worker itself runs a review's deal as it runs a decision (the second test)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import simcord

from bot.config import Settings
from bot.table import thinking
from kachuful_core import Game, Rules, record_document
from kachuful_core.game import Phase
from kachuful_core.players import HeuristicPlayer, act
from kachuful_core.review import review_deal

from .helpers import final_standings, finished_game, texts

pytestmark = pytest.mark.both_backends


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"review_games": True, "computer_workers": 1})


async def test_a_game_is_reviewed_as_it_ends(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker process is replaced by a thread here: SimCord runs the bot in this process
    # (the worker is tested below, without SimCord).
    async def in_thread(self: thinking.Thinker, work: Any, *args: Any) -> Any:
        return await asyncio.to_thread(work, *args)

    monkeypatch.setattr(thinking.Thinker, "compute", in_thread)
    table, (asha, _b, _c), game_id = await finished_game(env)
    for _ in range(600):
        if await env.bot.store.reviews.get(game_id) is not None:
            break
        await asyncio.sleep(0.05)
    assert await env.bot.store.reviews.get(game_id) is not None
    assert not env.bot.reviewer.computing(game_id)
    answer = await asha.click(final_standings(table), label="Review")
    assert f"Review of game #{game_id}" in texts(answer.response)
    assert "being computed" not in texts(answer.response)


@pytest.mark.one_store("the worker process, no store")
async def test_a_worker_process_reviews_a_deal_as_this_process_would() -> None:
    game = Game.new(Rules(players=3, max_hand=2), b"worker")
    player = HeuristicPlayer(0)
    while game.phase is not Phase.FINISHED:
        assert game.turn is not None
        act(game, game.turn, player)
    record = record_document(game)
    thinker = thinking.Thinker(workers=1)
    try:
        deal = await thinker.compute(review_deal, record, 0)
    finally:
        thinker.close()
    assert deal == review_deal(record, 0)
