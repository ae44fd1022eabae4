"""The position pool (issue 29, step 2): positions expanded apart from the live games, the
scalar engine's positions exactly, every invariant kept, one seed one pool, the batch's
observations, one-line errors, the same rows whatever the threads."""

from __future__ import annotations

import random
import threading

import numba
import numpy as np
import pytest

from meduris_env import MedurisGame
from meduris_env.engine.chance import sample_chance
from meduris_env.engine.invariants import batch_violations, describe
from meduris_env.engine.state import IllegalActionError
from meduris_env.envs import MedurisBatch, MedurisVectorEnv, PositionPool


def decision_state(game: MedurisGame, rng: random.Random, actions: int = 0):
    """A position where a player must decide, after ``actions`` random decisions."""
    state = game.new_initial_state()
    done = 0
    while True:
        while state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        if done >= actions or state.is_terminal():
            return state
        state.apply_action(rng.choice(state.legal_actions()))
        done += 1


def late_state(game: MedurisGame, rng: random.Random, before_end: int = 30):
    """A decision ``before_end`` random decisions before the end of a random game."""
    state, decisions = game.new_initial_state(), []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            decisions.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return decisions[-before_end]


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int64)


def grow(pool: PositionPool, roots: np.ndarray, rounds: int, width: int, seed: int,
         streams: bool = False) -> None:
    """Random legal expansions: each round, ``width`` parents drawn among the live rows of
    the last round (else among all live rows), so that the tree grows deep and wide."""
    rng = np.random.default_rng(seed)
    last = roots
    for r in range(rounds):
        live = last[pool.mover(last) >= 0]
        if not len(live):
            live = np.flatnonzero(pool.mover(np.arange(pool.size)) >= 0)
        parents = rng.choice(live, size=width)
        _, mask = pool.observe(parents)
        given = np.arange(r * width, (r + 1) * width) if streams else None
        last = pool.expand(parents, random_legal(mask, rng), given)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_expanding_follows_the_scalar_engine_with_the_drawn_chance(players):
    game = MedurisGame(players)
    rng = random.Random(players)
    state = decision_state(game, rng)
    pool = PositionPool(game, 2000, seed=players)
    row = int(pool.load([state])[0])
    nprng = np.random.default_rng(players)
    steps = 0
    while not state.is_terminal() and steps < 600:
        _, mask = pool.observe([row])
        assert np.array_equal(np.flatnonzero(mask[0]), state.legal_actions())
        action = int(random_legal(mask, nprng)[0])
        row = int(pool.expand([row], [action])[0])
        applied = pool.applied(row)
        assert applied[0] == action and pool.parent([row])[0] == row - 1
        for a in applied:  # the action, then the pool's chance outcomes: all legal here
            state.apply_action(a)
        assert not state.is_chance_node()
        assert np.array_equal(state.array, pool.states[row])
        assert pool.mover([row])[0] == (state.current_player() if not state.is_terminal()
                                        else -1)
        steps += 1
    assert state.is_terminal(), "a random game ends within 600 decisions"
    assert np.array_equal(pool.returns([row])[0], state.returns().astype(np.float32))
    assert pool.returns([0]).tolist() == [[0.0] * players]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_random_expansions_keep_every_invariant(players):
    game = MedurisGame(players)
    rng = random.Random(10 + players)
    roots = [decision_state(game, rng, n) for n in (0, 5, 60)] + [late_state(game, rng)]
    pool = PositionPool(game, 20_000, seed=1)
    pool.load(roots)
    grow(pool, np.arange(4), rounds=60, width=256, seed=players)
    out = np.zeros(pool.size, dtype=np.int64)
    bad = batch_violations(pool.states[:pool.size], game.field_areas, out)
    assert bad == 0, describe(int(out[np.flatnonzero(out)[0]]))
    assert (pool.mover(np.arange(pool.size)) == -1).any()  # finished games too


def test_the_pool_never_touches_the_live_games_nor_their_streams():
    used, untouched = (MedurisBatch(16, 3, seed=5, history=400) for _ in range(2))
    for b in (used, untouched):
        b.reset()
        for _ in range(30):
            b.step(b.sample_actions())
    before = used.snapshot()
    pool = used.position_pool(10_000)
    pool.load(used.rows(np.arange(16)))
    grow(pool, np.arange(16), rounds=10, width=128, seed=0)
    for a, saved in zip(used.snapshot(), before, strict=True):
        assert np.array_equal(a, saved)
    for b in (used, untouched):
        for _ in range(30):
            b.step(b.sample_actions())
    for a, other in zip(used.snapshot(), untouched.snapshot(), strict=True):
        assert np.array_equal(a, other)


def test_one_seed_gives_bit_identical_rows_and_another_seed_other_dice():
    game = MedurisGame(2)
    roots = [decision_state(game, random.Random(7), n) for n in (10, 50)]
    pools = [PositionPool(game, 5000, seed=s) for s in (3, 3, 4)]
    for pool in pools:
        pool.load(roots)
        grow(pool, np.arange(2), rounds=10, width=64, seed=9)
    same, other = pools[0].states[:pools[0].size], pools[2].states[:pools[2].size]
    assert np.array_equal(same, pools[1].states[:pools[1].size])
    assert [pools[0].applied(i) for i in range(pools[0].size)] == \
        [pools[1].applied(i) for i in range(pools[1].size)]
    assert not np.array_equal(same, other)


def test_observe_is_the_vector_envs_observation_for_the_same_position():
    env = MedurisVectorEnv(8, 3, seat="all", seed=3)
    obs, _ = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(25):
        obs, _, terminated, truncated, _ = env.step(random_legal(env.action_masks(), rng))
    live = np.flatnonzero(~(terminated | truncated))
    pool = env.batch.position_pool(100)
    ids = pool.load(env.batch.rows(live))
    got, mask = pool.observe(ids)
    assert np.array_equal(got, obs[live])
    assert np.array_equal(mask.astype(bool), env.action_masks()[live])
    seats = (pool.mover(ids) + 1) % 3  # another seat: the batch's observation of it
    got, mask = pool.observe(ids, seats)
    want, want_mask = env.batch.observe(live, seats.astype(np.int32))
    assert np.array_equal(got, want) and np.array_equal(mask, want_mask) and not mask.any()


def one_line(excinfo) -> str:
    text = str(excinfo.value)
    assert "\n" not in text
    return text


def test_illegal_actions_bad_rows_and_bad_capacities_are_one_line_errors():
    game = MedurisGame(2)
    pool = PositionPool(game, 10, seed=0)
    ids = pool.load([decision_state(game, random.Random(1), 3)])
    _, mask = pool.observe(ids)
    illegal = int(np.flatnonzero(mask[0] == 0)[0])
    with pytest.raises(IllegalActionError) as e:
        pool.expand(ids, [illegal])
    assert f"row 0: action {illegal} is not legal" in one_line(e)
    with pytest.raises(IllegalActionError) as e:
        pool.expand(ids, [999])
    assert pool.size == 1 and "action 999" in one_line(e)
    with pytest.raises(ValueError) as e:
        pool.expand([5], [0])
    assert "row 5 is not in the pool" in one_line(e)
    chance = game.new_initial_state()  # bonus chips to place: a chance node
    with pytest.raises(ValueError) as e:
        pool.load([chance])
    assert "not a decision node" in one_line(e)
    with pytest.raises(ValueError) as e:
        pool.load([MedurisGame(3).new_initial_state()])
    assert "not a State of this pool's game" in one_line(e)
    for capacity in (0, -1, 10**8, 2.5, True, "10"):
        with pytest.raises(ValueError) as e:
            PositionPool(game, capacity)
        assert "capacity" in one_line(e)
    full = PositionPool(game, 1)
    full.load([decision_state(game, random.Random(1), 3)])
    with pytest.raises(ValueError) as e:
        full.expand([0], [int(np.flatnonzero(mask[0])[0])])
    assert "full" in one_line(e)
    full.clear()
    assert full.size == 0


def test_threads_and_numba_parallelism_give_the_sequential_rows():
    game = MedurisGame(3)
    roots = [decision_state(game, random.Random(2), n) for n in (20, 60, 100)]

    def grown(threads: int) -> PositionPool:
        pool = PositionPool(game, 5000, seed=8)
        pool.load(roots)
        before = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            grow(pool, np.arange(3), rounds=8, width=200, seed=4)
        finally:
            numba.set_num_threads(before)
        return pool

    one, all_ = grown(1), grown(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(one.states[:one.size], all_.states[:all_.size])
    # two Python threads expanding halves with given streams: the sequential children
    pool = PositionPool(game, 5000, seed=8)
    ids = pool.load(roots)
    _, mask = pool.observe(ids)
    rng = np.random.default_rng(1)
    parents = rng.choice(ids, size=400)
    actions = np.array([rng.choice(np.flatnonzero(mask[p])) for p in parents])
    streams = np.arange(400) * 7
    sequential = pool.states[pool.expand(parents, actions, streams)].copy()
    halves = [slice(0, 200), slice(200, 400)]
    out = [None, None]

    def run(h: int) -> None:
        out[h] = pool.expand(parents[halves[h]], actions[halves[h]], streams[halves[h]])
    workers = [threading.Thread(target=run, args=(h,)) for h in (0, 1)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert np.array_equal(pool.states[np.concatenate(out)], sequential)
