-- Running totals of the 7- and 30-day leaderboards (issue 9): a period board is read from an
-- index like the all-time board instead of summing the period's day rows at every read.
-- period_totals holds, per server (channel_id 0) or channel and per player, the sum of the
-- player_days rows from period_windows.first_day on. A finished game is added in its own
-- transaction (bot.store.results.apply_finished_game); when the window moves on (after the
-- day's first finished game, or at a read that finds it behind), the day rows that left it are
-- subtracted (bot.store.results.expire_period). The rows of an existing database are summed
-- by bot.store.results.rebuild_periods, run in this migration's transaction.

CREATE TABLE period_windows (
    guild_id   INTEGER NOT NULL,
    days       INTEGER NOT NULL,               -- 7 or 30
    first_day  TEXT    NOT NULL,               -- YYYY-MM-DD (UTC): the oldest day counted
    PRIMARY KEY (guild_id, days)
) WITHOUT ROWID;

CREATE TABLE period_totals (
    guild_id    INTEGER NOT NULL,
    days        INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,              -- 0: the whole server
    user_id     INTEGER NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    score_sum   INTEGER NOT NULL,
    bids_exact  INTEGER NOT NULL,
    bids        INTEGER NOT NULL,
    avg_score   REAL    NOT NULL,
    exact_rate  REAL,                          -- NULL when the player never bid
    ordinal     REAL,                          -- the player's server rating (ratings.ordinal)
    PRIMARY KEY (guild_id, days, channel_id, user_id)
) WITHOUT ROWID;

-- One index per sort, in the board's order (key, then more games, then the lower user id).
CREATE INDEX period_totals_rating
    ON period_totals (guild_id, days, channel_id, ordinal DESC, games DESC, user_id);
CREATE INDEX period_totals_wins
    ON period_totals (guild_id, days, channel_id, wins DESC, games DESC, user_id);
CREATE INDEX period_totals_average
    ON period_totals (guild_id, days, channel_id, avg_score DESC, games DESC, user_id);
CREATE INDEX period_totals_exact
    ON period_totals (guild_id, days, channel_id, exact_rate DESC, games DESC, user_id);
-- A player's rows in every channel and period: their rating is copied to each after a game.
CREATE INDEX period_totals_user ON period_totals (guild_id, user_id);

-- The day rows of a server by day, across channels: what leaves a window, read as one range
-- of this covering index (a month-old day's rows are rarely in the page cache).
CREATE INDEX player_days_day
    ON player_days (guild_id, day, channel_id, user_id, games, wins, score_sum, bids_exact, bids);
