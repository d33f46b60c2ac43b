"""PostgreSQL URLs: how one is recognised, checked and shown without its password, and the
limits of a connection (the connections themselves are made in :mod:`.drivers`).

Why psycopg 3: well kept (the PostgreSQL driver most Python projects use), async, supported
by SQLAlchemy, binds parameters on the server, and has COPY for the bulk copy of
``migrate-to``.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import psycopg

from .failures import StoreError

URL_SCHEMES = ("postgresql", "postgres")
# A statement waiting for a row lock held by another process (two processes on one table,
# a misconfiguration) gives up well inside Discord's 3 s deadline for answering a click.
LOCK_TIMEOUT_MS = 1500
CONNECT_TIMEOUT_SECONDS = 10
MIN_SERVER_VERSION = 140000  # PostgreSQL 14


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and re.match(r"^postgres(ql)?://", target) is not None


def redacted(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://..."
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
    query = re.sub(r"(?i)(^|&)(password=)[^&]*", r"\1\2***", parts.query)
    return parts._replace(netloc=netloc, query=query).geturl()


def check_url(url: str) -> None:
    """Raise :class:`StoreError` (one line, no password) if ``url`` is not a usable
    ``postgresql://`` URL."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError as error:
        raise StoreError(f"not a valid PostgreSQL URL ({error}): {redacted(url)}") from None
    if parts.scheme not in URL_SCHEMES:
        raise StoreError(f"not a PostgreSQL URL (postgresql://user@host/database): {redacted(url)}")
    try:
        psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        raise StoreError(f"not a valid PostgreSQL URL: {redacted(url)}") from None
    if not parts.path.strip("/"):
        raise StoreError(f"the PostgreSQL URL names no database: {redacted(url)}")
