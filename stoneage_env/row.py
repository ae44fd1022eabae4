"""Stone Age's row in the table of games (:mod:`meduris_rl.kit.games`): what every tool asks of
the game, registered when ``stoneage_env`` is imported (and named in the entry-point group
``meduris_rl.games``, pyproject.toml, so the tools find it installed).

Its options: ``mammoth_herd`` (the expansion, M1-M12: off by default, the base game being the
faithful one), ``tiles`` (a Mammoth tile file; none: the shipped reconstruction, rules section
7) and ``max_rounds`` (the round limit, X20: 100 by default; random games end by a rule within
50). Its own code for the shared tools lives in ``meduris_rl.agents.stone_age``, named in
``parts``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from meduris_rl.kit.games import GameSpec, Option, register
from meduris_rl.kit.states import seat_observation
from meduris_rl.kit.values import ValueCheckError, check_int

from .engine.components import load_tiles
from .engine.constants import (
    DEFAULT_MAX_ROUNDS,
    END_NAMES,
    MAX_ROUNDS_LIMIT,
    NUM_ACTIONS,
    PLAYER_COUNTS,
)
from .engine.errors import ComponentsError
from .engine.game import StoneAgeGame
from .engine.information import observation_tensor, seat_state
from .records import STONE_AGE_RECORDS


def new_game(num_players: int, mammoth_herd: bool = False, tiles: str | None = None,
             max_rounds: int | None = DEFAULT_MAX_ROUNDS) -> StoneAgeGame:
    return StoneAgeGame(num_players, mammoth_herd=mammoth_herd, tiles=tiles,
                        max_rounds=max_rounds)


def observe(state, seat: int) -> dict:
    """What ``seat`` knows (rules section 3) and its legal-action mask (zero when not to
    move)."""
    return seat_observation(state, seat, observation_tensor)


def end_name(state) -> str:
    return END_NAMES[state.end_reason]


def seat_view(state, seat: int) -> str:
    """The state as a ``cmd:`` bot at ``seat`` is given it: only what ``seat`` knows."""
    return json.dumps(seat_state(state, seat), separators=(",", ":"))


def game_fields(game) -> dict:
    """What a ``new_game`` message says of a Stone Age game beyond seat, players and seed."""
    return {"mammoth_herd": game.mammoth_herd, "max_rounds": game.max_rounds or None,
            "tiles": game.tile_set_json()}


def check_mammoth(what: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueCheckError(f"{what} must be true or false, got {value!r:.40}")
    return bool(value)


def check_tiles(what: str, value) -> str | None:
    """None (the shipped reconstruction) or the path of a tile file that loads."""
    if value is None or value == "":
        return None
    if not isinstance(value, (str, Path)):
        raise ValueCheckError(f"{what} must be the path of a Mammoth tile file")
    try:
        load_tiles(value)
    except ComponentsError as err:
        raise ValueCheckError(f"{what}: {err}") from None
    return str(value)


def check_max_rounds(what: str, value) -> int | None:
    return None if value is None else check_int(f"{what} (0 or none: no limit, X20)", value,
                                                 0, MAX_ROUNDS_LIMIT)


OPTIONS = (
    Option("mammoth_herd", False, check_mammoth,
           "play the Mammoth Herd expansion (M1-M12; its tiles are a reconstruction)"),
    Option("tiles", "", check_tiles,
           "a Mammoth tile file (JSON, docs/stone_age.md); empty: the shipped reconstruction"),
    Option("max_rounds", DEFAULT_MAX_ROUNDS, check_max_rounds,
           "the round limit: the game is truncated there, unscored (X20; 0 or none: none)"),
)

ROW = register(GameSpec(
    name="stone_age", title="Stone Age",
    summary="Stone Age (Brunnhofer, 2008) with the Mammoth Herd expansion (docs/stone_age.md)",
    player_counts=PLAYER_COUNTS, players_rule="S1", new_game=new_game, game_class=StoneAgeGame,
    observe=observe, end_name=end_name, score_unit="VP", num_actions=NUM_ACTIONS,
    records=STONE_AGE_RECORDS, options=OPTIONS, default_agents=("random", "greedy"),
    default_opponent="rollout:240", text=str, seat_view=seat_view, game_fields=game_fields,
    parts=(
        ("agent_kinds", "meduris_rl.agents.stone_age.kinds:KINDS"),
        ("ladder", "meduris_rl.agents.stone_age.ladder:LADDER"),
        ("human", "meduris_rl.agents.stone_age.human:stone_age_human"),
        ("features", "meduris_rl.agents.stone_age.features:FEATURE_SETS"),
        ("train_env", "meduris_rl.train.stone_age.league:StoneAgeTrainingEnv"),
        ("win_rate", "meduris_rl.train.stone_age.league:win_rate"),
        ("train_check", "meduris_rl.train.stone_age.league:check_config"),
    )))
