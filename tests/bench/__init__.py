"""Benchmarks (``-m slow``): excluded from the default run."""
