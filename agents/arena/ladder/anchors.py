"""Each game's ladder: its anchors, its probes, its shipped anchors' file and its default ladder
file, a :class:`LadderGame` row per game of :data:`meduris_rl.agents.games.GAMES` that has a ladder.

The ladder's code (:mod:`.store`, :mod:`.gauntlet`, :mod:`.fit`, :mod:`.report`,
``meduris ladder``) takes the game as a parameter and asks its row here; nothing else differs
between the games. A ladder file records the game it holds (:mod:`.store`).

* ``anchors``: per player count, the anchors weakest first as expected (neighbours play each
  other in ``meduris ladder anchors``); a new anchor is one more name in its tuple, at its place
  in the order (then ``meduris ladder anchors --game G`` plays its links, keeping every game
  stored before);
* ``probes``: the anchors a gauntlet meets in its first round (:mod:`.gauntlet`);
* ``shipped``: the anchors' games a new ladder starts from (``agents/data/``; made by
  ``meduris ladder anchors --game G --db <that file>``);
* ``db``: the ladder file the commands use without ``--db``.

Druids (docs/druids.md): ``random``, the documented ``greedy`` and information-set MCTS
(``ismcts``, D14: it sees only what its seat sees) at fixed iteration budgets, so every anchor
is deterministic given the game's seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from meduris_rl.agents.games import UnknownGameError, check_game

DATA = Path(__file__).resolve().parent.parent.parent / "data"


@dataclass(frozen=True)
class LadderGame:
    """One game's ladder (see the module docstring)."""

    game: str
    anchors: dict[int, tuple[str, ...]]
    probes: tuple[str, ...]
    shipped: Path
    db: str


LADDERS: dict[str, LadderGame] = {
    "meduris": LadderGame(
        "meduris",
        {2: ("random", "greedy", "mcts:50", "mcts:100", "mcts:200", "mcts:400", "mcts:800",
             "mcts:1600", "ppo", "az:200", "search"),
         3: ("random", "greedy", "mcts:50", "mcts:200", "mcts:800", "ppo"),
         4: ("random", "greedy", "mcts:50", "mcts:200", "mcts:800", "ppo")},
        ("greedy", "mcts:200"), DATA / "ladder_anchors.sqlite", "ladder.sqlite"),
    "druids": LadderGame(
        "druids",
        {2: ("random", "greedy", "ismcts:10", "ismcts:50", "ismcts:200", "ismcts:800"),
         3: ("random", "greedy", "ismcts:10", "ismcts:50", "ismcts:200"),
         4: ("random", "greedy", "ismcts:10", "ismcts:50", "ismcts:200")},
        ("greedy", "ismcts:50"), DATA / "ladder_anchors_druids.sqlite",
        "ladder_druids.sqlite"),
}


def ladder_of(game: str) -> LadderGame:
    """The ladder row of ``game`` (an unknown game, or one without a ladder, is one line)."""
    check_game(game)
    if game not in LADDERS:
        raise UnknownGameError(f"the game {game!r} has no ladder; ladders: {', '.join(LADDERS)}")
    return LADDERS[game]


def game_flag(game: str) -> str:
    """`` --game G`` for commands printed in messages (nothing for Meduris, the default)."""
    return "" if game == "meduris" else f" --game {game}"
