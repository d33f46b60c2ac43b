"""With ``review_games`` on (the default outside tests), a game is reviewed as it ends, in
the background: its Review button then answers from the store at once."""

from __future__ import annotations

import asyncio

import pytest
import simcord

from bot.config import Settings

from .helpers import final_standings, finished_game, texts
from .test_review import count_computations

pytestmark = pytest.mark.both_backends


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"review_games": True})


async def test_a_game_is_reviewed_as_it_ends(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    computed = count_computations(monkeypatch)
    table, (asha, _b, _c), game_id = await finished_game(env)
    for _ in range(400):
        if await env.bot.store.reviews.get(game_id) is not None:
            break
        await asyncio.sleep(0.05)
    assert computed == [0, 1]
    answer = await asha.click(final_standings(table), label="Review")
    assert f"Review of game #{game_id}" in texts(answer.response)
    assert computed == [0, 1]  # read from the store, not computed again
