"""The RLlib environment's game logic (meduris_env/envs/rllib.py) without Ray: the modules of
RLlib training import without it, the logic plays whole games mover-only with the "win" reward
and truncation, and asking for the RLlib class names the fix when Ray is missing. (With Ray,
tests/test_rllib.py runs RLlib's own checker on the class.)"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from meduris_env.envs import rllib

REPO = Path(__file__).resolve().parent.parent


def play(env, seed: int):
    """A whole game of random legal actions; the last step's results and the steps."""
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    steps, done = 0, False
    while not done:
        assert len(obs) == 1  # only the mover observes
        (agent, o), = obs.items()
        assert agent == rllib.agent_id(env.state.current_player())
        assert 0.0 <= o["observations"].min() and o["observations"].max() <= 1.0
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        steps += 1
        done = terminated["__all__"] or truncated["__all__"]
    return obs, rewards, terminated, truncated, infos, steps


@pytest.mark.parametrize("players", [2, 4])
def test_the_logic_plays_a_game_mover_only_with_the_win_reward(players):
    env = rllib.MedurisMultiAgentCore({"players": players, "seed": 3})
    assert env.possible_agents == [f"player_{s}" for s in range(players)]
    obs, rewards, terminated, truncated, infos, steps = play(env, seed=5)
    assert terminated["__all__"] and not truncated["__all__"] and steps > 50
    assert set(obs) == set(rewards) == set(env.possible_agents)  # everyone sees the end
    assert abs(sum(rewards.values())) < 1e-9 and max(rewards.values()) > 0
    assert [rewards[a] > 0 for a in env.possible_agents] == [infos[a]["winner"]
                                                            for a in env.possible_agents]
    again = play(rllib.MedurisMultiAgentCore({"players": players, "seed": 3}), seed=5)
    assert again[1] == rewards and again[5] == steps  # same seed, same game


def test_the_logic_truncates_at_the_turn_limit_without_reward():
    env = rllib.MedurisMultiAgentCore({"players": 2, "max_turns": 3})
    _, rewards, terminated, truncated, _, _ = play(env, seed=0)
    assert truncated["__all__"] and not terminated["__all__"]
    assert set(rewards) == {"player_0", "player_1"} and set(rewards.values()) == {0.0}
    with pytest.raises(ValueError, match="must decide now"):
        env.reset(seed=1)
        env.step({"player_1" if env.state.current_player() == 0 else "player_0": 0})


def test_the_rllib_modules_import_without_importing_ray():
    code = ("import sys, meduris_env.envs.rllib, meduris_rl.train.meduris.rllib_ppo, "
            "meduris_rl.agents.meduris.rllib, "
            "meduris_rl.cli.meduris.rllib_train; print('ray' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="Ray is installed")
def test_without_ray_the_rllib_class_names_the_fix():
    with pytest.raises(ImportError, match=r"pip install -e '\.\[ray\]'"):
        from meduris_env.envs.rllib import MedurisMultiAgentEnv  # noqa: F401
    import meduris_rl.train.meduris.rllib_ppo
    with pytest.raises(ImportError, match="needs Ray"):
        meduris_rl.train.meduris.rllib_ppo.MedurisMultiAgentEnv  # noqa: B018
    with pytest.raises(AttributeError):
        rllib.NoSuchName  # noqa: B018
