"""The registry of engines (bot/store/drivers.py): which driver a target belongs to, what its
errors mean, how it is shown; and the tests' list of engines covering every registered one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest
import sqlalchemy.exc
from psycopg import errors as pg_errors

from bot.config import Settings, shared_store
from bot.store import drivers
from bot.store.drivers import check_url, classify, describe, driver_for
from bot.store.failures import StoreBusy, StoreError, StoreUnavailable
from tests.engines import ENGINES

TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"


def test_the_tests_run_on_every_registered_engine() -> None:
    assert set(ENGINES) == {driver.name for driver in drivers.ENGINES}


def test_a_target_belongs_to_the_driver_that_claims_it(tmp_path: Path) -> None:
    assert driver_for(tmp_path / "k.sqlite3").name == "sqlite"
    assert driver_for("data/k.sqlite3").name == "sqlite"
    assert driver_for("postgresql://bot@db/k").name == "postgresql"
    assert driver_for("postgres://bot@db/k").name == "postgresql"
    with pytest.raises(StoreError) as refused:
        driver_for("nosuchdb://bot:s3cret@db/k")
    assert "postgresql://" in str(refused.value) and "s3cret" not in str(refused.value)


def test_a_url_is_checked_by_its_driver_and_shown_without_its_password() -> None:
    check_url("postgresql://bot:s3cret@db:5432/k")
    for url in ("nosuchdb://bot:s3cret@db/k", "data/k.sqlite3", "postgresql://bot:s3cret@db/"):
        with pytest.raises(StoreError) as refused:
            check_url(url)
        assert "s3cret" not in str(refused.value)
    assert describe("postgresql://bot:s3cret@db/k") == "postgresql://bot:***@db/k"
    assert describe("nosuchdb://bot:s3cret@db/k") == "nosuchdb://bot:***@db/k"
    assert describe(Path("data/k.sqlite3")) == "'data/k.sqlite3'"


def test_the_driver_says_whether_processes_can_share_the_store(tmp_path: Path) -> None:
    on_file = Settings(_env_file=None, discord_token=TOKEN, db_path=tmp_path / "k.sqlite3")  # type: ignore[call-arg]
    on_server = Settings(  # type: ignore[call-arg]
        _env_file=None, discord_token=TOKEN, database_url="postgresql://bot@db/k"
    )
    assert (shared_store(on_file), shared_store(on_server)) == (False, True)


def _sqlite_error(code: int) -> sqlite3.OperationalError:
    error = sqlite3.OperationalError("database is locked")
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    return error


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (_sqlite_error(sqlite3.SQLITE_BUSY), StoreBusy),
        (_sqlite_error(sqlite3.SQLITE_IOERR_WRITE), StoreUnavailable),
        (_sqlite_error(sqlite3.SQLITE_CONSTRAINT), None),
        (pg_errors.LockNotAvailable("lock timeout"), StoreBusy),
        (pg_errors.DiskFull("no space"), StoreUnavailable),
        (psycopg.OperationalError("server closed the connection"), StoreUnavailable),
        (pg_errors.UniqueViolation("duplicate key"), None),
        (ValueError("not a database error"), None),
    ],
)
def test_each_engines_errors_are_classified_by_its_driver(
    error: Exception, kind: type[Exception] | None
) -> None:
    found = classify(error)
    assert (type(found) if found is not None else None) is kind
    # As SQLAlchemy raises it: the driver's error inside.
    wrapped = sqlalchemy.exc.OperationalError("SELECT 1", {}, error)
    found = classify(wrapped)
    assert (type(found) if found is not None else None) is kind
    if isinstance(error, sqlite3.Error | psycopg.Error):
        assert isinstance(error, drivers.DATABASE_ERRORS)


def test_a_constraint_is_an_integrity_error_of_every_engine() -> None:
    assert issubclass(sqlite3.IntegrityError, drivers.INTEGRITY_ERRORS)
    assert issubclass(psycopg.IntegrityError, drivers.INTEGRITY_ERRORS)
    assert issubclass(sqlalchemy.exc.IntegrityError, drivers.INTEGRITY_ERRORS)


def test_nothing_outside_the_store_names_an_engine() -> None:
    """Adding an engine touches bot/store/ (and the tests' list): no module of bot/ or cogs/
    outside the store imports an engine's driver module or its library; bot/config.py and
    bot/__main__.py ask the registry."""
    import ast

    root = Path(__file__).resolve().parents[3]
    engines = {type(driver).__module__ for driver in drivers.ENGINES}
    libraries = {
        error.__module__.split(".")[0] for driver in drivers.ENGINES for error in driver.errors
    }
    assert {"bot.store.sqlite", "bot.store.postgres"} <= engines
    assert {"sqlite3", "psycopg"} <= libraries
    found = []
    for folder in ("bot", "cogs"):
        for path in sorted((root / folder).rglob("*.py")):
            if path.is_relative_to(root / "bot" / "store"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                else:
                    continue
                for name in names:
                    if name in engines or name.split(".")[0] in libraries:
                        found.append(f"{path.relative_to(root)}:{node.lineno} {name}")
    assert found == []
