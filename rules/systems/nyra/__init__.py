"""Nyra (seed ``000_596bc6bb6e9f730c.txt``; RULES.md §1): d10 roll-under combat with delay, locations and
bleeding. One module per section of the seed; ``adapter.py`` is what the Discord layer calls.

- house.py       HouseRules, RULE_SPECS, describe_rules, set_rule (``/gm rules``)
- modifiers.py   the stat modifier table
- checks.py      difficulties, a check, the competitive check
- weapons.py     damage types, XdY+F, weapons, materials, hones
- crafting.py    base flat damage, craft, apply_hone
- armour.py      armour pieces and the armour on a location
- locations.py   location tables, location health, wound states
- bleeding.py    bleed per wound state
- tables.py      data/nyra/*.toml → validated frozen objects; creatures.py the creature templates
- sheet.py       NyraSheet: validation, dict form, set_field, fields, roll_sequence, weapons/armour
- state.py       NyraCombatant, NyraCombat
- events.py      the events every operation returns
- sequence.py    order of play (begin, add_combatant); turns.py turn start/end, bleeding, phases
- delay.py       the delay pool; energy.py the energy pool
- strike.py      a strike, resolved completely; damage.py damage and wounds; actions.py moves and GM tools
"""
