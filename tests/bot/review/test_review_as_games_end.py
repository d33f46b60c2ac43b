"""With ``review_games`` on and a worker process (the defaults outside tests), a game is
reviewed as it ends, in the background, in the worker: its Review button then answers from the
store at once."""

from __future__ import annotations

import asyncio

import pytest
import simcord

from bot.config import Settings

from .helpers import final_standings, finished_game, texts

pytestmark = pytest.mark.both_backends


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"review_games": True, "computer_workers": 1})


async def test_a_game_is_reviewed_as_it_ends(env: simcord.Env) -> None:
    table, (asha, _b, _c), game_id = await finished_game(env)
    # The worker warms up (loads the search player) before its first piece of work.
    for _ in range(1200):
        if await env.bot.store.reviews.get(game_id) is not None:
            break
        await asyncio.sleep(0.05)
    assert await env.bot.store.reviews.get(game_id) is not None
    assert not env.bot.reviewer.computing(game_id)
    answer = await asha.click(final_standings(table), label="Review")
    assert f"Review of game #{game_id}" in texts(answer.response)
    assert "being computed" not in texts(answer.response)
