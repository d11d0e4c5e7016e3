"""The playground: the real bot on an embedded loopback Discord, played from a page in the browser.

``loopback`` is the fake Discord (gateway + REST, also what the end-to-end tests use); ``table`` sets up the
server, channels and members; ``web`` serves the page and relays what members do; ``run`` ties them together
for ``fray play``.
"""
