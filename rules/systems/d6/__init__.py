"""The D6 campaign (seed ``004_03bb97f5e4e2a922.txt``; RULES.md §3): dice pools with a Wild Die.

Modules, one seed passage each: ``pool`` (die codes, Wild Die), ``house`` (house rules), ``sheet``,
``tables`` (``data/d6``), ``state``, ``events``, ``checks``, ``initiative``, ``turn`` (declared plan,
multi-action penalty, free actions), ``save``, ``defense``, ``attack``, ``damage``, ``critical``, ``grapple``,
``health`` (HP changes into Last Gasp), ``last_gasp`` (Death Save), ``heal_pool``, ``healing``,
``movement``, ``stealth``; ``gm`` (GM tools, joining and the start of a fight). ``adapter`` puts them behind
``rules.encounter.System`` for the bot.
"""
