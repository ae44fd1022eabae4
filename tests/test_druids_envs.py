"""The Druids environments (docs/druids.md, "Environments"): PettingZoo AEC, the single-agent
gymnasium wrapper and the OpenSpiel game ``python_druids``, each through its library's own
checker for 2, 3 and 4 players, and what D14 asks of every view: a player's own cards only."""

from __future__ import annotations

import random
import types

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import decisions_per_agent
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import druids_env
from druids_env import DruidsGame, IllegalActionError, observation_tensor
from druids_env.envs import DruidsSingleAgentEnv, env, parallel_env, raw_env

PLAYERS = (2, 3, 4)


# --- PettingZoo AEC ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_and_seed_tests_pass(n):
    api_test(env(num_players=n), num_cycles=1000)
    seed_test(lambda: env(num_players=n), num_cycles=500)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_parallel_api_and_max_cycles_tests_pass(n):
    parallel_api_test(parallel_env(num_players=n), num_cycles=500)
    mod = types.SimpleNamespace(env=lambda **kw: env(num_players=n, **kw),
                                parallel_env=lambda **kw: parallel_env(num_players=n, **kw))
    for _ in range(3):  # the test samples unseeded actions: run it a few times
        max_cycles_test(mod)


def _run(e, seed: int) -> list:
    e.reset(seed=seed)
    seen = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        seen.append((agent, reward, obs["observation"].sum()))
        e.step(None if term or trunc else e.action_space(agent).sample())
    return seen


@pytest.mark.parametrize("n", PLAYERS)
def test_aec_games_end_with_the_engines_returns_and_repeat_by_seed(n):
    e = env(num_players=n)
    first = _run(e, 11)
    assert first == _run(env(num_players=n), 11)
    state = e.unwrapped.state
    assert state.is_terminal()
    final = {agent: r for agent, r, _ in first[-n:]}  # each agent's last() after the end
    assert [final[f"player_{s}"] for s in range(n)] == pytest.approx(state.returns())
    assert sum(final.values()) == pytest.approx(0.0)


def test_the_mask_is_the_movers_and_observations_are_d14_views():
    e = raw_env(num_players=3)
    e.reset(seed=3)
    mover = e.agent_selection
    for agent in e.possible_agents:
        obs = e.observe(agent)
        seat = int(agent.split("_")[1])
        assert obs["action_mask"].dtype == np.int8
        assert obs["action_mask"].any() == (agent == mover)
        np.testing.assert_array_equal(obs["observation"], observation_tensor(e.state, seat))
        assert obs in e.observation_space(agent)


def test_ansi_render_shows_only_the_viewers_hand():
    e = raw_env(num_players=2, render_mode="ansi")
    e.reset(seed=5)
    text = e.render()
    seat = int(e.agent_selection.split("_")[1])
    other = 1 - seat
    assert "you are" in text
    assert f"{druids_env.engine.cards.PLAYER_COLOURS[other]} hand: 4 gems, 3 servants" in text
    for card in e.state.hands[other]:
        if card < 54:  # a gem of the other hand is never named in the view
            name = druids_env.engine.cards.card_name(card)
            assert f"hand: {name}" not in text
    fixed = raw_env(num_players=2, render_mode="ansi", render_seat=other)
    fixed.reset(seed=5)
    assert fixed.render().startswith(f"you are {druids_env.engine.cards.PLAYER_COLOURS[other]}")


def test_max_turns_truncates_and_max_cycles_caps_each_agents_decisions():
    e = env(num_players=2, max_turns=3)
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            assert trunc and not term and reward == 0.0
        e.step(None if term or trunc else e.action_space(agent).sample())
    assert e.unwrapped.state.is_truncated()
    e = env(num_players=3, max_cycles=4)
    e.reset(seed=1)
    assert set(decisions_per_agent(e).values()) == {4}


def test_aec_errors_are_clear():
    e = env(num_players=2)
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match="player_0"):
        e.step(0 if not e.unwrapped.state.legal_action_mask()[0] else 423)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="truncation_reward"):
        raw_env(truncation_reward="x")
    terminate = env(num_players=2, illegal_action="terminate")
    terminate.reset(seed=0)
    mask = terminate.unwrapped.state.legal_action_mask()
    terminate.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(terminate.terminations.values())
    assert terminate.rewards[terminate.agent_selection] in (-1.0, 0.0)


# --- gymnasium single agent ----------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYERS)
def test_gymnasium_and_sb3_checkers_pass(n):
    made = gymnasium.make("druids_env/Druids-v0", num_players=n, illegal_action="terminate")
    check_env(made.unwrapped, skip_render_check=True)
    sb3_check_env(DruidsSingleAgentEnv(num_players=n), warn=True)


def test_sample_draws_legal_actions_and_masks_match():
    e = DruidsSingleAgentEnv(num_players=3, seat="random")
    for seed in range(3):
        obs, info = e.reset(seed=seed)
        e.action_space.seed(seed)
        done = False
        while not done:
            assert (e.action_masks() == info["action_mask"].astype(bool)).all()
            action = e.action_space.sample()
            assert e.action_masks()[action]
            obs, reward, term, trunc, info = e.step(action)
            done = term or trunc
        assert reward == e.state.returns()[e.seat]


class Greedy:
    """An opponent object: the highest legal id, seeing its own view only."""

    name = "highest"

    def __init__(self):
        self.seats = set()
        self.resets = []

    def act(self, observation, state):
        self.seats.add(state.current_player())
        assert observation["action_mask"].any()
        return int(np.flatnonzero(observation["action_mask"])[-1])

    def reset(self, seed):
        self.resets.append(seed)


def test_opponents_as_objects_and_callables_decide_their_seats():
    obj = Greedy()
    calls = []

    def policy(obs, mask):
        calls.append(obs.shape)
        return int(np.flatnonzero(mask)[0])

    e = DruidsSingleAgentEnv(num_players=3, opponents=[obj, policy], seat=1)
    e.reset(seed=4)
    done = False
    while not done:
        _, _, term, trunc, _ = e.step(e.action_space.sample())
        done = term or trunc
    assert obj.seats == {2} and obj.resets and calls and calls[0] == (druids_env.OBS_SIZE,)
    with pytest.raises(ValueError, match="not names"):
        DruidsSingleAgentEnv(opponents="greedy")
    with pytest.raises(ValueError, match="2 opponents"):
        DruidsSingleAgentEnv(num_players=3, opponents=["random"])


def test_same_seed_same_episode():
    def episode(seed):
        e = DruidsSingleAgentEnv(num_players=2, seat="random")
        obs, _ = e.reset(seed=seed)
        e.action_space.seed(seed)
        out = [obs.sum()]
        done = False
        while not done:
            obs, r, term, trunc, _ = e.step(e.action_space.sample())
            out.append((obs.sum(), r))
            done = term or trunc
        return out, e.state.history()
    assert episode(9) == episode(9)


def test_illegal_learner_action_raises_or_terminates():
    e = DruidsSingleAgentEnv(num_players=2)
    e.reset(seed=0)
    bad = int(np.flatnonzero(~e.action_masks())[0])
    with pytest.raises(IllegalActionError, match="learner"):
        e.step(bad)
    t = DruidsSingleAgentEnv(num_players=2, illegal_action="terminate")
    t.reset(seed=0)
    _, reward, term, trunc, info = t.step(bad)
    assert (reward, term, trunc, info["illegal"]) == (-1.0, True, False, True)
    with pytest.raises(RuntimeError, match="over"):
        t.step(bad)


def test_ansi_render_of_the_single_agent_env_is_the_learners_view():
    e = DruidsSingleAgentEnv(num_players=2, seat=1, render_mode="ansi")
    e.reset(seed=2)
    assert e.render().startswith("you are blue (seat 1)")


def test_reset_from_a_given_state():
    game = DruidsGame(2)
    state = game.new_initial_state()
    druids_env.resolve_chance(state, random.Random(1))
    e = DruidsSingleAgentEnv(game=game)
    e.reset(seed=0, options={"state": state})
    assert e.state.hands[0] == state.hands[0]
    with pytest.raises(ValueError, match="DruidsState"):
        e.reset(options={"state": DruidsGame(3).new_initial_state()})


# --- OpenSpiel -----------------------------------------------------------------------------------
pyspiel = pytest.importorskip("pyspiel")


@pytest.mark.parametrize("n", PLAYERS)
def test_openspiel_random_sim_test_passes(n):
    import druids_env.envs.openspiel  # noqa: F401  (registers python_druids)
    game = pyspiel.load_game("python_druids", {"players": n})
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_openspiel_views_are_the_engines_and_numbering_is_shifted():
    from druids_env.engine.information import information_state_string, information_state_tensor
    from druids_env.envs.openspiel import DEFAULT_MAX_TURNS
    game = pyspiel.load_game("python_druids(players=3)")
    state = game.new_initial_state()
    rng = random.Random(0)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        assert all(0 <= a < game.max_chance_outcomes() for a, _ in outcomes)
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
    engine = state.state
    seat = state.current_player()
    assert engine.game.max_turns == DEFAULT_MAX_TURNS
    assert state.legal_actions() == engine.legal_actions()
    np.testing.assert_array_equal(state.observation_tensor(seat), observation_tensor(engine, seat))
    np.testing.assert_array_equal(state.information_state_tensor(seat),
                                  information_state_tensor(engine, seat))
    assert state.information_state_string(seat) == information_state_string(engine, seat)
    assert len(state.information_state_tensor(0)) == game.information_state_tensor_size()
    # D14: the information states of two seats differ (each sees its own deal)
    assert state.information_state_string(0) != state.information_state_string(1)
    from open_spiel.python.observation import make_observation
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE))
    texts = {public.string_from(state, p) for p in range(3)}
    assert len(texts) == 1 and "is dealt a gem" in texts.pop()  # the same for every seat
    public.set_from(state, 0)
    assert public.tensor.size == game.information_state_tensor_size()
    with pytest.raises(ValueError, match="provides"):
        druids_env.envs.openspiel.DruidsObserver(engine.game, pyspiel.IIGObservationType(
            perfect_recall=False, public_info=False))


def test_maskable_ppo_learns_through_action_masks():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    e = DruidsSingleAgentEnv(num_players=2)
    model = sb3_contrib.MaskablePPO("MlpPolicy", e, n_steps=64, batch_size=32, n_epochs=1,
                                    seed=0, device="cpu")
    model.learn(128)
    obs, _ = e.reset(seed=1)
    action, _ = model.predict(obs, action_masks=e.action_masks(), deterministic=True)
    assert e.action_masks()[int(action)]


@pytest.mark.parametrize("n", PLAYERS)
def test_views_do_not_change_when_what_the_seat_cannot_know_is_dealt_again(n):
    """D14 through the environments: redeal everything ``seat`` cannot know
    (``resample_hidden``); its env observation, mask and OpenSpiel views stay the same."""
    from druids_env import resample_hidden
    from druids_env.envs.common import observe
    game = DruidsGame(n)
    rng = random.Random(n)
    checked = 0
    for seed in range(4):
        state = game.new_initial_state()
        druids_env.play(state, druids_env.random_decide(rng), rng,
                        until=lambda s, t=4 + seed: s.turn >= t)
        if state.is_terminal():
            continue
        for seat in range(n):
            other = resample_hidden(state, seat, rng)
            a, b = observe(state, seat), observe(other, seat)
            np.testing.assert_array_equal(a["observation"], b["observation"])
            np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
            assert druids_env.information_state_string(state, seat) == \
                druids_env.information_state_string(other, seat)
            checked += 1
    assert checked >= n
