"""The text layer: every user-facing sentence and embed. Cogs pick and send these; nothing here talks to
Discord's client or the database (``tests/test_layers.py``).

- ``common``: cleaning member text, Discord's limits, mentions, system titles;
- ``dice``, ``characters``, ``encounters``, ``actions``, ``gm``, ``reminders``: one module per feature;
- ``errors``: refusals and failures, and the sentence of every shell domain error (``bot.errors``);
- ``events``: one line per rules event, renderers keyed by the event class (``events.registry``), one module
  per system.
"""
