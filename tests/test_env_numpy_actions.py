"""A 0-d numpy integer array is an action (issue 31): Stable-Baselines3's ``model.predict(obs)``
returns ``array(3)`` for one observation and gymnasium's ``Discrete.contains`` accepts it, so
every interface that steps the game (the engine's state, the AEC, parallel and single-agent
environments, Meduris's and Druids') takes it; a float, a bool or a 1-d array is still refused in
one line, the game unchanged."""

import numpy as np
import pytest

from druids_env.envs import aec as druids_aec
from druids_env.envs import parallel as druids_parallel
from druids_env.envs.single_agent import DruidsSingleAgentEnv
from meduris_env import MedurisGame
from meduris_env.envs import aec as meduris_aec
from meduris_env.envs import parallel as meduris_parallel
from meduris_env.envs.single_agent import MedurisSingleAgentEnv
from meduris_rl.kit.errors import IllegalActionError
from meduris_rl.kit.loop import resolve_chance

BAD = [lambda a: np.array(float(a)), lambda a: np.array(True), lambda a: np.array([a]),
       lambda a: np.array([[a]]), lambda a: float(a)]


def _refused(step, action, words="an action is an int id"):
    with pytest.raises(IllegalActionError, match=words) as err:
        step(action)
    assert "\n" not in str(err.value) and len(str(err.value)) < 200


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_the_engine_state_takes_a_0d_integer_array(dtype):
    import random

    state = MedurisGame(2).new_initial_state()
    resolve_chance(state, random.Random(1))
    a = state.legal_actions()[0]
    before = state.clone()
    for bad in BAD:
        _refused(state.apply_action, bad(a))
    assert state == before
    state.apply_action(np.array(a, dtype=dtype))
    assert state.history()[-1] == a


@pytest.mark.parametrize("make", [MedurisSingleAgentEnv, DruidsSingleAgentEnv])
def test_single_agent_envs_take_what_sb3_predict_returns(make):
    env = make()
    env.reset(seed=1)
    a = int(np.flatnonzero(env.action_masks())[0])
    assert env.action_space.contains(np.array(a))
    for bad in BAD:
        _refused(env.step, bad(a))
    obs, reward, terminated, truncated, info = env.step(np.array(a))
    assert not terminated and env.state.history().count(a) >= 1


@pytest.mark.parametrize(("module", "parallel_module"), [(meduris_aec, meduris_parallel),
                                                         (druids_aec, druids_parallel)])
def test_aec_and_parallel_envs_take_a_0d_integer_array(module, parallel_module):
    env = module.env()
    env.reset(seed=1)
    agent = env.agent_selection
    a = int(np.flatnonzero(env.observe(agent)["action_mask"])[0])
    for bad in BAD[:4]:
        _refused(env.step, bad(a))
    assert env.agent_selection == agent and sum(env.unwrapped.decisions) == 0
    env.step(np.array(a))
    assert sum(env.unwrapped.decisions) == 1
    parallel = parallel_module.parallel_env()
    parallel.reset(seed=1)
    mover = parallel.aec_env.agent_selection
    b = int(np.flatnonzero(parallel.aec_env.observe(mover)["action_mask"])[0])
    parallel.step({mover: np.array(b)})
    assert sum(parallel.aec_env.unwrapped.decisions) == 1
