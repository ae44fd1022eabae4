"""``meduris value``: a value network for a trained policy, fitted to its own self-play games
and written into a copy of its policy file, for the ``az`` search (:mod:`train.value`, whose
docstring is the recipe).

The flags are checked before any game is played; errors the user can fix (an unreadable
policy file, an existing ``--out`` without ``--force``, numbers out of range) print one line
``meduris: error: ...`` and exit with 2.
"""

from __future__ import annotations

import sys

from meduris_env.engine.game import PLAYER_COUNTS
from meduris_env.records.atomic import output_file_problem
from train.value import HIDDEN  # (numpy only: torch is imported when a network is fitted)


def add_parser(sub) -> None:
    p = sub.add_parser("value", help="fit a value network for a policy (the az search's)",
                       description="Fit a value network to positions of a policy's own "
                       "self-play games and write the policy file with it, for the az search; "
                       "see train/value.py and docs/training.md.")
    p.add_argument("policy", help="a policy file (meduris train's policy.pt or best.pt)")
    p.add_argument("--out", required=True, help="the policy file with its value network")
    p.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2)
    p.add_argument("--positions", type=int, default=800_000, help="positions to fit")
    p.add_argument("--keep", type=float, default=0.08, help="share of decisions kept")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--hidden", default=",".join(map(str, HIDDEN)),
                   help="hidden layer sizes, comma-separated")
    p.add_argument("--envs", type=int, default=512, help="games at once")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=run)


def hidden_sizes(text: str) -> list[int]:
    """``--hidden``'s layer sizes, or [] when it is not a list of whole numbers 1..4096."""
    try:
        hidden = [int(h) for h in text.split(",")]
    except ValueError:
        return []
    return hidden if all(1 <= h <= 4096 for h in hidden) else []


def problem(args) -> str | None:
    """What is wrong with ``args`` (one line), or None."""
    if not hidden_sizes(args.hidden):
        return f"--hidden {args.hidden!r}: layer sizes 1..4096, e.g. 128,128"
    if args.positions < 100 or args.epochs < 1 or args.envs < 1:
        return "--positions must be at least 100, --epochs and --envs at least 1"
    if not 0 < args.keep <= 1:
        return f"--keep {args.keep}: a share in (0, 1]"
    if not 0 <= args.seed < 2**63:
        return f"--seed {args.seed}: use 0..{2**63 - 1}"
    # (--out may be the policy itself: the value network is added to it)
    return output_file_problem(args.out, "--out", args.force)


def run(args) -> int:
    from agents.network import PolicyFileError
    from train.value import add_value_network

    wrong = problem(args)
    if wrong:
        print(f"meduris: error: {wrong}", file=sys.stderr)
        return 2
    try:
        report = add_value_network(args.policy, args.out, args.players, args.positions,
                                   hidden=hidden_sizes(args.hidden), epochs=args.epochs,
                                   keep=args.keep, envs=args.envs, seed=args.seed,
                                   progress=not args.no_progress)
    except (PolicyFileError, OSError) as err:
        print(f"meduris: error: {err}", file=sys.stderr)
        return 2
    print(f"value network: {report['positions']:,} positions from {report['games']:,} games "
          f"({report['self_play_seconds']:.0f} s), fitted in {report['fit_seconds']:.0f} s; "
          f"held-out MSE {report.get('validation_mse', float('nan')):.3f} (predicting the mean: "
          f"{report.get('validation_variance', float('nan')):.3f}), correlation "
          f"{report.get('correlation', float('nan')):.2f}; written to {args.out}")
    return 0
