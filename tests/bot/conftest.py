"""SimCord fixtures: the real bot against a simulated Discord, a fresh database per test.

No network and no token: SimCord fakes Discord's REST API and gateway in-process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import simcord

from bot.client import KachufulBot
from bot.settings import Settings

FAKE_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=FAKE_TOKEN,
        db_path=tmp_path / "data" / "kachuful.sqlite3",
        sync_global=True,
        bot_delay_seconds=0,  # computer players act at once (a pause would be real time)
        turn_seconds=90,
        lobby_timeout_seconds=900,
    )


@pytest.fixture
def make_bot(settings: Settings) -> Callable[[], KachufulBot]:
    made: list[KachufulBot] = []

    def factory() -> KachufulBot:
        bot = KachufulBot(settings)
        made.append(bot)
        return bot

    factory.made = made  # type: ignore[attr-defined]
    return factory


@pytest.fixture
async def env(make_bot: Callable[[], KachufulBot]) -> AsyncIterator[simcord.Env]:
    environment = simcord.Env(make_bot())
    await environment.start()
    try:
        yield environment
    finally:
        await environment.shutdown()
        # SimCord does not call bot.close(); the database connections are ours to close.
        for bot in make_bot.made:  # type: ignore[attr-defined]
            store = getattr(bot, "store", None)
            if store is not None:
                await store.close()
        environment._raise_errors_since(environment._errors_acknowledged)
