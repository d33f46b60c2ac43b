"""Alembic's entry point for the bot's migrations. The bot runs them itself at start
(``bot.store.migrate``), on its own connection, one revision per transaction; this file only
takes that connection from the configuration and runs the revisions asked for."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise SystemExit(
        "the bot applies its migrations itself when it starts (kachuful-bot); "
        "there is nothing to run by hand"
    )
context.configure(connection=connection, transaction_per_migration=False)
with context.begin_transaction():
    context.run_migrations()
