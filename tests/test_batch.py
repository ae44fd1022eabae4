"""The batch engine (meduris_env.engine.batch, meduris_env.envs.vector): every game of a batch is
the game the scalar engine plays (replayed step by step), the same seed gives the same games
whatever the batch size and thread count, the property-test invariants hold on every row,
illegal actions change nothing, and the vector / stable-baselines3 adapters behave as their
libraries expect."""

import warnings

import gymnasium
import numba
import numpy as np
import pytest
from helpers import check_invariants

from meduris_env import IllegalActionError, MedurisGame
from meduris_env.engine.constants import A_EXCHANGE, NUM_ACTIONS, TERMINAL
from meduris_env.envs.batch import MedurisBatch
from meduris_env.envs.observation import OBS_SIZE, observation_vector
from meduris_env.envs.rewards import SCORE_SCALE, terminal_rewards
from meduris_env.envs.vector import MedurisVectorEnv
from meduris_rl.agents.meduris.batch import BatchGreedy, make_batch_opponent
from meduris_rl.agents.meduris.heuristics import greedy_action
from meduris_rl.kit.envs.spaces import LegalActionSpace

GAMES = 1000


class ScalarTwin:
    """The scalar engine following one batch game through its history."""

    def __init__(self, game: MedurisGame, reward: str):
        self.state = game.new_initial_state()
        self.reward = reward
        self.applied = 0
        self.last_vp = self.state.vp[:game.num_players].copy()

    def follow(self, history: np.ndarray) -> list[int]:
        new = history[self.applied:].tolist()
        for a in new:
            self.state.apply_action(a)
        self.applied += len(new)
        return new

    def rewards(self) -> np.ndarray:
        n = self.state.game.num_players
        vp = self.state.vp[:n].copy()
        out = (vp - self.last_vp) / SCORE_SCALE if self.reward == "dense" else np.zeros(n)
        self.last_vp = vp
        if self.state.is_terminal() and not self.state.is_truncated():
            out = out + terminal_rewards(self.state, self.reward)
        return out


def _few_exchanges(batch, rng) -> np.ndarray:
    """Uniform legal actions, except that a manual exchange (R15) is kept only one time in ten
    (uniform play would mostly exchange, and games would run to the turn limit)."""
    actions = batch.sample_actions()
    redraw = (actions >= A_EXCHANGE) & (rng.random(len(actions)) > 0.1)
    for i in np.flatnonzero(redraw):
        others = np.flatnonzero(batch.mask[i, :A_EXCHANGE])
        if len(others):
            actions[i] = rng.choice(others)
    return actions


def _expected_row(batch, twin, observer) -> tuple:
    """What the scalar engine says row ``i`` of the batch shows ``observer``: (observation,
    mask, mover)."""
    st = twin.state
    mask = st.legal_action_mask() if st.current_player() == observer else np.zeros(NUM_ACTIONS)
    return observation_vector(st, observer, batch.hidden_materials), mask, st.current_player()


def _assert_rows_equal(what: str, got, expect, rows, close=False) -> None:
    """Row k of ``got`` is row k of ``expect`` (for game ``rows[k]``), else the first game that
    differs is named. (Compared for all rows at once: one comparison per step, not per game.)"""
    if not len(rows):
        return
    got, expect = np.asarray(got), np.asarray(expect)
    same = np.isclose(got, expect, atol=1e-6) if close else got == expect
    bad = np.flatnonzero(~same.reshape(len(rows), -1).all(axis=1))
    assert not len(bad), f"game {rows[bad[0]]}: {what}"


def _check_rows(batch, rows, observations, masks, movers) -> None:
    _assert_rows_equal("observation", batch.obs[rows], observations, rows)
    over = batch.mover[rows] == TERMINAL
    _assert_rows_equal("final observation", batch.final_obs[rows[over]],
                       np.asarray(observations)[over], rows[over])
    _assert_rows_equal("mask", batch.mask[rows], masks, rows)
    _assert_rows_equal("mover", batch.mover[rows], movers, rows)


@pytest.mark.parametrize("num_players,exchange,reward,hidden", [
    (2, "auto", "win", False), (2, "manual", "dense", True), (3, "auto", "score", False),
    (3, "manual", "win", True), (4, "auto", "dense", False), (4, "manual", "score", True)])
def test_every_batch_game_is_the_scalar_engines_game_step_by_step(num_players, exchange, reward,
                                                                  hidden):
    """(``hidden``: the opponents' materials as totals in the observations, R2)"""
    batch = MedurisBatch(GAMES, num_players, exchange=exchange, reward=reward, seed=num_players,
                         auto_reset=False, history=8000, hidden_materials=hidden)
    game = batch.game
    twins = [ScalarTwin(game, reward) for _ in range(GAMES)]
    rng = np.random.default_rng(num_players)
    batch.reset()
    expected = []
    for i, twin in enumerate(twins):
        twin.follow(batch.history[i, :batch.history_length[i]])
        twin.rewards()
        expected.append(_expected_row(batch, twin, twin.state.current_player()))
    _check_rows(batch, np.arange(GAMES), *zip(*expected, strict=True))
    steps = 0
    while (batch.mover >= 0).any():
        live = np.flatnonzero(batch.mover >= 0)
        actors = batch.mover.copy()
        actions = _few_exchanges(batch, rng)
        batch.step(actions)
        check_invariants(batch.states, batch.game.field_areas)
        steps += 1
        expected, firsts, rewards, terminated = [], [], [], []
        for i in live:
            twin = twins[i]
            firsts.append(twin.follow(batch.history[i, :batch.history_length[i]])[0])
            over = twin.state.is_terminal()
            expected.append(_expected_row(batch, twin,
                                          actors[i] if over else twin.state.current_player()))
            rewards.append(twin.rewards())
            terminated.append(over and not twin.state.is_truncated())
            if over:
                assert batch.final_scores[i, :num_players].tolist() == \
                    twin.state.scores().tolist(), f"game {i}: final scores"
        _assert_rows_equal("the batch applied its action first", actions[live], firsts, live)
        _check_rows(batch, live, *zip(*expected, strict=True))
        _assert_rows_equal("rewards", batch.rewards[live, :num_players], rewards, live,
                           close=True)
        _assert_rows_equal("terminated", batch.terminated[live], terminated, live)
        assert steps < 20_000
    assert batch.history_length.max() <= batch.history.shape[1]
    assert all(t.state.is_terminal() for t in twins)
    assert (batch.terminated | batch.truncated).all() and batch.terminated.mean() > 0.9
    # and the history replays on its own into the very same position
    for i in range(0, GAMES, 97):
        assert batch.replay(i) == twins[i].state


def _play_out(batch: MedurisBatch) -> None:
    batch.reset()
    while (batch.mover >= 0).any():
        batch.step(batch.sample_actions())


def test_the_same_seed_gives_the_same_games_whatever_the_batch_size_and_threads():
    small = MedurisBatch(24, 3, seed=11, auto_reset=False, history=4000, num_threads=1)
    large = MedurisBatch(100, 3, seed=11, auto_reset=False, history=4000,
                         num_threads=numba.config.NUMBA_NUM_THREADS)
    other = MedurisBatch(24, 3, seed=12, auto_reset=False, history=4000)
    for b in (small, large, other):
        _play_out(b)
    assert np.array_equal(small.states, large.states[:24])
    assert np.array_equal(small.history, large.history[:24])
    assert not np.array_equal(small.history, other.history)
    # a game's next episode depends on (seed, game, episode) only, too
    again = MedurisBatch(24, 3, seed=11, auto_reset=False, history=4000)
    _play_out(again)
    again.reset(games=[5])
    small.reset(games=[5])
    assert again.episodes[5] == 1 and np.array_equal(again.states[5], small.states[5])


def test_auto_reset_starts_the_next_episode_in_the_same_step_and_keeps_the_final_one():
    batch = MedurisBatch(16, 2, seed=3, reward="score")
    batch.reset()
    finished = 0
    for _ in range(400):
        batch.step(batch.sample_actions())
        done = np.flatnonzero(batch.terminated | batch.truncated)
        for i in done:
            finished += 1
            assert batch.mover[i] >= 0 and batch.episodes[i] >= 1  # already the next game
            final = batch.final_scores[i, :2]
            assert np.allclose(batch.rewards[i, :2], (final - final[::-1]) / SCORE_SCALE)
            assert not np.array_equal(batch.final_obs[i], batch.obs[i])
        assert (batch.mover >= 0).all()
    assert finished >= 16


def _assert_unchanged(batch, before: tuple) -> None:
    """Every array a step may write (the public buffers and the streams' counters) is as in
    the snapshot ``before``."""
    for k, (now, then) in enumerate(zip(batch.snapshot(), before, strict=True)):
        assert np.array_equal(now, then), k


def test_an_illegal_action_names_the_game_and_changes_nothing():
    batch = MedurisBatch(8, 2, seed=5, history=400)
    batch.reset()
    for _ in range(30):
        batch.step(batch.sample_actions())
    actions = batch.sample_actions()
    before = batch.snapshot()  # (after the sampler, which draws from the streams)
    actions[6] = int(np.flatnonzero(batch.mask[6] == 0)[0])
    with pytest.raises(IllegalActionError, match=r"^game 6: action .* no game of the batch was "
                       "changed$"):
        batch.step(actions)
    _assert_unchanged(batch, before)
    with pytest.raises(IllegalActionError, match="int array of shape"):
        batch.step(actions[:3])
    with pytest.raises(IllegalActionError, match="int array"):
        batch.step(actions.astype(float))
    with pytest.raises(ValueError, match="num_games must be an int >= 1"):
        MedurisBatch(0)
    with pytest.raises(RuntimeError, match="reset"):
        MedurisBatch(2).step(np.zeros(2, dtype=np.int64))


def test_an_illegal_action_beside_a_finished_game_keeps_its_reward():
    """Without auto-reset a finished game waits with its final reward; a refused step
    elsewhere must not clear it."""
    batch = MedurisBatch(6, 2, seed=8, auto_reset=False)
    batch.reset()
    while not batch.terminated.any():
        batch.step(batch.sample_actions())
    done = int(np.flatnonzero(batch.terminated)[0])
    assert batch.rewards[done, :2].any()
    live = int(np.flatnonzero(batch.mover >= 0)[0])
    actions = batch.sample_actions()
    before = batch.snapshot()
    actions[live] = NUM_ACTIONS + 5
    with pytest.raises(IllegalActionError, match=f"^game {live}: "):
        batch.step(actions)
    _assert_unchanged(batch, before)


def test_an_opponents_illegal_answer_changes_no_game_of_the_vector_env():
    """The learners' actions are applied before the opponents answer: when an opponent's
    answer is refused, the step is undone, every buffer as before."""
    answers = {"bad": False}

    def opponent(obs, mask):
        chosen = _first_legal(mask)
        if answers["bad"]:
            chosen[-1] = int(np.flatnonzero(mask[-1] == 0)[0])
        return chosen

    env = MedurisVectorEnv(8, 3, opponents=opponent, seed=4)
    env.reset(seed=4)
    for _ in range(5):
        env.step(_first_legal(env.action_masks()))
    before = env.batch.snapshot()
    assignment = env._assignment.copy()
    answers["bad"] = True
    with pytest.raises(IllegalActionError, match=r"^opponent .*game \d+: .*not legal"):
        env.step(_first_legal(env.action_masks()))
    _assert_unchanged(env.batch, before)
    assert np.array_equal(env._assignment, assignment)
    answers["bad"] = False  # and the env goes on from where it was
    obs, *_ = env.step(_first_legal(env.action_masks()))
    assert obs.shape == (8, OBS_SIZE)


def test_batched_greedy_chooses_what_the_greedy_agent_chooses():
    batch = MedurisBatch(40, 3, seed=9)
    batch.reset()
    for _ in range(60):
        batch.step(batch.sample_actions())
    from meduris_rl.kit.envs.opponents import Decisions
    seeds = np.arange(40, dtype=np.int64) * 7919
    decisions = Decisions(batch.obs, batch.mask, batch.states.copy(), seeds, batch.game)
    chosen = BatchGreedy().act_batch(decisions)
    game = batch.game
    for i in range(40):
        alone = greedy_action(batch.states[i], game.field_materials, game.field_areas, seeds[i])
        assert chosen[i] == alone and batch.mask[i, chosen[i]]


# --- the vector environment ---------------------------------------------------------------------
def _first_legal(masks):
    return np.array([np.flatnonzero(m)[0] for m in masks])


@pytest.mark.parametrize("opponents", ["random", "greedy", "callable", "mixed"])
def test_the_vector_env_hands_every_game_to_its_learner(opponents):
    last = lambda obs, mask: np.array([np.flatnonzero(m)[-1] for m in mask])  # noqa: E731
    spec = {"random": "random", "greedy": make_batch_opponent("greedy"), "callable": last,
            "mixed": ["random", make_batch_opponent("greedy")]}[opponents]
    env = MedurisVectorEnv(12, 3, opponents=spec, seat="random", seed=4, reward="dense",
                           autoreset_mode="SAME_STEP")
    obs, info = env.reset(seed=4)
    seats = set()
    finished = 0
    for _ in range(150):
        assert (env.batch.mover == env.batch.learner).all()  # the learner decides everywhere
        assert env.observation_space.contains(obs) and obs.shape == (12, OBS_SIZE)
        seats |= set(info["seat"].tolist())
        obs, rewards, term, trunc, info = env.step(_first_legal(env.action_masks()))
        assert rewards.shape == (12,) and rewards.dtype == np.float32
        finished += int((term | trunc).sum())
        if (term | trunc).any():
            assert info["_final_obs"].tolist() == (term | trunc).tolist()
        for i in np.flatnonzero(term):  # the finished game's learner is paid, not the next's
            seat = info["final_info"]["seat"][i]
            scores = info["final_info"]["scores"][i]
            assert rewards[i] == pytest.approx(info["rewards"][i, seat])
            if scores[seat] > np.delete(scores, seat).max():
                assert rewards[i] > 0.5  # the winner's "win" share plus its last VP gains
            if scores[seat] < scores.max():
                assert rewards[i] < 0.5
    assert seats == {0, 1, 2} and finished > 0


def test_the_vector_env_is_deterministic_and_does_not_reuse_returned_data():
    """gymnasium's env-checker properties, for a vector env: reset seeds determine episodes,
    steps are deterministic, returned arrays are not the env's buffers, spaces hold the data."""
    def run(seed):
        env = MedurisVectorEnv(6, 2, opponents=make_batch_opponent("greedy"), seed=0)
        obs, _ = env.reset(seed=seed)
        trace = [obs]
        for _ in range(40):
            obs, r, te, tr, info = env.step(_first_legal(env.action_masks()))
            trace += [obs, r]
        return env, trace

    env, a = run(1)
    _, b = run(1)
    _, c = run(2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    obs, _ = env.reset(seed=1)
    assert obs is not env.batch.obs and np.array_equal(obs, a[0])
    obs[:] = -1  # the caller's copy
    assert env.batch.obs.min() >= 0
    assert env.single_action_space.n == NUM_ACTIONS
    assert env.action_space.shape == (6,)
    assert env.metadata["autoreset_mode"].name == "NEXT_STEP"  # gymnasium's default
    with pytest.raises(ValueError, match="not names"):
        MedurisVectorEnv(2, opponents="greedy")
    with pytest.raises(ValueError, match="seat must be"):
        MedurisVectorEnv(2, seat=5)


def test_self_play_asks_every_seat_and_reports_its_rewards():
    env = MedurisVectorEnv(8, 4, seat="all", seed=2, reward="win", autoreset_mode="SAME_STEP")
    obs, info = env.reset(seed=2)
    movers = set()
    paid = 0.0
    for _ in range(600):
        assert (info["seat"] == env.batch.mover).all()
        movers |= set(info["seat"].tolist())
        obs, rewards, term, trunc, info = env.step(env.batch.sample_actions())
        if term.any():
            per_seat = info["rewards"][term]
            assert np.allclose(per_seat.sum(axis=1), 0.0, atol=1e-6)  # zero-sum "win" (R26)
            paid += float(np.abs(rewards[term]).sum())
    assert movers == {0, 1, 2, 3} and paid > 0


# --- stable-baselines3 --------------------------------------------------------------------------
def test_sb3_adapter_passes_vec_checks_and_maskable_ppo_learns_on_it():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import VecCheckNan

    from meduris_env.envs.sb3 import MedurisSB3VecEnv

    venv = MedurisSB3VecEnv(num_envs=16, num_players=2, opponents="random", seed=0)
    assert is_masking_supported(venv)
    checked = VecCheckNan(venv, raise_exception=True)
    checked.seed(3)
    obs = checked.reset()
    assert obs.shape == (16, OBS_SIZE) and venv.observation_space.contains(obs[0])
    done_seen = False
    for _ in range(300):
        masks = get_action_masks(venv)
        assert masks.shape == (16, NUM_ACTIONS) and masks.any(axis=1).all()
        obs, rewards, dones, infos = checked.step(_first_legal(masks))
        for i in np.flatnonzero(dones):
            done_seen = True
            assert infos[i]["terminal_observation"].shape == (OBS_SIZE,)
            assert len(infos[i]["scores"]) == 2
    assert done_seen
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=256, n_epochs=1, seed=0,
                        device="cpu", policy_kwargs={"net_arch": [32]})
    model.set_logger(Logger(None, []))  # no logs (SB3's default makes a /tmp/SB3-* folder)
    model.learn(16 * 32 * 2)
    assert model.num_timesteps >= 16 * 32 * 2


def test_gymnasium_make_vec_builds_the_batch_vector_env():
    import gymnasium

    import meduris_env  # noqa: F401  (registers the ids)

    env = gymnasium.make_vec("meduris_env/Meduris-v0", num_envs=4, num_players=3, seat=2)
    assert isinstance(env, MedurisVectorEnv) and env.num_envs == 4
    obs, info = env.reset(seed=0)
    assert obs.shape == (4, OBS_SIZE) and (info["seat"] == 2).all()


class OneGame(gymnasium.Env):
    """One game of a :class:`MedurisVectorEnv` as a gymnasium ``Env``: the libraries'
    checkers take single environments only, so they run on this view of the batch env (its
    spaces, seeding, determinism and returned data are the vector env's, row 0)."""

    metadata = {"render_modes": []}

    def __init__(self, **kwargs):
        self.vector = MedurisVectorEnv(1, **kwargs)
        self.observation_space = self.vector.single_observation_space
        # as the single-agent env's: sample() draws a legal action (the checkers step with it)
        self.action_space = LegalActionSpace(NUM_ACTIONS, lambda: self.vector.batch.mask[0])

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs, info = self.vector.reset(seed=seed)
        return obs[0], {"action_mask": info["action_mask"][0]}

    def step(self, action):
        obs, rewards, terminated, truncated, info = self.vector.step(np.array([action]))
        return (obs[0], float(rewards[0]), bool(terminated[0]), bool(truncated[0]),
                {"action_mask": info["action_mask"][0]})

    def action_masks(self):
        return self.vector.action_masks()[0]


@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_gymnasiums_and_sb3s_env_checkers_pass_on_one_game_of_the_vector_env(opponents):
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    opponent = make_batch_opponent(opponents)
    for players in (2, 4):
        env = OneGame(num_players=players, opponents=opponent, seed=1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a checker's warning fails the test too
            gymnasium_check_env(env, skip_render_check=True)
            sb3_check_env(env, warn=True, skip_render_check=True)
