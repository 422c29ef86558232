"""The territory games of the Risiko family: classic Risiko (Italian rules), the 2-vs-2
tournament rules, and Risiko - Il Signore degli Anelli (with its classic-rules mode).

They share one engine (territories, armies, attacks, one move per turn) driven by a
:class:`~tracker.risiko.rules.RisikoRules` object that names every rule choice.
"""
