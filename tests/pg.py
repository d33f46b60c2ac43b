"""A throw-away PostgreSQL for the tests: one cluster per test session, one database per test.

``KACHUFUL_TEST_DATABASE_URL`` (a server the tests may create and drop databases on) is used
when set. Otherwise a cluster is made with Debian's binaries (``/usr/lib/postgresql/*/bin``) in
a temporary folder, listening on a unix socket in it only (no TCP port), run as an unprivileged
user when the tests run as root, and stopped at the end of the session. Without PostgreSQL the
tests that need it fail with one line saying how to install it: they are never skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
import sqlalchemy as sa

from bot.store.drivers import driver_for
from bot.store.store import Store

ENV_URL = "KACHUFUL_TEST_DATABASE_URL"
INSTALL_HINT = (
    "PostgreSQL is needed for these tests and was not found: install it with "
    "`apt-get install postgresql` (or set KACHUFUL_TEST_DATABASE_URL=postgresql://...)"
)
# Durability is not what the tests check: without fsync a test database costs milliseconds.
_FAST = ("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")


def find_binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder (14 or newer), or None."""
    found = []
    for bin_dir in Path("/usr/lib/postgresql").glob("*/bin"):
        try:
            major = int(bin_dir.parent.name)
        except ValueError:
            continue
        if major >= 14 and (bin_dir / "postgres").exists() and (bin_dir / "initdb").exists():
            found.append((major, bin_dir))
    return max(found)[1] if found else None


@dataclass
class Cluster:
    """A running server and how to reach it (``url(database)``)."""

    base: str  # a conninfo URL without the database name
    folder: Path | None = None
    bin_dir: Path | None = None
    user: str | None = None
    _names = itertools.count(1)

    def url(self, database: str) -> str:
        return self.base.replace("/@DB@", f"/{database}")

    def admin(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(self.url("postgres"), autocommit=True)

    def new_database(self, template: str | None = None) -> str:
        """A new database: empty, or a copy of ``template`` (a database nobody is connected
        to, which PostgreSQL copies file by file)."""
        name = f"kachuful_test_{os.getpid()}_{next(self._names)}"
        copied = f' TEMPLATE "{template}"' if template is not None else ""
        with self.admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"{copied}')
        return name

    def drop_database(self, name: str) -> None:
        with self.admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self.folder is None or self.bin_dir is None:
            return
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            _as_user(
                self.user,
                str(self.bin_dir / "pg_ctl"),
                *("-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop"),
            )
        shutil.rmtree(self.folder, ignore_errors=True)


def _as_user(user: str | None, *command: str) -> None:
    """Run a command (as ``user`` when the tests run as root: postgres refuses root)."""
    prefix = ("runuser", "-u", user, "--") if user is not None else ()
    subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=60)


def _unprivileged_user() -> str | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise RuntimeError("running as root and no unprivileged user (postgres, nobody) to run as")


def start_cluster(*, durable: bool = False) -> Cluster:
    """A new cluster in a temporary folder (see the module's docstring); ``durable``: with
    fsync and synchronous commits, as in production (for a measurement)."""
    bin_dir = find_binaries()
    if bin_dir is None:
        pytest.fail(INSTALL_HINT, pytrace=False)
    user = _unprivileged_user()
    folder = Path(tempfile.mkdtemp(prefix="kachuful-pg-"))
    folder.chmod(0o755)
    data, socket_dir = folder / "data", folder / "socket"
    socket_dir.mkdir()
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
        os.chown(socket_dir, entry.pw_uid, entry.pw_gid)
    cluster = Cluster(base="", folder=folder, bin_dir=bin_dir, user=user)
    try:
        _as_user(
            user,
            str(bin_dir / "initdb"),
            *("-D", str(data), "-A", "trust", "-U", "kachuful"),
            *("-E", "UTF8", "--no-sync", "--locale=C.UTF-8"),
        )
        options = " ".join(
            ["-c listen_addresses=''", f"-k {socket_dir}", "-c max_connections=200"]
            + ([] if durable else list(_FAST))
        )
        _as_user(
            user,
            str(bin_dir / "pg_ctl"),
            *("-D", str(data), "-o", options, "-l", str(folder / "server.log")),
            *("-w", "-t", "60", "start"),
        )
    except (subprocess.SubprocessError, OSError) as error:
        cluster.stop()
        detail = getattr(error, "stderr", b"") or b""
        raise RuntimeError(
            f"could not start a throw-away PostgreSQL: {error} {detail.decode(errors='replace')}"
        ) from None
    cluster.base = f"postgresql://kachuful@/@DB@?host={quote(str(socket_dir), safe='/')}"
    return cluster


def cluster_from_env(url: str) -> Cluster:
    """A cluster the developer runs: the database part of their URL is replaced per test."""
    head, _, query = url.partition("?")
    scheme, _, rest = head.partition("://")
    authority = rest.split("/", 1)[0]
    base = f"{scheme}://{authority}/@DB@" + (f"?{query}" if query else "")
    return Cluster(base=base)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    url = os.environ.get(ENV_URL)
    if url:
        yield cluster_from_env(url)
        return
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> Iterator[str]:
    """The URL of a new, empty database (dropped after the test)."""
    name = pg_cluster.new_database()
    try:
        yield pg_cluster.url(name)
    finally:
        pg_cluster.drop_database(name)


@pytest.fixture(scope="session")
def pg_migrated_template(pg_cluster: Cluster) -> Iterator[str]:
    """A database the store has migrated to the newest schema, made once per session (and
    per worker), for :func:`pg_migrated_url` to copy."""
    name = pg_cluster.new_database()
    asyncio.run(_open_and_close(pg_cluster.url(name)))
    try:
        yield name
    finally:
        pg_cluster.drop_database(name)


@pytest.fixture
def pg_migrated_url(pg_cluster: Cluster, pg_migrated_template: str) -> Iterator[str]:
    """The URL of a new database holding the newest schema and no data, as the store leaves
    an empty database at its first start (a copy: the migrations are tested on their own)."""
    name = pg_cluster.new_database(template=pg_migrated_template)
    try:
        yield pg_cluster.url(name)
    finally:
        pg_cluster.drop_database(name)


async def _open_and_close(target: str | Path) -> None:
    store = await Store.open(target)
    await store.close()


def execute_raw(
    target: str | Path, sql: str, params: dict[str, object] | None = None
) -> list[tuple[Any, ...]]:
    """Run one statement (in SQL both engines run, parameters named ``:name``) straight on a
    test database, as another program would: the SQLite file at ``target`` or the
    PostgreSQL database at the URL ``target`` (any engine's: its driver gives the URL)."""
    engine = sa.create_engine(driver_for(target).sync_url(target), poolclass=sa.NullPool)
    try:
        with engine.begin() as conn:
            result = conn.execute(sa.text(sql), params or {})
            return [tuple(row) for row in result] if result.returns_rows else []
    finally:
        engine.dispose()


def migrate_raw(target: str | Path, to: int) -> None:
    """Give a test database the schema of version ``to`` (an older release's), through the
    bot's own revisions, as that release left it."""
    from bot.store.drivers import driver_of
    from bot.store.migrate import upgrade

    url = driver_for(target).sync_url(target)
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    try:
        with engine.connect() as conn:
            upgrade(conn, driver_of(conn), to=to)
    finally:
        engine.dispose()


def target_of(store: Store) -> str | Path:
    """What opens ``store`` again: its URL or its file."""
    return store.url if store.url is not None else store.path
