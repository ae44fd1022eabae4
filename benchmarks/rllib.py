"""RLlib training throughput: env steps/s of multi-agent PPO on RLlib's new API stack
(``train/meduris/rllib_ppo.py``: action-masking RLModule, one shared policy, self-play) with 2
EnvRunner actors on a local Ray, 2 players, end to end (sampling and learning together, as
``benchmarks/training.py`` measures ``meduris train``).

One warm-up iteration (actors, torch's first passes, numba's cached kernels), then
``--iterations`` timed ones of ``--train-batch`` env steps each (RLlib's defaults otherwise:
4 epochs of minibatches of 500, a 2x256 MLP). The time splits into sampling
(``env_runner_sampling_timer``) and learning (``learner_update_timer``). ``--compare`` also times
``meduris train``'s configuration (``benchmarks/training.py``, 2 players) in the same process,
for the ratio on the same machine. ``--json`` prints one object with
``rllib_env_steps_per_s`` (and ``train_env_steps_per_s`` with ``--compare``).

Run it in the Ray environment (RLlib 2.60 pins gymnasium 1.2.2)::

    .venv-ray/bin/python benchmarks/rllib.py [--env-runners 2] [--iterations 3] [--compare] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from meduris_env.engine.game import PLAYER_COUNTS  # noqa: E402
from meduris_rl.train.meduris.rllib_ppo import build_config, env_steps_sampled  # noqa: E402


def _timer(result: dict, name: str) -> float:
    from ray.rllib.utils.metrics import TIMERS

    value = result.get(TIMERS, {}).get(name, 0.0)
    return float(value) if isinstance(value, (int, float)) else 0.0


def measure(players: int = 2, env_runners: int = 2, iterations: int = 3,
            train_batch: int = 4000, seed: int = 0) -> dict:
    """End-to-end env steps/s of RLlib PPO on a local Ray with ``env_runners`` EnvRunners."""
    import ray
    from ray.rllib.utils.metrics import ENV_RUNNER_SAMPLING_TIMER, LEARNER_UPDATE_TIMER

    ray.init(num_cpus=max(os.cpu_count() or 1, env_runners), include_dashboard=False,
             log_to_driver=False, configure_logging=False)
    algo = None
    try:
        config = build_config(players, env_runners, seed, train_batch_size=train_batch)
        algo = config.build_algo()
        start = env_steps_sampled(algo.train())  # warm-up
        sampling = learning = 0.0
        t0 = time.perf_counter()
        for _ in range(iterations):
            result = algo.train()
            sampling += _timer(result, ENV_RUNNER_SAMPLING_TIMER)
            learning += _timer(result, LEARNER_UPDATE_TIMER)
        seconds = time.perf_counter() - t0
        steps = env_steps_sampled(result) - start
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
    return {"players": players, "env_runners": env_runners, "iterations": iterations,
            "steps": steps, "seconds": seconds, "env_steps_per_s": steps / seconds,
            "sampling_s_per_iteration": sampling / iterations,
            "learning_s_per_iteration": learning / iterations, "train_batch": train_batch}


def compare(rollouts: int, seed: int) -> dict:
    """``meduris train``'s throughput (benchmarks/training.py) with its 2-player configuration."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_training", REPO / "benchmarks" /
                                                  "training.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.measure(2, rollouts, seed)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2)
    ap.add_argument("--env-runners", type=int, default=2, help="EnvRunner actors (default 2)")
    ap.add_argument("--iterations", type=int, default=3, help="timed iterations (default 3)")
    ap.add_argument("--train-batch", type=int, default=4000, help="env steps per iteration")
    ap.add_argument("--compare", action="store_true",
                    help="also time meduris train (benchmarks/training.py, 2 players)")
    ap.add_argument("--rollouts", type=int, default=1, help="with --compare: timed rollouts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    row = measure(args.players, args.env_runners, args.iterations, args.train_batch, args.seed)
    result = {"rllib": row, "rllib_env_steps_per_s": row["env_steps_per_s"]}
    if args.compare:
        train_row = compare(args.rollouts, args.seed)
        result["train"] = train_row
        result["train_env_steps_per_s"] = train_row["env_steps_per_s"]
    if args.json:
        print(json.dumps(result))
        return result
    print(f"RLlib PPO, {row['players']} players, {row['env_runners']} env runners: "
          f"{row['env_steps_per_s']:,.0f} env steps/s end to end ({row['steps']:,} steps in "
          f"{row['seconds']:.1f} s; per iteration {row['sampling_s_per_iteration']:.1f} s "
          f"sampling, {row['learning_s_per_iteration']:.1f} s learning)")
    if args.compare:
        t = result["train"]
        print(f"meduris train, 2 players: {t['env_steps_per_s']:,.0f} env steps/s end to end "
              f"({t['steps']:,} steps in {t['seconds']:.1f} s); RLlib is "
              f"{row['env_steps_per_s'] / t['env_steps_per_s']:.2f}x")
    return result


if __name__ == "__main__":
    main()
