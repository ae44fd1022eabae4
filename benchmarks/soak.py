"""Soak test: many random games through the batch engine, every invariant checked after every
step (:mod:`meduris_env.engine.invariants`: materials conserved, supply range, no negative
holdings, VP floor, pieces, rune stones, druid), over 2, 3 and 4 players and both exchange modes.

Actions are uniform over the legal ones, except that a manual exchange (R15) is kept one time in
ten (uniform play would mostly exchange and run to the turn limit). A game must also end: by the
rules, or at ``max_turns`` (reported apart; not a violation). At the end of every game its
returns sum to 0 and it has a winner (R26); its final position is checked like every other
(the batch runs without auto-reset, and finished games start again after the checks).

    python benchmarks/soak.py --games 100000 [--batch 1024] [--seed 0] [--json]

Prints ``games``, ``violations`` (must be 0), ``truncated``, ``steps`` and ``games_per_s``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from meduris_env.engine.constants import A_EXCHANGE  # noqa: E402
from meduris_env.engine.game import PLAYER_COUNTS  # noqa: E402
from meduris_env.engine.invariants import batch_violations, describe  # noqa: E402
from meduris_env.envs.vector import MedurisBatch  # noqa: E402

CONFIGS = [(p, x) for p in PLAYER_COUNTS for x in ("auto", "manual")]


def few_exchanges(batch: MedurisBatch, rng: np.random.Generator, out: np.ndarray) -> None:
    """Uniform legal actions, a manual exchange kept only one time in ten."""
    batch.sample_actions(out)
    redo = np.flatnonzero((out >= A_EXCHANGE) & (rng.random(len(out)) > 0.1))
    if len(redo):
        legal = batch.mask[redo, :A_EXCHANGE] != 0
        pick = np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1)
        has = legal.any(axis=1)
        out[redo[has]] = pick[has]


def soak(players: int, exchange: str, games: int, batch_size: int, seed: int) -> dict:
    # auto-reset off: a finished game's last position stays in its row for the invariants
    # (and the end checks) before the game is started again
    batch = MedurisBatch(batch_size, players, exchange=exchange, seed=seed, reward="win",
                         auto_reset=False)
    fa = batch.game.field_areas
    rng = np.random.default_rng(seed)
    actions = np.empty(batch_size, dtype=np.int64)
    bits = np.zeros(batch_size, dtype=np.int64)
    played = violations = truncated = steps = 0
    kinds = 0
    batch.reset()
    while played < games:
        few_exchanges(batch, rng, actions)
        batch.step(actions)
        steps += batch_size
        if batch_violations(batch.states, fa, bits):
            violations += int(np.count_nonzero(bits))
            kinds |= int(np.bitwise_or.reduce(bits))
        ended = np.flatnonzero(batch.terminated | batch.truncated)
        if len(ended):
            rewards = batch.rewards[ended, :players]
            finished = batch.terminated[ended]
            # zero-sum with a winner: some seat got a positive share (or all tied at 0)
            bad_end = finished & ((np.abs(rewards.sum(axis=1)) > 1e-5)
                                  | ~((rewards > 0).any(axis=1) | (rewards == 0).all(axis=1)))
            violations += int(np.count_nonzero(bad_end))
            truncated += int(np.count_nonzero(batch.truncated[ended]))
            played += len(ended)
            batch.reset(ended)
    return {"players": players, "exchange": exchange, "games": played, "steps": steps,
            "violations": violations, "broken": describe(kinds) if kinds else "none",
            "truncated": truncated}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100_000, help="games in all (default 100000)")
    ap.add_argument("--batch", type=int, default=1024, help="games at once (default 1024)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.games < len(CONFIGS) or args.batch < 1:
        ap.error(f"--games must be at least {len(CONFIGS)} and --batch at least 1")
    t0 = time.perf_counter()
    each = -(-args.games // len(CONFIGS))
    rows = [soak(p, x, each, min(args.batch, each), args.seed) for p, x in CONFIGS]
    seconds = time.perf_counter() - t0
    result = {"games": sum(r["games"] for r in rows),
              "violations": sum(r["violations"] for r in rows),
              "truncated": sum(r["truncated"] for r in rows),
              "steps": sum(r["steps"] for r in rows), "seconds": seconds,
              "games_per_s": sum(r["games"] for r in rows) / seconds, "rows": rows}
    if args.json:
        print(json.dumps(result))
    else:
        for r in rows:
            print(f"{r['players']} players, {r['exchange']:<6}: {r['games']:>7} games, "
                  f"{r['violations']} violations ({r['broken']}), {r['truncated']} truncated")
        print(f"{result['games']} games, {result['violations']} violations, "
              f"{result['games_per_s']:,.0f} games/s ({result['steps']:,} steps in "
              f"{seconds:.0f} s)")
    return result


if __name__ == "__main__":
    result = main()
    sys.exit(1 if result["violations"] else 0)
