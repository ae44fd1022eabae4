"""Monte-Carlo tree search on the engine's ``clone()`` (open-loop, chance sampled).

Each iteration copies the root position and walks down the tree. Dice and bonus chips are
*sampled* afresh every iteration from the agent's seeded stream, so a node stands for a sequence
of decisions, not for one position (open-loop MCTS): at each node only the children legal in this
iteration's sample compete. The player to move picks by UCB1 on its own component of the value
vector. Children are added best-first in the order of the greedy evaluation and only while the
node's visits allow (progressive widening: at most ``1 + widening * sqrt(visits)`` children), so
a small budget goes to plausible moves. The leaf is scored by a heuristic rollout
(:func:`meduris_rl.agents.meduris.heuristics.rollout_values`: ``rollout_depth`` decisions of
epsilon-greedy play, then the evaluation for every seat, squashed to (-1, 1) by ``tanh(margin /
value_scale)``). The move played is the root child visited most.

The engine state is fully observed here (the tournament's games show all materials); with hidden
materials one would determinise the opponents' screens before each iteration.

Budget: ``iterations`` per move, or ``seconds`` per move (then results depend on machine speed).
A forced move (one legal action) is played without search.
"""

from __future__ import annotations

import math
import time

import numpy as np

from meduris_rl.agents.base import Agent
from meduris_rl.agents.budgets import check_search_budget
from meduris_rl.agents.meduris.heuristics import action_values, rollout_values
from meduris_rl.agents.search.tuning import checked_tuning
from meduris_rl.kit.loop import resolve_chance


class _Node:
    __slots__ = ("children", "order", "visits", "value")

    def __init__(self, num_players: int):
        self.children: dict[int, _Node] = {}
        self.order: list[int] | None = None  # legal actions best-first, when first expanded
        self.visits = 0
        self.value = np.zeros(num_players)


class MCTSAgent(Agent):
    def __init__(self, name: str, iterations: int | None = 200, seconds: float | None = None,
                 exploration: float = 0.7, widening: float = 1.0, rollout_depth: int = 6,
                 epsilon: float = 0.1, value_scale: float = 10.0):
        super().__init__(name)
        # every number bounded and finite: a budget that never ends is refused here too
        self.iterations, self.seconds = check_search_budget("MCTS", iterations, seconds)
        (self.exploration, self.widening, self.rollout_depth, self.epsilon,
         self.value_scale) = checked_tuning(exploration=exploration, widening=widening,
                                            rollout_depth=rollout_depth, epsilon=epsilon,
                                            value_scale=value_scale)

    #: after each decision: the root children's visits, ``{action: visits}`` (None for a forced
    #: move, played without search); what search distillation learns from
    last_visits: dict[int, int] | None = None

    def act(self, observation, state) -> int:
        legal = state.legal_actions()
        self.last_visits = None
        if len(legal) == 1:
            return legal[0]
        n = state.game.num_players
        root = self._new_root(n)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while True:
            step = self._search(root, state, n, None if deadline else self.iterations - done)
            if step == 0:  # (a search whose tree is full)
                break
            done += step
            if deadline is None:
                if done >= self.iterations:
                    break
            elif time.perf_counter() >= deadline:
                break
        self.last_visits = self._root_visits(root)
        return self._choose(root, state)

    def _root_visits(self, root: _Node) -> dict[int, int]:
        """``{action: visits}`` of the root children that were visited."""
        return {a: c.visits for a, c in root.children.items() if c.visits}

    def _new_root(self, num_players: int) -> _Node:
        return _Node(num_players)

    def _search(self, root: _Node, root_state, n: int, left: int | None) -> int:
        """Some iterations (at most ``left`` when the budget counts them); how many were done
        (0: none can be, the search stops). Here one at a time; a search that evaluates its
        leaves in batches does several."""
        self._iterate(root, root_state, n)
        return 1

    def _choose(self, root: _Node, state) -> int:
        """The move to play in ``state``: the root child visited most."""
        return max(root.children.items(), key=lambda kv: kv[1].visits)[0]

    def _iterate(self, root: _Node, root_state, n: int) -> None:
        rng = self.rng
        state = root_state.clone()
        fm, fa = state.game.field_materials, state.game.field_areas
        node = root
        path = [root]
        while True:
            resolve_chance(state, rng)
            if state.is_terminal():
                break
            player = state.current_player()
            if node.order is None:
                vals = action_values(state.array, fm, fa)
                legal = np.flatnonzero(vals > -np.inf)
                node.order = legal[np.argsort(-vals[legal], kind="stable")].tolist()
            action, child = self._select(node, state, player)
            state.apply_action(action)
            path.append(child)
            node = child
            if child.visits == 0:
                break
        values = np.zeros(n)
        if state.is_terminal():
            vp = state.scores().astype(float)
            for s in range(n):
                values[s] = vp[s] - np.delete(vp, s).max()
        else:
            a = state.array.copy()
            rollout_values(a, fm, fa, self.rollout_depth, self.epsilon, rng.getrandbits(31),
                           values)
        values = np.tanh(values / self.value_scale)
        for nd in path:
            nd.visits += 1
            nd.value += values

    def _select(self, node: _Node, state, player: int):
        """UCB1 among the children legal now, after adding the next best-first child if the
        widening allows."""
        mask = state.legal_action_mask()
        allowed = 1 + int(self.widening * math.sqrt(node.visits))
        legal_children = [(a, c) for a, c in node.children.items() if mask[a]]
        if len(legal_children) < allowed:
            for a in node.order:
                if mask[a] and a not in node.children:
                    child = _Node(len(node.value))
                    node.children[a] = child
                    return a, child
        if not legal_children:  # this sample's legal actions are all new: take the best one
            a = next(a for a in node.order if mask[a]) if any(mask[a] for a in node.order) \
                else int(np.flatnonzero(mask)[0])
            child = node.children.setdefault(a, _Node(len(node.value)))
            return a, child
        log_n = math.log(max(1, sum(c.visits for _, c in legal_children)))
        best, best_score = None, -math.inf
        for a, c in legal_children:
            if c.visits == 0:
                return a, c
            score = c.value[player] / c.visits + self.exploration * math.sqrt(log_n / c.visits)
            if score > best_score:
                best, best_score = (a, c), score
        return best
