"""The vector and SB3 interfaces are complete (issue 31): gymnasium's NEXT_STEP autoreset (the
default) next to SAME_STEP, with gymnasium's own vector wrappers and a CleanRL-style loop; an
``action_space.sample()`` that draws legal actions, deterministically; the SB3 ``VecEnv``'s
``set_attr`` / ``env_method`` / ``reset_infos``; and MedurisBatch's size bounds (one line, before
any allocation)."""

from __future__ import annotations

import time

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from meduris_env import MedurisBatch, MedurisVectorEnv
from meduris_env.envs.batch import MAX_BATCH_BYTES, MAX_GAMES, MAX_HISTORY, batch_bytes
from meduris_env.envs.vector import AutoresetModeError
from meduris_rl.agents.meduris.batch import make_batch_opponent
from meduris_rl.kit.envs.spaces import LegalMultiDiscrete, NoLegalActionError
from meduris_rl.kit.errors import InputError

MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


def _one_line(err: BaseException) -> str:
    text = str(err)
    assert "\n" not in text and 0 < len(text) < 200, text
    return text


def _configs():
    """Small batches of every kind: kernel random opponents, Python (batched greedy)
    opponents, a callable opponent, self-play; short games (max_turns) for truncations."""
    last = lambda obs, mask: np.array([np.flatnonzero(m)[-1] for m in mask])  # noqa: E731
    return {
        "random_2p": dict(num_envs=6, num_players=2, opponents="random", seed=3),
        "greedy_3p": dict(num_envs=5, num_players=3, opponents=make_batch_opponent("greedy"),
                          reward="dense", seed=4),
        "callable_2p_short": dict(num_envs=4, num_players=2, opponents=last, seat=1,
                                  max_turns=6, reward="score", seed=5),
        "self_play_4p": dict(num_envs=4, num_players=4, seat="all", seed=6),
    }


CONFIGS = _configs()


def _policy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A deterministic function of each game's observation: the same position, the same
    action, whatever the autoreset mode."""
    out = np.empty(len(masks), dtype=np.int64)
    for i, m in enumerate(masks):
        legal = np.flatnonzero(m)
        out[i] = legal[int(obs[i].sum() * 7.0) % len(legal)]
    return out


# --- autoreset_mode -------------------------------------------------------------------------------
@pytest.mark.parametrize("given, expected", [
    (AutoresetMode.NEXT_STEP, AutoresetMode.NEXT_STEP), ("NEXT_STEP", AutoresetMode.NEXT_STEP),
    ("next_step", AutoresetMode.NEXT_STEP), ("NextStep", AutoresetMode.NEXT_STEP),
    (AutoresetMode.SAME_STEP, AutoresetMode.SAME_STEP), ("same_step", AutoresetMode.SAME_STEP),
    ("SameStep", AutoresetMode.SAME_STEP)])
def test_autoreset_mode_takes_the_enum_or_its_name_and_sets_the_instance_metadata(given,
                                                                                 expected):
    env = MedurisVectorEnv(2, 2, autoreset_mode=given)
    assert env.autoreset_mode is expected and env.metadata["autoreset_mode"] is expected
    default = MedurisVectorEnv(2, 2)
    assert default.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP  # gymnasium's default
    assert MedurisVectorEnv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP  # untouched


@pytest.mark.parametrize("bad", [AutoresetMode.DISABLED, "DISABLED", "sometimes", "", 1, None,
                                 True, "x" * 100_000, ["NEXT_STEP"]])
def test_autoreset_mode_refuses_anything_else_in_one_line(bad):
    with pytest.raises(AutoresetModeError) as caught:
        MedurisVectorEnv(2, 2, autoreset_mode=bad)
    assert isinstance(caught.value, InputError) and isinstance(caught.value, ValueError)
    assert "autoreset_mode must be" in _one_line(caught.value)


# --- NEXT_STEP semantics and the two modes' agreement ---------------------------------------------
def test_next_step_returns_the_last_observation_then_ignores_the_action_and_restarts():
    env = MedurisVectorEnv(6, 2, seed=3)  # NEXT_STEP by default
    same = MedurisVectorEnv(6, 2, seed=3, autoreset_mode="SAME_STEP")
    obs, info = env.reset(seed=3)
    same_obs, _ = same.reset(seed=3)
    assert np.array_equal(obs, same_obs)
    checked = 0
    for _ in range(300):
        acts = _policy(obs, info["action_mask"])  # the same actions for both: in lockstep
        obs, rew, term, trunc, info = env.step(acts)
        same_obs, same_rew, s_term, s_trunc, s_info = same.step(acts)
        assert np.array_equal(term, s_term) and np.array_equal(rew, same_rew)
        done = term | trunc
        if not done.any():
            assert np.array_equal(obs, same_obs)
            continue
        # the finished game's last observation (SAME_STEP's final_obs of the same step)
        assert np.array_equal(obs[done], np.stack(s_info["final_obs"][done]))
        assert np.array_equal(info["scores"][done], s_info["final_info"]["scores"][done])
        assert info["action_mask"][done].all() and env.action_masks()[done].all()
        # the next step: an illegal action is ignored there, reward 0, flags False, new episode
        acts = _policy(obs, info["action_mask"])
        acts[done] = -7
        obs, rew, term, trunc, info = env.step(acts)
        assert (rew[done] == 0).all() and not term[done].any() and not trunc[done].any()
        assert np.array_equal(obs[done], same_obs[done])
        assert (info["rewards"][done] == 0).all()
        assert np.array_equal(info["seat"][done], s_info["seat"][done])
        checked += int(done.sum())
        break
    assert checked > 0


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_both_modes_play_the_same_episodes_as_record_episode_statistics_counts_them(name):
    """gymnasium's RecordEpisodeStatistics (which reads metadata["autoreset_mode"]) counts the
    same episode lengths and returns, game by game, in both modes for the same seed."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    episodes = {}
    for mode in MODES:
        env = RecordEpisodeStatistics(MedurisVectorEnv(**CONFIGS[name], autoreset_mode=mode))
        obs, info = env.reset(seed=11)
        found = [[] for _ in range(env.num_envs)]
        for _ in range(260):
            obs, rew, term, trunc, info = env.step(_policy(obs, info["action_mask"]))
            if "episode" in info:
                for i in np.flatnonzero(info["_episode"]):
                    found[i].append((int(info["episode"]["l"][i]),
                                     round(float(info["episode"]["r"][i]), 4)))
        episodes[mode] = found
    next_step, same_step = episodes[AutoresetMode.NEXT_STEP], episodes[AutoresetMode.SAME_STEP]
    assert sum(map(len, same_step)) >= 2
    for a, b in zip(next_step, same_step, strict=True):
        # NEXT_STEP spends one more call per episode, so it finishes fewer in 260 calls
        assert len(a) <= len(b) and a == b[:len(a)] and (a or len(b) <= 1)
        assert sum(length + 1 for length, _ in a) <= 260


def test_normalize_observation_and_a_cleanrl_loop_run_on_next_step():
    from gymnasium.wrappers.vector import NormalizeObservation, RecordEpisodeStatistics

    env = RecordEpisodeStatistics(NormalizeObservation(MedurisVectorEnv(8, 2, seed=1)))
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=1)
    returns = []
    for _ in range(200):  # CleanRL: sample with the mask, step, read flags and episode stats
        a = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, reward, term, trunc, info = env.step(a)
        assert np.isfinite(obs).all() and obs.shape == (8, env.single_observation_space.shape[0])
        if "episode" in info:
            returns += info["episode"]["r"][info["_episode"]].tolist()
    assert returns and all(-1.0 <= r <= 1.0 for r in returns)  # "win": at most 1 a game
    with pytest.raises(ValueError, match="NEXT_STEP"):  # the wrapper reads the metadata
        NormalizeObservation(MedurisVectorEnv(2, 2, autoreset_mode="SAME_STEP"))


def test_gymnasium_make_vec_passes_the_mode_through():
    import meduris_env  # noqa: F401  (registers the ids)

    for mode in MODES:
        env = gymnasium.make_vec("meduris_env/Meduris-v0", num_envs=2, autoreset_mode=mode)
        assert env.metadata["autoreset_mode"] is mode


# --- action_space.sample() ------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_two_hundred_sampled_actions_in_a_row_are_all_accepted(name, mode):
    env = MedurisVectorEnv(**CONFIGS[name], autoreset_mode=mode)
    assert isinstance(env.action_space, LegalMultiDiscrete)
    env.reset(seed=2)
    finished = 0
    for _ in range(200):
        a = env.action_space.sample()
        assert env.action_space.contains(a)
        _, _, term, trunc, _ = env.step(a)  # an illegal one would raise IllegalActionError
        finished += int((term | trunc).sum())
    assert finished > 0


def test_sampling_is_seeded_by_the_env_seed_and_refused_before_reset():
    def samples(seed, reset_seed):
        env = MedurisVectorEnv(4, 3, opponents=make_batch_opponent("greedy"), seed=seed)
        env.reset(seed=reset_seed)
        out = []
        for _ in range(30):
            a = env.action_space.sample()
            out.append(a)
            env.step(a)
        return np.stack(out)

    assert np.array_equal(samples(0, 5), samples(1, 5))  # reset(seed=) decides
    assert not np.array_equal(samples(0, 5), samples(0, 6))
    env = MedurisVectorEnv(3, 2, seed=8)
    with pytest.raises(NoLegalActionError) as caught:
        env.action_space.sample()
    assert isinstance(caught.value, InputError) and "reset()" in _one_line(caught.value)
    first = MedurisVectorEnv(3, 2, seed=8)
    first.reset()
    again = MedurisVectorEnv(3, 2, seed=8)
    again.reset()
    assert np.array_equal(first.action_space.sample(), again.action_space.sample())  # env seed
    masks = np.zeros((3, 241), dtype=np.int8)
    masks[:, 5] = 1
    masks[1] = 0
    space = LegalMultiDiscrete(np.full(3, 241), lambda: masks, seed=0)
    with pytest.raises(NoLegalActionError, match="^game 1 has no legal action"):
        space.sample()
    assert space.sample(mask=tuple(np.ones((3, 241), dtype=np.int8))).shape == (3,)


# --- stable-baselines3 ----------------------------------------------------------------------------
def test_sb3_reset_infos_after_reset_and_after_each_automatic_reset():
    from stable_baselines3.common.vec_env import VecCheckNan, VecMonitor

    from meduris_env.envs.sb3 import MedurisSB3VecEnv

    venv = MedurisSB3VecEnv(num_envs=6, num_players=3, seat="random", seed=2)
    assert venv.venv.autoreset_mode is AutoresetMode.SAME_STEP
    wrapped = VecMonitor(VecCheckNan(venv, raise_exception=True))
    wrapped.seed(4)
    wrapped.reset()
    batch = venv.venv.batch
    assert venv.reset_infos == [{"seat": int(s)} for s in batch.learner]
    restarts = 0
    for _ in range(200):
        masks = np.stack(wrapped.env_method("action_masks"))
        before = [dict(d) for d in venv.reset_infos]
        _, _, dones, infos = wrapped.step(_policy(batch.obs, masks))
        for i in range(6):
            if dones[i]:
                restarts += 1
                assert "episode" in infos[i]  # VecMonitor saw the episode end
                assert venv.reset_infos[i] == {"seat": int(batch.learner[i])}
            else:
                assert venv.reset_infos[i] == before[i]
    assert restarts > 0


def test_sb3_set_attr_and_env_method_reach_the_games_or_name_what_is_offered():
    from sb3_contrib.common.maskable.utils import is_masking_supported
    from stable_baselines3.common.vec_env import VecNormalize

    from meduris_env.envs.sb3 import MedurisSB3VecEnv, VecEnvAttributeError

    venv = MedurisSB3VecEnv(num_envs=4, num_players=2, seed=0)
    outer = VecNormalize(venv)  # SB3's wrappers forward set_attr / env_method
    assert is_masking_supported(outer)
    outer.reset()
    states = outer.env_method("state", indices=[1, 3])
    assert [s.array.tolist() for s in states] == [venv.venv.batch.states[i].tolist()
                                                 for i in (1, 3)]
    assert outer.env_method("opponent_of", 1 - int(venv.venv.batch.learner[2]),
                            indices=2) == ["random"]
    greedy = make_batch_opponent("greedy")
    outer.set_attr("opponents", greedy)
    assert venv.venv.opponents == [greedy]
    assert outer.env_method("set_opponents", "random") == [None] * 4
    assert venv.venv.opponents == ["random"]
    for call, words in [
            (lambda: outer.set_attr("opponents", greedy, indices=[0]), "shared by all 4"),
            (lambda: outer.set_attr("num_envs", 9), "cannot set 'num_envs'"),
            (lambda: outer.set_attr("x" * 5000, 1), "cannot set"),
            (lambda: outer.env_method("set_opponents", greedy, indices=[1, 2]), "shared by all"),
            (lambda: outer.env_method("render"), "no method 'render'"),
            (lambda: outer.env_method("state", indices=[7]), "indices must be games 0..3"),
            (lambda: outer.env_method("state", indices=[True]), "indices must be games")]:
        with pytest.raises(VecEnvAttributeError) as caught:
            call()
        err = caught.value
        assert isinstance(err, AttributeError) and isinstance(err, InputError)
        assert words in _one_line(err)
    assert venv.venv.opponents == ["random"]  # refused calls changed nothing


def test_sb3_refuses_a_next_step_vector_env():
    from meduris_env.envs.sb3 import MedurisSB3VecEnv

    for make in (lambda: MedurisSB3VecEnv(venv=MedurisVectorEnv(2, 2)),
                 lambda: MedurisSB3VecEnv(num_envs=2, autoreset_mode="NEXT_STEP")):
        with pytest.raises(AutoresetModeError, match="SAME_STEP"):
            make()


# --- MedurisBatch's bounds ------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, words", [
    (dict(num_games=MAX_GAMES + 1), "num_games"),
    (dict(num_games=10**30), "num_games"),
    (dict(num_games=700_000), "at most 8 GiB"),
    (dict(num_games=100_000, history=MAX_HISTORY), "at most 8 GiB"),
    (dict(num_games=1, history=MAX_HISTORY + 1), "history must be an int 0..100000"),
    (dict(num_games=1, history=10**12), "history"),
    (dict(num_games=2.5), "num_games must be an int"),
    (dict(num_games=0), "num_games must be an int >= 1"),
    (dict(num_games=4, history=-1), "history")])
def test_batch_sizes_are_bounded_in_one_line_before_allocating(kwargs, words):
    makers = [lambda: MedurisBatch(**kwargs)]
    if "history" not in kwargs:  # the vector env (and so SB3's) is bounded through its batch
        makers.append(lambda: MedurisVectorEnv(kwargs["num_games"], 2))
    for make in makers:
        start = time.monotonic()
        with pytest.raises(InputError) as caught:
            make()
        assert words in _one_line(caught.value) and time.monotonic() - start < 2.0


def test_the_memory_estimate_matches_the_buffers_and_the_bound_admits_what_fits():
    batch = MedurisBatch(3, 2, history=50)
    held = sum(a.nbytes for a in batch.snapshot())
    assert held == batch_bytes(3, 50)
    largest = MAX_BATCH_BYTES // batch_bytes(1, MAX_HISTORY)
    assert 1 <= largest < MAX_GAMES
    MedurisBatch(2, 2, history=MAX_HISTORY)  # the largest history, a few games: fine
    with pytest.raises(InputError, match=f"1..{largest}, got {largest + 1}"):
        MedurisBatch(largest + 1, 2, history=MAX_HISTORY)
