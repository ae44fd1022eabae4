"""Issue 31, "budgets that never end" and "loose types": one strict checker of bools, ints and
floats (meduris_rl.kit.values) used by the game, the environments' seeds, the agents'
budgets and the search agents' numbers. Each bad value is refused with one line, as a
InputError (also a ValueError/TypeError where the API raised those before); numpy ints are
accepted wherever Python ints are."""

from __future__ import annotations

import argparse
import subprocess
import sys

import numpy as np
import pytest

from meduris_env import MedurisBatch, MedurisGame, MedurisSingleAgentEnv, MedurisVectorEnv, raw_env
from meduris_rl.agents import UnknownAgentError, make_agent
from meduris_rl.agents.budgets import MAX_COUNT, MAX_SECONDS
from meduris_rl.agents.meduris.mcts import MCTSAgent
from meduris_rl.agents.registry import AgentSpec
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.values import (
    SEED_MAX,
    ValueCheckError,
    check_bool,
    check_float,
    check_int,
    parse_float,
    parse_int,
)


def one_line(err: BaseException, longest: int = 300) -> str:
    text = str(err)
    assert "\n" not in text and 0 < len(text) <= longest, text
    return text


# --- the checker itself --------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["no", "False", 0, 1, None, 0.0, [], np.int64(1)])
def test_check_bool_refuses_everything_but_true_and_false(value):
    with pytest.raises(ValueCheckError) as err:
        check_bool("flag", value)
    assert one_line(err.value).startswith("flag must be True or False")


def test_check_bool_accepts_python_and_numpy_bools():
    assert check_bool("f", True) is True and check_bool("f", np.bool_(False)) is False


@pytest.mark.parametrize("value", [True, 2.0, 2048.7, "5", None, 10**30, -(10**30), 2**64,
                                   -1, 101, np.float64(3.0),
                                   pytest.param(10**5000, id="10**5000")])
def test_check_int_refuses_non_ints_and_out_of_bounds_without_overflow(value):
    with pytest.raises(ValueCheckError) as err:
        check_int("n", value, 0, 100)
    assert one_line(err.value).startswith("n must be an int 0..100")


@pytest.mark.parametrize("value", [5, np.int64(5), np.uint8(5), np.int32(5)])
def test_check_int_accepts_python_and_numpy_ints_as_python_ints(value):
    got = check_int("n", value, 0, 100)
    assert got == 5 and type(got) is int


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 1e308, True, "1",
                                   np.float32("nan"), 10**400, -0.5])
def test_check_float_refuses_non_finite_out_of_bounds_and_non_numbers(value):
    with pytest.raises(ValueCheckError) as err:
        check_float("x", value, 0.0, 10.0)
    one_line(err.value)


def test_check_float_accepts_ints_and_numpy_floats():
    assert check_float("x", 3, 0, 10) == 3.0 and check_float("x", np.float32(0.5), 0, 1) == 0.5


@pytest.mark.parametrize("text", ["1e3", "nan", "inf", "1_000", "²", " 5", "+5", "-5", "0x10",
                                  "9" * 5000, ""])
def test_parse_int_reads_ascii_digits_only(text):
    with pytest.raises(ValueCheckError) as err:
        parse_int("count", text, 1, 1000)
    one_line(err.value)


@pytest.mark.parametrize("text", ["1e308", "nan", "inf", "-1", "1.5e2", "1." + "0" * 200, "."])
def test_parse_float_refuses_exponents_non_finite_and_long_text(text):
    with pytest.raises(ValueCheckError) as err:
        parse_float("seconds", text, 0.0, 3600.0)
    one_line(err.value)


def test_the_error_is_in_the_family_and_keeps_the_old_bases():
    assert issubclass(ValueCheckError, InputError)
    assert issubclass(ValueCheckError, ValueError) and issubclass(ValueCheckError, TypeError)


# --- the game ----------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [
    {"zero_sum": "no"}, {"zero_sum": 0}, {"zero_sum": None}, {"random_start_player": "yes"},
    {"random_start_player": 1}, {"max_turns": 10**30}, {"max_turns": 10**100},
    {"max_turns": 2**31}, {"max_turns": 2048.7}, {"max_turns": 50.0}, {"max_turns": -1},
    {"max_turns": True}, {"max_turns": "100"},
])
def test_game_options_are_strict(options):
    with pytest.raises(ValueCheckError) as err:
        MedurisGame(**options)
    assert one_line(err.value).startswith(next(iter(options)))


def test_game_takes_numpy_values_and_none():
    game = MedurisGame(max_turns=np.int64(40), zero_sum=np.bool_(False))
    assert game.max_turns == 40 and game.zero_sum is False
    assert MedurisGame(max_turns=None).max_turns == 0
    assert MedurisGame(max_turns=2**31 - 1).max_turns == 2**31 - 1


# --- the environments' seeds --------------------------------------------------------------------
def envs():
    return [("aec", raw_env(num_players=2)), ("single", MedurisSingleAgentEnv(num_players=2)),
            ("vector", MedurisVectorEnv(2, num_players=2)),
            ("batch", MedurisBatch(2, num_players=2))]


def test_numpy_seeds_give_the_same_games_as_python_seeds():
    for (name, a), (_, b) in zip(envs(), envs(), strict=True):
        a.reset(seed=5)
        b.reset(seed=np.int64(5))
        if name == "batch":
            assert np.array_equal(a.states, b.states)
        elif name == "vector":
            assert np.array_equal(a.batch.states, b.batch.states)
        else:
            assert np.array_equal(a.state.array, b.state.array), name


@pytest.mark.parametrize("seed", [5.0, "5", True, -(2**64), 2**70, [5], np.float64(5)])
def test_bad_seeds_are_refused_by_every_environment(seed):
    for name, env in envs():
        with pytest.raises(ValueCheckError) as err:
            env.reset(seed=seed)
        assert one_line(err.value).startswith("seed must be an int"), name


def test_one_seed_range_for_every_environment_and_command():
    """The one seed scheme: 0..SEED_MAX is taken by every environment (Meduris and Druids) and
    every command's --seed; -1 and SEED_MAX + 1 are refused by all of them alike."""
    from druids_env import DruidsSingleAgentEnv
    from druids_env import raw_env as druids_raw_env
    from meduris_rl.cli.checks import SEED
    druids = [("druids aec", druids_raw_env(num_players=2)),
              ("druids single", DruidsSingleAgentEnv(num_players=2))]
    for name, env in envs() + druids:
        for good in (0, SEED_MAX):
            env.reset(seed=good)
        for bad in (-1, SEED_MAX + 1):
            with pytest.raises(ValueCheckError, match=r"seed must be an int 0\.\.") as err:
                env.reset(seed=bad)
            assert "0..2**63 - 1, got" in str(err.value), (name, err.value)
    assert SEED(str(SEED_MAX)) == SEED_MAX
    for bad in ("-1", str(SEED_MAX + 1)):
        with pytest.raises(argparse.ArgumentTypeError):
            SEED(bad)


# --- agent budgets ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    "mcts:1e308s", "mcts:nans", "mcts:infs", "mcts:-infs", "mcts:1e3s", "mcts:3601s", "mcts:0s",
    "mcts:inf", "mcts:nan", "mcts:1e3", f"mcts:{MAX_COUNT + 1}", "mcts:99999999999999999999",
    "mcts:" + "9" * 5000, "mcts:²", "mcts:1_000", "mcts:-5", "mcts:5.5", "az:1e308s",
    "az:infs:x.pt", f"az:{MAX_COUNT * 10}", "openspiel-mcts:1e9", "openspiel-mcts:100000000",
])
def test_budgets_that_never_end_are_refused_with_one_line(name):
    with pytest.raises(UnknownAgentError) as err:
        AgentSpec.parse(name)
    text = one_line(err.value)
    assert "at most" in text or "1..10000000" in text


@pytest.mark.parametrize("name,budget,unit", [
    ("mcts:3600s", 3600.0, "seconds"), ("mcts:0.5s", 0.5, "seconds"), ("mcts:.5s", 0.5, "seconds"),
    (f"mcts:{MAX_COUNT}", MAX_COUNT, "iterations"), ("mcts:1", 1, "iterations"),
    ("az:2s:x.pt", 2.0, "seconds"), ("openspiel-mcts:100", 100, "simulations"),
])
def test_budgets_within_the_maxima_are_taken(name, budget, unit):
    spec = AgentSpec.parse(name)
    assert (spec.budget, spec.unit) == (budget, unit) and str(spec) == name


def test_the_maxima_are_documented():
    assert MAX_SECONDS == 3600.0 and MAX_COUNT == 10**7
    from meduris_rl.cli.commands.agents import table
    assert "max 10000000; 3600s" in table()


@pytest.mark.parametrize("kwargs", [
    {"iterations": 10**30}, {"iterations": 0}, {"iterations": 2.5}, {"iterations": True},
    {"iterations": None, "seconds": float("inf")}, {"iterations": None, "seconds": 1e308},
    {"iterations": None, "seconds": float("nan")}, {"iterations": None, "seconds": 0},
    {"exploration": float("nan")}, {"widening": float("inf")}, {"rollout_depth": 10**9},
    {"epsilon": 2.0}, {"value_scale": 0.0}, {"rollout_depth": 6.0},
])
def test_search_agent_numbers_are_finite_and_bounded(kwargs):
    with pytest.raises(ValueError) as err:
        MCTSAgent("mcts", **kwargs)
    assert isinstance(err.value, InputError)
    one_line(err.value)


def test_search_agent_takes_numpy_budgets():
    agent = MCTSAgent("mcts", iterations=np.int64(5))
    assert agent.iterations == 5 and type(agent.iterations) is int
    assert make_agent("mcts:5").iterations == 5


def test_tournament_with_an_endless_budget_exits_2_with_one_line_before_any_game(tmp_path):
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "meduris_rl.cli", "tournament", "--agents",
                          "mcts:1e308s,random", "--games", "2", "--out", str(out)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("meduris: error: agent 'mcts:1e308s'"), lines
    assert "Traceback" not in run.stderr and run.stdout == ""
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["mcts:99999999999999999999999", "mcts:2001", "mcts:1e3",
                                  "mcts:0.5s",
                                  "mcts:²", "az:0"])
def test_the_web_servers_budgets_are_bounded_too(name):
    from meduris_rl.cli.meduris.web.store import WebError, check_opponent
    with pytest.raises(WebError) as err:
        check_opponent(name, 2)
    assert "1..2000" in one_line(err.value, longest=400)


# --- the words of the messages (issue 31, "odd messages") ----------------------------------------
def test_messages_without_bounds_say_what_is_wanted_in_words():
    for call, words in ((lambda: check_int("steps", 2048.7), "steps must be a whole number, got"),
                        (lambda: check_int("n", True), "n must be a whole number, got True"),
                        (lambda: check_float("lr", "x"), "lr must be a finite number, got 'x'"),
                        (lambda: parse_int("k", "1e9"), "k must be a whole number written in"),
                        (lambda: parse_int("k", "x", 1), "k must be a whole number >= 1 written"),
                        (lambda: check_int("k", 0, 1), "k must be an int >= 1, got 0")):
        with pytest.raises(ValueCheckError) as err:
            call()
        text = one_line(err.value)
        assert text.startswith(words) and "(any)" not in text and "or more" not in text, text


def test_unwrap_action_takes_0d_integer_arrays_only():
    from meduris_rl.kit.values import unwrap_action

    got = unwrap_action(np.array(7, dtype=np.int16))
    assert isinstance(got, np.integer) and got == 7
    for other in (np.array(7.0), np.array(True), np.array([7]), 7, "7", None):
        assert unwrap_action(other) is other


# --- OpenSpiel's MCTS agent is bounded like the others -------------------------------------------
@pytest.mark.parametrize("kwargs", [dict(simulations=10**12), dict(simulations=float("nan")),
                                    dict(simulations=0), dict(simulations=2.5),
                                    dict(rollouts=10**9), dict(uct_c=float("inf")),
                                    dict(uct_c=-1.0), dict(uct_c=True)])
def test_openspiel_mcts_numbers_are_finite_and_bounded(kwargs):
    from meduris_rl.agents.meduris.openspiel import OpenSpielMCTSAgent

    with pytest.raises(ValueCheckError) as err:
        OpenSpielMCTSAgent("x", **kwargs)
    assert one_line(err.value).startswith(next(iter(kwargs)) + " must be")
    if kwargs.get("simulations") == 10**12:
        assert f"1..{MAX_COUNT}" in str(err.value)


def test_openspiel_mcts_takes_numpy_budgets():
    pytest.importorskip("pyspiel")
    from meduris_rl.agents.meduris.openspiel import OpenSpielMCTSAgent

    agent = OpenSpielMCTSAgent("x", np.int64(20), np.int32(1), np.float32(1.5))
    assert (agent.simulations, agent.rollouts, agent.uct_c) == (20, 1, 1.5)
