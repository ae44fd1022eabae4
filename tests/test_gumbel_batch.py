"""The batched Gumbel search (agents/search/gumbel_batch.py, issue 29) against the reference search
of agents/search/gumbel.py: its numba per-node formulas give numpy's numbers, one tree alone is the
reference search, B trees together are each tree alone, and it plays Meduris legally.

``ScalarPool`` implements the position-pool interface (expand / observe / mover / returns) on
scalar engine states, chance drawn from a numpy Generator per game (children inherit their
root's stream, as the batch engine's games keep their own streams)."""

import random

import numpy as np
import pytest
from helpers import GumbelToy, random_position

from meduris_env import MedurisGame
from meduris_env.envs.observation import observe_state
from meduris_rl.agents.search.gumbel import (
    completed_q,
    considered_visits_table,
    gumbel_search,
    improved_policy,
    interior_action_selection,
    masked_logits,
    root_action_selection,
)
from meduris_rl.agents.search.gumbel_batch import (
    batched_gumbel_search,
    interior_pick,
    interior_policy,
    node_sigma,
    pairwise_sum,
    prior_of,
    root_pick,
    set_priors,
)
from meduris_rl.kit.loop import resolve_chance

NUM_ACTIONS = 241


def settle(state, rng: np.random.Generator) -> None:
    """Chance outcomes drawn as the reference search draws them, until a player decides."""
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        probs = np.array([p for _, p in outcomes], dtype=np.float64)
        state.apply_action(outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0])


def observe_meduris(state):
    view = observe_state(state, state.current_player())
    return view["observation"], view["action_mask"]


class ScalarPool:
    """The position-pool interface on scalar states (``observe(state) -> (obs, mask)``)."""

    def __init__(self, observe=observe_meduris):
        self.observe_one = observe
        self.states: list = []
        self.streams: list[np.random.Generator] = []

    def add(self, state, rng: np.random.Generator) -> int:
        self.states.append(state)
        self.streams.append(rng)
        return len(self.states) - 1

    def expand(self, parents, actions) -> np.ndarray:
        children = []
        for parent, action in zip(np.asarray(parents), np.asarray(actions), strict=True):
            state = self.states[parent].clone()
            state.apply_action(int(action))
            settle(state, self.streams[parent])
            children.append(self.add(state, self.streams[parent]))
        return np.array(children, dtype=np.int64)

    def observe(self, ids):
        views = [self.observe_one(self.states[i]) for i in np.asarray(ids)]
        obs = np.stack([np.asarray(o, dtype=np.float32) for o, _ in views])
        return obs, np.stack([np.asarray(m, dtype=np.int8) for _, m in views])

    def mover(self, ids) -> np.ndarray:
        return np.array([-1 if self.states[i].is_terminal() else self.states[i].current_player()
                         for i in np.asarray(ids)], dtype=np.int8)

    def returns(self, ids) -> np.ndarray:
        return np.array([self.states[i].returns() for i in np.asarray(ids)], dtype=np.float32)


class Counted:
    """A batched evaluator from a per-position one (``one(obs row) -> (logits, value)``),
    counting its calls and the rows it saw."""

    def __init__(self, one, num_actions: int):
        self.one, self.num_actions, self.calls, self.rows = one, num_actions, 0, []

    def __call__(self, obs, mask):
        self.calls += 1
        self.rows.append(len(obs))
        out = [self.one(row) for row in obs]
        logits = np.array([o[0] for o in out], dtype=np.float32).reshape(-1, self.num_actions)
        return logits, np.array([o[1] for o in out], dtype=np.float32)


def fixed_one(num_actions: int):
    """A fixed, position-dependent evaluation (float32, as a network gives)."""
    weights = np.random.default_rng(123).normal(size=2000)

    def one(obs):
        h = float(np.dot(np.asarray(obs, dtype=np.float64), weights[:len(obs)]))
        logits = (2 * np.sin(h + 0.37 * np.arange(num_actions))).astype(np.float32)
        return logits, np.float32(np.tanh(0.1 * h))
    return one


def uniform_one(num_actions: int):
    return lambda obs: (np.zeros(num_actions, dtype=np.float32), np.float32(0.0))


# --- the per-node formulas ----------------------------------------------------------------------
@pytest.mark.parametrize("num", [3, 6, 8, 12, 100, 128, 129, 241, 1000, 5003])
def test_pairwise_sum_is_numpys_sum(num):
    rng = np.random.default_rng(num)
    for _ in range(50):
        a = rng.normal(size=num) * np.exp(rng.normal(size=num) * 4)
        assert pairwise_sum(a, 0, num) == np.sum(a)


def random_node(rng, num):
    logits = rng.normal(size=num) * 2
    legal = rng.random(num) < 0.6
    legal[rng.integers(num)] = True
    visits = np.where(legal & (rng.random(num) < 0.5), rng.integers(1, 6, num), 0)
    q = np.where(visits > 0, rng.uniform(-1, 1, num), 0.0)
    if rng.random() < 0.3:  # exact values, as finished games give
        q = np.where(visits > 0, rng.choice([-1.0, 0.0, 1.0], num), 0.0)
    return logits, legal, visits, q, float(rng.uniform(-1, 1))


@pytest.mark.parametrize("num", [6, 12, 241])
def test_the_numba_formulas_give_the_reference_numbers(num):
    rng = np.random.default_rng(num)
    for _ in range(200):
        logits, legal, visits, q, value = random_node(rng, num)
        masked = masked_logits(logits, legal)
        probs = np.maximum(improved_policy(masked, 0.0, legal), np.finfo(np.float64).tiny)
        assert np.array_equal(prior_probs(masked, legal), probs)
        sigma = np.empty(num)
        for min_span in (1.0, 0.25):  # the trainer's floor of the spread, and another
            node_sigma(q, visits.astype(np.float64), probs, value, 50.0, 0.1, min_span, sigma)
            assert np.array_equal(sigma, completed_q(q, visits, logits, legal, value,
                                                     min_span=min_span))
        node_sigma(q, visits.astype(np.float64), probs, value, 50.0, 0.1, 1e-8, sigma)
        reference = completed_q(q, visits, logits, legal, value)
        assert np.array_equal(sigma, reference)  # the same bits
        policy = np.empty(num)
        interior_policy(masked, sigma, legal, policy)
        assert policy == pytest.approx(improved_policy(logits, reference, legal), rel=1e-13,
                                       abs=1e-300)
        assert interior_pick(masked, sigma, visits.astype(np.float64), legal) == \
            interior_action_selection(logits, reference, visits, legal)
        fresh = np.zeros(num)
        zero = completed_q(fresh, fresh, logits, legal, value)
        gumbel = rng.gumbel(size=num)
        table = considered_visits_table(4, 16)
        asked = table[min(4, legal.sum()), 0]
        assert root_pick(gumbel, masked, zero, fresh, legal, asked) == \
            root_action_selection(gumbel, logits, zero, fresh, legal, 16, 4)


def prior_probs(masked, legal):
    """The prior :func:`set_priors` stores for nodes with these (already masked) logits."""
    masked, legal = np.atleast_2d(masked), np.atleast_2d(legal)
    rows, num = masked.shape
    trees, nodes = np.arange(rows), np.zeros(rows, dtype=np.int64)
    out = [np.zeros((rows, 1, num)), np.zeros((rows, 1, num), dtype=bool),
           np.zeros((rows, 1, num)), np.zeros((rows, 1)), np.zeros((rows, 1, 2))]
    again, exp = prior_of(masked, legal)
    assert np.array_equal(again, masked_logits(masked, legal))  # masking is idempotent
    set_priors(trees, nodes, again, exp, legal.astype(np.int8), np.zeros(rows), *out,
               np.zeros((rows, 1), dtype=np.int64))
    assert np.array_equal(out[0][:, 0], again) and np.array_equal(out[1][:, 0], legal)
    return out[2][:, 0].reshape(np.shape(legal)) if rows > 1 else out[2][0, 0]


def test_prior_probs_of_a_batch_are_the_reference_bits():
    rng = np.random.default_rng(8)
    logits = rng.normal(size=(64, 241)).astype(np.float32).astype(np.float64) * 3
    legal = rng.random((64, 241)) < 0.2
    legal[:, 7] = True
    masked = masked_logits(logits, legal)
    assert np.array_equal(prior_of(logits, legal)[0], masked)
    reference = np.maximum(improved_policy(masked, 0.0, legal), np.finfo(np.float64).tiny)
    assert np.array_equal(prior_probs(masked, legal), reference)
    for b in range(64):
        assert np.array_equal(prior_probs(masked[b], legal[b]), reference[b])


# --- the toy game of tests/test_gumbel.py -------------------------------------------------------
Toy = GumbelToy  # (tests/helpers.py)


def observe_toy(state):
    obs = np.zeros(3 * 12, dtype=np.float32)
    for i, a in enumerate(state.history):
        obs[12 * i + a] = 1
    mask = np.zeros(6, dtype=np.int8)
    mask[state.legal_actions()] = 1
    return obs, mask


def same_as_reference(batch, reference, exact_policy=True):
    assert batch.actions[0] == reference.action
    assert np.array_equal(batch.visits[0], reference.visits)
    assert np.array_equal(batch.q[0], reference.q)
    assert np.array_equal(batch.gumbel[0], reference.gumbel)
    assert batch.values[0] == reference.value
    if exact_policy:
        assert np.array_equal(batch.policy[0], reference.policy)
    assert batch.policy[0] == pytest.approx(reference.policy, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scale", [0.0, 1.0])
@pytest.mark.parametrize("one", [uniform_one, fixed_one])
def test_one_toy_tree_is_the_reference_search(seed, scale, one):
    """B = 1, the pool drawing chance from the search's own rng after the noise, as the
    reference does: the same visits, Q, policy and action."""
    evaluation = one(6)
    reference = gumbel_search(Toy(), lambda s: evaluation(observe_toy(s)[0]), 16, 4,
                              np.random.default_rng(seed), gumbel_scale=scale)
    rng = np.random.default_rng(seed)
    pool = ScalarPool(observe_toy)
    root = pool.add(Toy(), rng)
    batch = batched_gumbel_search(pool, [root], Counted(evaluation, 6), 16, 4, rng,
                                  gumbel_scale=scale)
    same_as_reference(batch, reference)


@pytest.mark.parametrize("seed", range(3))
def test_toy_trees_find_the_winning_move_and_see_the_trap(seed):
    pool, rng = ScalarPool(observe_toy), np.random.default_rng(seed)
    roots = [pool.add(Toy(), np.random.default_rng(100 + b)) for b in range(3)]
    evaluate = Counted(uniform_one(6), 6)
    result = batched_gumbel_search(pool, roots, evaluate, 16, 4, rng, gumbel_scale=0)
    assert result.actions.tolist() == [2, 2, 2]
    assert (result.q[:, 2] == 1).all() and (result.q[:, 1] < 0).all()
    assert (result.visits.sum(axis=1) == 16).all() and result.visits[:, 4:].sum() == 0
    assert evaluate.calls <= 17  # finished games need no call; never more than one a simulation


# --- Meduris --------------------------------------------------------------------------------------
def searched_both_ways(state, num_simulations, considered, seed):
    """The reference search and the batched search of one Meduris tree (same rng, same fixed
    evaluation): (batched result, reference result, the pool, the counted evaluator, the rng
    as the batched search left it)."""
    evaluation = fixed_one(NUM_ACTIONS)
    reference = gumbel_search(state, lambda s: evaluation(observe_meduris(s)[0]),
                              num_simulations, considered, np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    pool = ScalarPool()
    root = pool.add(state.clone(), rng)
    evaluate = Counted(evaluation, NUM_ACTIONS)
    batch = batched_gumbel_search(pool, [root], evaluate, num_simulations, considered, rng)
    return batch, reference, pool, evaluate, rng


@pytest.mark.parametrize("seed", [0, 1])
def test_one_meduris_tree_is_the_reference_search(seed):
    batch, reference, *_ = searched_both_ways(random_position(2, seed), 24, 8, seed)
    same_as_reference(batch, reference, exact_policy=True)


def search_meduris(states, seeds, noise, evaluation, num_simulations=16, considered=8):
    pool = ScalarPool()
    roots = [pool.add(s.clone(), np.random.default_rng(seed)) for s, seed in
             zip(states, seeds, strict=True)]
    evaluate = Counted(evaluation, NUM_ACTIONS)
    result = batched_gumbel_search(pool, roots, evaluate, num_simulations, considered,
                                   np.random.default_rng(0), gumbel=noise)
    return result, evaluate


def test_trees_searched_together_are_each_searched_alone():
    states = [random_position(2, seed, moves) for seed, moves in [(0, 4), (1, 6), (2, 9),
                                                                   (3, 2), (4, 7)]]
    noise = np.random.default_rng(9).gumbel(size=(5, NUM_ACTIONS))
    evaluation = fixed_one(NUM_ACTIONS)
    together, evaluate = search_meduris(states, range(5), noise, evaluation)
    assert evaluate.calls == 17 and evaluate.rows == [5] * 17  # one call a simulation
    for b in range(5):
        alone, evaluate = search_meduris(states[b:b + 1], [b], noise[b:b + 1], evaluation)
        assert evaluate.calls == 17
        for field in ("actions", "visits", "q", "values", "policy", "sigma", "considered"):
            assert np.array_equal(getattr(together, field)[b], getattr(alone, field)[0]), field


@pytest.mark.parametrize("num_players", [2, 4])
def test_meduris_smoke_legal_actions_visits_and_policies(num_players):
    states = [random_position(num_players, seed, seed % 5) for seed in range(8)]
    pool = ScalarPool()
    roots = [pool.add(s.clone(), np.random.default_rng(s_)) for s_, s in enumerate(states)]
    evaluate = Counted(uniform_one(NUM_ACTIONS), NUM_ACTIONS)
    result = batched_gumbel_search(pool, roots, evaluate, 16, 8, np.random.default_rng(5))
    assert evaluate.calls == 17 and evaluate.rows == [8] * 17
    for b, state in enumerate(states):
        legal = state.legal_action_mask().astype(bool)
        assert legal[result.actions[b]]
        assert result.visits[b].sum() == 16 and result.visits[b][~legal].sum() == 0
        assert result.policy[b].sum() == pytest.approx(1.0)
        assert (result.policy[b][~legal] == 0).all() and (result.policy[b][legal] > 0).all()
        assert -1 <= result.values[b] <= 1


def test_the_same_seed_gives_the_same_result():
    states = [random_position(3, seed, 3) for seed in range(4)]

    def run():
        pool = ScalarPool()
        roots = [pool.add(s.clone(), np.random.default_rng(7 + i)) for i, s in
                 enumerate(states)]
        return batched_gumbel_search(pool, roots, Counted(fixed_one(NUM_ACTIONS), NUM_ACTIONS),
                                     12, 4, np.random.default_rng(3))
    first, second = run(), run()
    for field in first._fields:
        assert np.array_equal(getattr(first, field), getattr(second, field)), field


def test_no_simulation_and_bad_roots():
    pool = ScalarPool()
    root = pool.add(random_position(2, 0), np.random.default_rng(0))
    evaluate = Counted(uniform_one(NUM_ACTIONS), NUM_ACTIONS)
    result = batched_gumbel_search(pool, [root], evaluate, 0, 4, np.random.default_rng(1))
    assert result.actions[0] == result.considered[0, 0] and result.visits.sum() == 0
    assert evaluate.calls == 1
    toys = ScalarPool(observe_toy)
    over = toys.add(Toy((2,)), np.random.default_rng(0))
    with pytest.raises(ValueError, match="finished"):
        batched_gumbel_search(toys, [over], Counted(uniform_one(6), 6), 4, 2,
                              np.random.default_rng(0))
    with pytest.raises(ValueError):
        batched_gumbel_search(pool, [root], evaluate, -1, 4, np.random.default_rng(1))


def meduris_endgame(num_players, seed, before_end):
    """A decision ``before_end`` decisions before the end of a random game."""
    play = random.Random(seed)
    state = MedurisGame(num_players).new_initial_state()
    resolve_chance(state, play)
    history = []
    while not state.is_terminal():
        history.append(state.clone())
        state.apply_action(play.choice(state.legal_actions()))
        resolve_chance(state, play)
    return history[-before_end]


@pytest.mark.parametrize("seed", [0, 1])
def test_finished_games_in_a_meduris_tree(seed):
    """Near the end the trees hold finished games (their returns backed up, revisited without
    an evaluation); one tree is still the reference search."""
    batch, reference, pool, evaluate, rng = searched_both_ways(meduris_endgame(2, seed, 2), 32,
                                                               4, seed)
    same_as_reference(batch, reference)
    finished = sum(s.is_terminal() for s in pool.states)
    assert finished > 0 and evaluate.calls < 33  # some simulations ended in finished games
    states = [meduris_endgame(4, seed + b, 1 + b % 3) for b in range(6)]
    pool = ScalarPool()
    roots = [pool.add(s.clone(), np.random.default_rng(b)) for b, s in enumerate(states)]
    result = batched_gumbel_search(pool, roots, Counted(fixed_one(NUM_ACTIONS), NUM_ACTIONS), 16,
                                   8, rng)
    for b, s in enumerate(states):
        assert s.legal_action_mask()[result.actions[b]] and result.visits[b].sum() == 16
        assert result.policy[b].sum() == pytest.approx(1.0)


def test_the_position_pool_of_the_batch_engine():
    """The real pool (meduris_env.envs.positions): legal moves, one call a simulation, and with
    keyed streams a tree searched in a batch is the tree searched alone."""
    from meduris_env.envs.positions import PositionPool

    states = [random_position(2, seed, 3 + seed) for seed in range(4)]
    noise = np.random.default_rng(4).gumbel(size=(4, NUM_ACTIONS))
    evaluation = fixed_one(NUM_ACTIONS)

    def search(index):
        pool = PositionPool(MedurisGame(2), capacity=200, seed=3)
        roots = pool.load([states[i] for i in index])
        evaluate = Counted(evaluation, NUM_ACTIONS)
        result = batched_gumbel_search(pool, roots, evaluate, 12, 4, np.random.default_rng(0),
                                       gumbel=noise[index], streams=np.array(index) + 10)
        assert evaluate.calls == 13
        return result
    together = search([0, 1, 2, 3])
    for b, state in enumerate(states):
        assert state.legal_action_mask()[together.actions[b]]
        alone = search([b])
        for field in ("actions", "visits", "q", "policy"):
            assert np.array_equal(getattr(together, field)[b], getattr(alone, field)[0]), field
