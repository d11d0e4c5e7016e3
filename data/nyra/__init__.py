"""Nyra tables (TOML), read by ``rules.systems.nyra.tables``."""
