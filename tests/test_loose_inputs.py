"""Loose inputs below the command line: every environment's flags are strict bools (``"no"`` is
not true), every option naming a choice (``exchange``, ``reward``, ``render_mode``, an opponent)
is refused with one line as a InputError that is still a ValueError, an action id out of range
says so (not "a chance outcome"), and MedurisSB3VecEnv says how to give the number of games."""

from __future__ import annotations

import numpy as np
import pytest

import meduris_env
from meduris_env import (
    IllegalActionError,
    MedurisBatch,
    MedurisGame,
    MedurisSingleAgentEnv,
    MedurisVectorEnv,
    parallel_env,
    raw_env,
)
from meduris_env.engine.constants import NUM_IDS
from meduris_rl.kit.envs.opponents import OpponentError
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.values import ValueCheckError, check_choice

LOOSE_BOOLS = ["no", "False", 0, 1, None, np.int64(1)]


def one_line(err: BaseException, kind: type = InputError) -> str:
    assert isinstance(err, kind) and isinstance(err, ValueError), type(err)
    text = str(err)
    assert "\n" not in text and 0 < len(text) <= 300, text
    return text


def sb3_env(**kwargs):
    pytest.importorskip("stable_baselines3")
    from meduris_env.envs.sb3 import MedurisSB3VecEnv
    return MedurisSB3VecEnv(**kwargs)


# every environment and the flag each takes
FLAGS = {
    "batch hidden_materials": lambda v: MedurisBatch(4, 2, hidden_materials=v),
    "batch auto_reset": lambda v: MedurisBatch(4, 2, auto_reset=v),
    "single-agent hidden_materials": lambda v: MedurisSingleAgentEnv(2, hidden_materials=v),
    "vector hidden_materials": lambda v: MedurisVectorEnv(2, 2, hidden_materials=v),
    "aec hidden_materials": lambda v: raw_env(num_players=2, hidden_materials=v),
    "wrapped aec hidden_materials": lambda v: meduris_env.env(num_players=2, hidden_materials=v),
    "parallel hidden_materials": lambda v: parallel_env(num_players=2, hidden_materials=v),
    "sb3 hidden_materials": lambda v: sb3_env(num_envs=2, num_players=2, hidden_materials=v),
}


@pytest.mark.parametrize("where", sorted(FLAGS))
@pytest.mark.parametrize("value", LOOSE_BOOLS, ids=repr)
def test_every_environment_refuses_a_flag_that_is_not_a_bool(where, value):
    flag = where.split()[-1]
    with pytest.raises(ValueCheckError) as err:
        FLAGS[where](value)
    assert one_line(err.value).startswith(f"{flag} must be True or False, got ")


@pytest.mark.parametrize("where", sorted(FLAGS))
def test_every_environment_takes_python_and_numpy_bools(where):
    for value in (True, np.bool_(True), False, np.bool_(False)):
        made = FLAGS[where](value)
        flag = where.split()[-1]
        inner = getattr(made, "venv", made)  # (sb3: the vector env it wraps)
        inner = getattr(inner, "batch", inner)
        inner = getattr(inner, "aec_env", inner)
        inner = getattr(inner, "unwrapped", inner)
        assert getattr(inner, flag) is bool(value), where


# --- options naming a choice ----------------------------------------------------------------------
CHOICES = [
    (lambda: MedurisGame(2, exchange="x"), "exchange must be 'auto' or 'manual' (R15), got 'x'"),
    (lambda: MedurisGame(2, exchange=None), "exchange must be 'auto' or 'manual' (R15), got None"),
    (lambda: MedurisGame(2, exchange="y" * 10_000), "got 'yyyyyyy"),
    (lambda: MedurisBatch(4, 2, reward="x"), "reward must be one of 'win', 'score', 'dense', "
     "got 'x'"),
    (lambda: MedurisBatch(4, 2, reward=np.array([1, 2])), "reward must be one of"),
    (lambda: meduris_env.env(reward="x"), "reward must be one of 'win', 'score', 'dense'"),
    (lambda: MedurisSingleAgentEnv(2, reward=3), "reward must be one of"),
    (lambda: MedurisVectorEnv(2, 2, reward="wins"), "reward must be one of"),
    (lambda: meduris_env.env(render_mode="x"), "render_mode must be one of ['human', 'ansi', "
     "'rgb_array'] or None, got 'x'"),
    (lambda: MedurisSingleAgentEnv(2, render_mode=["ansi"]), "render_mode must be one of"),
    (lambda: meduris_env.env(illegal_action="ignore"), "illegal_action must be 'raise' or "
     "'terminate', got 'ignore'"),
    (lambda: raw_env(max_cycles=0), "max_cycles must be a positive int or None, got 0"),
    (lambda: MedurisSingleAgentEnv(2, seat=5), "seat must be 0..1 or 'random', got 5"),
    (lambda: MedurisVectorEnv(2, 2, seat="any"), "seat must be 0..1, 'random' or 'all', "
     "got 'any'"),
]


@pytest.mark.parametrize("make,message", CHOICES)
def test_a_bad_choice_is_a_one_line_meduris_error_and_still_a_value_error(make, message):
    with pytest.raises(ValueError) as err:
        make()
    text = one_line(err.value)
    assert message in text, text
    assert len(text) < 200  # a huge value is shown as an excerpt


def test_check_choice_words_two_and_more_choices():
    assert check_choice("c", "a", ("a", "b")) == "a"
    for value, words in (("z", "c must be 'a' or 'b', got 'z'"), (None, "got None"),
                         (["a"], "got ['a']")):
        with pytest.raises(ValueCheckError, match=words.replace("[", r"\[").replace("]", r"\]")):
            check_choice("c", value, ("a", "b"))
    with pytest.raises(ValueCheckError, match="c must be one of 'a', 'b', 'd', got 'z'"):
        check_choice("c", "z", ("a", "b", "d"))


# --- opponents ------------------------------------------------------------------------------------
@pytest.mark.parametrize("make,message", [
    (lambda: MedurisSingleAgentEnv(2, opponents="gredy"),
     "opponent 'gredy': an environment takes an object with "
     "act(observation, state) or a callable f(observation, state), not names (only 'random' is "
     "built in); build this one with agents.make_agent('gredy')"),
    (lambda: MedurisSingleAgentEnv(2, opponents="greedy"), "opponent 'greedy': an environment "
     "takes"),
    (lambda: MedurisSingleAgentEnv(2, opponents="q" * 10_000), "build this one with "
     "agents.make_agent('qqqq"),
    (lambda: MedurisSingleAgentEnv(2, opponents="randm"), "opponent 'randm' (did you mean "
     "'random'?)"),
    (lambda: MedurisSingleAgentEnv(2, opponents=["random"] * 3), "2 players need 1 opponent, "
     "got 3"),
    (lambda: MedurisSingleAgentEnv(3, opponents=["random"]), "3 players need 2 opponents, got 1"),
    (lambda: MedurisSingleAgentEnv(2, opponents=5), "an opponent is 'random', an object with "
     "act(observation, state)"),
    (lambda: MedurisVectorEnv(2, 2, opponents="gredy"), "opponent 'gredy': a vector "
     "environment takes"),
    (lambda: MedurisVectorEnv(2, 2, opponents="greedy"), "build this one with "
     "meduris_rl.agents.meduris.batch.make_batch_opponent('greedy')"),
    (lambda: MedurisVectorEnv(2, 2, opponents=["random"] * 2), "2 players need 1 opponent, "
     "got 2"),
    (lambda: MedurisVectorEnv(2, 4, opponents=["random"]), "4 players need 3 opponents, got 1"),
    (lambda: MedurisVectorEnv(2, 2).set_opponents(["random"], weights=[0]), "a pool needs"),
])
def test_an_opponent_an_environment_cannot_use_is_one_line(make, message):
    with pytest.raises(OpponentError) as err:
        make()
    assert message in one_line(err.value), str(err.value)
    assert isinstance(err.value, TypeError)  # (a non-callable was a TypeError before)


# --- action ids out of range --------------------------------------------------------------------
OUT_OF_RANGE = [(999, "999"), (-1, "-1"), (NUM_IDS, str(NUM_IDS)), (np.int64(4000), "4000"),
                (10**20, "an integer of 21 digits")]


@pytest.mark.parametrize("action,shown", OUT_OF_RANGE, ids=str)
def test_an_action_id_out_of_range_is_named_so_by_the_engine(action, shown):
    state = MedurisGame(2).new_initial_state()
    before = state.to_json()
    with pytest.raises(IllegalActionError) as err:
        state.apply_action(action)
    assert one_line(err.value) == f"action {shown} is not an action id (0..{NUM_IDS - 1})"
    assert state.to_json() == before
    # at a decision node too (not "a chance outcome, but this is a decision node")
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(IllegalActionError, match=r"is not an action id \(0\.\."):
        state.apply_action(action)


@pytest.mark.parametrize("action", [999, 5000, -1])
def test_an_action_id_out_of_range_is_named_so_by_the_batch_and_vector_envs(action):
    batch = MedurisBatch(3, 2, seed=1)
    batch.reset()
    acts = batch.sample_actions()
    acts[1] = action
    with pytest.raises(IllegalActionError) as err:
        batch.step(acts)
    assert one_line(err.value).startswith(f"game 1: action {action} is not an action id (0..")
    venv = MedurisVectorEnv(2, 2, seed=1)
    venv.reset(seed=1)
    with pytest.raises(IllegalActionError, match=f"game 0: action {action} is not an action id"):
        venv.step(np.array([action, 0]))


def test_an_action_id_out_of_range_is_named_so_by_the_sb3_env():
    venv = sb3_env(num_envs=2, num_players=2)
    venv.reset()
    with pytest.raises(IllegalActionError) as err:
        venv.step(np.array([999, 10**15]))
    assert "game 0: action 999 is not an action id (0.." in one_line(err.value)


# --- MedurisSB3VecEnv's arguments -----------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs,message", [
    ((4,), {}, "venv must be a MedurisVectorEnv or None, got 4 (int); give the number of games "
     "by name: MedurisSB3VecEnv(num_envs=4, ...)"),
    ((4,), {"num_players": 2}, "venv must be a MedurisVectorEnv or None, got 4 (int); give the "
     "number of games by name: MedurisSB3VecEnv(num_envs=4, ...)"),
    ((np.int64(8),), {}, "MedurisSB3VecEnv(num_envs=8, ...)"),
    (("random",), {}, "venv must be a MedurisVectorEnv or None, got 'random' (str)"),
    ((True,), {}, "got True (bool)"),
])
def test_sb3_env_says_how_to_give_the_number_of_games(args, kwargs, message):
    pytest.importorskip("stable_baselines3")
    from meduris_env.envs.sb3 import MedurisSB3VecEnv
    with pytest.raises(ValueCheckError) as err:
        MedurisSB3VecEnv(*args, **kwargs)
    text = one_line(err.value)
    assert message in text, text
    if args[0] is True:
        assert "num_envs" not in text


def test_sb3_env_refuses_a_vector_env_and_its_arguments_together():
    pytest.importorskip("stable_baselines3")
    from meduris_env.envs.sb3 import MedurisSB3VecEnv
    venv = MedurisVectorEnv(2, 2, autoreset_mode="SAME_STEP")
    with pytest.raises(ValueCheckError) as err:
        MedurisSB3VecEnv(venv, num_players=2, seed=3)
    assert one_line(err.value) == ("give either venv= or the arguments of MedurisVectorEnv "
                                   "(num_players, seed), not both")
    assert MedurisSB3VecEnv(venv).num_envs == 2


# --- Druids' environments: the same error family ------------------------------------------------
@pytest.mark.parametrize("options,message", [
    ({"render_mode": "x"}, "render_mode must be 'human' or 'ansi' or None, got 'x'"),
    ({"truncation_reward": "y" * 500}, "truncation_reward must be 'none' or 'standings', got "
                                       "'yyyy"),
    ({"render_seat": 9}, "render_seat must be 0..1 or None, got 9"),
    ({"game": "druids"}, "game must be a DruidsGame, got 'druids'"),
])
def test_druids_environments_refuse_bad_options_as_meduris_errors(options, message):
    import druids_env

    with pytest.raises(ValueCheckError) as err:
        druids_env.raw_env(**({"num_players": 2} if "game" not in options else {}), **options)
    assert one_line(err.value).startswith(message) and len(str(err.value)) < 120


@pytest.mark.parametrize("opponent,message", [
    ("greedy", "opponent 'greedy': an environment takes 'random'"),
    (5, "an opponent is 'random', an object with act(observation, state)"),
])
def test_druids_single_agent_env_refuses_an_opponent_as_an_opponent_error(opponent, message):
    import druids_env

    with pytest.raises(OpponentError) as err:
        druids_env.DruidsSingleAgentEnv(num_players=2, opponents=opponent)
    assert message in one_line(err.value)
