"""The rulesets of the Risiko family as data: one :class:`RisikoRules` per ruleset.

Each field is a rule choice the engine reads; where a seed text is ambiguous the field is a
named option and its docstring quotes the wording it interprets. Presets:

- ``classic``: Italian classic Risiko on the 42-territory board (Editrice Giochi).
- ``tournament-2v2``: the 2-vs-2 tournament rules (seed ``003``) on the same board.
- ``lotr``: Risiko - Il Signore degli Anelli (seed ``004``) on the Middle-earth base board.
- ``lotr-classic``: the booklet's "GIOCARE A RISIKO NELLA MANIERA CLASSICA" mode on that board.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from tracker.board import Group
from tracker.errors import GameError

# combat
DICE = "dice"
DICE_FREE = "dice_free"
# the one move of a turn
ADJACENT = "adjacent"          # to a directly bordering territory
CONNECTED = "connected"        # through any chain of one's own territories
# when the move may be made
END_OF_TURN = "end_of_turn"
ANY_TIME = "any_time"
# card tables (tracker.risiko.cards)
CLASSIC_CARDS = "classic"
TOURNAMENT_CARDS = "tournament"
LOTR_CARDS = "lotr"
# scoring
STANDING = "standing"
TOURNAMENT_POINTS = "tournament"
LOTR_POINTS = "lotr"

#: Seed 003: "esiste anche Asia del Nord (costituita da Kamchakta, Mongolia, Giappone, Siberia, Cita,
#: Jacuzia), che offre 3 carri come bonus di rifornimento".
ASIA_DEL_NORD = Group("asia_del_nord", "Asia del Nord", 3,
                      frozenset({"kamchatka", "mongolia", "giappone", "siberia", "cita", "jacuzia"}))


@dataclass(frozen=True)
class RisikoRules:
    """Every rule choice of one ruleset.

    - ``reinforcement_minimum``: classic Risiko gives one army per three territories with no
      floor; the tournament seed adds "Se un giocatore possiede meno di tre territori ha comunque
      diritto a un carro" (so the classic floor is read as none); the LotR booklet says "Anche
      occupando meno di 9 Territori si posizionano comunque e sempre 3 battaglioni".
    - ``opening_reinforcements``: tournament, "Per il primo turno il rinforzo previsto per ogni
      giocatore è di un solo carro; per il secondo turno ... di due carri" (a player's own first
      and second turns; from the third the normal count).
    - ``move_reach`` / ``move_timing``: classic and the LotR classic mode move once, at the end,
      to a bordering territory ("soltanto ... ad un altro direttamente adiacente"); LotR moves
      "da UN Territorio controllato ad un numero qualsiasi di altri Territori" through one's own
      territories; the tournament allows "uno spostamento per turno che può essere effettuato
      prima, dopo o durante gli attacchi".
    - ``min_move_in``: armies that must enter a conquered territory. With dice the camera sees
      only the total, and the last roll may have used one die, so 1; the tournament's worked
      example ("uno viene perso, uno resta di presidio e 3 restano come minimo contingente di
      invasione") fixes 3, which a dice-free conquest always allows.
    - ``neutral_defends_with_max``: tournament neutrals are "difesi ... col massimo dei dadi che il
      numero di carri di presidio permette"; players choose how many to defend with.
    - ``neutral_garrison``: the tournament seed says the two neutral territories are "presidiati con
      carri di colore diverso" without a number; ``None`` accepts any garrison at set-up.
    - ``strip_counts_connected``: tournament scoring gives 4 points to "territori fuori obiettivo
      che siano legati in 'striscia' all'area del proprio obiettivo"; read as every territory of the
      player connected to a held objective territory through the player's own territories.
    - ``asia_del_nord_with_asia``: whether holding all Asia also pays the Asia del Nord bonus
      (the seed lists it as a continent of its own; by default both are paid).
    - ``fellowship_moves``: seed 004 moves the Fellowship "Al termine del turno di ogni giocatore";
      the reference notes read it as once a round. ``"turn"`` (default) or ``"round"``.
    - ``initial_armies``: armies per player by number of players. LotR: "2 giocatori: 40 ... 3
      giocatori: 35 ... 4 giocatori: 30"; its classic mode prints "3 ... 35, 4 ... 40", which
      contradicts the main table; ``lotr-classic`` follows the main table (30 for 4) and names it.
    """

    id: str
    title: str
    board: str
    combat: str = DICE
    attack_dice: int = 3
    defence_dice: int = 3
    reinforcement_divisor: int = 3
    reinforcement_minimum: int = 0
    opening_reinforcements: tuple[int, ...] = ()
    extra_groups: tuple[Group, ...] = ()
    asia_del_nord_with_asia: bool = True
    cards: str = CLASSIC_CARDS
    #: holding this many cards forces a trade at the start of the turn (None: never forced)
    forced_trade_at: int | None = None
    move_reach: str = ADJACENT
    move_timing: str = END_OF_TURN
    min_move_in: int = 1
    army_cap: int | None = None
    teams: bool = False
    neutral_defends_with_max: bool = False
    neutral_garrison: int | None = None
    leaders: bool = False
    strongholds: bool = False
    fellowship: bool = False
    fellowship_moves: str = "turn"
    scoring: str = STANDING
    strip_counts_connected: bool = True
    initial_armies: dict[int, int] = field(default_factory=dict)
    #: players allowed, smallest and largest
    min_players: int = 3
    max_players: int = 6

    def reinforcement_groups(self, board_groups: dict[str, Group]) -> list[Group]:
        return list(board_groups.values()) + list(self.extra_groups)


PRESETS: dict[str, RisikoRules] = {
    "classic": RisikoRules(
        "classic", "RisiKo! classic (Italian rules)", "risiko-classic",
        initial_armies={3: 35, 4: 30, 5: 25, 6: 20}, min_players=3, max_players=6),
    "tournament-2v2": RisikoRules(
        "tournament-2v2", "RisiKo! 2 contro 2 (tournament rules)", "risiko-classic",
        combat=DICE_FREE, reinforcement_minimum=1, opening_reinforcements=(1, 2), extra_groups=(ASIA_DEL_NORD,),
        cards=TOURNAMENT_CARDS, move_timing=ANY_TIME, min_move_in=3, army_cap=120, teams=True,
        neutral_defends_with_max=True, scoring=TOURNAMENT_POINTS, initial_armies={4: 40},
        min_players=4, max_players=4),
    "lotr": RisikoRules(
        "lotr", "Risiko - Il Signore degli Anelli", "lotr",
        defence_dice=2, reinforcement_minimum=3, cards=LOTR_CARDS, forced_trade_at=5, move_reach=CONNECTED,
        leaders=True, strongholds=True, fellowship=True, scoring=LOTR_POINTS,
        initial_armies={2: 40, 3: 35, 4: 30}, min_players=2, max_players=4),
    "lotr-classic": RisikoRules(
        "lotr-classic", "Risiko - Il Signore degli Anelli, classic mode", "lotr",
        defence_dice=2, reinforcement_minimum=3, cards=LOTR_CARDS, forced_trade_at=5,
        initial_armies={2: 40, 3: 35, 4: 30}, min_players=2, max_players=4),
}


def risiko_rules(name: str, **overrides) -> RisikoRules:
    """Look up a preset by name and apply field overrides (``army_cap=130``...)."""
    try:
        base = PRESETS[name]
    except KeyError:
        raise GameError(f"unknown Risiko ruleset '{name}' (known: {', '.join(PRESETS)})") from None
    try:
        return replace(base, **overrides)
    except TypeError as exc:
        raise GameError(f"unknown ruleset option: {exc}") from None
