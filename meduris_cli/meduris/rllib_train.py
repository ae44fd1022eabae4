"""``meduris rllib-train``: multi-agent PPO on Meduris with RLlib
(:mod:`meduris_rl.train.meduris.rllib_ppo`, whose docstring is the contract and lists the options),
in the Ray environment (``.venv-ray``).

The flags are checked before Ray starts; errors the user can fix (Ray missing, a cluster that
does not answer, a missing or mismatched checkpoint, an unwritable ``--out`` or one holding
another run, numbers out of range) print one line ``meduris: error: ...`` and exit with 2
(raised here, printed by :mod:`meduris_rl.cli.main`).
"""

from __future__ import annotations

import json

from meduris_rl.cli.checks import SEED, UsageError
from meduris_rl.train.meduris import DEFAULT_MAX_TURNS, PLAYER_COUNTS


def add_parser(sub) -> None:
    p = sub.add_parser("rllib-train", help="Meduris: train multi-agent PPO with RLlib "
                       "(needs the ray extra)",
                       description="Multi-agent PPO on Meduris with RLlib (new API "
                       "stack, action masking, self-play); see train/meduris/rllib_ppo.py and "
                       "docs/interop.md.")
    p.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2)
    p.add_argument("--iterations", type=int, default=3,
                   help="train until this iteration (default 3)")
    p.add_argument("--out", required=True, help="output folder (checkpoint/, progress.jsonl)")
    p.add_argument("--env-runners", type=int, default=None, metavar="N",
                   help="EnvRunner actors (default: the Ray cluster's CPUs; 0: in the driver)")
    p.add_argument("--address", default=None, metavar="HOST:PORT",
                   help="a Ray cluster's head (default: start a local Ray)")
    p.add_argument("--resume", default=None, metavar="CKPT",
                   help="continue from <out>/checkpoint (the run stays in its folder)")
    p.add_argument("--force", action="store_true",
                   help="replace an earlier run's results in --out")
    p.add_argument("--per-seat", action="store_true", help="one policy per seat (default: one "
                                                           "shared policy)")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--train-batch", type=int, default=4000, help="env steps per iteration")
    p.add_argument("--minibatch", type=int, default=500)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS)
    p.add_argument("--json", action="store_true", help="print the final metrics as JSON")
    p.set_defaults(func=run)


def problem(args) -> str | None:
    """What is wrong with the numbers of ``args`` (one line), or None."""
    for name in ("iterations", "train_batch", "minibatch", "epochs"):
        if getattr(args, name) < 1:
            return f"--{name.replace('_', '-')} {getattr(args, name)}: use at least 1"
    if args.env_runners is not None and args.env_runners < 0:
        return f"--env-runners {args.env_runners}: use 0 or more"
    if args.max_turns < 1:
        return f"--max-turns {args.max_turns}: use at least 1"
    if not 0 < args.lr < 1:
        return f"--lr {args.lr}: use a learning rate between 0 and 1"
    return None


def run(args) -> int:
    from meduris_rl.train.meduris.rllib_ppo import train

    wrong = problem(args)
    if wrong:
        raise UsageError(wrong)

    def log(row: dict) -> None:
        if not args.json:
            print(f"iteration {row['iteration']:4d}  env steps {row['env_steps_sampled']:9d}  "
                  f"{row['seconds']:7.1f} s", flush=True)

    # (Ray missing, a silent cluster, a bad checkpoint or --out: an RLlibError, a InputError
    # that meduris_rl.cli.main prints)
    metrics = train(args.players, args.iterations, args.out, args.env_runners, args.seed,
                    args.address, shared=not args.per_seat, resume=args.resume,
                    max_turns=args.max_turns, train_batch_size=args.train_batch,
                    minibatch_size=args.minibatch, num_epochs=args.epochs, lr=args.lr,
                    force=args.force, log=log)
    if args.json:
        print(json.dumps(metrics))
    else:
        print(f"{metrics['iterations']} iterations, {metrics['env_steps_sampled']} env steps, "
              f"{metrics['env_steps_per_s']:.0f} env steps/s with {metrics['env_runners']} "
              f"env runner(s); checkpoint {metrics['checkpoint']}")
    return 0
