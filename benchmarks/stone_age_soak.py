"""Stone Age soak test: many random games (uniform over the legal actions, chance with the
rules' probabilities) for 2, 3 and 4 players, with and without the Mammoth Herd, every
invariant checked after every step (:func:`stoneage_env.engine.invariants.first_problem`, the
compiled form of ``violations``: figures 5-10, agriculture 0-10, tools at most 12 and even,
no negative goods, the 36 cards and 28 buildings conserved, the stacks, the capacities and the
two- and three-player closures during placement, the figures out, every point from a source,
the Mammoth tiles). At the end of every game: it ended by a rule (S30a or S30b; a game cut by
the round limit is counted apart), its returns sum to 0 with a winner, and every tenth game's
JSON reads back to an equal state.

    python benchmarks/stone_age_soak.py [--games 10000] [--seed 0] [--workers 2]

Prints one JSON object: per configuration (``2p``, ``2p+mammoth``, …) ``games``, ``steps``,
``violations`` (must be 0), ``ends`` (games per end reason), ``truncated``, ``rounds`` (mean and
max) and ``seconds``; and ``violations`` in all.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import SoakTally  # noqa: E402
from meduris_rl.kit.seeding import derive_seed  # noqa: E402
from stoneage_env import StoneAgeGame, play, random_decide  # noqa: E402
from stoneage_env.engine.constants import END_NAMES, END_TRUNCATED  # noqa: E402
from stoneage_env.engine.invariants import first_problem  # noqa: E402

CONFIGS = [(n, m) for n in (2, 3, 4) for m in (False, True)]


def end_problems(state, game, check_json: bool) -> list[str]:
    out = []
    if not state.is_terminal():
        out.append("the game did not end")
    if abs(sum(state.returns())) > 1e-9 or not state.winners():
        out.append(f"returns {state.returns()} winners {state.winners()}")
    if check_json and game.state_from_json(state.to_json()) != state:
        out.append("the JSON does not read back to an equal state")
    return out


def step_problem(state) -> list | None:
    """The first invariant a position breaks, with the last three actions that led to it."""
    bad = first_problem(state)
    return [bad, state.history()[-3:]] if bad else None


def soak(num_players: int, mammoth: bool, games: int, seed: int) -> dict:
    game = StoneAgeGame(num_players, mammoth_herd=mammoth)
    tally = SoakTally()
    rounds = []
    for g in range(games):
        rng = random.Random(derive_seed(seed, num_players, int(mammoth), g))
        state = game.new_initial_state()
        play(state, random_decide(rng), rng, observer=tally.observer(step_problem))
        tally.report(end_problems(state, game, g % 10 == 0))
        tally.ends[END_NAMES[state.end_reason]] += 1
        rounds.append(state.round)
    return tally.row(games, END_NAMES[END_TRUNCATED], 1,
                     rounds={"mean": round(sum(rounds) / len(rounds), 1), "max": max(rounds)})


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10_000, help="games per configuration")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    if not 1 <= args.games <= 10_000_000 or not 1 <= args.workers <= 256:
        ap.error("--games is 1..10000000 and --workers 1..256")
    names = [f"{n}p{'+mammoth' if m else ''}" for n, m in CONFIGS]
    if args.workers == 1:  # (in this process: no pickling, e.g. when loaded by a test)
        result = {name: soak(n, m, args.games, args.seed) for name, (n, m) in zip(
            names, CONFIGS, strict=True)}
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            jobs = [pool.submit(soak, n, m, args.games, args.seed) for n, m in CONFIGS]
            result = {name: job.result() for name, job in zip(names, jobs, strict=True)}
    result["violations"] = sum(r["violations"] for r in result.values())
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    sys.exit(1 if main()["violations"] else 0)
