"""Augur's rules tracker: boards, observed states, rules, scoring, event inference, verdicts.

The tracker never looks at pixels. It receives observed board states (what the camera
counted) and turns each change into ranked explanations, legality verdicts and scores.
"""
