"""What duplicate play buys, and two real duels: the figures of docs/benchmarks.md ("Duels") and
docs/bring_your_own_agent.md ("Duels"). Usage from the repo root::

    python benchmarks/duel.py [--a greedy] [--b mcts:50] [--games 400] [--workers 2] [--seed 1]
                              [--duels] [--json]

**Duplicate play against independent games** (always): ``--games`` games of A against B played
in seat-swapped pairs with one seed per pair (as ``meduris duel`` plays them), and ``--games``
games with the same seating but a seed per game (:func:`meduris_rl.agents.arena.duel.pair_tasks`: no
seed in common with the pairs). From A's game scores (1 win, 0 loss, 1/2 shared):

* ``pair_se``: the standard error of A's mean score per game from the pairs,
  ``sd(pair means) / sqrt(pairs)``;
* ``independent_se``: the same from the independent games, ``sd(game scores) / sqrt(games)``;
* ``variance_ratio`` = ``(pair_se / independent_se) ** 2``: the share of games duplicate play
  needs for the same precision; ``variance_ratio_95``: its 95% bootstrap interval (2,000
  resamples of pairs and of games);
* ``pair_correlation``: the correlation of A's two scores in a pair (negative: the luck of a
  seed that favours one seat cancels), ``pair_mean``, ``independent_mean``, ``wall_s``.

**Real duels** (``--duels``): ``meduris duel mcts:200 greedy`` and ``meduris duel greedy greedy``
with the defaults (elo0 0, elo1 20, alpha = beta = 0.05, seed 0): under ``duels``, each one's
result, games, pairs, LLR, Elo and its interval, wall time
(:meth:`meduris_rl.agents.arena.duel.DuelResult.to_dict`).

Results are also written to ``results/benchmark_duel.json`` (atomically).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import closing
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.common import write_result  # noqa: E402
from meduris_rl.agents.arena.duel import DuelConfig, pair_tasks, play_tasks, run_duel, score_of_a  # noqa: E402

REAL_DUELS = (("mcts:200", "greedy"), ("greedy", "greedy"))
RESAMPLES = 2000


def scores(cfg: DuelConfig, pairs: int, seeds: str) -> np.ndarray:
    """A's score in each game of ``pairs`` pairs (``seeds``: "paired" or "independent"), in
    game order."""
    out = np.zeros(2 * pairs)
    with closing(play_tasks(cfg, pair_tasks(cfg.seed, pairs, seeds))) as games:
        for index, result in games:
            out[index] = score_of_a(index, result)
    return out


def duplicate_play(a: str, b: str, games: int, workers: int, seed: int) -> dict:
    """The standard errors of A's mean score from paired and from independent games (module
    docstring)."""
    pairs = games // 2
    t0 = time.perf_counter()
    cfg = DuelConfig(a, b, workers=workers, seed=seed)
    paired = scores(cfg, pairs, "paired")
    independent = scores(cfg, pairs, "independent")
    means = paired.reshape(pairs, 2).mean(axis=1)
    pair_se = means.std(ddof=1) / np.sqrt(pairs)
    independent_se = independent.std(ddof=1) / np.sqrt(2 * pairs)
    rng = np.random.default_rng(seed)
    boot_pairs = means[rng.integers(0, pairs, (RESAMPLES, pairs))].var(axis=1, ddof=1) / pairs
    boot_games = independent[rng.integers(0, 2 * pairs, (RESAMPLES, 2 * pairs))].var(
        axis=1, ddof=1) / (2 * pairs)
    kept = boot_games > 0
    ratios = boot_pairs[kept] / boot_games[kept]
    first, second = paired.reshape(pairs, 2).T
    spread = first.std() * second.std()
    ratio = float((pair_se / independent_se) ** 2) if independent_se > 0 else None
    return {"a": a, "b": b, "games": 2 * pairs, "pairs": pairs, "seed": seed,
            "pair_mean": float(paired.mean()), "independent_mean": float(independent.mean()),
            "pair_se": float(pair_se), "independent_se": float(independent_se),
            "variance_ratio": ratio,  # (None: the independent games have no spread)
            "variance_ratio_95": [float(np.quantile(ratios, q)) for q in (0.025, 0.975)]
            if ratios.size else None,
            "pair_correlation": float(np.corrcoef(first, second)[0, 1]) if spread else None,
            "wall_s": time.perf_counter() - t0}


def real_duels(workers: int) -> list[dict]:
    """``meduris duel A B`` with the defaults for each of :data:`REAL_DUELS`."""
    return [run_duel(DuelConfig(a, b, workers=workers)).to_dict() for a, b in REAL_DUELS]


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", default="greedy")
    ap.add_argument("--b", default="mcts:50")
    ap.add_argument("--games", type=int, default=400, help="games of each kind (whole pairs)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duels", action="store_true",
                    help="also the real duels mcts:200 vs greedy and greedy vs greedy")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--out", default=str(REPO_ROOT / "results" / "benchmark_duel.json"))
    args = ap.parse_args(argv)
    if args.games < 4:
        sys.exit("error: --games: at least 4 (two pairs)")
    res = duplicate_play(args.a, args.b, args.games, args.workers, args.seed)
    if args.duels:
        res["duels"] = real_duels(args.workers)
    write_result(args.out, res)
    if args.json:
        print(json.dumps(res))
        return res
    low, high = res["variance_ratio_95"] or (np.nan, np.nan)
    ratio = np.nan if res["variance_ratio"] is None else res["variance_ratio"]
    print(f"{res['a']} vs {res['b']}, {res['games']} games each: standard error of the mean "
          f"score per game {res['pair_se']:.4f} in seat-swapped pairs, "
          f"{res['independent_se']:.4f} in independent games; variance ratio "
          f"{ratio:.2f} (95% {low:.2f}..{high:.2f}), pair correlation "
          f"{res['pair_correlation']}; {res['wall_s']:.0f} s")
    for d in res.get("duels", []):
        print(f"duel {d['a']} {d['b']}: {d['result']} after {d['games']} games ({d['pairs']} "
              f"pairs), LLR {d['llr']:.2f}, Elo {d['elo']} {d['elo_95']}, "
              f"{d['wall_seconds']:.0f} s")
    return res


if __name__ == "__main__":
    main()
