"""Persistence: every SQL statement of the bot lives in this package.

This file imports nothing, so that importing one of the package's modules (``bot.store.values``,
say) loads that module alone. Callers import what they use from the module that holds it:

* :class:`~.store.Store` (``bot.store.store``), the store, opened with ``Store.open`` and typed
  by callers as :class:`~.protocol.GameStore` (``bot.store.protocol``);
* the errors (``bot.store.failures``): ``StoreError``, ``StoreBusy``, ``StoreUnavailable``,
  ``ChannelBusy``, ``StaleWrite``;
* the plain values passed in and out (``bot.store.values``).

One engine of two, chosen by what ``Store.open`` is given (``Settings.database``): an SQLite
file in WAL mode, through aiosqlite (the default), or a PostgreSQL database
(``KACHUFUL_DATABASE_URL``), through psycopg 3, both under SQLAlchemy Core 2. The tables are
defined once (:mod:`.schema`) and every query is written once against them; what the engines
truly do differently (URLs, locks, the first statement of a write, the WAL checkpoint, which
errors mean what) is each engine's driver (:mod:`.drivers`). What follows holds on both (on
PostgreSQL the reader is a read-only session, and a row lock stands in for SQLite's database
lock).

Schema changes are Alembic revisions (``migrations/versions``) applied in order at start-up
(:mod:`.migrate`; on PostgreSQL under an advisory lock, so that processes starting together
migrate once). Every applied action is written by one ``Store.save_game`` call: one
transaction, guarded by the game's move counter so that two writers can never both win.

The store is one class made of one module per concern (see :mod:`.store`): games
(:mod:`.games`) and moves (:mod:`.moves`), posts (:mod:`.posts`), hands (:mod:`.hands`),
settings and the bot's state (:mod:`.state`), results and boards (:mod:`.results`,
:mod:`.periods`, :mod:`.boards`, :mod:`.reads`), the club (:mod:`.club`, :mod:`.seasons`),
learning (:mod:`.learning`) and pads (:mod:`.scorepads`). A finished game's results,
aggregates and rating changes are written in the transaction that marks it finished. Reads for
leaderboards, statistics and history go through ``Store.reads``: a second, read-only
connection that WAL lets run beside the writer, never under the writer's lock, so that no move
waits for a read.
"""
