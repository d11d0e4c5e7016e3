"""Kaernest tables (TOML): weapons, armour and creature templates, read by ``rules.systems.kaernest.tables``."""
