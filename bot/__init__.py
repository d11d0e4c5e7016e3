"""Fray's shell around the rules: settings, database, the Discord client, command sync and error handling."""
