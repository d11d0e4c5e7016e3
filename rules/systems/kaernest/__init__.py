"""Kaernest (seed ``003_0af1930f288e9ab6.txt``; RULES.md §2): 2d12 roll-under with a 30-segment timeline.

Modules follow the seed's sections: ``roll`` (the core roll), ``sheet``, ``tables`` (weapon and armour
tables), ``initiative`` and ``timeline`` (Initiative / Order of Actions), ``defense`` (Defense), ``attack``
(Attack), ``damage`` (Determining Damage, Armour), ``health`` (Damage, Wounds), ``house`` (house rules),
``state`` (combat state), ``encounter`` (joining and leaving, GM damage), ``check`` (/check), ``creatures``
(NPC templates) and ``events`` (what the operations report). ``adapter`` puts them behind
``rules.encounter.System`` for the bot.
"""
