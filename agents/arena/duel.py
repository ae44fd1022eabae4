"""A duel: two agents play pairs of games until a sequential test knows which hypothesis holds.

Pair ``k`` of a duel with seed ``s`` is two games with the seed ``derive_seed(s, k)``: game
``2k`` seats A first, game ``2k + 1`` seats B first (duplicate play: the same dice and bonus
chips for both sides, each agent's stream seeded by its seat,
:func:`meduris_rl.agents.arena.match.play_game`). A pair scores A's two game scores (1 a win, 0 a
loss, 1/2 a shared win); after each pair the GSPRT of :mod:`meduris_rl.agents.arena.sprt` on the
pentanomial counts decides: H1 (A is ``elo1`` stronger), H0 (``elo0``), or play on, up to
``max_games`` (rounded down to whole pairs).

Determinism: the games run in worker processes
(:func:`meduris_rl.agents.arena.tournament.backends.supervised`, ``init_worker``, ``play_task``),
at most ``2 * workers`` ahead of the test, and their results are taken in pair order (a game that
finishes early waits in a buffer), so the stopping point, the counts and every figure depend on the
seed only, not on ``workers`` (agents with a time budget, like ``mcts:0.5s``, excepted). Ctrl-C
stops the workers and returns what was played (``result`` "interrupted").

The command line (``meduris duel``, :mod:`meduris_rl.cli.commands.duel`) adds its flags on top.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import asdict, dataclass, field

from meduris_rl.agents.arena import sprt
from meduris_rl.agents.arena.match import GameResult
from meduris_rl.agents.arena.tournament.backends import init_worker, play_task, supervised
from meduris_rl.agents.arena.tournament.schedule import (
    ArenaSettings,
    Task,
    TournamentConfig,
    arena_settings,
    check_game_settings,
    check_limits,
    entrant_labels,
)
from meduris_rl.agents.plugins.external import run_log_dir
from meduris_rl.agents.registry import check_agent
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.seeding import agent_seeds, derive_seed


class DuelError(InputError, ValueError):
    """A duel that cannot be run as asked (the message names the fix)."""


@dataclass
class DuelConfig(ArenaSettings):
    """A duel: A against B (the game, its options, the seed, the workers and the ``cmd:``
    agents' limits are every arena run's: :class:`ArenaSettings`)."""

    a: str
    b: str
    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 10_000


# how check_duel names each setting in its errors: the configuration's fields
FIELDS = {name: name for name in ("elo0", "elo1", "alpha", "beta", "max_games", "workers",
                                  "move_time", "game_time")}


def check_duel(cfg: DuelConfig, names: dict[str, str] = FIELDS) -> None:
    """Validate before any game (``names``: what to call each setting in the errors): the SPRT
    parameters (:func:`meduris_rl.agents.arena.sprt.check_parameters`), at least one pair, one
    worker, the time limits of ``cmd:`` agents, and both
    agents buildable (an unknown name is an :class:`~meduris_rl.agents.base.UnknownAgentError`)."""
    sprt.check_parameters(cfg.elo0, cfg.elo1, cfg.alpha, cfg.beta,
                          (names["elo0"], names["elo1"], names["alpha"], names["beta"]))
    if cfg.max_games < 2:
        raise DuelError(f"{names['max_games']} {cfg.max_games}: a duel plays pairs of games; "
                        "allow at least 2")
    if cfg.workers < 1:
        raise DuelError(f"{names['workers']} {cfg.workers}: use at least 1 worker process")
    check_limits(cfg.move_time, cfg.game_time, names)
    spec = check_game_settings(cfg, DuelError)
    cfg.log_dir = run_log_dir(cfg.log_dir, (cfg.a, cfg.b))  # (one folder for all its bots)
    for name in dict.fromkeys((cfg.a, cfg.b)):
        # (models loaded, cmd: bots started: refused now)
        check_agent(name, spec.name, 2, cfg.move_time, cfg.log_dir)


def labels_of(cfg: DuelConfig) -> list[str]:
    """The two entrants' labels (``greedy`` and ``greedy#2`` for a duel of one agent)."""
    return entrant_labels([cfg.a.strip(), cfg.b.strip()])


def pair_tasks(seed: int, pairs: int, seeds: str = "paired") -> Iterator[Task]:
    """The games of ``pairs`` pairs in order (tasks: index, lineup, seed, keep record, the
    seats' agent seeds, :func:`~meduris_rl.kit.seeding.agent_seeds` of the pair). ``seeds``
    "paired": both games of pair ``k`` have ``derive_seed(seed, k)`` (a duel); "independent":
    game ``i`` has ``derive_seed(seed, i, 1)`` (the same seating, unrelated luck, none shared
    with the paired games; the benchmark's comparison)."""
    for k in range(pairs):
        for i in (2 * k, 2 * k + 1):
            # (paired: both games of a pair give each seat the same agent seed too, so one
            # agent against itself plays the same game twice, mirrored)
            game_seed = derive_seed(seed, k) if seeds == "paired" else derive_seed(seed, i, 1)
            told = agent_seeds(seed, k, 2) if seeds == "paired" else agent_seeds(seed, i, 2)
            yield i, (0, 1) if i % 2 == 0 else (1, 0), game_seed, False, told


def score_of_a(index: int, result: GameResult) -> float:
    """A's score in game ``index`` (A sits at seat 0 in even games, 1 in odd ones): 1 for a
    win, 0 for a loss, 1/2 (1/3...) for a shared win."""
    seat = index % 2
    return 1.0 / len(result.winners) if seat in result.winners else 0.0


def play_tasks(cfg: DuelConfig, tasks: Iterable[Task]) -> Iterator[tuple[int, GameResult]]:
    """Play ``tasks`` (in order of submission, at most ``2 * workers`` at a time) and yield
    ``(index, result)`` as games finish. ``workers`` 1 plays here; more use a pool of spawned
    processes, stopped when the generator is closed or raises (Ctrl-C included)."""
    tcfg = TournamentConfig(agents=[cfg.a, cfg.b], players=2, games=2, **arena_settings(cfg))
    labels = labels_of(cfg)
    todo = iter(tasks)
    if cfg.workers == 1:
        init_worker(tcfg, labels, None, tcfg.row)
        for task in todo:
            yield play_task(task)
        return
    with supervised(tcfg, labels) as workers:
        yield from workers.map_unordered(todo, window=2 * cfg.workers)


@dataclass
class DuelResult:
    """Where a duel stopped and what it measured (:meth:`to_dict` for JSON)."""

    config: DuelConfig
    labels: list[str]
    result: str = "max-games"  # "H0", "H1", "max-games" or "interrupted"
    pair_scores: list[float] = field(default_factory=list)  # A's score of each pair, in order
    counts: list[int] = field(default_factory=lambda: [0] * 5)  # pairs that scored 0 .. 2
    llr: float = 0.0
    wall_seconds: float = 0.0
    forfeits: list[int] = field(default_factory=lambda: [0, 0])  # games A, B forfeited
    forfeit_reasons: list[str] = field(default_factory=lambda: ["", ""])  # each one's first

    def note_forfeit(self, index: int, result: GameResult) -> None:
        """Count a forfeit of game ``index`` against the agent that made it (A sits at seat 0
        in even games): a bot that crashes or hangs should not read as merely weak."""
        if result.forfeit_seat is not None:
            who = (result.forfeit_seat + index) % 2  # 0: A, 1: B
            self.forfeits[who] += 1
            self.forfeit_reasons[who] = self.forfeit_reasons[who] or result.forfeit

    @property
    def pairs(self) -> int:
        return len(self.pair_scores)

    @property
    def games(self) -> int:
        return 2 * self.pairs

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt.bounds(self.config.alpha, self.config.beta)

    def to_dict(self) -> dict:
        s, se = sprt.mean_score(self.counts)
        elo, low, high = sprt.elo_interval(self.counts)
        lower, upper = self.bounds

        def num(x: float) -> float | None:
            return None if math.isnan(x) else x
        if self.pairs and not sprt.CLAMP < s < 1 - sprt.CLAMP:  # a sweep: beyond +-1200 Elo,
            low = high = math.nan  # and no interval from a spread of 0 (as summary() says)
        return {"a": self.labels[0], "b": self.labels[1], "result": self.result,
                "games": self.games, "pairs": self.pairs, "llr": self.llr,
                "lower_bound": lower, "upper_bound": upper,
                "elo": num(elo), "elo_95": [num(low), num(high)],
                "score": s if self.pairs else None, "score_se": se if self.pairs else None,
                "pentanomial": self.counts, "wall_seconds": self.wall_seconds,
                "forfeits": dict(zip(self.labels, self.forfeits, strict=True)),
                "forfeit_reasons": {label: reason for label, reason
                                    in zip(self.labels, self.forfeit_reasons, strict=True)
                                    if reason},
                "config": {**asdict(self.config), "game": self.config.row.name}}

    def summary(self) -> str:
        """A few lines for people: the result, the LLR against its bounds, the Elo."""
        d = self.to_dict()
        lower, upper = self.bounds
        cfg = self.config
        verdict = {"H1": f"H1 accepted: {d['a']} is {cfg.elo1:g} Elo or more stronger",
                   "H0": f"H0 accepted: {d['a']} is not {cfg.elo1:g} Elo stronger "
                         f"({cfg.elo0:g} or less)",
                   "max-games": f"no decision within {cfg.max_games} games",
                   "interrupted": "interrupted: no decision yet"}[self.result]
        lines = [f"{d['a']} vs {d['b']}: {verdict}",
                 f"LLR {self.llr:.3f} (bounds {lower:.3f}, {upper:.3f}; elo0 {cfg.elo0:g}, "
                 f"elo1 {cfg.elo1:g}, alpha {cfg.alpha:g}, beta {cfg.beta:g})"]
        if self.pairs and not sprt.CLAMP < d["score"] < 1 - sprt.CLAMP:
            lines.append(f"Elo beyond {'+' if d['score'] > 0.5 else '-'}1200 ({d['a']} scored "
                         f"{d['score']:.3f} per game: no interval from a spread of 0)")
        elif self.pairs:
            low, high = d["elo_95"]
            lines.append(f"Elo {d['elo']:+.1f} (95% {low:+.1f} .. {high:+.1f}), score "
                         f"{d['score']:.3f} per game")
        lines.append(f"{self.games} games in {self.pairs} pairs (pair scores 0, 0.5, 1, 1.5, "
                     f"2: {' '.join(map(str, self.counts))}); {self.wall_seconds:.1f} s with "
                     f"{cfg.workers} worker(s); seed {cfg.seed}"
                     + (" (drawn: --seed repeats the duel)" if cfg.seed_drawn else ""))
        for label, count, reason in zip(self.labels, self.forfeits, self.forfeit_reasons,
                                        strict=True):
            if count:
                lines.append(f"{label} forfeited {count} game(s), the first: {reason} (a cmd: "
                             f"bot's stderr is in {cfg.log_dir})")
        return "\n".join(lines)


def run_duel(cfg: DuelConfig, progress: bool = False) -> DuelResult:
    """Play the duel (checked with :func:`check_duel` first) until H0 or H1 is accepted, or
    ``max_games`` are played, or Ctrl-C; games are taken in pair order (module docstring)."""
    check_duel(cfg)
    out = DuelResult(cfg, labels_of(cfg))
    lower, upper = out.bounds
    max_pairs = cfg.max_games // 2
    bar = None
    if progress:
        from tqdm import tqdm

        cfg.row.compile_notice()
        bar = tqdm(total=2 * max_pairs, desc="duel", unit="game", file=sys.stderr,
                   dynamic_ncols=True)
    t0 = time.perf_counter()
    waiting: dict[int, float] = {}  # A's score of games finished ahead of their pair's turn
    try:
        with closing(play_tasks(cfg, pair_tasks(cfg.seed, max_pairs))) as games:
            for index, result in games:
                waiting[index] = score_of_a(index, result)
                out.note_forfeit(index, result)
                decided = take_pairs(out, waiting, lower, upper, bar)
                if decided or out.pairs == max_pairs:
                    break
    except KeyboardInterrupt:
        out.result = "interrupted"
    finally:
        out.wall_seconds = time.perf_counter() - t0
        if bar is not None:
            bar.close()
    return out


def take_pairs(out: DuelResult, waiting: dict[int, float], lower: float, upper: float,
               bar=None) -> bool:
    """Take every complete pair that is next in order from ``waiting`` into ``out``, testing
    after each; True (and ``out.result`` set) once a hypothesis is accepted."""
    cfg = out.config
    while 2 * out.pairs in waiting and 2 * out.pairs + 1 in waiting:
        k = out.pairs
        score = waiting.pop(2 * k) + waiting.pop(2 * k + 1)
        out.pair_scores.append(score)
        out.counts[sprt.pentanomial([score]).index(1)] += 1
        out.llr = sprt.llr(out.counts, cfg.elo0, cfg.elo1)
        if bar is not None:  # (the postfix first: the update's refresh shows this pair's LLR)
            bar.set_postfix_str(f"LLR {out.llr:+.2f} [{lower:.2f}, {upper:.2f}]", refresh=False)
            bar.update(2)
        verdict = sprt.decide(out.llr, lower, upper)
        if verdict:
            out.result = verdict
            return True
    return False
