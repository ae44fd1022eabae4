"""``meduris train``: flags on top of an optional YAML config (see :mod:`train.config`)."""

from __future__ import annotations

import sys


def add_parser(sub) -> None:
    p = sub.add_parser("train", help="train a MaskablePPO agent on the batch engine",
                       description="MaskablePPO on the batch engine against a league of random, "
                       "greedy and frozen snapshots of the learner; see train/run.py and "
                       "docs/training.md. Flags override the --config file.")
    p.add_argument("--config", help="YAML file of settings (keys as the flags, with _)")
    p.add_argument("--players", type=int)
    p.add_argument("--steps", type=int, help="PPO environment steps in total")
    p.add_argument("--envs", type=int, help="games played at once by the batch engine")
    p.add_argument("--threads", type=int, help="torch threads")
    p.add_argument("--seed", type=int)
    p.add_argument("--features", choices=("obs", "obs+greedy"))
    p.add_argument("--reward", choices=("win", "score", "dense"))
    p.add_argument("--bc-teacher", help="warm-start teacher agent, or 'none'")
    p.add_argument("--bc-games", type=int)
    p.add_argument("--eval-every", type=int)
    p.add_argument("--eval-games", type=int)
    p.add_argument("--checkpoint-every", type=int)
    p.add_argument("--snapshot-every", type=int)
    p.add_argument("--n-steps", type=int, help="rollout length per environment")
    p.add_argument("--out", help="run folder (default runs/ppo)")
    p.add_argument("--resume", help="continue from this checkpoint.zip")
    p.add_argument("--no-progress", action="store_true")


def run(args) -> int:
    from train.config import ConfigError, load_config
    from train.run import CheckpointError, train

    overrides = {k: getattr(args, k) for k in (
        "players", "steps", "envs", "threads", "seed", "features", "reward", "bc_games",
        "eval_every", "eval_games", "checkpoint_every", "snapshot_every", "n_steps", "out")}
    if args.bc_teacher is not None:
        overrides["bc_teacher"] = args.bc_teacher  # "none" is a value: no warm start
    try:
        cfg = load_config(args.config, overrides)
        state = train(cfg, resume=args.resume, progress=not args.no_progress)
    except (ConfigError, CheckpointError) as err:
        print(f"meduris: error: {err}", file=sys.stderr)
        return 2
    last = state["evals"][-1]["win_rate_vs_greedy"] if state["evals"] else float("nan")
    print(f"trained {state['timesteps']} steps in {state['wall_seconds']:.0f} s "
          f"({state.get('ppo_steps_per_second', 0):.0f} PPO steps/s); "
          f"win rate vs greedy {last:.1%}; policy: {cfg.out}/policy.pt\n"
          f"play it: meduris tournament --agents ppo:{cfg.out}/policy.pt,greedy")
    return 0
