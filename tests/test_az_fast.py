"""``az-fast`` (agents/meduris/az_fast.py): ``az``'s search with its tree in numba arrays. It must
be the same search (the same tree bookkeeping, the same choices' distribution), one seed must give
one game, and its budgets and tree limit must hold."""

import random

import numpy as np
import pytest

from meduris_env.engine import MedurisGame
from meduris_env.engine.constants import NUM_ACTIONS
from meduris_env.envs.observation import observation_vector
from meduris_rl.agents import UnknownAgentError, make_agent
from meduris_rl.agents.budgets import MAX_TREE_ITERATIONS as MAX_ITERATIONS
from meduris_rl.agents.meduris.az import LEAF_BATCH, AZAgent
from meduris_rl.agents.meduris.az_fast import (
    ACTION,
    EVALUATED,
    PARENT,
    PENDING,
    VISITS,
    AZFastAgent,
    Tree,
)
from meduris_rl.agents.meduris.ppo import PPOAgent, shipped_model
from meduris_rl.agents.policies.network import NumpyForward, NumpyValue, input_layer
from meduris_rl.agents.registry import kind_named
from meduris_rl.kit.loop import resolve_chance


def positions(count: int, seed: int, players: int = 2) -> list:
    """``count`` decision positions of a random game (a few moves apart)."""
    state = MedurisGame(players).new_initial_state()
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        resolve_chance(state, rng)
        if state.is_terminal():
            state = MedurisGame(players).new_initial_state()
            continue
        if len(state.legal_actions()) > 1 and rng.random() < 0.25:
            found.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return found


def test_the_budget_limit_is_the_trees_and_the_kind_is_in_the_table():
    assert kind_named("az-fast").budget.maximum == MAX_ITERATIONS
    assert isinstance(make_agent("az-fast:50"), AZFastAgent)
    with pytest.raises(UnknownAgentError, match="at most 1000000 iterations"):
        make_agent(f"az-fast:{MAX_ITERATIONS + 1}")
    with pytest.raises(ValueError, match="iterations"):
        AZFastAgent("az-fast", iterations=MAX_ITERATIONS + 1)


@pytest.mark.parametrize("budget", [1, 8, 9, 64])
def test_the_tree_counts_every_iteration_and_leaves_nothing_pending(budget):
    """As az: the first batch stops at the root (then evaluated once), every later iteration
    passes a root child; no visit stays pending; each node's visits are its children's plus
    the iterations that stopped at it; two players' value sums cancel."""
    agent = AZFastAgent("az-fast", iterations=budget)
    agent.reset(3)
    for state in positions(3, seed=budget):
        tree = agent._new_root(2)
        done = 0
        while done < budget:
            done += agent._search(tree, state, 2, budget - done)
        assert done == budget
        size = int(tree.size[0])
        nodes = tree.nodes[:size]
        assert nodes[0, VISITS] == budget and nodes[0, EVALUATED] == 1
        assert not nodes[:, PENDING].any()
        assert sum(tree.root_visits().values()) == max(0, budget - LEAF_BATCH)
        child_visits = np.zeros(size, dtype=np.int64)
        np.add.at(child_visits, nodes[1:, 0], nodes[1:, VISITS])
        assert (nodes[:, VISITS] >= child_visits).all()
        assert np.allclose(tree.values[:size].sum(axis=1), 0.0, atol=1e-9)
        action = agent._choose(tree, state)
        assert state.legal_action_mask()[action]


def test_it_chooses_as_az_does():
    """The same search: from the same positions with the same networks and 400 iterations,
    az-fast's root visits are az's but for the dice drawn (total variation below 0.25), and the
    moves agree in most positions."""
    slow = AZAgent("az", iterations=400)
    fast = AZFastAgent("az-fast", iterations=400, path=str(shipped_model(2)))
    slow.reset(1)
    fast.reset(1)
    agree, distances = 0, []
    for state in positions(6, seed=11):
        a, b = slow.act(None, state), fast.act(None, state)
        agree += a == b
        share = {}
        for visits, side in ((slow.last_visits, 0), (fast.last_visits, 1)):
            total = sum(visits.values())
            for action, n in visits.items():
                share.setdefault(action, [0.0, 0.0])[side] = n / total
        distances.append(0.5 * sum(abs(p - q) for p, q in share.values()))
    assert agree >= 4, distances
    assert np.mean(distances) < 0.25, distances


def test_one_seed_gives_one_game_and_the_agent_plays_three_players():
    def game(seed: int, players: int) -> list[int]:
        agents = [make_agent("az-fast:24")] + [make_agent("greedy")] * (players - 1)
        for i, agent in enumerate(agents):
            agent.reset(seed + i)
        state = MedurisGame(players).new_initial_state()
        rng = random.Random(seed)
        played = []
        while not state.is_terminal() and len(played) < 30:
            resolve_chance(state, rng)
            if state.is_terminal():
                break
            action = agents[state.current_player()].act(None, state)
            assert state.legal_action_mask()[action]
            state.apply_action(action)
            played.append(action)
        return played

    assert game(5, 2) == game(5, 2)
    assert len(game(6, 3)) == 30


def test_a_time_budget_stops_when_the_tree_is_full(monkeypatch):
    import meduris_rl.agents.meduris.az_fast as az_fast

    monkeypatch.setattr(az_fast, "MAX_NODES", 200)
    agent = make_agent("az-fast:600s")  # (would think for ten minutes)
    agent.reset(0)
    state = positions(1, seed=2)[0]
    action = agent.act(None, state)
    assert state.legal_action_mask()[action]
    assert 0 < sum(agent.last_visits.values()) < 200
    tree = Tree(2, key=1)
    assert tree.reserve(150) and tree.capacity >= 151
    assert not tree.reserve(250)


def test_a_sparse_input_layer_computes_the_dense_ones_values():
    ppo = PPOAgent("ppo")
    states = positions(5, seed=6)
    rows = np.stack([observation_vector(s, s.current_player()) for s in states])
    policy, x = ppo.batch_inputs(rows, np.stack([s.array for s in states]), states[0].game)
    assert (x == 0).mean() > 0.5  # mostly zeros: what the sparse layer saves
    dense, sparse = NumpyForward(policy), NumpyForward(policy, sparse_inputs=True)
    assert np.allclose(dense.logits(x), sparse.logits(x), atol=1e-4)
    value = ppo.value_network(2)
    assert isinstance(value, NumpyValue)
    assert np.allclose(value(x), value.with_sparse_inputs()(x), atol=1e-5)
    assert not value.sparse_inputs  # (the twin shares the weights, not the setting)
    w, b = np.ones((3, 2), np.float32), np.zeros(2, np.float32)
    h = np.array([[0, 2, 0], [0, 1, 0]], np.float32)
    assert (input_layer(h, w, b, True) == input_layer(h, w, b, False)).all()


def test_with_chance_nodes_every_roll_is_an_edge_and_its_visits_add_up():
    """``chance_nodes=True`` (closed loop): a die roll after a move is a node whose children are
    the faces drawn, each face once, and every descent through it goes on to one of them."""
    agent = AZFastAgent("az-fast", iterations=200, chance_nodes=True)
    agent.reset(2)
    state = positions(1, seed=8)[0]
    tree = agent._new_root(2)
    done = 0
    while done < 200:
        done += agent._search(tree, state, 2, 200 - done)
    nodes = tree.nodes[:int(tree.size[0])]
    outcome_children = np.flatnonzero(nodes[:, ACTION] >= NUM_ACTIONS)
    assert len(outcome_children) > 5
    chance_parents = np.unique(nodes[outcome_children, PARENT])
    for c in chance_parents:
        faces = nodes[(nodes[:, PARENT] == c), ACTION]
        assert (faces >= NUM_ACTIONS).all() and len(set(faces)) == len(faces) <= 6
        assert nodes[c, VISITS] == nodes[nodes[:, PARENT] == c, VISITS].sum()
    assert not nodes[:, PENDING].any()
    assert state.legal_action_mask()[agent._choose(tree, state)]
