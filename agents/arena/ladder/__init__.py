"""A rating ladder that persists: agents placed on one fixed scale by games against anchors,
every game kept in an SQLite file (``meduris ladder``, docs/agents.md#the-rating-ladder).

* :mod:`.store`: the ladder file (SQLite, WAL; each game committed as it ends under a unique
  key, so a killed run resumes with nothing lost or counted twice; every reader strict: a
  damaged file, its schema or any stored game, is one line naming the row and column);
* :mod:`.fit`: ratings by maximum likelihood over all stored games (Bradley-Terry for 2
  players, Plackett-Luce for 3-4, on the Elo scale with ``random`` = 0, 95% intervals), the
  anchors held at the ratings of their own games so that no entrant moves them;
* :mod:`.gauntlet`: the anchors' games and an entrant's gauntlet (duplicate play, seeds from
  ``derive_seed``, the next opponents chosen near the estimate), played in worker processes;
* :mod:`.report`: the table, JSON and PNG of ``meduris ladder show`` (names escaped and cut in
  the table, whole in the JSON);
* :mod:`.names`: an agent's canonical name, the one it is stored and looked up under
  (``mcts:05`` is ``mcts:5``);
* :mod:`.anchors`: a game's ladder (:class:`LadderGame`: its anchors, probes, shipped file and
  default file), its row's ``ladder`` part; the rest takes the game as a parameter, and a
  ladder file records its game.

The shipped ladders of the anchors, ``agents/data/ladder_anchors.sqlite`` (Meduris) and
``agents/data/ladder_anchors_druids.sqlite`` (Druids), are where a new ladder starts
(``meduris ladder anchors [--game druids]`` reproduces them).
"""

from meduris_rl.agents.arena.ladder.anchors import LadderGame, game_flag, ladder_of
from meduris_rl.agents.arena.ladder.fit import (
    Fit,
    Rating,
    fit_on_anchors,
    fit_ratings,
    ladder_fit,
    shipped_ratings,
)
from meduris_rl.agents.arena.ladder.gauntlet import (
    MAX_LADDER_GAMES,
    check_agents,
    play_anchors,
    play_gauntlet,
)
from meduris_rl.agents.arena.ladder.names import canonical_name
from meduris_rl.agents.arena.ladder.report import draw, table, to_json
from meduris_rl.agents.arena.ladder.store import (
    LadderError,
    LadderStore,
    copy_anchors,
    open_ladder,
)

__all__ = [
    "MAX_LADDER_GAMES", "Fit", "LadderError", "LadderGame", "LadderStore",
    "Rating", "canonical_name", "check_agents", "copy_anchors", "draw", "fit_on_anchors",
    "fit_ratings",
    "game_flag", "ladder_fit", "ladder_of", "open_ladder", "play_anchors", "play_gauntlet",
    "shipped_ratings", "table", "to_json",
]
