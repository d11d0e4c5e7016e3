"""The load benchmark (``python -m bot bench``): Fray against the floor, through the loopback fake Discord.

The **floor** is a bare discord.py bot answering a no-op slash command. Each bot runs in its own process
(``bot.bench.proc``) against its own fake (held by the driver process, ``bot.bench.run``); phases of the
floor and of Fray are interleaved (the floor runs before and after every other phase), three repetitions.
Figures are reported as ratios to the floor measured next to them (``bot.bench.report``), so the machine's
speed, which drifts within seconds on a shared host, cancels out as far as it can.
"""
