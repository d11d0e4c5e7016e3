"""Alembic migrations for Fray's database (env.py is configured in code by ``bot.db``)."""
