"""The S.P.Q.RisiKo! ruleset (Editrice Giochi, 2005 rulebook by default).

Modules are named after what they decide; each docstring cites the rulebook sections (§)
it implements, so searching for ``§12`` finds the sea-attack rules.
"""
