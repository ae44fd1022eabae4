"""Information-set Monte-Carlo tree search for Stone Age (kind ``ismcts``; single-observer
IS-MCTS, Cowling, Powley & Whitehouse 2012) that never reads a card it may not know.

The searching seat ``me`` is the seat to move at the root. Each iteration:

1. **Determinise**: when another seat holds cards drawn face down (S24, M10),
   :func:`stoneage_env.resample_hidden` deals them again from the cards ``me`` has not seen
   (the deck's order and the stacks' contents are in no state: the engine draws them when
   turned), so the search is a function of what ``me`` knows and its seed.
2. **Select and expand** in one tree of decisions from the root (every decision is public, so
   a node is keyed by the actions themselves); chance is sampled (open loop). At a node the
   candidates are the legal actions in the default policy's order (its choice first, then the
   others in a seeded shuffle), widened progressively: ``1 + widening * sqrt(visits)`` of them;
   an untried candidate is expanded first, else UCB1 with availability counts, from the point
   of view of the seat to move.
3. **Roll out** to the end of the game with the greedy strategy at every seat
   (:func:`meduris_rl.agents.stone_age.policy.playout`, compiled, with ``epsilon`` random
   decisions), then
4. **Back up** per seat: the engine's returns (winners share +1, the others -1) blended with
   weight ``margin`` with the squashed point margin to the best other seat.

The move is the root's most visited action; a forced move is played without search. Budget:
``iterations`` or ``seconds`` per move (:mod:`meduris_rl.agents.budgets`); seeded by
``reset(seed)``: the same seed and an iteration budget give the same moves.
"""

from __future__ import annotations

import math
import time

import numpy as np

from meduris_rl.agents.base import Agent
from meduris_rl.agents.budgets import check_search_budget
from meduris_rl.agents.search.tuning import checked_tuning
from meduris_rl.agents.stone_age import policy as P
from stoneage_env.engine import kernel as K
from stoneage_env.engine.constants import M_PLACE
from stoneage_env.engine.information import resample_hidden

SCORE_SCALE = 40.0  # points: the margin's squashing scale


class Node:
    __slots__ = ("visits", "avail", "value", "children", "order")

    def __init__(self, n: int):
        self.visits = 0
        self.avail = 0
        self.value = np.zeros(n)
        self.children: dict[int, Node] = {}
        self.order: list[int] | None = None


def outcome(st: np.ndarray, n: int, margin: float) -> np.ndarray:
    """Per seat: the win share (+1 split among the winners, -1 among the others; S32's
    tie-break) blended with the squashed margin to the best other seat."""
    score = st[K.O_SCORE:K.O_SCORE + n].astype(float)
    tie = (st[K.O_AGRI:K.O_AGRI + n] + st[K.O_TILES:K.O_TILES + 3 * n].reshape(n, 3).sum(1)
           + st[K.O_FIG:K.O_FIG + n]).astype(float)
    key = score * 1000 + tie
    won = key == key.max()
    wins = np.where(won, 1.0 / won.sum(), -1.0 / max(1, n - won.sum()))
    if won.all():
        wins[:] = 0.0
    best_other = np.array([max(score[q] for q in range(n) if q != p) for p in range(n)])
    return (1 - margin) * wins + margin * np.tanh((score - best_other) / SCORE_SCALE)


class StoneAgeISMCTSAgent(Agent):
    """IS-MCTS with the compiled default policy's rollouts (see the module docstring)."""

    def __init__(self, name: str = "ismcts", iterations: int | None = 200,
                 seconds: float | None = None, c: float = 0.7, widening: float = 1.0,
                 epsilon: float = 0.1, margin: float = 0.5):
        super().__init__(name)
        self.iterations, self.seconds = check_search_budget("IS-MCTS", iterations, seconds)
        self.c, self.widening, self.epsilon, self.margin = checked_tuning(
            c=c, widening=widening, epsilon=epsilon, margin=margin)
        self.work = np.zeros(K.W_SIZE, dtype=np.int32)

    def act(self, observation, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = state.current_player()
        n = state.game.num_players
        hidden = any(state.secret[q].sum() for q in range(n) if q != me)
        root = Node(n)
        deadline = time.perf_counter() + self.seconds if self.seconds else None
        done = 0
        while True:
            if deadline is None and done >= self.iterations:
                break
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            det = resample_hidden(state, me, self.rng, rewrite_log=False) if hidden \
                else state
            self.iterate(root, det.array.copy(), n)
            done += 1
        best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].value[me]))
        return best[0]

    def candidates(self, node: Node, st: np.ndarray) -> list[int]:
        w = self.work
        count = K.legal_ids(st, w)
        legal = w[K.W_IDS:K.W_IDS + count].tolist()
        if node.order is None:
            P.seed_numba(self.rng.getrandbits(31))
            first = int(P.policy_action(st, w, 0.0))
            rest = [a for a in legal if a != first]
            self.rng.shuffle(rest)
            node.order = [first] + rest
        known = set(node.order)
        node.order += [a for a in legal if a not in known]
        allowed = set(legal)
        width = 1 + int(self.widening * math.sqrt(node.visits))
        return [a for a in node.order if a in allowed][:width]

    def iterate(self, root: Node, st: np.ndarray, n: int) -> None:
        w = self.work
        path = [root]
        node = root
        expanded = False
        P.seed_numba(self.rng.getrandbits(31))
        while not expanded:
            cur = K.current_player(st)
            if cur == -4:
                break
            if cur == -1:
                K.apply(st, w, K.sample_outcome(st, w))
                continue
            options = self.candidates(node, st)
            for a in options:
                child = node.children.get(a)
                if child is None:
                    child = node.children[a] = Node(n)
                child.avail += 1
            fresh = [a for a in options if node.children[a].visits == 0]
            if fresh:
                a = fresh[0]
                expanded = True
            else:
                a = max(options, key=lambda x: self.ucb(node.children[x], cur))
            K.apply(st, w, a)
            node = node.children[a]
            path.append(node)
        P.playout(st, w, self.rng.getrandbits(31), self.epsilon, 1_000_000)
        values = outcome(st, n, self.margin)
        for visited in path:
            visited.visits += 1
            visited.value += values

    def ucb(self, child: Node, player: int) -> float:
        mean = child.value[player] / child.visits
        return mean + self.c * math.sqrt(math.log(max(child.avail, 1)) / child.visits)


class StoneAgeRolloutAgent(Agent):
    """Greedy improved by rollouts (kind ``rollout``; Tesauro & Galperin's on-line policy
    improvement, 1996): a placement (C1, the decision that shapes a round) is chosen among the
    greedy strategy's best ``candidates`` by playing each out to the end of the game with the
    greedy strategy at every seat, every other decision is greedy's.

    Each sample deals the others' face-down cards again from what the seat to move has not seen
    (:func:`stoneage_env.resample_hidden`, as the IS-MCTS) and plays every candidate out with
    the same seed of the dice (common random numbers: the candidates are compared on the same
    luck as far as their games stay alike). A playout is scored by :func:`outcome` (the win share
    blended with the squashed point margin, weight ``margin``); the move is the candidate of the
    best mean, greedy's own first choice when none is better. The budget is ``iterations``
    playouts per move in all or ``seconds`` (:mod:`meduris_rl.agents.budgets`); seeded by
    ``reset(seed)``."""

    def __init__(self, name: str = "rollout", iterations: int | None = 200,
                 seconds: float | None = None, candidates: int = 5, epsilon: float = 0.0,
                 margin: float = 0.5):
        super().__init__(name)
        self.iterations, self.seconds = check_search_budget("rollout", iterations, seconds)
        self.candidates, self.epsilon, self.margin = checked_tuning(
            candidates=candidates, epsilon=epsilon, margin=margin)
        self.work = np.zeros(K.W_SIZE, dtype=np.int32)

    def act(self, observation, state) -> int:
        w = self.work
        cnt = K.legal_ids(state.array, w)
        greedy = int(P.greedy_action(state.array, w, cnt)) if cnt > 1 else int(w[K.W_IDS])
        if cnt == 1 or int(state.mode) != M_PLACE:
            return greedy
        options = self.shortlist(state, w[K.W_IDS:K.W_IDS + cnt].tolist(), greedy)
        if len(options) == 1:
            return greedy
        totals = self.sample(state, options)
        best = max(range(len(options)), key=lambda i: (totals[i], i == 0))
        return options[best]

    def shortlist(self, state, legal: list[int], greedy: int) -> list[int]:
        """Greedy's choice first, then the best-valued others, at most two per location (a
        site's figure counts are one location)."""
        me = state.current_player()
        ranked = sorted(legal, key=lambda a: (-P.place_value(state.array, me, a), a))
        options, per_place = [greedy], {P.place_of(greedy): 1}
        for a in ranked:
            place = P.place_of(a)
            if a != greedy and per_place.get(place, 0) < 2:
                options.append(a)
                per_place[place] = per_place.get(place, 0) + 1
            if len(options) >= self.candidates:
                break
        return options

    def sample(self, state, options: list[int]) -> list[float]:
        """The summed outcome of each option over the budget's playouts."""
        me = state.current_player()
        n = state.game.num_players
        hidden = any(state.secret[q].sum() for q in range(n) if q != me)
        totals = [0.0] * len(options)
        deadline = time.perf_counter() + self.seconds if self.seconds else None
        done = 0
        while (deadline is None and done + len(options) <= max(self.iterations, len(options))) \
                or (deadline is not None and (not done or time.perf_counter() < deadline)):
            det = resample_hidden(state, me, self.rng, rewrite_log=False) if hidden else state
            seed = self.rng.getrandbits(31)
            for i, a in enumerate(options):
                st = det.array.copy()
                K.apply(st, self.work, a)
                P.playout(st, self.work, seed, self.epsilon, 1_000_000)
                totals[i] += outcome(st, n, self.margin)[me]
            done += len(options)
        return totals
