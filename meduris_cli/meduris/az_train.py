"""``meduris az-train``: Gumbel AlphaZero self-play training on the batch engine
(:mod:`meduris_rl.train.meduris.az`, whose docstring is the contract).

Every flag sets the :class:`~meduris_rl.train.meduris.az.AZConfig` field of the same name
(``--max-considered`` is ``max_considered``); the configuration a run used is saved in its
``checkpoint.json``. Bad values, a warm start that cannot be used, a ``--resume`` of something that
is not this trainer's checkpoint, and an ``--out`` holding an earlier run (without ``--force``) are
refused in one line before any work.
"""

from __future__ import annotations

import sys
from pathlib import Path

from meduris_rl.cli.checks import SEED, UsageError, int_in, output_folder
from meduris_rl.train.meduris.az import RESUMABLE, AZConfig

# what a run writes into --out (an earlier run's are replaced only with --force)
RUN_FILES = ("checkpoint.pt", "checkpoint.json", "policy.pt", "best.pt", "eval.csv", "tb")
FLAGS = ("players", "games", "simulations", "max_considered", "min_span", "moves", "buffer",
         "batch_size", "learning_rate", "train_every", "epochs", "warm_start", "value_positions",
         "greedy_share", "eval_every", "eval_games", "eval_against", "eval_ppo", "seed", "threads",
         "out")


def add_parser(sub) -> None:
    p = sub.add_parser("az-train",
                       help="Meduris: train by Gumbel AlphaZero self-play (batched search)",
                       description="Self-play with the batched Gumbel search on the batch "
                       "engine; the policy network learns the search's improved policy and the "
                       "value network the games' results. See train/meduris/az.py and "
                       "docs/training.md.")
    defaults = AZConfig()

    def setting(flag: str, default=None, **kw) -> None:
        shown = getattr(defaults, flag[2:].replace("-", "_"))
        p.add_argument(flag, default=default, **{**kw, "help": f"{kw['help']} (default: "
                                                              f"{shown})"})

    setting("--players", type=int, help="2, 3 or 4")
    setting("--games", type=int_in(1), help="self-play games advanced together (B)")
    setting("--simulations", type=int_in(1), help="search simulations per move")
    setting("--max-considered", type=int_in(1), help="root actions the Gumbel top-k considers")
    setting("--min-span", type=float, help="the smallest spread of a node's completed "
            "Q-values that the search stretches to its whole scale (mctx: 1e-8; larger keeps "
            "the value network's small, noisy differences small)")
    setting("--moves", type=int_in(1), help="self-play moves (positions searched) in all")
    setting("--buffer", type=int_in(1), help="replay buffer positions")
    setting("--batch-size", type=int_in(1), help="minibatch positions")
    setting("--learning-rate", type=float, help="Adam's learning rate")
    setting("--train-every", type=int_in(1), help="self-play moves between updates")
    setting("--epochs", type=int_in(1), help="times each position is used per update, about")
    setting("--warm-start", help="policy file to start from, 'shipped' (agents/models/"
            "ppo_<players>p.pt) or 'none' (a fresh network)")
    setting("--value-positions", type=int_in(0), help="a warm start without a value network "
            "(the shipped 4-player model): one fitted first to this many positions of its "
            "policy's own games (meduris_rl.train.meduris.value); 0: a fresh one that says 0 "
            "until it has learnt")
    setting("--greedy-share", type=float, help="share of the games (drawn per episode) in "
            "which one seat is played by greedy: opponents beside itself")
    setting("--eval-every", type=int_in(1),
            help="moves between evaluations against the anchors greedy and ppo")
    setting("--eval-games", type=int_in(0), help="games per evaluation; 0: none")
    setting("--eval-against", help="more anchors each evaluation plays in tournaments (agent "
            "names, commas: e.g. mcts:400, which the batch engine cannot play)")
    setting("--eval-ppo", metavar="FILE", help="the policy file the anchor ppo plays in the "
            "evaluations: shipped (the shipped model) or a file (a rerun of a shipped recipe "
            "gives the PPO run it started from, which the shipped model replaced)")
    setting("--seed", type=SEED, help="the run's seed")
    setting("--threads", default=defaults.threads, type=int_in(1),
            help="torch and numba threads")
    setting("--out", help="run folder")
    p.add_argument("--force", action="store_true",
                   help="replace an earlier run's files in --out")
    p.add_argument("--resume", help="continue from a run's checkpoint.pt, in its folder, with "
                   f"its settings; only {', '.join('--' + f.replace('_', '-') for f in RESUMABLE)}"
                   " may change")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    from meduris_rl.train.meduris.az import checkpoint_state, make_config, resume_config, train_az

    overrides = {k: getattr(args, k) for k in FLAGS}  # None: not given
    try:
        if args.resume:
            folder = Path(args.resume).parent
            cfg = resume_config(checkpoint_state(args.resume).get("config"), folder, overrides)
        else:
            cfg = make_config(overrides)
            output_folder(cfg.out, "--out", args.force, RUN_FILES, clear=True)
        state = train_az(cfg, resume=args.resume, progress=not args.no_progress,
                         report=lambda line: print(line, file=sys.stderr, flush=True))
    except OSError as err:
        raise UsageError(f"{err.strerror or err} ({err.filename or 'a run file'}); "
                         "check --out") from None
    except KeyboardInterrupt:
        checkpoint = Path(args.resume).parent if args.resume else Path(
            args.out or AZConfig().out)
        print(f"meduris: interrupted; continue with: meduris az-train --resume "
              f"{checkpoint / 'checkpoint.pt'} (if a checkpoint was written)", file=sys.stderr)
        return 130
    last = (f"win rate vs greedy {state['evals'][-1]['win_rate_vs_greedy']:.1%}"
            if state["evals"] else "no evaluation")
    print(f"trained {state['moves']:,} self-play moves, {state['updates']} updates; {last}; "
          f"policy: {cfg.out}/policy.pt\n"
          f"play it: meduris tournament --agents ppo:{cfg.out}/policy.pt,greedy")
    return 0
