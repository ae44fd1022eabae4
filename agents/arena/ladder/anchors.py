"""Each game's ladder: its anchors, its probes, its shipped anchors' file and its default ladder
file, a :class:`LadderGame` per game that has a ladder, named by the game's row (its ``ladder``
part: ``meduris_rl.agents.meduris.ladder``, ``meduris_rl.agents.druids.ladder``).

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

"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from meduris_rl.kit.games import GameSpec, UnknownGameError, game_spec, games

DATA = Path(__file__).resolve().parent.parent.parent / "data"


@dataclass(frozen=True)
class LadderGame:
    """One game's ladder (see the module docstring)."""

    game: str
    anchors: dict[int, tuple[str, ...]]
    probes: tuple[str, ...]
    shipped: Path
    db: str


def ladder_of(game: str | GameSpec | None = None) -> LadderGame:
    """The ladder of ``game`` (None: the default game): its row's ``ladder`` part (an unknown
    game, or one without a ladder, is one line)."""
    row = game_spec(game)
    if not row.has_part("ladder"):
        have = [g.name for g in games().values() if g.has_part("ladder")]
        raise UnknownGameError(f"the game {row.name!r} has no ladder; ladders: "
                               f"{', '.join(have)}")
    return row.part("ladder")


def game_flag(game: str | GameSpec | None) -> str:
    """`` --game G`` for commands printed in messages (nothing for the default game)."""
    row = game_spec(game)
    return "" if row.default else f" --game {row.name}"
