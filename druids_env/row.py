"""Druids' row in the table of games (:mod:`meduris_rl.kit.games`): what every tool asks of the
game, registered when ``druids_env`` is imported (and named in the entry-point group
``meduris_rl.games``, pyproject.toml, so the tools find it installed).

Its options: ``circles`` (the circles a scoring card's column moves, D12 ruling: 5) and
``max_turns`` (the turn limit, 500 by default: random games take 20-40 turns; a bound, not a
rule). Its own code for the shared tools lives in ``meduris_rl.agents.druids`` and
``meduris_rl.train.druids``, named in ``parts``.
"""

from __future__ import annotations

import json

from meduris_rl.kit.games import GameSpec, Option, register
from meduris_rl.kit.states import seat_observation
from meduris_rl.kit.values import check_int

from .engine.actions import NUM_ACTIONS
from .engine.game import (
    DEFAULT_CIRCLES,
    DEFAULT_MAX_TURNS,
    MAX_TURNS_LIMIT,
    PLAYER_COUNTS,
    DruidsGame,
)
from .engine.information import observation_tensor, seat_state
from .engine.rules import END_NAMES
from .records import DRUIDS_RECORDS


def new_game(num_players: int, **options) -> DruidsGame:
    return DruidsGame(num_players, **options)


def observe(state, seat: int) -> dict:
    """The D14 vector of ``seat`` and its legal-action mask (all zero when not to move)."""
    return seat_observation(state, seat, observation_tensor)


def end_name(state) -> str:
    return END_NAMES[state.end_reason]


def seat_view(state, seat: int) -> str:
    """The state as a ``cmd:`` bot at ``seat`` is given it: only what ``seat`` knows (D14)."""
    return json.dumps(seat_state(state, seat), separators=(",", ":"))


def game_fields(game) -> dict:
    """What a ``new_game`` message says of a Druids game beyond seat, players and seed."""
    return {"max_turns": game.max_turns or None, "circles": game.circles}


def check_circles(what: str, value) -> int:
    return check_int(f"{what} (D12 ruling)", value, 1, 100)


def check_max_turns(what: str, value) -> int | None:
    return None if value is None else check_int(f"{what} (0 or none: no limit)", value, 0,
                                                 MAX_TURNS_LIMIT)


OPTIONS = (
    Option("circles", DEFAULT_CIRCLES, check_circles,
           "the circles a scoring card's column moves before the game ends (D12 ruling: 5)"),
    Option("max_turns", DEFAULT_MAX_TURNS, check_max_turns,
           "the turn limit: the game is truncated there (0 or none: no limit)"),
)

ROW = register(GameSpec(
    name="druids", title="Druids",
    summary="Druids (Colovini, 2004): a hidden-information card game (docs/druids.md)",
    player_counts=PLAYER_COUNTS, players_rule="D2", new_game=new_game, game_class=DruidsGame,
    observe=observe, end_name=end_name, score_unit="amulets",  # (D5: an amulet a point)
    num_actions=NUM_ACTIONS, records=DRUIDS_RECORDS, options=OPTIONS,
    default_agents=("random", "greedy"),
    default_opponent="ismcts:200", text=str, seat_view=seat_view, game_fields=game_fields,
    parts=(
        ("agent_kinds", "meduris_rl.agents.druids.kinds:KINDS"),
        ("ladder", "meduris_rl.agents.druids.ladder:LADDER"),
        ("features", "meduris_rl.agents.druids.features:FEATURE_SETS"),
        ("human", "meduris_rl.agents.druids.human:druids_human"),
        ("train_env", "meduris_rl.train.druids.league:DruidsTrainingEnv"),
        ("win_rate", "meduris_rl.train.druids.league:win_rate"),
        ("train_check", "meduris_rl.train.druids.league:check_config"),
    )))
