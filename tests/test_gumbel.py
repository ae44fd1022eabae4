"""The Gumbel root-search mathematics (agents/search/gumbel.py) against mctx's definitions, and the
reference search on a toy game and on Meduris (issue 29)."""

import random

import numpy as np
import pytest
from helpers import GumbelToy

from meduris_env import MedurisGame
from meduris_rl.agents.search.gumbel import (
    completed_q,
    considered_visits_table,
    final_action,
    gumbel_search,
    gumbel_topk,
    improved_policy,
    interior_action_selection,
    mixed_value,
    root_action_selection,
)
from meduris_rl.kit.loop import resolve_chance

# --- the table of considered visits -------------------------------------------------------------
# Worked by hand from mctx's get_sequence_of_considered_visits (L = ceil(log2 k); each phase of c
# survivors has max(1, floor(n / (L c))) rounds of c entries; then c = max(2, c // 2)):
KNOWN_ROWS = {
    (2, 4): (0, 0, 1, 1),  # L=1, c=2: 2 rounds
    (3, 6): (0, 0, 0, 1, 1, 2),  # L=2, c=3: 1 round; c=2: 1 round, 1 more, cut at 6
    (4, 8): (0, 0, 0, 0, 1, 1, 2, 2),  # L=2, c=4: 1 round; c=2: 2 rounds
    (4, 10): (0, 0, 0, 0, 1, 1, 2, 2, 3, 3),  # c=2: floor(10/4) = 2 rounds, then 1 more
    (4, 16): (0,) * 4 + (1,) * 4 + (2, 2, 3, 3, 4, 4, 5, 5),  # c=4: 2 rounds; c=2: 4 rounds
    (16, 32): (0,) * 16 + (1,) * 8 + (2,) * 4 + (3,) * 4,  # L=4: c=16: 1; c=8: 1; c=4: 2
    (5, 3): (0, 0, 0),  # fewer simulations than actions
}


def test_the_table_has_mctx_rows():
    for (k, n), row in KNOWN_ROWS.items():
        table = considered_visits_table(k, n)
        assert table.shape == (k + 1, n)
        assert tuple(table[k]) == row, (k, n)
        assert tuple(table[0]) == tuple(table[1]) == tuple(range(n))  # rows 0 and 1
    assert considered_visits_table(2, 4).tolist() == [[0, 1, 2, 3], [0, 1, 2, 3], [0, 0, 1, 1]]
    assert considered_visits_table(3, 6)[2].tolist() == [0, 0, 1, 1, 2, 2]
    assert considered_visits_table(4, 0).shape == (5, 0)
    with pytest.raises(ValueError):
        considered_visits_table(-1, 4)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 8, 16, 32])
@pytest.mark.parametrize("n", [1, 2, 7, 16, 32, 50, 64, 200])
def test_sequential_halving_by_the_table_is_feasible_and_halves(k, n):
    """Row k, followed by a bandit that always prefers lower action ids, never asks a count
    nobody has, starts with k zeros, never decreases, and leaves the most visits on the
    survivors (the visit total is n)."""
    row = considered_visits_table(k, n)[k]
    assert row.shape == (n,) and (np.diff(row) >= 0).all()
    assert (row[:min(k, n)] == 0).all()
    visits = np.zeros(k, dtype=int)
    for asked in row:
        (have,) = np.flatnonzero(visits == asked)[:1]  # someone has the asked count
        visits[have] += 1
    assert visits.sum() == n
    assert (np.diff(visits) <= 0).all()  # the preferred actions keep the most visits
    if n >= k:
        assert (visits >= 1).all()  # every considered action is tried


# --- Gumbel top-k -------------------------------------------------------------------------------
def test_gumbel_topk_returns_distinct_legal_actions_best_first():
    rng = np.random.default_rng(0)
    mask = np.zeros(10, dtype=bool)
    mask[[1, 3, 4, 7, 9]] = True
    logits = rng.normal(size=10)
    top = gumbel_topk(logits, mask, 3, rng)
    assert len(top.actions) == 3 and len(set(top.actions.tolist())) == 3
    assert mask[top.actions].all()
    score = top.gumbel + logits
    assert (np.diff(score[top.actions]) <= 0).all()
    left_out = [a for a in np.flatnonzero(mask) if a not in top.actions]
    assert score[top.actions[-1]] >= score[left_out].max()
    everything = gumbel_topk(logits, mask, 8, rng)  # k beyond the legal count: all of them
    assert sorted(everything.actions.tolist()) == [1, 3, 4, 7, 9]


def test_gumbel_topk_on_a_batch_pads_rows_with_few_legal_actions():
    rng = np.random.default_rng(1)
    mask = np.array([[1, 1, 1, 1, 0], [0, 1, 0, 0, 0]], dtype=bool)
    top = gumbel_topk(np.zeros((2, 5)), mask, 3, rng)
    assert top.actions.shape == (2, 3) and top.gumbel.shape == (2, 5)
    assert top.actions[1].tolist() == [1, -1, -1]
    assert set(top.actions[0].tolist()) <= {0, 1, 2, 3}
    assert len(set(top.actions[0].tolist())) == 3


def test_gumbel_topk_samples_from_the_prior():
    """Gumbel-top-1 is a sample of softmax(logits): a 0.9 action comes first about 90%."""
    rng = np.random.default_rng(2)
    logits = np.log([0.9, 0.05, 0.05])
    firsts = [gumbel_topk(logits, np.ones(3, bool), 1, rng).actions[0] for _ in range(2000)]
    assert 0.87 < np.mean(np.array(firsts) == 0) < 0.93


# --- completed Q and the improved policy --------------------------------------------------------
def test_completed_q_by_hand():
    """q = (0.5, -0.5) seen 1 and 3 times, 2 actions unseen, uniform prior, v = 0.2: the
    weighted q is 0, v_mix = (0.2 + 4 * 0) / 5 = 0.04; completed (0.5, -0.5, 0.04, 0.04)
    rescaled (1, 0, 0.54, 0.54), times (50 + 3) * 0.1."""
    q, visits, logits = [0.5, -0.5, 9.0, 9.0], [1, 3, 0, 0], np.zeros(4)
    mask = np.ones(4, bool)
    assert mixed_value(q, visits, logits, mask, 0.2) == pytest.approx(0.04)
    sigma = completed_q(q, visits, logits, mask, 0.2)
    assert sigma == pytest.approx(5.3 * np.array([1.0, 0.0, 0.54, 0.54]))
    # nothing visited: every entry is the value, the rescaling gives zeros
    assert completed_q(q, [0, 0, 0, 0], logits, mask, 0.2) == pytest.approx(np.zeros(4))
    # the mixed value weights the visited q by the prior: p = (0.8, 0.2) over the visited
    logits = np.log([0.4, 0.1, 0.25, 0.25])
    expected = (0.2 + 4 * (0.8 * 0.5 + 0.2 * -0.5)) / 5
    assert mixed_value(q, visits, logits, mask, 0.2) == pytest.approx(expected)


def test_min_span_keeps_a_small_spread_of_values_small():
    """mctx stretches any spread of completed Q-values to the whole scale: a difference of
    0.01 (value-network noise) moves the prior as far as one of 1.9 (a won and a lost game).
    With ``min_span`` 1 (the trainer's) a spread below 1 stays its own size."""
    logits, mask, visits = np.zeros(3), np.ones(3, bool), np.array([4, 4, 4])
    small, large = np.array([0.01, 0.0, 0.005]), np.array([0.95, -0.95, 0.0])
    scale = (50 + 4) * 0.1
    assert np.ptp(completed_q(small, visits, logits, mask, 0.0)) == pytest.approx(scale)
    assert np.ptp(completed_q(large, visits, logits, mask, 0.0)) == pytest.approx(scale)
    kept = completed_q(small, visits, logits, mask, 0.0, min_span=1.0)
    assert kept == pytest.approx(scale * (small - small.min()))
    assert improved_policy(logits, kept, mask) == pytest.approx(np.ones(3) / 3, abs=0.02)
    stretched = completed_q(large, visits, logits, mask, 0.0, min_span=1.0)
    assert stretched == pytest.approx(scale * (large + 0.95) / 1.9)  # above 1: as mctx
    assert improved_policy(logits, stretched, mask)[0] > 0.9


def test_with_every_q_equal_to_the_value_the_prior_is_unchanged():
    rng = np.random.default_rng(3)
    logits = rng.normal(size=12)
    mask = rng.random(12) < 0.7
    mask[np.argmax(logits)] = True
    visits = np.where(mask & (rng.random(12) < 0.5), rng.integers(1, 5, 12), 0)
    q = np.full(12, 0.3)
    sigma = completed_q(q, visits, logits, mask, 0.3)
    assert sigma == pytest.approx(np.zeros(12), abs=1e-6)  # (float rounding / 1e-8)
    policy = improved_policy(logits, sigma, mask)
    assert np.argmax(policy) == np.argmax(np.where(mask, logits, -np.inf))
    prior = np.where(mask, np.exp(logits), 0.0) / np.exp(logits[mask]).sum()
    assert policy == pytest.approx(prior, abs=1e-6)


def test_the_improved_policy_is_a_distribution_over_the_legal_actions():
    rng = np.random.default_rng(4)
    logits = rng.normal(size=(5, 20)) * 3
    mask = rng.random((5, 20)) < 0.4
    mask[:, 0] = True
    sigma = rng.random((5, 20)) * 10
    policy = improved_policy(logits, sigma, mask)
    assert policy.sum(axis=-1) == pytest.approx(np.ones(5))
    assert (policy[~mask] == 0).all() and (policy[mask] > 0).all()
    assert improved_policy(np.zeros(3), np.zeros(3), np.zeros(3, bool)).tolist() == [0, 0, 0]


def test_a_much_better_action_gains_mass():
    logits = np.log([0.1, 0.4, 0.3, 0.2])
    mask = np.ones(4, bool)
    q, visits = np.array([0.9, -0.2, -0.3, 0.0]), np.array([2, 2, 2, 0])
    policy = improved_policy(logits, completed_q(q, visits, logits, mask, 0.0), mask)
    assert policy[0] > 0.1 and policy[0] == policy.max()
    assert policy[1] < 0.4


def test_a_batch_computes_what_its_rows_compute():
    rng = np.random.default_rng(5)
    logits = rng.normal(size=(3, 8))
    mask = rng.random((3, 8)) < 0.7
    mask[:, 2] = True
    visits = np.where(mask, rng.integers(0, 4, (3, 8)), 0)
    q, value = rng.uniform(-1, 1, (3, 8)), rng.uniform(-1, 1, 3)
    gumbel = rng.gumbel(size=(3, 8))
    sigma = completed_q(q, visits, logits, mask, value)
    for b in range(3):
        one = completed_q(q[b], visits[b], logits[b], mask[b], value[b])
        assert sigma[b] == pytest.approx(one)
        assert improved_policy(logits, sigma, mask)[b] == pytest.approx(
            improved_policy(logits[b], one, mask[b]))
        assert interior_action_selection(logits, sigma, visits, mask)[b] == \
            interior_action_selection(logits[b], one, visits[b], mask[b])
        assert final_action(gumbel, logits, sigma, visits, mask)[b] == \
            final_action(gumbel[b], logits[b], one, visits[b], mask[b])
    fresh = np.zeros((3, 8), dtype=int)
    zero = completed_q(q, fresh, logits, mask, value)
    picks = root_action_selection(gumbel, logits, zero, fresh, mask, 16, 4)
    assert picks.tolist() == [root_action_selection(gumbel[b], logits[b], zero[b], fresh[b],
                                                    mask[b], 16, 4) for b in range(3)]


# --- action selection ---------------------------------------------------------------------------
@pytest.mark.parametrize("k,n", [(4, 16), (8, 32), (16, 64), (3, 5), (16, 8)])
def test_root_selection_runs_sequential_halving_on_a_bandit(k, n):
    """Simulating a bandit with fixed Q-values: the first min(k', n) picks are gumbel_topk's
    actions in order, only considered actions are visited, the visits follow the table (sorted,
    they are the visits the table gives) and the best considered arm is played."""
    rng = np.random.default_rng(k * 100 + n)
    logits = rng.normal(size=12)
    mask = np.ones(12, bool)
    mask[[2, 5]] = False
    arm = rng.uniform(-1, 1, 12)
    top = gumbel_topk(logits, mask, k, rng)
    visits, total, picks = np.zeros(12, dtype=int), np.zeros(12), []
    for _ in range(n):
        q = np.divide(total, visits, out=np.zeros(12), where=visits > 0)
        sigma = completed_q(q, visits, logits, mask, 0.0)
        a = root_action_selection(top.gumbel, logits, sigma, visits, mask, n, k)
        picks.append(a)
        visits[a] += 1
        total[a] += arm[a]
    kk = min(k, mask.sum())
    assert picks[:min(kk, n)] == top.actions[:min(kk, n)].tolist()
    assert set(picks) <= set(top.actions.tolist()) and visits.sum() == n
    expected = np.zeros(kk, dtype=int)
    for asked in considered_visits_table(k, n)[kk]:
        expected[np.flatnonzero(expected == asked)[0]] += 1
    assert sorted(visits[top.actions], reverse=True) == sorted(expected, reverse=True)
    with pytest.raises(ValueError):  # the budget is spent
        root_action_selection(top.gumbel, logits, sigma, visits, mask, n, k)
    most = visits.max()
    score = top.gumbel + logits + completed_q(np.divide(total, visits, out=np.zeros(12),
                                                        where=visits > 0), visits, logits,
                                              mask, 0.0)
    best = max((a for a in range(12) if visits[a] == most), key=lambda a: score[a])
    q = np.divide(total, visits, out=np.zeros(12), where=visits > 0)
    assert final_action(top.gumbel, logits, completed_q(q, visits, logits, mask, 0.0), visits,
                        mask) == best


def test_interior_selection_makes_visits_follow_the_improved_policy():
    logits = np.log([0.5, 0.3, 0.2, 1e-3])
    mask = np.array([1, 1, 1, 0], bool)
    sigma = np.zeros(4)
    target = improved_policy(logits, sigma, mask)
    visits = np.zeros(4, dtype=int)
    for _ in range(100):
        visits[interior_action_selection(logits, sigma, visits, mask)] += 1
    assert visits[3] == 0
    assert visits / 100 == pytest.approx(target, abs=0.02)


# --- the reference search -----------------------------------------------------------------------
Toy = GumbelToy  # (tests/helpers.py: the toy game both Gumbel test files search)


def uniform(state):
    return np.zeros(6), 0.0


@pytest.mark.parametrize("seed", range(5))
def test_the_search_plays_the_winning_move_and_sees_the_trap(seed):
    result = gumbel_search(Toy(), uniform, 16, 4, np.random.default_rng(seed), gumbel_scale=0)
    assert result.action == 2
    assert result.visits.sum() == 16 and result.visits[4:].sum() == 0
    assert result.q[2] == 1.0 and result.q[1] < 0  # seat 1's win is seat 0's loss
    assert result.policy[2] == result.policy.max() and result.policy[4:].sum() == 0
    assert result.policy.sum() == pytest.approx(1.0)
    assert sorted(result.considered.tolist()) == [0, 1, 2, 3]


def test_with_gumbel_noise_the_winning_move_is_played_about_as_often_as_the_policy_says():
    """With the noise the played move is a sample of about the improved policy (which gives
    the winning move about 0.95 here): most seeds play it, not all."""
    results = [gumbel_search(Toy(), uniform, 16, 4, np.random.default_rng(seed))
               for seed in range(40)]
    wins = sum(r.action == 2 for r in results)
    assert 32 <= wins <= 40, wins
    assert min(r.policy[2] for r in results) > 0.9


def test_the_search_with_fewer_considered_actions_visits_only_those():
    result = gumbel_search(Toy(), uniform, 12, 2, np.random.default_rng(7))
    assert set(np.flatnonzero(result.visits).tolist()) == set(result.considered.tolist())
    assert len(result.considered) == 2 and result.visits.sum() == 12
    best = max(result.considered.tolist(), key=lambda a: {2: 1, 1: -1}.get(a, 0))
    assert result.action == best  # the better of the two drawn


def test_the_search_without_simulations_plays_the_first_considered_action():
    result = gumbel_search(Toy(), uniform, 0, 4, np.random.default_rng(3))
    assert result.action == result.considered[0] and result.visits.sum() == 0


def meduris_position(seed=0):
    state = MedurisGame(2).new_initial_state()
    resolve_chance(state, random.Random(seed))
    play = random.Random(seed)
    for _ in range(6):  # a few random decisions into the game
        state.apply_action(play.choice(state.legal_actions()))
        resolve_chance(state, play)
    return state


def test_the_search_on_meduris_is_legal_counts_its_visits_and_repeats_by_seed():
    state = meduris_position()
    before = state.clone()
    legal = state.legal_actions()
    result = gumbel_search(state, lambda s: (np.zeros(241), 0.0), 24, 8,
                           np.random.default_rng(11))
    assert state == before  # the position searched from is not changed
    assert result.action in legal and result.visits.sum() == 24
    assert set(np.flatnonzero(result.visits).tolist()) <= set(legal)
    assert result.policy.sum() == pytest.approx(1.0)
    assert set(np.flatnonzero(result.policy).tolist()) == set(legal)
    again = gumbel_search(state, lambda s: (np.zeros(241), 0.0), 24, 8,
                          np.random.default_rng(11))
    assert again.action == result.action
    assert (again.visits == result.visits).all() and (again.policy == result.policy).all()
    with pytest.raises(ValueError):  # a chance node is not searched
        gumbel_search(MedurisGame(2).new_initial_state(), uniform, 4, 2,
                      np.random.default_rng(0))
