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
* **A scale that stays put** (:func:`fit_on_anchors`, what ``meduris ladder show`` prints): the
  anchors are fitted from the anchors' games alone, then the entrants with the anchors held at
  those ratings, so adding an entrant's games never moves an anchor (on a ladder started from
  the shipped games the anchors keep the shipped ratings). :func:`fit_ratings` fits every agent
  together instead (``ladder show --free-anchors``): the entrants' games then pull the anchors
  they met.
* **Prior**: every pair of agents that met in some game also gets :data:`PRIOR_GAMES` virtual
  2-player game, drawn (half a point each way). It keeps the estimate finite when an agent won
  or lost every game against its neighbours (the maximum likelihood is then at infinity) and
  pulls ratings toward the opponents they met by a negligible amount once there are tens of
  games (BayesElo does the same with two virtual draws).
* **Intervals**: 95% Wald intervals, ``elo ± 1.96 se``, ``se`` from the observed information
  (the inverse of the negative Hessian of the log-likelihood, prior included, at the
  estimate); they are relative to the reference, whose interval is 0 wide. With the anchors
  held, an entrant's ``se`` adds the anchors' covariance carried through its fit (the delta
  method, :func:`solve`) to its own.
* **An entrant that scored nothing** (last, alone, in every game it played: a forfeited game is
  stored as such a loss, so it counts as one) has its maximum likelihood at minus infinity;
  the prior's draws alone hold it near the anchors it met, which can be above anchors it never
  met (8 games forfeited to ``greedy`` and ``mcts:200`` rated it 225, above ``random``). Where
  anchors are named, such an entrant is rated at most what losing all its games to the bottom
  anchor (the lowest rated) would give it (:func:`lost_to_bottom`: ``bottom - 400 log10(2 n +
  1)`` for ``n`` games, with the prior's draw; its interval that one's, the bottom anchor's
  ``se`` added): below every anchor, lower the more games it lost, ties among such entrants by
  name. Anchors, the reference and any agent that scored are fitted as they are.
* Only agents connected to the reference through games can be placed; the others are listed
  in :attr:`Fit.unconnected`.
* Reproducible: the fit reads the games in the order given (the store sorts them by key) and
  every sum runs in a fixed order, so the same games give the same numbers, bit for bit.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache

import numpy as np

from meduris_rl.agents.arena.ladder.anchors import ladder_of
from meduris_rl.agents.arena.ladder.store import ANCHORS, LadderError, open_ladder

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
    held: bool = False  # the anchors held at their own games' ratings (fit_on_anchors)
    forfeits: dict[str, tuple[int, str]] = field(default_factory=dict)  # agent: (games, first)

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


MAX_STEP = 4.0  # theta units (~700 Elo) a Newton step may move an agent


def capped_step(h: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Newton's step, at most :data:`MAX_STEP` in any coordinate. Where an agent is far from
    all it met the curvature is almost 0 and the raw step flies off to where it is exactly 0
    (a singular Hessian): an entrant that beat its first anchors, held at their ratings, from
    0. The tiny ridge keeps the solve defined there; the cap, with the line search, walks it
    back in reach. (Near the maximum both change nothing.)"""
    if not len(grad):
        return np.zeros(0)
    step = np.linalg.solve(h - 1e-12 * np.eye(len(grad)), -grad)
    big = float(np.max(np.abs(step)))
    return step * (MAX_STEP / big) if big > MAX_STEP else step


def newton(groups, theta: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Maximise the log-likelihood over ``theta[free]``, the other entries held where they are
    given: (theta, Hessian at the maximum, iterations)."""
    theta = theta.copy()
    ll, grad, hess = derivatives(theta, groups)
    iterations = 0
    while iterations < 200:
        iterations += 1
        step = capped_step(hess[np.ix_(free, free)], grad[free])
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
    return theta, hess, iterations


@dataclass
class Solution:
    """One maximum-likelihood solve: the placed agents' index, their theta and its covariance
    (all placed agents, the reference's row and column 0), the games used, the agents not
    connected, Newton's iterations."""

    index: dict[str, int]
    theta: np.ndarray
    cov: np.ndarray
    kept: list
    unconnected: list[str]
    iterations: int


def solve(games: list, reference: str, held: Solution | None = None) -> Solution:
    """Fit ``games`` with ``theta[reference]`` = 0, or, given ``held``, with every agent that
    ``held`` placed held at its theta there (the reference among them). The other agents'
    covariance is the inverse of their observed information, plus, when agents are held, the
    held ones' covariance carried through (the delta method: ``d theta_free / d theta_held =
    -H_ff^-1 H_fh`` at the maximum), so their intervals stay relative to the reference."""
    start = set(held.index) if held is not None else {reference}
    names = sorted({a for agents, _ in games for a in agents} | start)
    linked = connected(games, names, start)
    placed = [n for n in names if n in linked]
    index = {n: i for i, n in enumerate(placed)}
    kept = [g for g in games if g[0][0] in linked]
    theta = np.zeros(len(placed))
    fixed = [index[reference]]
    if held is not None:
        fixed = [index[n] for n in held.index]
        theta[fixed] = held.theta[list(held.index.values())]
        start_near_opponents(theta, kept, index, set(fixed))
    free = np.array(sorted(set(range(len(placed))) - set(fixed)), dtype=np.int64)
    theta, hess, iterations = newton(groups_by_size(stages(kept, index)), theta, free)
    cov = np.zeros((len(placed), len(placed)))
    own = np.linalg.inv(-hess[np.ix_(free, free)]) if len(free) else np.zeros((0, 0))
    cov[np.ix_(free, free)] = own
    if held is not None:
        held_cov = held.cov[np.ix_(list(held.index.values()), list(held.index.values()))]
        cov[np.ix_(fixed, fixed)] = held_cov
        if len(free):
            jacobian = own @ hess[np.ix_(free, fixed)]
            carried = jacobian @ held_cov
            cov[np.ix_(free, free)] += carried @ jacobian.T
            cov[np.ix_(free, fixed)] = carried
            cov[np.ix_(fixed, free)] = carried.T
    return Solution(index, theta, cov, kept, [n for n in names if n not in linked], iterations)


def start_near_opponents(theta: np.ndarray, games, index: dict[str, int], fixed: set[int]):
    """Each agent not in ``fixed`` starts at the mean theta of the held agents it met (games
    counted): Newton's method then starts near the answer, not at ``random``'s 0."""
    total, count = np.zeros(len(theta)), np.zeros(len(theta))
    for agents, _ in games:
        ids = [index[a] for a in agents]
        for i in ids:
            if i not in fixed:
                for j in ids:
                    if j in fixed:
                        total[i] += theta[j]
                        count[i] += 1
    met = (count > 0) & ~np.isin(np.arange(len(theta)), list(fixed))
    theta[met] = total[met] / count[met]


def connected(games, names: list[str], start: set[str]) -> set[str]:
    """The agents linked to those of ``start`` through games."""
    links: dict[str, set[str]] = {name: set() for name in names}
    for agents, _ in games:
        for a in agents:
            links[a].update(agents)
    seen, todo = set(start), sorted(start)
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


def checked(games, players: int) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
    """``games`` as tuples, each of ``players`` different agents and ranks (else one line)."""
    games = [(tuple(a), tuple(int(r) for r in ranks)) for a, ranks in games]
    for agents, ranks in games:
        if len(agents) != players or len(ranks) != players or len(set(agents)) != players:
            raise LadderError(f"a {players}-player game needs {players} different agents and "
                              f"ranks, got {list(agents)} {list(ranks)}")
    return games


def need_reference(games, players: int, reference: str) -> None:
    if not any(reference in agents for agents, _ in games):
        raise LadderError(f"no {players}-player games of {reference!r}, the agent rated 0: "
                          f"play the anchors' games first (meduris ladder anchors --players "
                          f"{players})")


def fitted(players: int, solution: Solution, kept: list, unconnected: list[str],
           anchors: Sequence[str], iterations: int, held: bool,
           reference: str = REFERENCE) -> Fit:
    """The :class:`Fit` of a solution: ratings best first (ties by name), an entrant that
    scored nothing at most :func:`lost_to_bottom` (the module docstring)."""
    se = np.sqrt(np.maximum(np.diag(solution.cov), 0.0))
    tally = scores(kept)
    ratings = [Rating(n, float(solution.theta[i] * ELO), float(se[i] * ELO), tally[n][0],
                      tally[n][1], n in anchors) for n, i in solution.index.items()]
    placed = [r for r in ratings if r.anchor]
    if placed:
        bottom = min(placed, key=lambda r: (r.elo, r.name))
        ratings = [lost_to_bottom(r, bottom) if not r.anchor and r.name != reference
                   and r.score == 0 and r.games else r for r in ratings]
    ratings.sort(key=lambda r: (-round(r.elo, 9), r.name))
    return Fit(players, len(kept), ratings, unconnected, iterations, held)


def lost_to_bottom(rating: Rating, bottom: Rating) -> Rating:
    """``rating`` (of an entrant that scored nothing) at most the rating of ``rating.games``
    losses to the anchor ``bottom`` with the prior's draw (:func:`rating_against` of those
    results: the chance of a win ``(PRIOR_GAMES / 2) / (n + PRIOR_GAMES)``), its ``se`` that
    fit's combined with the bottom anchor's."""
    n = rating.games + PRIOR_GAMES
    p = PRIOR_GAMES / 2 / n
    elo = bottom.elo + ELO * math.log(p / (1 - p))
    if elo >= rating.elo:
        return rating
    return replace(rating, elo=elo, se=math.hypot(bottom.se, ELO / math.sqrt(n * p * (1 - p))))


def fit_ratings(games: Sequence[tuple[Sequence[str], Sequence[int]]], players: int,
                anchors: Sequence[str] = (), reference: str = REFERENCE) -> Fit:
    """The ratings of the agents of ``games`` ((agents per seat, ranks per seat), all of
    ``players``) fitted together (``ladder show --free-anchors``): see the module docstring.
    ``anchors`` are marked as such in the result."""
    games = checked(games, players)
    need_reference(games, players, reference)
    s = solve(games, reference)
    return fitted(players, s, s.kept, s.unconnected, anchors, s.iterations, False, reference)


def fit_on_anchors(anchor_games: Sequence[tuple[Sequence[str], Sequence[int]]],
                   entrant_games: Sequence[tuple[Sequence[str], Sequence[int]]], players: int,
                   anchors: Sequence[str] = (), reference: str = REFERENCE) -> Fit:
    """The ladder's ratings with the anchors held (``ladder show``, the default): the anchors
    fitted from ``anchor_games`` alone (as :func:`fit_ratings` would), then every other agent
    of ``entrant_games`` fitted with the anchors held at those ratings. An entrant's games
    never move an anchor; an entrant's interval adds the anchors' uncertainty to its own
    (:func:`solve`), so it stays relative to the reference. (An agent entered under an
    anchor's name keeps the anchor's rating.)"""
    base_games, extra = checked(anchor_games, players), checked(entrant_games, players)
    need_reference(base_games, players, reference)
    base = solve(base_games, reference)
    rest = solve(extra, reference, held=base)
    kept = base.kept + rest.kept
    unconnected = sorted((set(base.unconnected) | set(rest.unconnected)) - set(rest.index))
    return fitted(players, rest, kept, unconnected, anchors, base.iterations + rest.iterations,
                  True, reference)


def ladder_fit(store, players: int, free_anchors: bool = False) -> Fit:
    """The ratings of a ladder's stored games of ``players``: the anchors held at the ratings
    of their own games (:func:`fit_on_anchors`), or all fitted together (``free_anchors``)."""
    games = store.games(players)
    anchors = store.anchors(players)
    if free_anchors:
        fit = fit_ratings([(g.agents, g.ranks) for g in games], players, anchors)
    else:
        fit = fit_on_anchors([(g.agents, g.ranks) for g in games if g.entrant == ANCHORS],
                             [(g.agents, g.ranks) for g in games if g.entrant != ANCHORS],
                             players, anchors)
    fit.forfeits = forfeits_of(games)
    return fit


def forfeits_of(games) -> dict[str, tuple[int, str]]:
    """Per agent, the stored games it forfeited (a ``cmd:`` bot that crashed, hung or answered
    garbage: the game lost, :func:`meduris_rl.agents.arena.match.forfeit_ranks` put it last alone)
    and the first reason, by key order."""
    out: dict[str, tuple[int, str]] = {}
    for g in games:
        if g.forfeit:
            last = max(g.ranks)
            seat = g.ranks.index(last)
            count, first = out.get(g.agents[seat], (0, g.forfeit))
            out[g.agents[seat]] = (count + 1, first)
    return out


@cache
def shipped_ratings(players: int = 2, game: str | None = None) -> dict[str, Rating]:
    """The ratings of the shipped ladder's table of ``players`` of ``game`` (None: the default
    game; all its games; {} where it has none), fitted once per process."""
    ladder = ladder_of(game)
    with open_ladder(ladder.shipped, read_only=True, game=ladder.game) as store:
        if players not in store.player_counts():
            return {}
        games = store.games(players)
    return fit_ratings([(g.agents, g.ranks) for g in games], players).by_name()


def rating_against(results: dict[str | tuple[str, ...], tuple[int, float]],
                   ratings: dict[str, float]) -> float:
    """The Elo of one agent from its results against agents whose ratings stay fixed
    (``ratings[name]`` their Elo): ``results[name] = (games, points)`` for 2-player games, a
    shared win half a point; with 3 or 4 players ``results[lineup] = (games, first places)``,
    ``lineup`` the names in the other seats of each game (a shared first place half). The
    Plackett-Luce chance of the first place is Bradley-Terry against one opponent whose strength
    is the lineup's sum (``P(first) = e^t / (e^t + sum e^t_j)``), so it is one maximum
    likelihood for every player count, with the :data:`PRIOR_GAMES` virtual drawn game against
    each opponent or lineup, so a clean sweep stays finite. A training run's quick estimate on
    the ladder's scale: with 2 players the rating :func:`fit_on_anchors` gives an entrant with
    these results, without its interval; with more it counts the first places only, what a win
    rate says. It maximises the concave log-likelihood by bisection: its slope falls from
    positive to negative across the bracket, whatever the results (Newton's steps can overshoot
    to where a sweep's curvature is 0)."""
    lineups = {key: (key,) if isinstance(key, str) else tuple(key) for key in results}
    names = {name for lineup in lineups.values() for name in lineup}
    if not results or any(not lineup for lineup in lineups.values()) \
            or any(name not in ratings for name in names):
        raise LadderError(f"results against {sorted(names)} need ratings of all of them "
                          f"(known: {sorted(ratings)})")
    games = np.array([n + PRIOR_GAMES for n, _ in results.values()], dtype=np.float64)
    points = np.array([s + PRIOR_GAMES / 2 for _, s in results.values()], dtype=np.float64)
    # each lineup as one opponent: the log of its members' summed strengths
    fixed = np.array([np.logaddexp.reduce([ratings[name] / ELO for name in lineups[key]])
                      for key in results], dtype=np.float64)
    low, high = float(fixed.min()) - 40.0, float(fixed.max()) + 40.0
    for _ in range(200):
        theta = (low + high) / 2
        slope = float(np.sum(points - games / (1.0 + np.exp(fixed - theta))))
        if slope > 0:
            low = theta
        else:
            high = theta
    return (low + high) / 2 * ELO
