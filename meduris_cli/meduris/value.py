"""``meduris value``: a value network for a trained policy, fitted to its own self-play games
(or another policy's, or the search's) and written into a copy of its policy file, for the
``az`` search; or the mean of several files' value networks (``--mean-of``). The recipes are
the docstrings of :mod:`meduris_rl.train.meduris.value` and :mod:`meduris_rl.train.meduris.judges`.

The flags are checked before any game is played; errors the user can fix (an unreadable
policy file, an existing ``--out`` without ``--force``, numbers out of range) print one line
``meduris: error: ...`` and exit with 2 (raised here, printed by :mod:`meduris_rl.cli.main`).
"""

from __future__ import annotations

from meduris_rl.cli.checks import SEED, UsageError
from meduris_rl.kit.atomic import output_file_problem
from meduris_rl.train.meduris import PLAYER_COUNTS
from meduris_rl.train.meduris.az import MAX_SIMULATIONS  # (numpy only)
from meduris_rl.train.meduris.judges import (  # (numpy only, as meduris_rl.train.meduris.value)
    SEARCH_SHARE,
    SEARCH_SIMULATIONS,
)
from meduris_rl.train.meduris.value import (
    HIDDEN,  # (numpy only: torch is imported when a network is fitted)
)

MAX_ENVS = 65_536
MAX_POSITIONS = 9_000_000  # (float16 inputs: ~31 GB at most, the search's buffer's bound)
MAX_EPOCHS = 1000
#: the flags of a fit and their defaults; with --mean-of none may differ from its default
FIT_FLAGS = {"players": 2, "positions": 800_000, "keep": 0.08, "epochs": 4,
             "hidden": ",".join(map(str, HIDDEN)), "envs": None, "seed": 0, "games_of": None,
             "simulations": None, "search_share": None, "fine_tune": False,
             "learning_rate": 1e-3}


def add_parser(sub) -> None:
    p = sub.add_parser("value", help="Meduris: fit a value network for a policy (the az search's)",
                       description="Fit a value network to positions of a policy's own "
                       "self-play games and write the policy file with it, for the az search; "
                       "see train/meduris/value.py and docs/training.md.")
    p.add_argument("policy", help="a policy file (meduris train's policy.pt or best.pt)")
    p.add_argument("--out", required=True, help="the policy file with its value network")
    p.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=FIT_FLAGS["players"])
    p.add_argument("--positions", type=int, default=FIT_FLAGS["positions"],
                   help="positions to fit")
    p.add_argument("--keep", type=float, default=FIT_FLAGS["keep"],
                   help="share of decisions kept")
    p.add_argument("--epochs", type=int, default=FIT_FLAGS["epochs"])
    p.add_argument("--hidden", default=FIT_FLAGS["hidden"],
                   help="hidden layer sizes, comma-separated")
    p.add_argument("--envs", type=int, help="games at once (512; the search's: 128)")
    p.add_argument("--seed", type=SEED, default=FIT_FLAGS["seed"])
    p.add_argument("--games-of", metavar="FILE|search",
                   help="the positions from another policy file's self-play games, or from "
                   "the search's (Gumbel self-play with the policy's networks); default: the "
                   "policy's own")
    p.add_argument("--simulations", type=int,
                   help=f"with --games-of search: per move ({SEARCH_SIMULATIONS})")
    p.add_argument("--search-share", type=float,
                   help="with --games-of search: the share of the target that is the search's "
                   f"value of the move played, the rest the result ({SEARCH_SHARE})")
    p.add_argument("--fine-tune", action="store_true",
                   help="go on from the policy file's value network, not a fresh one")
    p.add_argument("--learning-rate", type=float, default=FIT_FLAGS["learning_rate"])
    p.add_argument("--mean-of", metavar="FILES",
                   help="play nothing: the value network is the mean of these policy files' "
                   "(comma-separated)")
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
    if args.mean_of is not None:
        given = [k for k, v in FIT_FLAGS.items() if getattr(args, k) != v]
        if given:
            return (f"--mean-of joins files' value networks and fits none: drop "
                    f"--{given[0].replace('_', '-')}")
        if len([f for f in args.mean_of.split(",") if f]) < 2:
            return f"--mean-of {args.mean_of!r}: two or more policy files, comma-separated"
        return output_file_problem(args.out, "--out", args.force)
    return search_problem(args) or fit_problem(args)


def search_problem(args) -> str | None:
    """What is wrong with the flags of --games-of search and --fine-tune (one line), or None."""
    if args.fine_tune and args.hidden != FIT_FLAGS["hidden"]:
        return "--hidden with --fine-tune: the file's value network keeps its own layers"
    if args.games_of != "search":
        if args.simulations is not None or args.search_share is not None:
            return "--simulations and --search-share go with --games-of search"
        return None
    if args.keep != FIT_FLAGS["keep"]:
        return "--keep with --games-of search: every position of the search's games is kept"
    if args.simulations is not None and not 1 <= args.simulations <= MAX_SIMULATIONS:
        return f"--simulations {args.simulations}: use 1..{MAX_SIMULATIONS}"
    if args.search_share is not None and not 0 <= args.search_share <= 1:
        return f"--search-share {args.search_share}: a share in [0, 1]"
    return None


def fit_problem(args) -> str | None:
    """What is wrong with the flags of the fit (one line), or None."""
    if not hidden_sizes(args.hidden):
        return f"--hidden {args.hidden!r}: layer sizes 1..4096, e.g. 128,128"
    if args.positions < 100 or not 1 <= args.epochs <= MAX_EPOCHS:
        return f"--positions must be at least 100, --epochs 1..{MAX_EPOCHS}"
    if args.envs is not None and not 1 <= args.envs <= MAX_ENVS:
        return f"--envs {args.envs}: use 1..{MAX_ENVS:,} games at once"
    if not 0 < args.keep <= 1:
        return f"--keep {args.keep}: a share in (0, 1]"
    if not 0 < args.learning_rate <= 1:
        return f"--learning-rate {args.learning_rate}: use a rate in (0, 1]"
    if args.positions > MAX_POSITIONS:
        return f"--positions {args.positions}: use at most {MAX_POSITIONS:,}"
    # (--out may be the policy itself: the value network is added to it)
    return output_file_problem(args.out, "--out", args.force)


def run(args) -> int:
    wrong = problem(args)
    if wrong:
        raise UsageError(wrong)
    # (an unreadable policy file, bad inputs or settings: their InputError or OSError reaches
    # meduris_rl.cli.main, which prints it)
    if args.mean_of is not None:
        return joined(args)
    report = fitted(args)
    print(f"value network: {report['positions']:,} positions from {report['games']:,} games "
          f"({report['self_play_seconds']:.0f} s), fitted in {report['fit_seconds']:.0f} s; "
          f"held-out MSE {report.get('validation_mse', float('nan')):.3f} (predicting the mean: "
          f"{report.get('validation_variance', float('nan')):.3f}), correlation "
          f"{report.get('correlation', float('nan')):.2f}; written to {args.out}")
    return 0


def fitted(args) -> dict:
    """The fit the flags ask for (:func:`meduris_rl.train.meduris.judges.add_value_network`)."""
    from meduris_rl.train.meduris.judges import add_value_network

    search = {} if args.games_of != "search" else {
        "simulations": SEARCH_SIMULATIONS if args.simulations is None else args.simulations,
        "search_share": SEARCH_SHARE if args.search_share is None else args.search_share}
    return add_value_network(args.policy, args.out, args.players, args.positions,
                             hidden=hidden_sizes(args.hidden), epochs=args.epochs,
                             keep=args.keep, envs=args.envs, seed=args.seed,
                             progress=not args.no_progress, games_of=args.games_of,
                             fine_tune=args.fine_tune, learning_rate=args.learning_rate,
                             **search)


def joined(args) -> int:
    """--mean-of: the policy file with the mean of the files' value networks."""
    from meduris_rl.train.meduris.judges import mean_of_files

    files = [f for f in args.mean_of.split(",") if f]
    report = mean_of_files(args.policy, files, args.out)
    print(f"value network: the mean of {report['members']} networks of {len(files)} files; "
          f"written to {args.out}")
    return 0
