"""One line per rules event. ``registry`` holds the renderers keyed by event class (its docstring is the API);
``shared`` renders the events every system has, and one module per system renders that system's events.

Importing this package registers them all; ``lines_of(events, names)`` is what the cogs call.
"""

from cogs.text.events import d6, kaernest, nyra, shared
from cogs.text.events.registry import Names, event_lines, lines_of, renders

__all__ = ["Names", "d6", "event_lines", "kaernest", "lines_of", "nyra", "renders", "shared"]
