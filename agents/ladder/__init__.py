"""A rating ladder that persists: agents placed on one fixed scale by games against anchors,
every game kept in an SQLite file (``meduris ladder``, docs/agents.md#the-rating-ladder).

* :mod:`.store`: the ladder file (SQLite, WAL; each game committed as it ends under a unique
  key, so a killed run resumes with nothing lost or counted twice);
* :mod:`.fit`: ratings by maximum likelihood over all stored games (Bradley-Terry for 2
  players, Plackett-Luce for 3-4, on the Elo scale with ``random`` = 0, 95% intervals);
* :mod:`.gauntlet`: the anchors' games and an entrant's gauntlet (duplicate play, seeds from
  ``derive_seed``, the next opponents chosen near the estimate), played in worker processes;
* :mod:`.report`: the table, JSON and PNG of ``meduris ladder show``.

The shipped ladder of the anchors, ``agents/data/ladder_anchors.sqlite`` (:data:`SHIPPED`), is
where a new ladder starts (``meduris ladder anchors`` reproduces it).
"""

from .fit import Fit, Rating, fit_ratings
from .gauntlet import (
    DEFAULT_ANCHORS,
    MAX_LADDER_GAMES,
    check_agents,
    play_anchors,
    play_gauntlet,
)
from .report import draw, table, to_json
from .store import SHIPPED, LadderError, LadderStore, copy_anchors, open_ladder

__all__ = [
    "DEFAULT_ANCHORS", "MAX_LADDER_GAMES", "SHIPPED", "Fit", "LadderError", "LadderStore",
    "Rating", "check_agents", "copy_anchors", "draw", "fit_ratings", "open_ladder", "play_anchors",
    "play_gauntlet", "table", "to_json",
]
