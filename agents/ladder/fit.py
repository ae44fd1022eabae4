"""Ratings by maximum likelihood over all stored games, on the Elo scale, ``random`` = 0.

The model is **Plackett-Luce** on strengths ``exp(theta)``: a game's finishing order is drawn
best first, each place going to one of the agents still unplaced with probability proportional
to its strength. With 2 players this is **Bradley-Terry**, ``P(a beats b) = 1 / (1 +
10 ** ((elo_b - elo_a) / 400))`` with ``elo = theta * 400 / ln 10``: the Elo scale. A shared
place (tied ranks, R26) counts every order of the tied agents with equal weight, so a shared
win between two players is half a point each. The games of one player count form one table:
ratings of different player counts are not comparable.

* **Anchored**: ``theta`` of the reference agent (``random``) is fixed at 0; the others are
  fitted by Newton's method on the log-likelihood (concave), to a step below 1e-10.
* **Prior**: every pair of agents that met in some game also gets :data:`PRIOR_GAMES` virtual
  2-player game, drawn (half a point each way). It keeps the estimate finite when an agent won
  or lost every game against its neighbours (the maximum likelihood is then at infinity) and
  pulls ratings toward the opponents they met by a negligible amount once there are tens of
  games (BayesElo does the same with two virtual draws).
* **Intervals**: 95% Wald intervals, ``elo ± 1.96 se``, ``se`` from the observed information
  (the inverse of the negative Hessian of the log-likelihood, prior included, at the
  estimate); they are relative to the reference, whose interval is 0 wide.
* Only agents connected to the reference through games can be placed; the others are listed
  in :attr:`Fit.unconnected`.
* Reproducible: the fit reads the games in the order given (the store sorts them by key) and
  every sum runs in a fixed order, so the same games give the same numbers, bit for bit.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from .store import SHIPPED, LadderError, open_ladder

ELO = 400 / math.log(10)  # Elo points per unit of theta (natural log of the strength)
PRIOR_GAMES = 1.0  # virtual drawn games between each pair of agents that met
REFERENCE = "random"
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    se: float  # standard error (Elo points); 0 for the reference
    games: int
    score: float  # mean share of the opponents beaten per game (ties half): 2 players, wins
    anchor: bool

    @property
    def low(self) -> float:
        return self.elo - Z95 * self.se

    @property
    def high(self) -> float:
        return self.elo + Z95 * self.se


@dataclass
class Fit:
    players: int
    games: int
    ratings: list[Rating]  # best first (ties by name)
    unconnected: list[str] = field(default_factory=list)
    iterations: int = 0

    def by_name(self) -> dict[str, Rating]:
        return {r.name: r for r in self.ratings}


def orderings(ranks: Sequence[int]) -> list[tuple[tuple[int, ...], float]]:
    """The finishing orders (seats, best first) of a game's ranks with their weights: one
    order with weight 1, or every order of each tied group with equal weight."""
    groups = [[s for s, r in enumerate(ranks) if r == rank] for rank in sorted(set(ranks))]
    orders = [sum(choice, []) for choice in itertools.product(
        *[[list(p) for p in itertools.permutations(g)] for g in groups])]
    return [(tuple(o), 1.0 / len(orders)) for o in orders]


def stages(games: Sequence[tuple[Sequence[str], Sequence[int]]], index: dict[str, int]) -> dict:
    """{(chosen, remaining agents): weight}: every choice of the Plackett-Luce orders of the
    games, plus the prior's virtual draws."""
    out: dict[tuple[int, tuple[int, ...]], float] = {}
    met: set[tuple[int, int]] = set()
    for agents, ranks in games:
        ids = [index[a] for a in agents]
        for a, b in itertools.combinations(sorted(set(ids)), 2):
            met.add((a, b))
        for order, weight in orderings(ranks):
            seq = [ids[s] for s in order]
            for k in range(len(seq) - 1):
                key = (seq[k], tuple(sorted(seq[k:])))
                out[key] = out.get(key, 0.0) + weight
    for a, b in sorted(met):
        for winner in (a, b):
            key = (winner, (a, b))
            out[key] = out.get(key, 0.0) + PRIOR_GAMES / 2
    return out


def groups_by_size(choices: dict) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The choices as arrays per size of the remaining set: (sets, chosen column, weights)."""
    sized: dict[int, list] = {}
    for (chosen, rest), weight in choices.items():
        sized.setdefault(len(rest), []).append((rest, rest.index(chosen), weight))
    return [(np.array([r for r, _, _ in rows], dtype=np.int64),
             np.array([c for _, c, _ in rows], dtype=np.int64),
             np.array([w for _, _, w in rows])) for _, rows in sorted(sized.items())]


def derivatives(theta: np.ndarray, groups) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, gradient and Hessian of the Plackett-Luce choices at ``theta``."""
    n = len(theta)
    ll, grad, hess = 0.0, np.zeros(n), np.zeros((n, n))
    for sets, col, w in groups:
        logits = theta[sets]
        top = logits.max(axis=1, keepdims=True)
        ex = np.exp(logits - top)
        total = ex.sum(axis=1, keepdims=True)
        pi = ex / total
        rows = np.arange(len(sets))
        ll += float(np.sum(w * (logits[rows, col] - top[:, 0] - np.log(total[:, 0]))))
        np.add.at(grad, sets[rows, col], w)
        np.add.at(grad, sets, -w[:, None] * pi)
        m = sets.shape[1]
        for i in range(m):
            for j in range(m):
                cov = pi[:, i] * ((i == j) - pi[:, j])
                np.add.at(hess, (sets[:, i], sets[:, j]), -w * cov)
    return ll, grad, hess


def newton(groups, n: int, fixed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Maximise the log-likelihood with ``theta[fixed]`` = 0: (theta, covariance of the free
    thetas, iterations)."""
    free = np.array([i for i in range(n) if i != fixed], dtype=np.int64)
    theta = np.zeros(n)
    ll, grad, hess = derivatives(theta, groups)
    iterations = 0
    while iterations < 200:
        iterations += 1
        h = hess[np.ix_(free, free)]
        step = np.linalg.solve(h, -grad[free]) if len(free) else np.zeros(0)
        size = 1.0
        while True:
            trial = theta.copy()
            trial[free] += size * step
            new = derivatives(trial, groups)
            if new[0] >= ll - 1e-12 or size < 1e-6:
                break
            size /= 2
        theta, (ll, grad, hess) = trial, new
        if not len(free) or np.max(np.abs(size * step)) < 1e-10:
            break
    info = -hess[np.ix_(free, free)]
    cov = np.linalg.inv(info) if len(free) else np.zeros((0, 0))
    return theta, cov, iterations


def connected(games, names: list[str], start: str) -> set[str]:
    """The agents linked to ``start`` through games."""
    links: dict[str, set[str]] = {name: set() for name in names}
    for agents, _ in games:
        for a in agents:
            links[a].update(agents)
    seen, todo = {start}, [start]
    while todo:
        for b in links[todo.pop()] - seen:
            seen.add(b)
            todo.append(b)
    return seen


def scores(games) -> dict[str, tuple[int, float]]:
    """{agent: (games, mean share of opponents beaten, ties half)}."""
    tally: dict[str, list[float]] = {}
    for agents, ranks in games:
        p = len(ranks)
        for seat, a in enumerate(agents):
            beaten = sum(1.0 if r > ranks[seat] else 0.5 if r == ranks[seat] else 0.0
                         for s, r in enumerate(ranks) if s != seat)
            t = tally.setdefault(a, [0, 0.0])
            t[0] += 1
            t[1] += beaten / (p - 1)
    return {a: (int(g), s / g) for a, (g, s) in tally.items()}


def fit_ratings(games: Sequence[tuple[Sequence[str], Sequence[int]]], players: int,
                anchors: Sequence[str] = (), reference: str = REFERENCE) -> Fit:
    """The ratings of the agents of ``games`` ((agents per seat, ranks per seat), all of
    ``players``): see the module docstring. ``anchors`` are marked as such in the result."""
    games = [(tuple(a), tuple(int(r) for r in ranks)) for a, ranks in games]
    for agents, ranks in games:
        if len(agents) != players or len(ranks) != players or len(set(agents)) != players:
            raise LadderError(f"a {players}-player game needs {players} different agents and "
                              f"ranks, got {list(agents)} {list(ranks)}")
    names = sorted({a for agents, _ in games for a in agents})
    if reference not in names:
        raise LadderError(f"no {players}-player games of {reference!r}, the agent rated 0: "
                          f"play the anchors' games first (meduris ladder anchors --players "
                          f"{players})")
    linked = connected(games, names, reference)
    placed = [n for n in names if n in linked]
    index = {n: i for i, n in enumerate(placed)}
    kept = [g for g in games if g[0][0] in linked]
    theta, cov, iterations = newton(groups_by_size(stages(kept, index)), len(placed),
                                    index[reference])
    se = np.zeros(len(placed))
    free = [i for i in range(len(placed)) if i != index[reference]]
    se[free] = np.sqrt(np.maximum(np.diag(cov), 0.0))
    tally = scores(kept)
    ratings = [Rating(n, float(theta[i] * ELO), float(se[i] * ELO), tally[n][0], tally[n][1],
                      n in anchors) for n, i in index.items()]
    ratings.sort(key=lambda r: (-round(r.elo, 9), r.name))
    return Fit(players, len(kept), ratings, [n for n in names if n not in linked], iterations)


@cache
def shipped_ratings(players: int = 2) -> dict[str, Rating]:
    """The ratings of the shipped Meduris ladder's table of ``players`` (:data:`SHIPPED`, all
    its games; {} where it has none), fitted once per process."""
    with open_ladder(SHIPPED, read_only=True) as store:
        if players not in store.player_counts():
            return {}
        games = store.games(players)
    return fit_ratings([(g.agents, g.ranks) for g in games], players).by_name()


def rating_against(results: dict[str, tuple[int, float]], ratings: dict[str, float]) -> float:
    """The Elo of one agent from its 2-player results against agents whose ratings stay fixed
    (``results[name] = (games, points)``, a shared win half a point; ``ratings[name]`` their
    Elo): the Bradley-Terry maximum likelihood, with the :data:`PRIOR_GAMES` virtual drawn game
    against each of them, so a clean sweep stays finite. It maximises the concave
    log-likelihood (a training run's quick estimate on the ladder's scale; the ladder itself
    fits every rating together), by bisection: the log-likelihood is concave, its slope falls
    from positive to negative across the bracket, whatever the results (Newton's steps can
    overshoot to where a sweep's curvature is 0)."""
    if not results or any(name not in ratings for name in results):
        raise LadderError(f"results against {sorted(results)} need ratings of all of them "
                          f"(known: {sorted(ratings)})")
    games = np.array([n + PRIOR_GAMES for n, _ in results.values()], dtype=np.float64)
    points = np.array([s + PRIOR_GAMES / 2 for _, s in results.values()], dtype=np.float64)
    fixed = np.array([ratings[name] for name in results], dtype=np.float64) / ELO
    low, high = float(fixed.min()) - 40.0, float(fixed.max()) + 40.0
    for _ in range(200):
        theta = (low + high) / 2
        slope = float(np.sum(points - games / (1.0 + np.exp(fixed - theta))))
        if slope > 0:
            low = theta
        else:
            high = theta
    return (low + high) / 2 * ELO
