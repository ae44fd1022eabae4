"""``meduris train``: flags on top of an optional YAML config (see :mod:`train.config`).

Every flag sets the configuration field of the same name (``--n-steps`` is ``n_steps``); the
configuration a run used is saved in its ``checkpoint.json``.
"""

from __future__ import annotations

import sys

from .checks import SEED, UsageError, int_in, output_folder

# what a run writes into --out (an earlier run's are replaced only with --force)
RUN_FILES = ("checkpoint.zip", "checkpoint.json", "model.zip", "policy.pt", "best.pt",
             "eval.csv", "learning_curve.png", "snapshots", "tb")
FLAGS = ("players", "steps", "envs", "threads", "seed", "features", "reward", "bc_teacher",
         "bc_games", "eval_every", "eval_games", "checkpoint_every", "snapshot_every", "n_steps",
         "batch_size", "n_epochs", "learning_rate", "out")


def add_parser(sub) -> None:
    p = sub.add_parser("train", help="train a MaskablePPO agent on the batch engine",
                       description="MaskablePPO on the batch engine against a league of random, "
                       "greedy and frozen snapshots of the learner; see train/run.py and "
                       "docs/training.md. Flags override the --config file; a setting given "
                       "neither way keeps the default of train/config.py.")
    p.add_argument("--config", help="YAML file of settings (keys as the flags, with _)")
    p.add_argument("--players", type=int, help="2, 3 or 4")
    p.add_argument("--steps", type=int_in(1), help="PPO environment steps in total")
    p.add_argument("--envs", type=int_in(1), help="games played at once by the batch engine")
    p.add_argument("--threads", type=int_in(1), help="torch threads")
    p.add_argument("--seed", type=SEED, help="the run's seed")
    p.add_argument("--features", choices=("obs", "obs+greedy"), help="the network's inputs")
    p.add_argument("--reward", choices=("win", "score", "dense"), help="the reward scheme")
    p.add_argument("--bc-teacher", help="warm-start teacher agent (e.g. mcts:100), or 'none'")
    p.add_argument("--bc-games", type=int_in(1), help="the teacher's games")
    p.add_argument("--eval-every", type=int_in(1), help="steps between evaluations")
    p.add_argument("--eval-games", type=int_in(1), help="games per evaluation against greedy")
    p.add_argument("--checkpoint-every", type=int_in(1), help="steps between checkpoints")
    p.add_argument("--snapshot-every", type=int_in(1),
                   help="steps between the learner's snapshots that join the league")
    p.add_argument("--n-steps", type=int_in(1), help="rollout length per game")
    p.add_argument("--batch-size", type=int_in(1), help="PPO minibatch size")
    p.add_argument("--n-epochs", type=int_in(1), help="PPO passes over each rollout")
    p.add_argument("--learning-rate", type=float, help="PPO's learning rate")
    p.add_argument("--out", help="run folder (default runs/ppo)")
    p.add_argument("--force", action="store_true",
                   help="replace an earlier run's files in --out (without it they are kept and "
                   "the command stops)")
    p.add_argument("--resume", help="continue from this checkpoint.zip (of your own run: it is "
                   "a pickle)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def run(args) -> int:
    from train.config import ConfigError, load_config
    from train.run import CheckpointError, train

    overrides = {k: getattr(args, k) for k in FLAGS}  # None: not given
    try:
        cfg = load_config(args.config, overrides)
        if not args.resume:  # before any work: a run folder that may be filled
            output_folder(cfg.out, "--out", args.force, RUN_FILES, clear=True)
        state = train(cfg, resume=args.resume, progress=not args.no_progress,
                      report=lambda line: print(line, file=sys.stderr, flush=True))
    except (ConfigError, CheckpointError, UsageError) as err:
        print(f"meduris: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"meduris: error: {err.strerror or err} ({err.filename or 'a run file'}); "
              "check --out", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"meduris: interrupted; the last checkpoint (if any) is in {args.out or 'the run'}"
              " folder: continue with --resume <out>/checkpoint.zip", file=sys.stderr)
        return 130
    last = state["evals"][-1]["win_rate_vs_greedy"] if state["evals"] else float("nan")
    print(f"trained {state['timesteps']} steps in {state['wall_seconds']:.0f} s "
          f"({state.get('ppo_steps_per_second', 0):.0f} PPO steps/s); "
          f"win rate vs greedy {last:.1%}; policy: {cfg.out}/policy.pt\n"
          f"play it: meduris tournament --agents ppo:{cfg.out}/policy.pt,greedy")
    if "best" in state:
        best = state["best"]
        print(f"best evaluation: {best['win_rate_vs_greedy']:.1%} vs greedy at "
              f"{best['timesteps']:,} steps, kept as {cfg.out}/best.pt "
              f"(meduris tournament --agents ppo:{cfg.out}/best.pt,greedy)")
    return 0
