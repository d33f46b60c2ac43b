-- Kachuful bot schema, version 2: public messages as a view of the committed game.
-- The publisher of a table brings the channel up to date with the stored game; what it has
-- delivered is written here as it is delivered, so that a restart posts what is missing
-- exactly once and never posts a delivered message again.

-- Why a game ended without a result ("stop:<user id>", "idle", "all_left", "lobby_timeout",
-- "host_left"); NULL for a game that is open or finished normally.
ALTER TABLE games ADD COLUMN ended TEXT;

-- 0 while the publisher still owes the channel messages of a finished or stopped game (its
-- last trick, the scores, the final standings); set to 1 once all are delivered. Games made
-- before this column existed were published in full by the bot that ran them.
ALTER TABLE games ADD COLUMN settled INTEGER NOT NULL DEFAULT 1;

CREATE INDEX games_unsettled ON games (settled) WHERE settled = 0;

-- One row per public message delivered for a game: its key names what it shows (the lobby,
-- deal 3's bids, deal 3's trick 2, the final standings, the thread, a turn ping), digest the
-- content last sent, so that only a changed message is edited.
CREATE TABLE posts (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    key         TEXT    NOT NULL,
    channel_id  INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    digest      TEXT    NOT NULL,
    PRIMARY KEY (game_id, key)
) WITHOUT ROWID;

-- The open private hand message of each player: the token of the interaction it answered,
-- which lets the bot edit it for 15 minutes, so it is brought up to date after a restart too.
CREATE TABLE hand_messages (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    token       TEXT    NOT NULL,
    opened_at   TEXT    NOT NULL,
    PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;
