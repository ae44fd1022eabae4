"""``meduris distill``: search distillation, one round of expert iteration
(:mod:`meduris_rl.train.meduris.distill`, whose docstring is the recipe): a policy fitted to the
moves of the search it guides, or (``--targets value``) its value network fitted to the results of
the search's games.

The flags are checked before any game is played; errors the user can fix (an unreadable
policy file, an unknown teacher, an existing ``--out`` without ``--force``, a ``--data`` file of
other settings, numbers out of range) print one line ``meduris: error: ...`` and exit with 2
(raised here, printed by :mod:`meduris_rl.cli.main`), writing nothing. Ctrl-C says where the
teacher games saved so far are (exit 130).
"""

from __future__ import annotations

import sys
from pathlib import Path

from meduris_rl.cli.checks import SEED, UsageError
from meduris_rl.kit.atomic import output_file_problem
from meduris_rl.train.meduris import PLAYER_COUNTS
from meduris_rl.train.meduris.distill import SAVE_EVERY, TARGETS, teacher_label


def add_parser(sub) -> None:
    p = sub.add_parser("distill", help="Meduris: fit a policy to the moves of the search it guides",
                       description="Search distillation: the az search guided by a policy plays "
                       "itself and the policy is fitted to its moves (with --targets value, the "
                       "value network to its results); see train/meduris/distill.py and "
                       "docs/training.md.")
    p.add_argument("policy", help="a policy file (meduris train's policy.pt or best.pt)")
    p.add_argument("--out", required=True, help="the distilled policy file")
    p.add_argument("--teacher", default="az:200",
                   help="the searching agent whose visits are learnt; az:<budget> searches "
                        "with the policy being distilled")
    p.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2)
    p.add_argument("--games", type=int, default=1200, help="teacher games")
    p.add_argument("--data", help="keep the teacher games in this .npz file (and continue "
                                  "from the games it holds)")
    p.add_argument("--targets", choices=TARGETS, default="choice",
                   help="fit the search's move, or its visit shares (AlphaZero's target; see "
                        "docs/training.md for why not by default), or (value) the file's value "
                        "network to the teacher games' results, the policy unchanged")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-4, help="Adam's learning rate")
    p.add_argument("--holdout", type=float, default=0.05, help="share held out to measure")
    p.add_argument("--workers", type=int, default=2, help="processes playing teacher games")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=run)


def problem(args) -> str | None:
    """What is wrong with ``args`` (one line), or None."""
    data_path = Path(args.data) if args.data else None
    if args.games < 1 or args.epochs < 1:
        return "--games and --epochs must be at least 1"
    if not 1 <= args.workers <= 64:
        return f"--workers {args.workers}: use 1..64"
    if not 0 < args.lr < 1:
        return f"--lr {args.lr}: a learning rate in (0, 1)"
    if not 0 <= args.holdout < 0.5:
        return f"--holdout {args.holdout}: a share in [0, 0.5)"
    if data_path is not None and data_path.suffix != ".npz":
        return f"--data {data_path}: give a .npz file name"
    # (an existing --data file is continued, not replaced)
    return output_file_problem(Path(args.out), "--out", args.force,
                               inputs=(Path(args.policy),)) \
        or (data_path and output_file_problem(data_path, "--data", True))


def run(args) -> int:
    from meduris_rl.train.meduris.distill import distill

    wrong = problem(args)
    if wrong:
        raise UsageError(wrong)
    data_path = Path(args.data) if args.data else None
    # (a bad policy file, teacher or --data file: its InputError reaches meduris_rl.cli.main)
    try:
        report = distill(args.policy, Path(args.out), args.teacher, args.players, args.games,
                         data_path, args.targets, args.epochs, args.lr, args.holdout,
                         args.workers, args.seed, not args.no_progress)
    except KeyboardInterrupt:
        print(f"meduris: interrupted; {_kept(data_path)}", file=sys.stderr)
        return 130
    print(f"{summary(report)}; written to {Path(args.out)}")
    return 0


def _kept(data_path: Path | None) -> str:
    """What an interrupted run leaves for the next one."""
    if data_path is None:
        return "nothing was written (--data keeps the teacher games)"
    if data_path.exists():
        return (f"the teacher games saved so far are in {data_path}; run the same command "
                "to continue")
    return f"no teacher games were saved yet (they are saved every {SAVE_EVERY})"


def summary(report: dict) -> str:
    """One line of :func:`meduris_rl.train.meduris.distill.distill`'s report."""
    teacher = teacher_label(report["teacher"])
    if report.get("value"):
        return _value_summary(report, teacher)
    line = (f"distilled {teacher} from {report['games']:,} games "
            f"({report['decisions']:,} decisions, {report['play_seconds']:.0f} s of play, "
            f"{report['fit_seconds']:.0f} s of fitting)")
    if "after" in report:
        b, a = report["before"], report["after"]
        line += (f"; held out: agreement with the search {b['agreement']:.1%} -> "
                 f"{a['agreement']:.1%}, cross-entropy {b['cross_entropy']:.3f} -> "
                 f"{a['cross_entropy']:.3f}")
    return line


def _value_summary(report: dict, teacher: str) -> str:
    """One line of a ``--targets value`` run's report."""
    line = (f"fitted the value network to the results of {report['games']:,} games of "
            f"{teacher} ({report['decisions']:,} decisions, {report['play_seconds']:.0f} s of "
            f"play, {report['fit_seconds']:.0f} s of fitting)")
    if "after" in report:
        a = report["after"]
        b = report.get("before")
        was = f"{b['mse']:.3f} -> " if b else ""
        was_r = f"{b['correlation']:.3f} -> " if b else ""
        line += (f"; held out: squared error {was}{a['mse']:.3f}, correlation with the "
                 f"results {was_r}{a['correlation']:.3f}")
    return line
