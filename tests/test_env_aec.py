"""Behaviour of the AEC env beyond PettingZoo's API tests: rewards, masks, illegal actions,
truncation, determinism, starting positions."""

import random

import numpy as np
import pytest
from helpers import at_turn_action, druid_on_ring, e3_position, new_game, place, temple

import meduris_env
from meduris_env import IllegalActionError, MedurisGame
from meduris_env.envs.rewards import SCORE_SCALE


def play(e, seed, rng=None, check=None):
    """Random legal play of one game; returns the final cumulative reward per agent."""
    rng = rng or random.Random(seed)
    e.reset(seed=seed)
    total = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if check:
            check(e, agent, obs, term, trunc)
        if term or trunc:
            total[agent] = reward
            e.step(None)
        else:
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return total


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_win_rewards_sum_to_zero_and_reward_the_R26_winners(num_players):
    e = meduris_env.env(num_players=num_players, reward="win")
    for seed in range(30):
        got = play(e, seed)
        state = e.unwrapped.state
        assert state.is_terminal() and not state.is_truncated()
        assert sum(got.values()) == pytest.approx(0.0)
        winners = state.winners()
        for s, a in enumerate(e.possible_agents):
            if len(winners) == num_players:
                assert got[a] == 0.0
            elif s in winners:
                assert got[a] == pytest.approx(1.0 / len(winners))
            else:
                assert got[a] == pytest.approx(-1.0 / (num_players - len(winners)))


def test_score_reward_is_the_zero_sum_vp_margin():
    e = meduris_env.env(num_players=3, reward="score")
    got = play(e, 5)
    vp = e.unwrapped.state.scores()
    for s, a in enumerate(e.possible_agents):
        margin = vp[s] - (vp.sum() - vp[s]) / 2
        assert got[a] == pytest.approx(margin / SCORE_SCALE)
    assert sum(got.values()) == pytest.approx(0.0)


def test_dense_rewards_add_up_to_vp_gained_plus_the_final_margin():
    e = meduris_env.env(num_players=2, reward="dense")
    rng = random.Random(11)
    e.reset(seed=11)
    start_vp = e.unwrapped.state.scores()
    earned = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        earned[agent] += reward  # the cumulative reward since this agent's last step
        e.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    vp = e.unwrapped.state.scores()
    for s, a in enumerate(e.possible_agents):
        margin = vp[s] - vp[1 - s]
        assert earned[a] == pytest.approx((vp[s] - start_vp[s] + margin) / SCORE_SCALE)


@pytest.mark.parametrize("num_players,exchange", [(2, "manual"), (3, "auto"), (4, "manual")])
def test_mask_is_never_empty_for_the_agent_to_move_and_empty_for_the_others(num_players,
                                                                            exchange):
    e = meduris_env.env(num_players=num_players, exchange=exchange, hidden_materials=True)

    def check(env, agent, obs, term, trunc):
        if not (term or trunc):
            assert obs["action_mask"].any()
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()

    for seed in range(10):
        play(e, seed, check=check)


def test_illegal_actions_raise_and_change_nothing():
    e = meduris_env.env(num_players=2)
    e.reset(seed=0)
    state = e.unwrapped.state
    before = state.clone()
    assert e.agent_selection == "player_0"
    for bad in (60, 241, -1, 10**6, 2.5, "3"):  # a hut during placement, ids out of range, junk
        with pytest.raises(IllegalActionError, match="player_0"):
            e.step(bad)
    with pytest.raises(IllegalActionError, match="must decide"):
        e.step(None)
    assert state == before and state.history() == before.history()
    assert e.agent_selection == "player_0"
    e.step(np.int64(2))  # numpy ints are fine
    assert state.stacks[2, 0] == 0


def test_terminate_mode_ends_the_game_with_minus_one_for_the_offender(caplog):
    e = meduris_env.env(num_players=2, illegal_action="terminate")
    e.reset(seed=0)
    e.step(60)
    assert "Illegal move made" in caplog.text
    assert all(e.terminations.values())
    assert e.rewards == {"player_0": -1, "player_1": 0}


def test_bad_arguments_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="num_players must be 2, 3 or 4"):
        meduris_env.env(num_players=5)
    with pytest.raises(ValueError, match="reward must be one of"):
        meduris_env.env(reward="points")
    with pytest.raises(ValueError, match="render_mode must be one of"):
        meduris_env.env(render_mode="rgb")
    with pytest.raises(ValueError, match="illegal_action must be"):
        meduris_env.env(illegal_action="ignore")
    with pytest.raises(ValueError, match="max_cycles"):
        meduris_env.env(max_cycles=0)


def test_turn_limit_truncates_without_a_terminal_reward():
    e = meduris_env.env(num_players=2, max_turns=4)
    got = play(e, 0)
    state = e.unwrapped.state
    assert state.is_truncated() and state.turn == 4
    assert got == {"player_0": 0.0, "player_1": 0.0}
    assert not e.agents


def test_same_seed_same_game_and_the_engine_replays_it():
    def history(seed):
        e = meduris_env.env(num_players=3, exchange="manual")
        play(e, seed, rng=random.Random(99))
        return e.unwrapped.state

    a, b, c = history(4), history(4), history(5)
    assert a.history() == b.history() and a == b
    assert a.history() != c.history()
    replay = MedurisGame(3, exchange="manual").new_initial_state()
    for action in a.history():
        replay.apply_action(action)
    assert replay == a and replay.scores().tolist() == a.scores().tolist()


def test_reset_from_a_given_position():
    st = new_game()
    place(st, 10, "hut", 0)
    druid_on_ring(st, 10)
    at_turn_action(st)
    e = meduris_env.env(num_players=2)
    e.reset(seed=0, options={"state": st})
    assert e.agent_selection == "player_0"
    assert e.unwrapped.state == st and e.unwrapped.state is not st
    with pytest.raises(ValueError, match="State of this env's game"):
        e.reset(options={"state": MedurisGame(3).new_initial_state()})


def test_offering_decision_goes_to_the_hut_owner():
    st = e3_position()  # a temple on 15 sends the druid from 10 to the settlement 20-22
    e = meduris_env.env(num_players=2, reward="dense")
    e.reset(seed=0, options={"state": st})
    e.step(temple(15))
    assert e.agent_selection == "player_0"  # own hut on 20 first (R18)
    e.step(meduris_env.MedurisGame.string_to_action("offer both"))
    assert e.rewards["player_0"] == pytest.approx(3 / SCORE_SCALE)  # settlement of 3 (R19)
    assert e.agent_selection == "player_1"


def test_reset_seed_also_seeds_the_action_spaces():
    from meduris_env import env as make_env

    def sampled(seed):
        e = make_env(num_players=2)
        e.reset(seed=seed)
        out = []
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            a = None if term or trunc else e.action_space(agent).sample(obs["action_mask"])
            out.append(a)
            e.step(a)
        return out

    assert sampled(5) == sampled(5)
    assert sampled(5) != sampled(6)
