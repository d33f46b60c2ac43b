# Kachuful Discord bot.
#   docker build -t kachuful-bot .
#   docker run -d --name kachuful --env-file .env -v kachuful-data:/data kachuful-bot
# or: docker compose up -d  (compose.yaml)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    KACHUFUL_DB_PATH=/data/kachuful.sqlite3 \
    NUMBA_CACHE_DIR=/opt/numba-cache

# tini as PID 1: it forwards docker stop's SIGTERM to the bot (whose own handler then closes
# the database cleanly) and reaps zombies; a signal that arrives before the bot has installed
# its handler still stops the process instead of being ignored, as it would be by a PID 1.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin kachuful \
    && mkdir -p /data \
    && chown kachuful:kachuful /data

WORKDIR /app

# The dependencies get their own layer, keyed on the lock file only: a change to the bot's
# source reuses it. requirements.lock pins every package (and setuptools, to build the
# project) to one version and the hashes of its files, so every build installs the same bytes
# and a tampered download is refused (how to refresh it: its header and the README).
COPY requirements.lock ./
RUN pip install --require-hashes --no-deps -r requirements.lock

# Only the packages the bot needs are copied (never .env, data/ or the venv).
COPY pyproject.toml README.md ./
COPY kachuful_core ./kachuful_core
COPY bot ./bot
COPY cogs ./cogs
# pip check: the lock holds every package the project needs (neither install fetched any on its
# own). The search player's loops are compiled here, once (about 20 s), into numba's cache:
# the bot's workers then load them in half a second. The bot's user may add to the cache
# (numba recompiles for a different CPU than the build machine's).
RUN pip install --no-deps --no-build-isolation . \
    && pip check \
    && python -c "import bot.health, bot.client, cogs.kachuful" \
    && python -c "from kachuful_core.players import warm_up; warm_up()" \
    && chown -R kachuful:kachuful /opt/numba-cache

# The database lives on a volume so games and leaderboards survive new images.
VOLUME ["/data"]
USER kachuful

# Healthy = connected to Discord and the database takes a write (the bot touches a heartbeat
# file beside the database every 30 s when both hold). Start-up may take a while on a server
# with many open tables to restore.
HEALTHCHECK --interval=30s --timeout=10s --start-period=90s --retries=3 \
    CMD ["python", "-m", "bot.health"]

# docker stop sends SIGTERM and waits 10 s; the bot finishes its shutdown within 8 s.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
# Configuration errors exit with status 2 and one line (see `docker logs kachuful`).
CMD ["kachuful-bot"]
