"""The one table of games the shared tooling plays: a :class:`GameSpec` row per game.

The tournament, duels, :func:`meduris_rl.agents.arena.match.play_game`, the agent table
(:mod:`meduris_rl.agents.registry`, whose rows name the games they serve) and ``meduris agents``
take the game as a parameter (``"meduris"``, the default everywhere, or ``"druids"``) and ask its
row:

* ``make(players, exchange, max_turns)``: the game object (``MedurisGame``, ``DruidsGame``);
  ``exchange`` is Meduris's option (Druids takes only ``"auto"``);
* ``observe(state, seat)``: what an agent with ``uses_observation`` is given
  (``{"observation": vector, "action_mask": int8 mask}``);
* ``end_name(state)``: the end reason in words; ``default_agents``: the kinds to try first;
* ``player_counts``: the numbers of players it is played by (and the rule saying so);
* ``parts``: where the game's own code for each shared tool lives (``part(name)`` imports it
  when asked, so a game's modules load only when that game is played): ``greedy`` and ``ppo``
  (the agent classes of those kinds), ``features`` (the policy's input sets), ``actions``
  (its number of distinct actions), ``seat_view`` and ``game_fields`` (what a ``cmd:`` bot is
  told, :mod:`meduris_rl.agents.plugins.external`), ``human`` (the person's seat at the terminal,
  :mod:`meduris_rl.agents.arena.play`). The trainer's parts are the training layer's own table
  (:mod:`meduris_rl.train.games`).

A game's records replay through its own protocol: :func:`register_records` hands the records
layer (which imports no game but Meduris) each other game's codec; it is called when this
module is imported, so every tool that reads agent names can also read those games' records.
Game-specific code lives with its game (``druids_env``); this table only points at it.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from meduris_env.engine.errors import MedurisError
from meduris_env.engine.game import PLAYER_COUNTS, PlayerCountError
from meduris_env.engine.values import excerpt


class UnknownGameError(MedurisError, ValueError):
    """A game name that is not in :data:`GAMES`."""


@dataclass(frozen=True)
class GameSpec:
    """One row of the table of games (see the module docstring)."""

    name: str
    summary: str
    player_counts: tuple[int, ...]
    players_rule: str  # the rule giving the player counts, for error messages ("R1", "D2")
    make: Callable[..., Any]  # (players, exchange="auto", max_turns=None) -> game
    observe: Callable[[Any, int], dict]
    end_name: Callable[[Any], str]
    default_agents: tuple[str, ...]
    score_unit: str  # what a score counts, for tables and results ("VP", "amulets")
    parts: tuple[tuple[str, str], ...] = ()  # (part, "module:attribute"): module docstring

    def part(self, name: str) -> Any:
        """The game's own code for the shared tools' ``name`` (see the module docstring)."""
        return code_at(dict(self.parts)[name])

    def check_players(self, players: object, what: str = "players",
                      error: type[Exception] = PlayerCountError) -> int:
        """``players`` as an int if this game is played by that many, else ``error`` in one line
        naming ``what`` (``--players 5: Meduris is played by 2, 3 or 4 (R1)``): the one check
        and wording of a player count for commands, configs and the web API."""
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) \
                or players not in self.player_counts:
            *most, last = map(str, self.player_counts)
            raise error(f"{what} {excerpt(players)}: {self.name.capitalize()} is played by "
                        f"{', '.join(most)} or {last} ({self.players_rule})")
        return int(players)


def code_at(where: str) -> Any:
    """The object ``where`` (``"module:attribute"``) names, its module imported when asked:
    the one reader of the games' tables' parts (these, and the trainer's,
    :mod:`meduris_rl.train.games`)."""
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute)


def make_meduris(players: int, exchange: str = "auto", max_turns: int | None = None):
    from meduris_env import MedurisGame
    if max_turns is None:
        return MedurisGame(players, exchange=exchange)
    return MedurisGame(players, exchange=exchange, max_turns=max_turns)


def observe_meduris(state, seat: int) -> dict:
    from meduris_env.envs.observation import observe_state
    return observe_state(state, seat)


def meduris_end(state) -> str:
    from meduris_env.engine.constants import END_NAMES
    return END_NAMES[state.end_reason]


def make_druids(players: int, exchange: str = "auto", max_turns: int | None = None):
    from druids_env import DruidsGame
    if exchange != "auto":
        raise UnknownGameError(f"exchange {exchange!r}: Druids has no exchange option (a "
                               "Meduris option); leave it out")
    if max_turns is None:
        return DruidsGame(players)
    return DruidsGame(players, max_turns=max_turns)


def observe_druids(state, seat: int) -> dict:
    import numpy as np

    from druids_env import observation_tensor
    if seat == state.current_player():
        mask = state.legal_action_mask()
    else:
        mask = np.zeros(state.game.num_distinct_actions(), dtype=np.int8)
    return {"observation": observation_tensor(state, seat), "action_mask": mask}


def druids_end(state) -> str:
    from druids_env.engine.rules import END_NAMES
    return END_NAMES[state.end_reason]


def meduris_seat_view(state, seat: int) -> str:
    """The state as a ``cmd:`` bot at ``seat`` is given it, on one line: Meduris hides nothing
    a seat could not work out, so the state's own JSON."""
    return " ".join(state.to_json().splitlines())


def druids_seat_view(state, seat: int) -> str:
    """As :func:`meduris_seat_view`: only what ``seat`` knows (D14, ``seat_state``)."""
    from druids_env.engine.information import seat_state
    return json.dumps(seat_state(state, seat), separators=(",", ":"))


def meduris_game_fields(game) -> dict:
    """What a ``new_game`` message says of a Meduris game beyond seat, players and seed."""
    return {"exchange": game.exchange, "max_turns": game.max_turns, "board": game.board.name}


def druids_game_fields(game) -> dict:
    return {"max_turns": game.max_turns or None, "circles": game.circles}


#: every game the tooling plays, Meduris first (the default)
GAMES: dict[str, GameSpec] = {
    "meduris": GameSpec("meduris", "Meduris (Dorra & zur Linde, HABA 2016): the board game of the "
                        "project", PLAYER_COUNTS, "R1", make_meduris, observe_meduris, meduris_end,
                        ("random", "greedy", "mcts:200", "ppo"), "VP", (
                            ("greedy", "meduris_rl.agents.meduris.greedy:GreedyAgent"),
                            ("ppo", "meduris_rl.agents.policies.ppo:PPOAgent"),
                            ("features", "meduris_rl.agents.meduris.features:FEATURE_SETS"),
                            ("actions", "meduris_env.engine.constants:NUM_ACTIONS"),
                            ("seat_view", "meduris_rl.agents.games:meduris_seat_view"),
                            ("game_fields", "meduris_rl.agents.games:meduris_game_fields"),
                            ("human", "meduris_rl.agents.arena.play:meduris_human"))),
    "druids": GameSpec("druids", "Druids (Colovini, 2004): a hidden-information card game "
                       "(docs/druids.md)", (2, 3, 4), "D2", make_druids, observe_druids,
                       druids_end, ("random", "greedy"), "amulets", (  # (D5: an amulet a point)
                           ("greedy", "meduris_rl.agents.druids.greedy:DruidsGreedyAgent"),
                           ("ppo", "meduris_rl.agents.druids.ppo:DruidsPPOAgent"),
                           ("features", "meduris_rl.agents.druids.features:FEATURE_SETS"),
                           ("actions", "druids_env.engine.actions:NUM_ACTIONS"),
                           ("seat_view", "meduris_rl.agents.games:druids_seat_view"),
                           ("game_fields", "meduris_rl.agents.games:druids_game_fields"),
                           ("human", "meduris_rl.agents.druids.human:druids_human"))),
}
GAME_NAMES: tuple[str, ...] = tuple(GAMES)


def check_game(name: object, error: type[Exception] = UnknownGameError) -> str:
    """``name`` if it names a game, else ``error`` in one line listing the games."""
    if not isinstance(name, str) or name not in GAMES:
        raise error(f"unknown game {name!r}; the games: {', '.join(GAME_NAMES)}")
    return name


def game_spec(name: str) -> GameSpec:
    return GAMES[check_game(name)]


def spec_of(game) -> GameSpec:
    """The row of a game object (``DruidsGame.short_name`` is "druids"; Meduris's has none)."""
    return GAMES.get(getattr(game, "short_name", "meduris"), GAMES["meduris"])


def register_records() -> None:
    """Let the records layer read and replay each non-Meduris game's records (its codec lives
    with its game: :mod:`druids_env.records`)."""
    from druids_env.records import DRUIDS_RECORDS
    from meduris_env.records.record import register_game
    register_game(DRUIDS_RECORDS)


register_records()
