"""Learning from games (docs/review.md): the review of a finished game, its replay, and
practice deals played alone against the computer players."""
