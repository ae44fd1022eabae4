"""One API test for every game (pgx style): Meduris, Druids and Stone Age, each for 2, 3 and 4
players, checked against the same protocol (the OpenSpiel-style Game/State the engines share)
and the same environment checkers. A game joins by adding a row to ``GAMES``."""

from __future__ import annotations

import random
import types
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import druids_env
import druids_env.envs as druids_envs
import meduris_env
import stoneage_env
import stoneage_env.envs as stoneage_envs
from meduris_env.engine.constants import CHANCE, TERMINAL
from meduris_rl.kit.errors import InputError


@dataclass(frozen=True)
class GameSpec:
    name: str
    make: Any  # num_players -> Game
    aec: Any  # **kwargs -> wrapped PettingZoo AEC env
    parallel: Any  # **kwargs -> PettingZoo ParallelEnv (the turn-based view)
    single: Any  # **kwargs -> gymnasium.Env (one learner)
    single_check: dict  # options under which gymnasium's check_env runs


GAMES = {
    "meduris": GameSpec("meduris", lambda n: meduris_env.MedurisGame(n), meduris_env.env,
                        meduris_env.parallel_env, meduris_env.MedurisSingleAgentEnv, {}),
    # Druids: check_env's step-determinism check samples an action in one deal and plays it in
    # another; with illegal_action="terminate" that ends the episode instead of raising
    "druids": GameSpec("druids", lambda n: druids_env.DruidsGame(n), druids_envs.env,
                       druids_envs.parallel_env, druids_envs.DruidsSingleAgentEnv,
                       {"illegal_action": "terminate"}),
    # Stone Age with the Mammoth Herd (every rule in play); check_env as Druids (the cards and
    # buildings dealt decide which actions are legal)
    "stone_age": GameSpec("stone_age", lambda n: stoneage_env.StoneAgeGame(
        n, mammoth_herd=True), partial(stoneage_envs.env, mammoth_herd=True),
        partial(stoneage_envs.parallel_env, mammoth_herd=True),
        partial(stoneage_envs.StoneAgeSingleAgentEnv, mammoth_herd=True),
        {"illegal_action": "terminate"}),
}
CASES = [(g, n) for g in GAMES for n in (2, 3, 4)]
STATE_METHODS = ("current_player", "is_chance_node", "is_terminal", "is_truncated",
                 "legal_actions", "legal_action_mask", "chance_outcomes", "apply_action", "step",
                 "clone", "scores", "ranks", "winners", "returns", "history", "events",
                 "last_events", "action_to_string", "string_to_action", "to_json", "resettle",
                 "pending_decision")
GAME_METHODS = ("num_distinct_actions", "max_chance_outcomes", "new_initial_state",
                "state_from_json", "params", "action_to_string", "string_to_action")


def walk(state, seed: int):
    """Play ``state`` to the end with uniformly random actions and outcomes drawn from
    ``chance_outcomes()``; yields each state before its action is applied, and the action."""
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            ids = [a for a, _ in state.chance_outcomes()]
            action = ids[rng.randrange(len(ids))]
        else:
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
        yield state, action
        state.apply_action(action)


def played(spec: GameSpec, n: int, seed: int):
    state = spec.make(n).new_initial_state()
    for _ in walk(state, seed):
        pass
    return state


@pytest.mark.parametrize("name,n", CASES)
def test_the_game_and_state_have_the_shared_protocol(name, n):
    game = GAMES[name].make(n)
    state = game.new_initial_state()
    missing = [m for m in GAME_METHODS if not callable(getattr(game, m, None))]
    missing += [m for m in STATE_METHODS if not callable(getattr(state, m, None))]
    assert not missing
    assert game.num_players == n
    assert (CHANCE, TERMINAL) == (-1, -4)  # OpenSpiel's values, one pair for every game


@pytest.mark.parametrize("name,n", CASES)
def test_every_node_keeps_the_protocol(name, n):
    """Chance probabilities sum to 1, the mask agrees with legal_actions, clones are
    independent, JSON round trips give an equal state, illegal actions change nothing."""
    game = GAMES[name].make(n)
    state = game.new_initial_state()
    actions = game.num_distinct_actions()
    rng = random.Random(n)
    for i, (st, action) in enumerate(walk(state, seed=n)):
        mask = st.legal_action_mask()
        assert mask.dtype == np.int8 and mask.shape == (actions,)
        if st.is_chance_node():
            outcomes = st.chance_outcomes()
            assert outcomes and sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert sorted(a for a, _ in outcomes) == sorted(st.legal_actions())
            assert not mask.any() and st.current_player() == CHANCE
        else:
            assert st.current_player() in range(n) and not st.chance_outcomes()
            assert np.flatnonzero(mask).tolist() == sorted(st.legal_actions())
            assert st.string_to_action(st.action_to_string(action)) == action
        if i % 17 == 0:
            _check_clone_and_json(game, st, action, rng)


def _check_clone_and_json(game, st, action, rng) -> None:
    saved = st.to_json()
    copy = st.clone()
    copy.apply_action(action)
    assert st.to_json() == saved and len(copy.history()) == len(st.history()) + 1
    back = game.state_from_json(saved)
    assert back == st and back.history() == st.history()
    back.apply_action(action)
    assert back == copy
    illegal = next((a for a in range(game.num_distinct_actions())
                    if a not in st.legal_actions()), None)
    if illegal is not None and not st.is_chance_node():
        with pytest.raises(InputError):
            st.apply_action(illegal)
        assert st.to_json() == saved


@pytest.mark.parametrize("name,n", CASES)
def test_terminal_returns_ranks_and_determinism(name, n):
    spec = GAMES[name]
    state = played(spec, n, seed=5)
    assert state.is_terminal() and state.current_player() == TERMINAL
    returns = np.asarray(state.returns(), dtype=float)
    assert returns.shape == (n,) and returns.sum() == pytest.approx(0.0)
    assert ((-1.0 <= returns) & (returns <= 1.0)).all()
    ranks = list(np.asarray(state.ranks()).tolist())
    assert sorted(state.winners()) == [s for s in range(n) if ranks[s] == 1]
    assert len(state.scores()) == n
    assert not state.legal_actions() and not state.legal_action_mask().any()
    again = played(spec, n, seed=5)
    assert again.history() == state.history() and again.to_json() == state.to_json()
    assert played(spec, n, seed=6).history() != state.history()


@pytest.mark.parametrize("name,n", CASES)
def test_the_pettingzoo_checkers_pass(name, n):
    spec = GAMES[name]
    api_test(spec.aec(num_players=n), num_cycles=300)
    seed_test(lambda: spec.aec(num_players=n), num_cycles=200)
    parallel_api_test(spec.parallel(num_players=n), num_cycles=200)
    max_cycles_test(types.SimpleNamespace(
        env=lambda **kw: spec.aec(num_players=n, **kw),
        parallel_env=lambda **kw: spec.parallel(num_players=n, **kw)))


@pytest.mark.parametrize("name,n", CASES)
def test_the_gymnasium_and_sb3_checkers_pass(name, n):
    spec = GAMES[name]
    check_env(spec.single(num_players=n, **spec.single_check), skip_render_check=True)
    sb3_check_env(spec.single(num_players=n), warn=True)
    env = spec.single(num_players=n)
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(5):  # sample() draws legal actions, action_masks() agrees
        action = env.action_space.sample()
        assert env.action_masks()[action]
        _, _, term, trunc, _ = env.step(action)
        if term or trunc:
            break
