"""The D6 campaign (seed ``004_03bb97f5e4e2a922.txt``; RULES.md §3): dice pools with a Wild Die."""
