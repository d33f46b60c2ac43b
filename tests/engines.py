"""The engines the tests run the store on (the tests' list of engines): each by its driver's
name (bot/store/drivers.py), with the fixtures that give a test a new database of it, empty or
at the newest schema. A new engine is one entry here and its two fixtures (a server engine's
beside tests/pg.py's); every test marked ``both_backends``, and every store test on the
``database`` fixture, then runs on it too.

The SQLite fixtures are here: a file in the test's folder."""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.store.drivers import driver_for
from bot.store.store import Store


@dataclass(frozen=True)
class Engine:
    empty: str  # the fixture giving a new, empty database (its URL or file)
    migrated: str  # the fixture giving a new database at the newest schema, with no data


ENGINES: dict[str, Engine] = {
    "sqlite": Engine(empty="sqlite_path", migrated="sqlite_migrated_path"),
    "postgresql": Engine(empty="pg_url", migrated="pg_migrated_url"),
}


def new_database(
    request: pytest.FixtureRequest, engine: str, *, migrated: bool = False
) -> str | Path:
    """A new database of ``engine`` for the test asking (dropped or deleted after it)."""
    chosen = ENGINES[engine]
    found: str | Path = request.getfixturevalue(chosen.migrated if migrated else chosen.empty)
    return found


def is_file(target: str | Path) -> bool:
    """Whether ``target`` is a file (KACHUFUL_DB_PATH) rather than a server's URL
    (KACHUFUL_DATABASE_URL): its driver says."""
    return driver_for(target).url_of(target) is None


async def _open_and_close(target: str | Path) -> None:
    store = await Store.open(target)
    await store.close()


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    """Where a new SQLite file goes (nothing there yet)."""
    return tmp_path / "k.sqlite3"


@pytest.fixture(scope="session")
def sqlite_migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file the store has migrated to the newest schema, made once per session
    (and per worker): a test's bot starts on a copy, as on a database its first start made."""
    path = tmp_path_factory.mktemp("template") / "kachuful.sqlite3"
    asyncio.run(_open_and_close(path))
    return path


@pytest.fixture
def sqlite_migrated_path(tmp_path: Path, sqlite_migrated_template: Path) -> Path:
    """A copy of the migrated template, where the bot's settings put it by default."""
    path = tmp_path / "data" / "kachuful.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(sqlite_migrated_template, path)
    return path
