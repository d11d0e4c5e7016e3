# Fray: a Discord bot for play-by-chat tabletop combat.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_URL=sqlite+aiosqlite:////data/fray.db \
    HEARTBEAT_FILE=/tmp/fray-heartbeat

WORKDIR /app

# Dependencies in their own layer: only pyproject.toml decides it, so code changes reuse the cache.
COPY pyproject.toml README.md ./
RUN mkdir -p bot cogs rules data \
    && touch bot/__init__.py cogs/__init__.py rules/__init__.py data/__init__.py \
    && pip install --no-cache-dir './[postgres]' \
    && pip uninstall --yes fray \
    && rm -rf bot cogs rules data

COPY bot ./bot
COPY cogs ./cogs
COPY rules ./rules
COPY data ./data
RUN pip install --no-cache-dir --no-deps . \
    && useradd --create-home --uid 10001 --user-group fray \
    && mkdir -p /data \
    && chown fray:fray /data

USER 10001:10001
VOLUME ["/data"]

# Unhealthy when the gateway connection has been down for 90 s (the bot refreshes the heartbeat file).
HEALTHCHECK --interval=60s --timeout=10s --start-period=60s --retries=3 CMD ["python", "-m", "bot", "health"]

CMD ["python", "-m", "bot"]
