"""Which games the ladder plays, and playing them: the anchors' own games and an entrant's
gauntlet, every game stored (and committed) as it ends, games already stored skipped.

**Duplicate play.** Games come in *units* played with one seed: for 2 players a pair with the
seats swapped, for ``p`` players the ``p`` rotations of the seats. Unit ``j`` of a series (the
same agents) has the seed ``derive_seed(seed, j)``; its game ``j * p + r`` (rotation ``r``)
has the key ``[players, entrant, agents per seat, j * p + r, seed]``
(:func:`~.store.game_key`). The same seeds are used against every opponent, so an entrant
and an anchor meet the same dice and bonus chips wherever they play.

**The anchors' games** (:func:`anchor_plan`, ``meduris ladder anchors``): every *link* of
neighbours in the anchor list (2 players: each anchor and the next; ``p`` players: each window
of ``p`` consecutive anchors) plays ``games`` games, rounded up to whole units.

**The gauntlet** (:func:`gauntlet_plan`, ``meduris ladder add``): ``games`` (rounded up to
whole units) in rounds of :data:`ROUND_UNITS` units against ``k = max(2, players - 1)`` anchors
(the entrant never plays itself, if it is an anchor):

1. round 1 against the game's probes (:mod:`.anchors`: Meduris ``greedy`` and ``mcts:200``,
   Druids ``greedy`` and ``ismcts:200``; for 4 players with the anchor nearest them in rating;
   anchors nearest the middle of the scale if the ladder has no probes);
2. after each round the entrant's rating is estimated from its games of the rounds before,
   the anchors held at the ratings of their own games (:func:`~.fit.fit_on_anchors`, as
   ``ladder show`` rates it), and the next round plays the ``k`` anchors nearest that
   estimate;
3. with 2 players each round's units alternate between the ``k`` anchors, with more players
   they sit together; the last round is cut to what ``games`` leaves.

**Names.** The entrant and the anchors are played and stored under their canonical names
(:func:`~.names.canonical_name`: ``mcts:05`` is ``mcts:5``, `` greedy `` is ``greedy``), so one
agent spelt two ways is one entrant (and an entrant spelt like an anchor is that anchor).

**Forfeits and logs.** A game an agent forfeits (a ``cmd:`` bot that crashed, hung or answered
garbage) is stored as its loss. After the games, ``say`` hears one line per agent that forfeited
games of this run: how many, the first reason, and for a ``cmd:`` bot the folder of the bots'
logs (their stderr: the run's ``log_dir``, :func:`~meduris_rl.agents.plugins.external.run_log_dir`,
a private folder of this process unless given).

**The game** is the ladder's (:attr:`~.store.LadderStore.game`): its agents are built for it,
so an agent that does not play it (``mcts`` for Druids) is one line before any game.

The plan depends on the stored anchors' games, the entrant, ``games``, ``players`` and
``seed`` only (never on the workers, other entrants or which games a killed run had stored), so
a rerun plays exactly the games the first run did not store, and the final set of games is the
same as an uninterrupted run's.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass

from meduris_rl.agents.arena.ladder.anchors import game_flag, ladder_of
from meduris_rl.agents.arena.ladder.fit import Fit, fit_on_anchors, fit_ratings
from meduris_rl.agents.arena.ladder.names import canonical_name
from meduris_rl.agents.arena.ladder.report import LINE_WIDTH, NAME_WIDTH, REASON_WIDTH
from meduris_rl.agents.arena.ladder.store import ANCHORS, LadderError, LadderStore, game_key
from meduris_rl.agents.arena.tournament.schedule import TournamentConfig, check_limits
from meduris_rl.agents.arena.tournament.stream import game_stream
from meduris_rl.agents.base import UnknownAgentError
from meduris_rl.agents.plugins.external import DEFAULT_MOVE_TIME, run_log_dir
from meduris_rl.agents.registry import check_agent
from meduris_rl.kit.seeding import agent_seeds, derive_seed
from meduris_rl.kit.values import printable

ROUND_UNITS = 4  # units (seat-swapped pairs, rotations) per round of a gauntlet
MAX_LADDER_GAMES = 100_000
LIMITS = {"move_time": "--move-time", "game_time": "--game-time"}  # their flags, for errors


@dataclass(frozen=True)
class Planned:
    key: str
    entrant: str  # "" for the anchors' games
    lineup: tuple[str, ...]  # agent per seat
    seed: int  # the game's seed
    agent_seeds: tuple[int, ...]  # per seat, the same in every rotation of the unit


def units(games: int, players: int) -> int:
    return math.ceil(games / players)


def unit_games(players: int, entrant: str, agents: tuple[str, ...], j: int, seed: int
               ) -> list[Planned]:
    """Unit ``j`` of the series ``agents`` (seats of the first rotation): its ``players``
    rotations with one seed."""
    game_seed = derive_seed(seed, j)
    out = []
    for r in range(players):
        lineup = agents[r:] + agents[:r]
        out.append(Planned(game_key(players, entrant, lineup, j * players + r, seed), entrant,
                           lineup, game_seed, agent_seeds(seed, j, players)))
    return out


def anchor_plan(anchors: list[str], players: int, games: int, seed: int) -> list[Planned]:
    """The anchors' games: every link of neighbours plays ``games`` (rounded up to units)."""
    if len(anchors) < players:
        raise LadderError(f"{players} players need at least {players} anchors, got "
                          f"{len(anchors)}")
    plan = []
    for i in range(len(anchors) - players + 1):
        link = tuple(anchors[i:i + players])
        for j in range(units(games, players)):
            plan.extend(unit_games(players, ANCHORS, link, j, seed))
    return plan


def nearest(pool: list[str], ratings: dict[str, float], target: float, k: int) -> list[str]:
    """The ``k`` anchors of ``pool`` rated nearest ``target`` (ties by name), weakest first."""
    chosen = sorted(pool, key=lambda a: (abs(ratings[a] - target), a))[:k]
    return sorted(chosen, key=lambda a: (ratings[a], a))


def first_round(pool: list[str], ratings: dict[str, float], k: int,
                probes: tuple[str, ...]) -> list[str]:
    """Round 1's anchors: the ``probes`` on the ladder, filled up to ``k`` with the anchors
    nearest them."""
    probes = [a for a in probes if a in pool]
    if probes:
        centre = sum(ratings[a] for a in probes) / len(probes)
    else:
        ordered = sorted(pool, key=lambda a: (ratings[a], a))
        centre = ratings[ordered[len(ordered) // 2]]
    rest = nearest([a for a in pool if a not in probes], ratings, centre, k - len(probes))
    return sorted((probes + rest)[:k], key=lambda a: (ratings[a], a))


def round_games(players: int, entrant: str, chosen: list[str], count: int,
                series: dict[tuple[str, ...], int], seed: int) -> list[Planned]:
    """``count`` units against ``chosen``; ``series`` counts the units of each series so far."""
    k = players - 1
    lineups = [(entrant, a) for a in chosen] if players == 2 else [(entrant, *chosen[:k])]
    plan = []
    for u in range(count):
        agents = lineups[u % len(lineups)]
        j = series.get(agents, 0)
        series[agents] = j + 1
        plan.extend(unit_games(players, entrant, agents, j, seed))
    return plan


def estimate(store: LadderStore, players: int, entrant: str, keys: set[str],
             anchors: list[str]) -> Fit:
    """The fit of the entrant's games ``keys`` with the anchors held at their own games'
    ratings (:func:`~.fit.fit_on_anchors`: the scale of ``ladder show``)."""
    games = store.games(players)
    return fit_on_anchors([(g.agents, g.ranks) for g in games if g.entrant == ANCHORS],
                          [(g.agents, g.ranks) for g in games
                           if g.entrant == entrant and g.key in keys], players, anchors)


@dataclass
class Round:
    number: int
    opponents: list[str]
    plan: list[Planned]
    estimate: float | None  # the entrant's estimated rating before the round (None: round 1)


def gauntlet_rounds(store: LadderStore, entrant: str, players: int, games: int, seed: int):
    """The gauntlet's rounds, one at a time: each :class:`Round` is planned from the games
    stored by the rounds before (the caller plays each round before asking for the next)."""
    anchors = store.anchors(players)
    if not anchors:
        raise LadderError(f"the ladder {str(store.path)!r} has no {players}-player anchors' "
                          f"games: play them first with meduris ladder anchors"
                          f"{game_flag(store.game)} --players {players} --db {store.path}")
    base = fit_ratings([(g.agents, g.ranks) for g in store.games(players, ANCHORS)], players,
                       anchors).by_name()
    pool = [a for a in anchors if a != entrant and a in base]
    k = max(2, players - 1)
    if len(pool) < k:
        raise LadderError(f"the ladder has {len(pool)} anchors besides {entrant!r}; a "
                          f"{players}-player gauntlet needs {k}")
    ratings = {a: base[a].elo for a in pool}
    left, number, series, keys = units(games, players), 1, {}, set()
    current: float | None = None
    while left > 0:
        if number == 1:
            chosen = first_round(pool, ratings, k, ladder_of(store.game).probes)
        else:
            fit = estimate(store, players, entrant, keys, anchors).by_name()
            current = fit[entrant].elo if entrant in fit else min(ratings.values())
            chosen = nearest(pool, ratings, current, k)
        count = min(ROUND_UNITS, left)
        plan = round_games(players, entrant, chosen, count, series, seed)
        keys.update(p.key for p in plan)
        yield Round(number, chosen, plan, current)
        left -= count
        number += 1


def check_agents(names: list[str], game: str | None = None) -> None:
    """Every agent plays ``game`` and can be built (its model loaded) before any game: one
    line if not."""
    for name in dict.fromkeys(names):
        try:
            check_agent(name, game)  # (models loaded, cmd: bots started)
        except UnknownAgentError as err:
            raise LadderError(str(err)) from None


class Runner:
    """Plays planned games through one worker pool and stores each as it ends."""

    def __init__(self, store: LadderStore, players: int, names: list[str], workers: int,
                 on_game: Callable[[int], None] | None = None,
                 limits: tuple[float, float | None] = (DEFAULT_MOVE_TIME, None)):
        self.store, self.players, self.names = store, players, names
        self.index = {n: i for i, n in enumerate(names)}
        self.cfg = TournamentConfig(agents=names, players=players, workers=workers,
                                    game=store.game, move_time=limits[0], game_time=limits[1],
                                    log_dir=run_log_dir("", names), seed=0)  # (its own seeds)
        self.on_game = on_game or (lambda count: None)
        self.played = 0
        self.forfeits: dict[str, tuple[int, str]] = {}  # agent: (games of this run, first)

    def run(self, play, plan: list[Planned]) -> int:
        """Play the games of ``plan`` not stored yet; how many were played."""
        stored = self.store.keys(self.players)
        todo = [p for p in plan if p.key not in stored]
        if len(todo) < len(plan):
            self.on_game(len(plan) - len(todo))  # stored by an earlier run
        tasks = [(i, tuple(self.index[a] for a in p.lineup), p.seed, False, p.agent_seeds)
                 for i, p in enumerate(todo)]
        for i, result in play(tasks):
            self.store.add(todo[i].key, self.players, todo[i].entrant, result)
            self.played += 1
            if result.forfeit:
                self.count_forfeit(todo[i].lineup, result)
            self.on_game(1)
        return len(todo)

    def count_forfeit(self, lineup: tuple[str, ...], result) -> None:
        seat = result.forfeit_seat
        if seat is None:  # (the forfeiter is last alone: match.forfeit_ranks)
            seat = result.ranks.index(max(result.ranks))
        count, first = self.forfeits.get(lineup[seat], (0, result.forfeit))
        self.forfeits[lineup[seat]] = (count + 1, first)

    def report(self, say: Callable[[str], None]) -> None:
        """One line per agent that forfeited games of this run, with where the bots' logs are
        (a ``cmd:`` bot's stderr, in the run's log folder)."""
        for name, (count, first) in sorted(self.forfeits.items()):
            logs = (f"; the cmd: bots' logs (their stderr) are in {self.cfg.log_dir}"
                    if name.startswith("cmd:") and self.cfg.log_dir else "")
            say(f"{printable(name, LINE_WIDTH)} forfeited {count} of the {self.played} game(s) "
                f"played (lost), the first: {printable(first, REASON_WIDTH)}{logs}")


def play_anchors(store: LadderStore, anchors: list[str], players: int, games: int,
                 seed: int | None,
                 workers: int, on_game: Callable[[int], None] | None = None,
                 limits: tuple[float, float | None] = (DEFAULT_MOVE_TIME, None),
                 say: Callable[[str], None] | None = None) -> int:
    """Play (and store) the anchors' games not stored yet; how many were played. ``anchors``
    by their canonical names (:func:`~.names.canonical_name`); ``seed``: the series' (None: the
    ladder's own, :meth:`~.store.LadderStore.seed`); ``limits``: the seconds per move and per
    game (None: none) of ``cmd:`` agents (:mod:`meduris_rl.agents.plugins.external`; one that
    runs over forfeits the game); ``say`` hears the forfeits of the run (module docstring)."""
    check_limits(*limits, LIMITS)
    anchors = [canonical_name(a, store.game) for a in anchors]
    if len(set(anchors)) != len(anchors):
        shown = ", ".join(printable(a, NAME_WIDTH) for a in anchors)
        raise LadderError(f"the anchors {shown} name an agent twice (by their canonical "
                          "names); give distinct agents")
    check_agents(anchors, store.game)
    plan = anchor_plan(anchors, players, games, store.seed() if seed is None else seed)
    runner = Runner(store, players, list(dict.fromkeys(anchors)), workers, on_game, limits)
    stored = store.keys(players)
    if not any(p.key not in stored for p in plan):
        runner.on_game(len(plan))
        return 0
    with game_stream(runner.cfg, runner.names) as play:
        played = runner.run(play, plan)
    runner.report(say or (lambda line: print(line, file=sys.stderr)))
    return played


def play_gauntlet(store: LadderStore, entrant: str, players: int, games: int,
                  seed: int | None,
                  workers: int, on_game: Callable[[int], None] | None = None,
                  say: Callable[[str], None] | None = None,
                  limits: tuple[float, float | None] = (DEFAULT_MOVE_TIME, None)) -> int:
    """Play (and store) the entrant's gauntlet; how many games were played (not stored
    before), stored under the entrant's canonical name (:func:`~.names.canonical_name`).
    ``say`` hears one line per round and the run's forfeits; ``limits`` as for
    :func:`play_anchors`."""
    check_limits(*limits, LIMITS)
    entrant = canonical_name(entrant, store.game)
    check_agents([entrant], store.game)
    say = say or (lambda line: print(line, file=sys.stderr))
    rounds = gauntlet_rounds(store, entrant, players, games,
                             store.seed() if seed is None else seed)
    first = next(rounds)  # (checks the ladder before the workers start)
    names = list(dict.fromkeys([entrant, *store.anchors(players)]))
    check_agents(names[1:], store.game)
    runner = Runner(store, players, names, workers, on_game, limits)
    with game_stream(runner.cfg, runner.names) as play:
        for rnd in itertools.chain([first], rounds):
            where = "" if rnd.estimate is None else f" (estimate {rnd.estimate:.0f})"
            met = [printable(a, NAME_WIDTH) for a in rnd.opponents
                   if any(a in p.lineup for p in rnd.plan)]
            say(f"round {rnd.number}: {len(rnd.plan)} games against {', '.join(met)}{where}")
            runner.run(play, rnd.plan)
    runner.report(say)
    return runner.played
