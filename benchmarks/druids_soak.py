"""Druids soak test: many random games (uniform over the legal actions, chance with the rules'
probabilities), the one position checker (:func:`druids_env.engine.invariants.check`: 54 gems,
6 servants per colour and 12 places conserved, each card in one place, scores equal to the
amulets shared out, each collection's amulets shared out in full, the column (D12 ruling: no
marker below it, none past its top but the one that ended the game), the hand limit) run after
every step, for 2, 3 and 4 players.
At the end of every game: it is over by a rule (D11, D11b, D12) or the turn limit (reported
apart), its returns sum to 0 with a winner (D13; at a D12 end, the one who passed the top,
alone), and its JSON reads back to an equal state.

    python benchmarks/druids_soak.py [--games 10000] [--seed 0]

Prints one JSON object: per player count ``games``, ``steps``, ``violations`` (must be 0),
``ends`` (games per end reason), ``truncated`` and ``seconds``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import SoakTally  # noqa: E402
from druids_env import PLAYER_COUNTS, DruidsGame, check, play, random_decide  # noqa: E402
from druids_env.engine.errors import StateFileError  # noqa: E402
from druids_env.engine.rules import END_COLUMN, END_NAMES, END_TRUNCATED  # noqa: E402
from meduris_rl.kit.seeding import derive_seed  # noqa: E402


def end_problems(state, game: DruidsGame) -> list[str]:
    """What is wrong with a finished game (empty: nothing)."""
    out = []
    if not state.is_terminal():
        out.append("the game did not end")
    if abs(sum(state.returns())) > 1e-9 or not state.winners():
        out.append(f"returns {state.returns()} winners {state.winners()}")
    top = state.base + 6 * game.circles
    if state.end_reason == END_COLUMN and [
            s for s, v in enumerate(state.score) if v > top] != state.winners():
        out.append(f"the moving column (D12) ended the game with scores {state.score} "
                   f"(top {top}), winners {state.winners()}: not the one who passed the top")
    try:
        if game.state_from_json(state.to_json()) != state:
            out.append("the JSON does not read back to an equal state")
    except StateFileError as err:  # (the reader checks the position too)
        out.append(f"the JSON does not read back: {err}")
    return out


def soak(num_players: int, games: int, seed: int) -> dict:
    game = DruidsGame(num_players)
    tally = SoakTally()
    for g in range(games):
        rng = random.Random(derive_seed(seed, num_players, g))
        state = game.new_initial_state()
        bad = check(state)
        play(state, random_decide(rng), rng, observer=tally.observer(check))
        tally.report(bad + end_problems(state, game))
        tally.ends[END_NAMES[state.end_reason]] += 1
    return tally.row(games, END_NAMES[END_TRUNCATED], 2)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10_000, help="games per player count")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    result = {str(n): soak(n, args.games, args.seed) for n in PLAYER_COUNTS}
    result["violations"] = sum(r["violations"] for r in result.values())
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    sys.exit(1 if main()["violations"] else 0)
