"""PettingZoo's own test suites on the Meduris AEC env (and its parallel view), for every player
count and both exchange modes (R1, R15)."""

import types

import numpy as np
import pytest
from helpers import decisions_per_agent
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    render_test,
    seed_test,
)

import meduris_env

CONFIGS = [(n, ex) for n in (2, 3, 4) for ex in ("auto", "manual")]


def _env_fn(n, ex):
    return lambda **kw: meduris_env.env(num_players=n, exchange=ex, **kw)


@pytest.mark.parametrize("num_players,exchange", CONFIGS)
def test_api_test(num_players, exchange):
    api_test(meduris_env.env(num_players=num_players, exchange=exchange), num_cycles=2000)


@pytest.mark.parametrize("num_players,exchange", CONFIGS)
def test_seed_test(num_players, exchange):
    seed_test(_env_fn(num_players, exchange), num_cycles=500)


@pytest.mark.parametrize("num_players,exchange", CONFIGS)
def test_max_cycles_test(num_players, exchange):
    mod = types.SimpleNamespace(
        env=_env_fn(num_players, exchange),
        parallel_env=lambda **kw: meduris_env.parallel_env(
            num_players=num_players, exchange=exchange, **kw))
    for _ in range(5):  # the test samples unseeded actions: run it a few times
        max_cycles_test(mod)


@pytest.mark.parametrize("num_players,exchange", CONFIGS)
def test_render_test(num_players, exchange, capsys):
    render_test(_env_fn(num_players, exchange))
    assert "druid" in capsys.readouterr().out  # human mode printed the board


@pytest.mark.parametrize("num_players,exchange", CONFIGS)
def test_parallel_api_test(num_players, exchange):
    parallel_api_test(meduris_env.parallel_env(num_players=num_players, exchange=exchange),
                      num_cycles=2000)


def test_max_cycles_gives_every_agent_exactly_that_many_decisions():
    e = meduris_env.env(num_players=4, max_cycles=7)
    e.reset(seed=3)
    assert set(decisions_per_agent(e).values()) == {7}
    assert not e.agents


def test_parallel_env_applies_only_the_active_agents_action():
    p = meduris_env.parallel_env(num_players=3)
    obs, infos = p.reset(seed=1)
    active = infos["player_0"]["active_agent"]
    assert all(info["active_agent"] == active for info in infos.values())
    masks = {a: o["action_mask"] for a, o in obs.items()}
    assert masks[active].any() and not any(m.any() for a, m in masks.items() if a != active)
    legal = int(np.flatnonzero(masks[active])[0])
    # the other agents' (illegal) actions are ignored
    p.step({a: (legal if a == active else 240) for a in p.agents})
    with pytest.raises(ValueError, match="the agent to move"):
        p.step({})
