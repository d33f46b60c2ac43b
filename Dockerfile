# Kachuful Discord bot.
#   docker build -t kachuful-bot .
#   docker run -d --name kachuful --env-file .env -v kachuful-data:/data kachuful-bot
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    KACHUFUL_DB_PATH=/data/kachuful.sqlite3

WORKDIR /app

# Only the packages the bot needs are copied (never .env, data/ or the venv).
COPY pyproject.toml README.md ./
COPY kachuful_core ./kachuful_core
COPY bot ./bot
COPY cogs ./cogs
RUN pip install . \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin kachuful \
    && mkdir -p /data \
    && chown kachuful:kachuful /data

# The database lives on a volume so games and leaderboards survive new images.
VOLUME ["/data"]
USER kachuful

# Configuration errors exit with status 2 and one line; don't restart-loop on those.
CMD ["kachuful-bot"]
