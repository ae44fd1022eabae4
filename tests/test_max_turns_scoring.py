"""A game cut at max_turns is scored the same way by every interface (issue 31).

One seeded game, cut at a small ``max_turns``, is played through the RLlib env's core, the AEC
env, the single-agent env, the engine, OpenSpiel and a game record (their chance streams are
aligned by seed, and the test checks they really play the same game: the same history). A second
game is played by MedurisBatch / MedurisVectorEnv (their own chance streams) and replayed through
the engine and OpenSpiel. What each must give (meduris_env.envs.rewards, docs/environments.md):

* the engine's ``State.returns()``, OpenSpiel's ``returns()`` and the record's ``winners``: the
  standings at the cut (R26);
* every RL environment: ``truncated`` True and ``terminated`` False (gymnasium / PettingZoo /
  RLlib's meaning of a cut), and no terminal reward by default (``truncation_reward="none"``);
  the AEC and single-agent envs with ``truncation_reward="standings"`` pay exactly the engine's
  returns (and the "score" margin in the "score" scheme).
"""

import numpy as np
import pyspiel
import pytest
from helpers import play_cut_rllib_game

import meduris_env.openspiel  # noqa: F401  (registers python_meduris)
from meduris_env import MedurisSingleAgentEnv, env
from meduris_env.engine.constants import C_DIE
from meduris_env.engine.game import MedurisGame
from meduris_env.envs.batch import MedurisBatch
from meduris_env.envs.rewards import terminal_rewards
from meduris_env.envs.rllib import MedurisMultiAgentCore, agent_id
from meduris_env.envs.vector import MedurisVectorEnv
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.records import GameRecord
from meduris_rl.kit.seeding import derive_seed

PLAYERS, MAX_TURNS, SEED = 3, 5, 11
# the RLlib env's episode 0 after reset(seed=SEED) draws chance from Random(this); the AEC and
# single-agent envs draw from Random(their reset seed): the same stream
CHANCE_SEED = derive_seed(derive_seed(SEED), 0)


def _play_rllib(env_class=MedurisMultiAgentCore):
    return play_cut_rllib_game(env_class({"players": PLAYERS, "max_turns": MAX_TURNS}), SEED)


@pytest.fixture(scope="module")
def reference():
    """The RLlib core's game: its final step and its history (actions and chance)."""
    core, rewards, terminated, truncated, infos = _play_rllib()
    assert core.state.is_truncated(), "the game must be cut at max_turns"
    history = core.state.history()
    return {"rewards": rewards, "terminated": terminated, "truncated": truncated,
            "infos": infos, "history": history, "state": core.state,
            "actions": [a for a in history if a < C_DIE]}


def _engine_replay(history):
    state = MedurisGame(PLAYERS, max_turns=MAX_TURNS).new_initial_state()
    for a in history:
        state.apply_action(a)
    return state


def _openspiel_returns(history):
    game = pyspiel.load_game("python_meduris", {"players": PLAYERS, "max_turns": MAX_TURNS})
    state = game.new_initial_state()
    for a in history:
        state.apply_action(a - C_DIE if state.is_chance_node() else a)
    assert state.is_terminal()
    return state.returns()


def test_engine_openspiel_and_record_score_the_cut_on_its_standings(reference, tmp_path):
    state = _engine_replay(reference["history"])
    assert state.is_truncated() and state.turn == MAX_TURNS
    expected = state.returns()
    ranks = state.ranks()
    # the standings: R26's ranking of the position at the cut, zero-sum win/lose
    assert sum(expected) == pytest.approx(0.0) and expected.max() > 0
    assert [r > 0 for r in expected] == [k == 1 for k in ranks]
    assert _openspiel_returns(reference["history"]) == pytest.approx(expected.tolist())
    record = GameRecord.from_state(state, [f"p{s}" for s in range(PLAYERS)], SEED)
    saved = GameRecord.load(record.save(tmp_path / "cut.json"))
    assert saved.result["end_reason"] == "turn limit" and saved.result["terminal"]
    assert saved.result["winners"] == np.flatnonzero(expected > 0).tolist()
    assert saved.result["scores"] == state.scores().tolist()
    assert saved.replay().returns().tolist() == expected.tolist()


def test_rllib_env_reports_a_cut_as_truncated_with_no_reward(reference):
    expected = _engine_replay(reference["history"]).returns()
    assert reference["truncated"] == {"__all__": True}
    assert reference["terminated"] == {"__all__": False}
    assert reference["rewards"] == {agent_id(s): 0.0 for s in range(PLAYERS)}
    assert [reference["infos"][agent_id(s)]["winner"] for s in range(PLAYERS)] == \
        (expected > 0).tolist()




def _play_aec(actions, **kwargs):
    e = env(num_players=PLAYERS, max_turns=MAX_TURNS, **kwargs)
    e.reset(seed=CHANCE_SEED)
    todo = iter(actions)
    paid = {a: 0.0 for a in e.possible_agents}
    flags = {}
    for agent in e.agent_iter():
        _, reward, terminated, truncated, info = e.last()
        paid[agent] += reward
        if terminated or truncated:
            flags[agent] = (terminated, truncated, info["winner"])
            e.step(None)
        else:
            e.step(next(todo))
    return e.unwrapped.state, paid, flags


@pytest.mark.parametrize("truncation_reward", ["none", "standings"])
def test_aec_env_cut(reference, truncation_reward):
    state, paid, flags = _play_aec(reference["actions"], truncation_reward=truncation_reward)
    assert state.history() == reference["history"]  # the same game
    expected = state.returns() if truncation_reward == "standings" else np.zeros(PLAYERS)
    assert [paid[f"player_{s}"] for s in range(PLAYERS)] == pytest.approx(expected.tolist())
    assert [flags[f"player_{s}"] for s in range(PLAYERS)] == \
        [(False, True, bool(r > 0)) for r in state.returns()]


def test_aec_env_standings_in_the_score_scheme_pay_the_margin(reference):
    state, paid, _ = _play_aec(reference["actions"], reward="score",
                               truncation_reward="standings")
    margin = terminal_rewards(state, "score")
    assert [paid[f"player_{s}"] for s in range(PLAYERS)] == pytest.approx(margin.tolist())
    assert sum(margin) == pytest.approx(0.0) and np.any(margin != 0)


@pytest.mark.parametrize("truncation_reward", ["none", "standings"])
def test_single_agent_env_cut(reference, truncation_reward):
    todo = iter(reference["actions"])

    def replayed(observation, state):
        return next(todo)

    e = MedurisSingleAgentEnv(num_players=PLAYERS, opponents=replayed, seat=0,
                              max_turns=MAX_TURNS, truncation_reward=truncation_reward)
    e.reset(seed=CHANCE_SEED)
    total, terminated, truncated = 0.0, False, False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = e.step(next(todo))
        total += reward
    assert e.state.history() == reference["history"]  # the same game
    assert (terminated, truncated) == (False, True)
    expected = e.state.returns()[0] if truncation_reward == "standings" else 0.0
    assert total == pytest.approx(expected)
    assert info["winners"] == np.flatnonzero(e.state.returns() > 0).tolist()


def test_a_bad_truncation_reward_is_one_clear_error():
    for bad in ("standing", None, 1):
        with pytest.raises(InputError, match="truncation_reward must be one of"):
            env(num_players=2, truncation_reward=bad)
        with pytest.raises(InputError, match="truncation_reward must be one of"):
            MedurisSingleAgentEnv(num_players=2, truncation_reward=bad)


def test_batch_and_vector_env_report_a_cut_as_truncated_with_no_reward():
    batch = MedurisBatch(1, PLAYERS, seed=SEED, auto_reset=False, history=4096,
                         max_turns=MAX_TURNS)
    batch.reset()
    steps = 0
    while not (batch.terminated[0] or batch.truncated[0]):
        batch.step(batch.sample_actions())
        steps += 1
    assert bool(batch.truncated[0]) and not batch.terminated[0]
    assert batch.rewards[0].tolist() == [0.0] * 4
    state = batch.replay(0)
    assert state.is_truncated()
    assert batch.final_scores[0, :PLAYERS].tolist() == state.scores().tolist()
    history = batch.history[0, :batch.history_length[0]].tolist()
    assert _openspiel_returns(history) == pytest.approx(state.returns().tolist())

    vector = MedurisVectorEnv(1, PLAYERS, seat="all", seed=SEED, max_turns=MAX_TURNS)
    vector.reset()
    for _ in range(steps):
        _, rewards, terminated, truncated, info = vector.step(vector.batch.sample_actions())
        if terminated[0] or truncated[0]:
            break
    assert bool(truncated[0]) and not terminated[0] and rewards[0] == 0.0
    assert info["rewards"][0].tolist() == [0.0] * PLAYERS
    # the same game (whatever the autoreset mode): the batch keeps the finished game's VP
    assert vector.batch.final_scores[0, :PLAYERS].tolist() == state.scores().tolist()
