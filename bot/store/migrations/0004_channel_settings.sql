-- Per-channel defaults for the next game (/kachuful settings): table options, presentation,
-- turn clock, computer players. One JSON object per channel: the values are checked by
-- bot.store.settings before they are written, and a running game never reads them again.

CREATE TABLE channel_settings (
    channel_id  INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    settings    TEXT    NOT NULL,   -- JSON object
    updated_by  INTEGER NOT NULL,
    updated_at  TEXT    NOT NULL
);
