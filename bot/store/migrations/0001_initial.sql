-- Kachuful bot schema, version 1.
-- A game row holds everything needed to rebuild a table after a restart: the rules, the seats,
-- the secret seed that deals later deals, and the kachuful-record/1 document of every action so far.

CREATE TABLE games (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    host_id          INTEGER NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'stopped')),
    rules            TEXT    NOT NULL,             -- JSON: table options chosen at /kachuful start
    max_seats        INTEGER NOT NULL CHECK (max_seats BETWEEN 3 AND 7),
    seed             TEXT,                         -- secret; set when the game starts
    record           TEXT,                         -- JSON kachuful-record/1, set when the game starts
    seats            TEXT    NOT NULL,             -- JSON list of seats (user id or null for computer, flags)
    message_id       INTEGER,                      -- the current public table (or lobby) message
    version          INTEGER NOT NULL DEFAULT 0,   -- move counter carried by every button
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL
);

-- One open game (lobby or running) per channel.
CREATE UNIQUE INDEX games_one_open_per_channel
    ON games (channel_id) WHERE status IN ('lobby', 'running');

CREATE INDEX games_status ON games (status);

-- One row per seat of every finished game; computer seats have user_id NULL.
CREATE TABLE results (
    game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat         INTEGER NOT NULL,
    guild_id     INTEGER NOT NULL,
    channel_id   INTEGER NOT NULL,
    user_id      INTEGER,
    score        INTEGER NOT NULL,
    won          INTEGER NOT NULL CHECK (won IN (0, 1)),   -- shared wins count as wins
    bids_exact   INTEGER NOT NULL CHECK (bids_exact >= 0),
    bids         INTEGER NOT NULL CHECK (bids >= bids_exact),
    finished_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX results_channel_user ON results (channel_id, user_id);
CREATE INDEX results_guild_user ON results (guild_id, user_id);
