"""SimCord fixtures: the real bot against a simulated Discord, a fresh database per test.

No network and no token: SimCord fakes Discord's REST API and gateway in-process.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import simcord
from simcord.http import router as simcord_router
from simcord.http.routes import scheduled_events as simcord_scheduled_events

from bot.client import KachufulBot
from bot.config import Settings
from bot.table.publisher import Publisher, RateLimits
from tests.engines import (  # noqa: F401 (fixtures)
    ENGINES,
    is_file,
    new_database,
    sqlite_migrated_path,
    sqlite_migrated_template,
    sqlite_path,
)
from tests.pg import (  # noqa: F401 (fixtures)
    pg_cluster,
    pg_migrated_template,
    pg_migrated_url,
    pg_url,
)

from .helpers import SPEC_PATH, validate_all_requests

# Every engine of the tests' list (tests/engines.py), SQLite first.
BACKENDS = tuple(ENGINES)
SETTLE_SECONDS = 30.0
FAKE_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The store's engine for the bot of a test: SQLite, or each engine in turn for a test
    (or module) marked ``both_backends``."""
    return str(getattr(request, "param", "sqlite"))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked ``both_backends`` whose bot has a store runs once on each engine, unless
    it is marked ``one_store`` (it checks the SQLite file itself, e.g. its WAL, or something the
    store takes no part in, e.g. message sizes or pacing, and is slow)."""
    marked = metafunc.definition.get_closest_marker
    if "backend" in metafunc.fixturenames and marked("both_backends") and not marked("one_store"):
        metafunc.parametrize("backend", BACKENDS, indirect=True)


@pytest.fixture
def settings(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Settings:
    """The bot's configuration, on a database of the newest schema and no data: a copy of one
    the store migrated once per worker (migrating an empty database for every test costs the
    suite minutes of processor time; the migrations themselves are tested in tests/bot/store)."""
    target = new_database(request, backend, migrated=True)
    db_path = Path(target) if is_file(target) else tmp_path / "data" / "kachuful.sqlite3"
    url = None if is_file(target) else str(target)
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=FAKE_TOKEN,
        db_path=db_path,
        database_url=url,
        sync_global=True,
        bot_delay_seconds=0,  # computer players act at once (a pause would be real time)
        turn_seconds=90,
        lobby_timeout_seconds=900,
        computer_workers=0,  # the search level decides in process (a worker is its own test)
        review_games=False,  # reviews are computed when asked for (and in their own tests)
    )


@pytest.fixture
def make_bot(settings: Settings, request: pytest.FixtureRequest) -> Callable[[], KachufulBot]:
    """Bots for one test. Game seeds are fixed per test (the deals are the same every run)."""
    made: list[KachufulBot] = []
    count = itertools.count()

    # The deals follow from the test's module file name and its name, not from its folder
    # (as its node id would): a test moved to a subfolder of tests/bot/ plays the same deals.
    test = f"tests/bot/{request.node.path.name}::{request.node.nodeid.split('::', 1)[1]}"

    def new_seed() -> str:
        return hashlib.sha256(f"{test}/{next(count)}".encode()).hexdigest()

    paced = request.node.get_closest_marker("paced") is not None

    def factory() -> KachufulBot:
        # New messages are paced at Discord's 5 per 5 s only in tests marked "paced": a paced
        # post waits on a timer that SimCord fires in real time unless the test advances time.
        bot = KachufulBot(
            settings,
            new_seed=new_seed,
            post_limit=5 if paced else 10_000,
            hand_delay=0.0,  # watchers redrawn at once (the pause is tested on its own)
        )
        made.append(bot)
        return bot

    factory.made = made  # type: ignore[attr-defined]
    return factory


@pytest.fixture
def virtual_pacing(env: simcord.Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a "paced" test, the bot's pause for a free slot (5 new messages in 5 s) runs on the
    simulated clock only, like the players' clicks (SimCord would otherwise let a pause shorter
    than its settling time pass in real time, during a click)."""
    original = RateLimits.wait

    async def wait(self: RateLimits, channel_id: int, *more: Any) -> None:
        paced = original(self, channel_id, *more)
        await env.external_wait(paced, reason="pacing of new messages")

    monkeypatch.setattr(RateLimits, "wait", wait)


def _virtual_backoff(environment: simcord.Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """The publisher's pause before it tries a refused or failed post again runs on the
    simulated clock, like the turn clock: a test moves past it with ``advance_time`` (SimCord
    would otherwise let a pause shorter than its settling time pass in real time)."""
    original = Publisher._back_off

    async def back_off(self: Publisher, error: Exception | None) -> None:
        await environment.external_wait(original(self, error), reason="publisher's backoff")

    monkeypatch.setattr(Publisher, "_back_off", back_off)


def _create_events_as_discord_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Since 2026-02-23 Discord asks Create Events (1 << 44) to create a guild scheduled event;
    Manage Events only edits and deletes the events of others. SimCord 3.2 still asks Manage
    Events to create one: its route is held to Discord's rule here."""
    routes = simcord_router._ROUTES["POST"]
    index = next(
        i
        for i, (_, handler) in enumerate(routes)
        if handler is simcord_scheduled_events.create_scheduled_event
    )

    def create(ctx: simcord_router.RequestContext) -> Any:
        asked = ctx.require_guild_permissions

        def require(guild_id: int, *names: str) -> None:
            asked(guild_id, *("create_events" if n == "manage_events" else n for n in names))

        ctx.require_guild_permissions = require  # type: ignore[method-assign]
        return simcord_scheduled_events.create_scheduled_event(ctx)

    held = [*routes[:index], (routes[index][0], create), *routes[index + 1 :]]
    monkeypatch.setitem(simcord_router._ROUTES, "POST", held)


@pytest.fixture
async def env(
    make_bot: Callable[[], KachufulBot], monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[simcord.Env]:
    # SimCord waits this long in real time for the bot to settle: the suite runs several
    # workers on two cores, where a busy moment can take longer than its default 5 s.
    environment = simcord.Env(make_bot(), settle_timeout=SETTLE_SECONDS)
    _virtual_backoff(environment, monkeypatch)
    _create_events_as_discord_asks(monkeypatch)
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
    # Every body the bot sent in the test must be valid for Discord's API description
    # (tests/data/discord-api-spec is part of the repository: a missing spec is an error).
    assert SPEC_PATH.exists(), f"Discord's OpenAPI description is missing: {SPEC_PATH}"
    validate_all_requests(environment)


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest) -> str | Path:
    """Where a test's store is, once on each backend: an SQLite file, then an empty
    PostgreSQL database (tests.pg): a new, empty database of each engine (tests/engines.py)."""
    return new_database(request, str(request.param))
