"""MedurisSingleAgentEnv: the gymnasium wrapper for one learning seat (sb3-contrib MaskablePPO)."""

import random

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from meduris_env import IllegalActionError, MedurisSingleAgentEnv
from meduris_env.envs.observation import decode_observation
from meduris_env.envs.rewards import SCORE_SCALE
from meduris_rl.kit.seeding import STREAM_OPPONENT, derive_seed


@pytest.mark.parametrize("num_players,exchange,reward", [
    (2, "auto", "win"), (2, "manual", "dense"), (3, "auto", "score"), (4, "manual", "win")])
def test_gymnasium_and_sb3_env_checkers_pass(num_players, exchange, reward):
    kw = dict(num_players=num_players, exchange=exchange, reward=reward, seat="random")
    env = gymnasium.make("meduris_env/Meduris-v0", **kw)  # with a spec: render modes are checked
    check_env(env.unwrapped, skip_render_check=False)
    sb3_check_env(MedurisSingleAgentEnv(**kw), warn=True)


def play_episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        mask = env.action_masks()
        assert mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
        obs, reward, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(mask)))
        total += reward
        steps += 1
        done = terminated or truncated
    return total, steps, info


def test_win_reward_and_final_info_match_the_engine():
    env = MedurisSingleAgentEnv(num_players=3, seat="random")
    rng = random.Random(0)
    seats = set()
    for seed in range(20):
        total, _, info = play_episode(env, seed, rng)
        seats.add(env.seat)
        winners = env.state.winners()
        assert info["winners"] == winners and info["vp"] == env.state.scores().tolist()
        if env.seat in winners:
            assert total == pytest.approx(1.0 / len(winners) if len(winners) < 3 else 0.0)
        else:
            assert total == pytest.approx(-1.0 / (3 - len(winners)))
    assert seats == {0, 1, 2}


def test_dense_reward_pays_the_learners_vp_including_opponents_turns():
    env = MedurisSingleAgentEnv(num_players=2, seat=1, reward="dense")
    total, _, info = play_episode(env, 3, random.Random(3))
    vp = env.state.scores()
    assert total == pytest.approx((vp[1] - 5 + vp[1] - vp[0]) / SCORE_SCALE)  # start 5 VP (R1)


def test_opponents_as_callables_and_objects_see_their_own_seat():
    calls = []

    class First:
        def reset(self, seed):
            calls.append(("reset", seed))

        def act(self, observation, state):
            me = state.current_player()
            assert decode_observation(observation)["decision_seat"][0] == 1  # its own decision
            calls.append(("act", me))
            return int(np.flatnonzero(observation["action_mask"])[0])

    def last_legal(observation, state):
        return int(np.flatnonzero(observation["action_mask"])[-1])

    env = MedurisSingleAgentEnv(num_players=3, opponents=[First(), last_legal], seat=0)
    play_episode(env, 1, random.Random(1))
    assert ("reset", derive_seed(1, STREAM_OPPONENT, 0)) in calls  # the one seed scheme
    assert {seat for kind, seat in calls if kind == "act"} == {1}


def test_same_seed_same_episode():
    def run(seed):
        env = MedurisSingleAgentEnv(num_players=4, seat="random", exchange="manual")
        play_episode(env, seed, random.Random(7))
        return env.state

    assert run(5) == run(5)
    assert run(5).history() != run(6).history()


def test_errors_are_clear():
    env = MedurisSingleAgentEnv(num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="learner"):
        env.step(200)
    with pytest.raises(ValueError, match="seat must be"):
        MedurisSingleAgentEnv(num_players=2, seat=2)
    with pytest.raises(ValueError, match="need 2 opponents"):
        MedurisSingleAgentEnv(num_players=3, opponents=["random"])
    with pytest.raises(TypeError, match="an opponent is"):
        MedurisSingleAgentEnv(opponents=42)
    # environments never look agents up by name: that is the agents layer's job
    with pytest.raises(ValueError, match=r"not names .*agents.make_agent\('greedy'\)"):
        MedurisSingleAgentEnv(opponents="greedy")
    bad = MedurisSingleAgentEnv(num_players=2, seat=0, opponents=lambda obs, state: 200)
    bad.reset(seed=0)
    with pytest.raises(IllegalActionError, match="opponent .* at seat 1"):
        bad.step(0)


def test_rgb_render_is_an_image():
    env = MedurisSingleAgentEnv(render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.shape == (560, 920, 3) and img.dtype == np.uint8
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10  # not a blank canvas
    text = MedurisSingleAgentEnv(render_mode="ansi")
    text.reset(seed=0)
    assert "druid: stone field 0" in text.render() and "seat 1: VP   5" in text.render()
