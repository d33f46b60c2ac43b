-- Small facts the bot keeps about itself between starts, one text value per key. The first:
-- "commands_digest", the digest of the slash commands last synced to Discord globally, so
-- that a start with unchanged commands sends no sync request (see bot.command_sync).

CREATE TABLE bot_state (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
