"""Meduris's row in the table of games (:mod:`meduris_rl.kit.games`): what every tool asks of
the game, registered when ``meduris_env`` is imported (and named in the entry-point group
``meduris_rl.games``, pyproject.toml, so the tools find it installed).

Its options: ``exchange`` (R15: ``auto``, the engine trades when a payment needs it, or
``manual``, the players choose) and ``max_turns`` (the turn limit, 1000 by default; reaching it
truncates the game), and the person's seat's ``open_screens`` (``meduris play``: every screen's
materials shown). Its own code for the shared tools lives in ``meduris_rl.agents.meduris`` and
``meduris_rl.train.meduris``, named in ``parts``.
"""

from __future__ import annotations

from meduris_rl.kit.games import GameSpec, Option, register
from meduris_rl.kit.values import check_bool, check_choice, check_int

from .engine.compiled import compile_notice
from .engine.constants import END_NAMES, NUM_ACTIONS
from .engine.game import DEFAULT_MAX_TURNS, MAX_TURNS_LIMIT, PLAYER_COUNTS, MedurisGame
from .engine.text import render_text
from .envs.observation import observe_state
from .records.codec import MEDURIS_RECORDS


def new_game(num_players: int, **options) -> MedurisGame:
    return MedurisGame(num_players, **options)


def end_name(state) -> str:
    return END_NAMES[state.end_reason]


def seat_view(state, seat: int) -> str:
    """The state as a ``cmd:`` bot at ``seat`` is given it, on one line: Meduris hides nothing
    a seat could not work out, so the state's own JSON."""
    return " ".join(state.to_json().splitlines())


def game_fields(game) -> dict:
    """What a ``new_game`` message says of a Meduris game beyond seat, players and seed."""
    return {"exchange": game.exchange, "max_turns": game.max_turns, "board": game.board.name}


def check_exchange(what: str, value) -> str:
    return check_choice(what, value, ("auto", "manual"), " (R15)")


def check_max_turns(what: str, value) -> int | None:
    return None if value is None else check_int(f"{what} (0 or none: no limit)", value, 0,
                                                 MAX_TURNS_LIMIT)


OPTIONS = (
    Option("exchange", "auto", check_exchange,
           "auto: the engine makes the exchanges a payment needs; manual: the players choose "
           "them (R15)"),
    Option("max_turns", DEFAULT_MAX_TURNS, check_max_turns,
           "the turn limit: the game is truncated there (0 or none: no limit)"),
    Option("open_screens", False, check_bool,
           "meduris play: every screen's materials shown (as the end shows them)", seat=True),
)

ROW = register(GameSpec(
    name="meduris", title="Meduris",
    summary="Meduris (Dorra & zur Linde, HABA 2016): the board game of the project",
    player_counts=PLAYER_COUNTS, players_rule="R1", new_game=new_game, game_class=MedurisGame,
    observe=observe_state, end_name=end_name, score_unit="VP", num_actions=NUM_ACTIONS,
    records=MEDURIS_RECORDS,
    options=OPTIONS, default_agents=("random", "greedy", "mcts:200", "ppo"),
    default_opponent="mcts:200", default=True, text=render_text,
    seat_view=seat_view, game_fields=game_fields, compile_notice=compile_notice,
    parts=(
        ("agent_kinds", "meduris_rl.agents.meduris.kinds:KINDS"),
        ("ladder", "meduris_rl.agents.meduris.ladder:LADDER"),
        ("levels", "meduris_rl.agents.meduris.levels:LEVELS"),
        ("features", "meduris_rl.agents.meduris.features:FEATURE_SETS"),
        ("human", "meduris_rl.agents.meduris.human:meduris_human"),
        ("html_replay", "meduris_env.records.replay:write_html"),
        ("web", "meduris_rl.cli.meduris.web.app:create_app"),
        ("commands", "meduris_rl.cli.meduris:add_parsers"),
        ("train_env", "meduris_rl.train.meduris.league:TrainingEnv"),
        ("win_rate", "meduris_rl.train.meduris.evaluate:win_rate"),
        ("warm_start", "meduris_rl.train.meduris.warm_start:warm_start"),
        ("value_network", "meduris_rl.train.meduris.judges:add_value_network"),
        ("train_check", "meduris_rl.train.meduris.league:check_config"),
    )))

__all__ = ["ROW"]
