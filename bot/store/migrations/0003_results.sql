-- Results worth coming back to (issue 9): display names and places with the results, ratings,
-- and aggregates kept up to date in the transaction that finishes a game, so that no read has
-- to go through every result. Rows of earlier games are filled in by bot.store.results.backfill,
-- run in this migration's transaction (ratings need openskill, deal figures the engine).

ALTER TABLE results ADD COLUMN name TEXT;      -- display name at the time of the game
ALTER TABLE results ADD COLUMN level TEXT;     -- a computer seat's level (NULL for players)
ALTER TABLE results ADD COLUMN place INTEGER;  -- 1 = best score; equal scores share a place

-- Per player: channel_id 0 holds the whole server, any other the channel. avg_score and
-- exact_rate are kept beside their sums so that each sort of the leaderboard has an index.
CREATE TABLE player_totals (
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    games         INTEGER NOT NULL,
    wins          INTEGER NOT NULL,
    score_sum     INTEGER NOT NULL,
    best_score    INTEGER NOT NULL,
    best_game_id  INTEGER NOT NULL,
    bids_exact    INTEGER NOT NULL,
    bids          INTEGER NOT NULL,
    avg_score     REAL    NOT NULL,
    exact_rate    REAL,                        -- NULL when the player never bid
    last_game_id  INTEGER NOT NULL,
    PRIMARY KEY (guild_id, channel_id, user_id)
) WITHOUT ROWID;

CREATE INDEX player_totals_wins
    ON player_totals (guild_id, channel_id, wins DESC, games DESC, user_id);
CREATE INDEX player_totals_average
    ON player_totals (guild_id, channel_id, avg_score DESC, games DESC, user_id);
CREATE INDEX player_totals_exact
    ON player_totals (guild_id, channel_id, exact_rate DESC, games DESC, user_id);

-- Finished games per server: shown with the boards, and a cheap sign that the board changed
-- (a cache of the period boards is checked against it).
CREATE TABLE guild_totals (
    guild_id  INTEGER PRIMARY KEY,
    games     INTEGER NOT NULL
);

-- The same per UTC day, for the 7- and 30-day leaderboards.
CREATE TABLE player_days (
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    day         TEXT    NOT NULL,              -- YYYY-MM-DD (UTC)
    user_id     INTEGER NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    score_sum   INTEGER NOT NULL,
    bids_exact  INTEGER NOT NULL,
    bids        INTEGER NOT NULL,
    PRIMARY KEY (guild_id, channel_id, day, user_id)
) WITHOUT ROWID;

-- One rating per player per server (openskill Plackett-Luce; ordinal = mu - 3 sigma).
CREATE TABLE ratings (
    guild_id  INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    mu        REAL    NOT NULL,
    sigma     REAL    NOT NULL,
    ordinal   REAL    NOT NULL,
    games     INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;

CREATE INDEX ratings_board ON ratings (guild_id, ordinal DESC, user_id);

-- Each player's rating after each finished game: the trend on /kachuful stats.
CREATE TABLE rating_history (
    guild_id  INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    game_id   INTEGER NOT NULL,
    mu        REAL    NOT NULL,
    sigma     REAL    NOT NULL,
    ordinal   REAL    NOT NULL,
    PRIMARY KEY (guild_id, user_id, game_id)
) WITHOUT ROWID;

-- Per player, hand size and trump suit ('N' for no trump): deals, exact bids, zero bids.
CREATE TABLE deal_totals (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    hand_size   INTEGER NOT NULL,
    trump       TEXT    NOT NULL CHECK (trump IN ('S', 'H', 'D', 'C', 'N')),
    deals       INTEGER NOT NULL,
    exact       INTEGER NOT NULL,
    zero_bids   INTEGER NOT NULL,
    zero_exact  INTEGER NOT NULL,
    points      INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id, hand_size, trump)
) WITHOUT ROWID;

-- A channel's finished and stopped games, newest first (/kachuful history). Queries name the
-- statuses as literals so that SQLite can use this partial index.
CREATE INDEX games_channel_closed ON games (channel_id, id) WHERE status IN ('finished', 'stopped');

-- One user's results in a server, newest first (/kachuful stats: recent games).
CREATE INDEX results_guild_user_game ON results (guild_id, user_id, game_id);
