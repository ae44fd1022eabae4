"""``meduris train``: flags on top of an optional YAML config (see :mod:`meduris_rl.train.config`).

Every flag sets the configuration field of the same name (``--n-steps`` is ``n_steps``); the
configuration a run used is saved in its ``checkpoint.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from meduris_rl.agents.arena.ladder.anchors import game_flag
from meduris_rl.cli.checks import SEED, UsageError, int_in, output_folder
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import game_spec, option_pairs
from meduris_rl.train.config import RESUMABLE, TrainConfig

# what a run writes into --out (an earlier run's are replaced only with --force)
RUN_FILES = ("checkpoint.zip", "checkpoint.json", "model.zip", "policy.pt", "best.pt",
             "eval.csv", "learning_curve.png", "snapshots", "tb")
FLAGS = ("game", "players", "steps", "envs", "threads", "seed", "features", "reward", "shaping",
         "bc_teacher",
         "bc_games", "eval_every", "eval_games", "best_against", "best_against_games",
         "checkpoint_every", "snapshot_every", "n_steps",
         "batch_size", "n_epochs", "learning_rate", "value_positions", "value_epochs", "out")


def add_parser(sub) -> None:
    p = sub.add_parser("train", help="train a MaskablePPO agent on a game (its vector env)",
                       description="MaskablePPO on the game's vector env (Meduris's: the batch "
                       "engine) against a league of random, "
                       "greedy and frozen snapshots of the learner; see train/run.py and "
                       "docs/training.md. Flags override the --config file; a setting given "
                       "neither way keeps the default of train/config.py (shown below).")
    defaults = TrainConfig()

    def setting(flag: str, **kw) -> None:
        """A flag that sets the configuration field of its name; its help shows the default."""
        default = getattr(defaults, flag[2:].replace("-", "_"))
        shown = "none" if default is None else default
        p.add_argument(flag, **{**kw, "help": f"{kw['help']} (default: {shown})"})

    p.add_argument("--config", help="YAML file of settings (keys as the flags, with _)")
    setting("--game", metavar="GAME", help="the game to learn (a game without a batch "
            "engine: a vector of its single-agent env, train/league.py)")
    p.add_argument("--option", action="append", default=None, metavar="NAME=VALUE",
                   help="one of the game's own options for every game of the run, e.g. "
                   "--option exchange=manual (Meduris), --option circles=4 (Druids), --option "
                   "mammoth_herd=on (Stone Age); repeat it for several (meduris games lists "
                   "each game's; they join the --config file's options)")
    setting("--players", type=int, help="2, 3 or 4")
    setting("--steps", type=int_in(1), help="PPO environment steps in total")
    setting("--envs", type=int_in(1), help="games played at once by the batch engine")
    setting("--threads", type=int_in(1), help="torch threads")
    setting("--seed", type=SEED, help="the run's seed")
    setting("--features", choices=("obs", "obs+greedy"), help="the network's inputs")
    setting("--reward", choices=("win", "score", "dense"), help="the reward scheme")
    setting("--shaping", type=float, help="weight of the potential-based reward shaping by "
            "the evaluation margin (train/meduris/league.py); 0: none")
    setting("--bc-teacher", help="warm-start teacher agent (e.g. mcts:100), or 'none'")
    setting("--bc-games", type=int_in(1), help="the teacher's games")
    setting("--eval-every", type=int_in(1), help="steps between evaluations")
    setting("--eval-games", type=int_in(1), help="games per evaluation against greedy")
    setting("--best-against", help="best.pt is the best evaluation against this agent: greedy "
            "(the batch evaluation) or any other (e.g. mcts:100, a tournament)")
    setting("--best-against-games", type=int_in(1),
            help="tournament games per evaluation against --best-against (when not greedy)")
    setting("--checkpoint-every", type=int_in(1), help="steps between checkpoints")
    setting("--snapshot-every", type=int_in(1),
                   help="steps between the learner's snapshots that join the league")
    setting("--n-steps", type=int_in(1), help="rollout length per game")
    setting("--batch-size", type=int_in(1), help="PPO minibatch size")
    setting("--n-epochs", type=int_in(1), help="PPO passes over each rollout")
    setting("--learning-rate", type=float, help="PPO's learning rate")
    setting("--value-positions", type=int_in(0),
            help="after PPO, fit a value network for best.pt (the az search's) to this many "
            "positions of its own games; 0: none")
    setting("--value-epochs", type=int_in(1), help="passes of the value network's fit over "
            "those positions")
    setting("--out", help="run folder")
    p.add_argument("--force", action="store_true",
                   help="replace an earlier run's files in --out (without it they are kept and "
                   "the command stops)")
    p.add_argument("--resume", help="continue from this checkpoint.zip of your own run (it is a "
                   "pickle), in its folder, with its settings; only "
                   f"{', '.join('--' + f.replace('_', '-') for f in RESUMABLE)} may change")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def interrupted_advice(args, cfg) -> str:
    """What to do after Ctrl-C: the command resuming from the run's last checkpoint, in its
    actual folder, or that there is none yet."""
    folder = Path(args.resume).parent if args.resume else Path(
        cfg.out if cfg is not None else (args.out or "runs/ppo"))
    checkpoint = folder / "checkpoint.zip"
    if checkpoint.is_file():
        return f"continue from the last checkpoint with: meduris train --resume {checkpoint}"
    return f"no checkpoint was written yet in {folder}; start again to train"


def option_example(game: str | None) -> str:
    """A pair of ``--game``'s options for a malformed ``--option`` (the default game's when the
    game is the configuration file's or not a game: that is said on its own)."""
    try:
        return game_spec(game).option_example
    except InputError:
        return game_spec(None).option_example


def run(args) -> int:
    from meduris_rl.train.config import load_config, resume_config
    from meduris_rl.train.run import checkpoint_state, train

    overrides = {k: getattr(args, k) for k in FLAGS}  # None: not given
    # (texts: the configuration reads them with the game's row, the game may be the file's)
    overrides["options"] = option_pairs(args.option, UsageError, example=option_example(
        args.game)) or None
    cfg = None  # (known once the settings are read: its ``out`` is the run folder)
    try:
        if args.resume:  # the run's own settings; it continues in its own folder
            folder = Path(args.resume).parent
            cfg = resume_config(checkpoint_state(args.resume).get("config"), folder,
                                args.config, overrides)
        else:
            cfg = load_config(args.config, overrides)
            # before any work: a run folder that may be filled
            output_folder(cfg.out, "--out", args.force, RUN_FILES, clear=True)
        state = train(cfg, resume=args.resume, progress=not args.no_progress,
                      report=lambda line: print(line, file=sys.stderr, flush=True))
    except OSError as err:  # (a bad setting is a InputError: main prints it)
        raise UsageError(f"{err.strerror or err} ({err.filename or 'a run file'}); "
                         "check --out") from None
    except KeyboardInterrupt:
        print(f"meduris: interrupted; {interrupted_advice(args, cfg)}", file=sys.stderr)
        return 130
    last = state["evals"][-1]["win_rate_vs_greedy"] if state["evals"] else float("nan")
    game = game_flag(cfg.game) + "".join(f" --option {name}={value}"
                                         for name, value in cfg.options.items())
    print(f"trained {state['timesteps']} steps in {state['wall_seconds']:.0f} s "
          f"({state.get('ppo_steps_per_second', 0):.0f} PPO steps/s); "
          f"win rate vs greedy {last:.1%}; policy: {cfg.out}/policy.pt\n"
          f"play it: meduris tournament{game} --agents ppo:{cfg.out}/policy.pt,greedy")
    if "best" in state:
        best = state["best"]
        against = best.get("best_against", "greedy")
        score = best.get("win_rate_vs_best_against", best["win_rate_vs_greedy"])
        print(f"best evaluation: {score:.1%} vs {against} at "
              f"{best['timesteps']:,} steps, kept as {cfg.out}/best.pt "
              f"(meduris tournament{game} --agents ppo:{cfg.out}/best.pt,{against})")
    return 0
