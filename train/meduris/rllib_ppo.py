"""RLlib training on Meduris: multi-agent PPO on RLlib's new API stack, with action masking.

Run it in the Ray environment (``.venv-ray``: RLlib 2.60 pins gymnasium 1.2.2, the main
``.venv`` has a newer one), as ``meduris rllib-train`` (:mod:`meduris_rl.cli.meduris.rllib_train`;
``python -m meduris_rl.train.meduris.rllib_ppo`` is the same command)::

    meduris rllib-train --players 2 --iterations 3 --out runs/rllib_2p
    meduris rllib-train --players 4 --iterations 200 --out runs/rllib_4p --per-seat
    meduris rllib-train --players 2 --iterations 10 --out runs/rllib_2p \\
        --resume runs/rllib_2p/checkpoint                          # continues at iteration 4
    meduris rllib-train --players 2 --iterations 100 --out runs/rllib_2p \\
        --address HEAD_IP:6379 --env-runners 16                    # on a running Ray cluster
    meduris tournament --agents rllib:runs/rllib_2p/checkpoint,greedy --players 2

What it does:

* **Environment**: :class:`~meduris_env.envs.rllib.MedurisMultiAgentEnv`, an RLlib
  ``MultiAgentEnv`` over the engine (its module docstring is the contract: agents
  ``"player_<seat>"``, the mover alone observes, scaled observations and the legal-action mask,
  the ``"win"`` reward at the end, truncation at ``max_turns``). Still importable from here.
* **Algorithm**: :func:`build_config` returns a ``PPOConfig`` (new API stack) whose RLModule is
  RLlib's own ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes.
  action_masking_rlm``: illegal logits pushed to the float minimum), an MLP of two 256-unit
  layers. Self-play with one shared policy (module ``"shared"``, default) or one policy per
  seat (``--per-seat``: modules ``"player_0"`` ..). The learner runs in the driver process;
  ``--env-runners`` EnvRunner actors sample (default: one per CPU of the Ray cluster, so the
  sampling scales with the cluster).
* **Ray**: ``--address`` joins a running cluster (checked within seconds to be a Ray head);
  without it a local Ray is started and shut down at the end. Every node needs the project
  installed (``pip install -e '.[ray]'``): the EnvRunners import the environment's module.
* **Checkpoints**: after every iteration ``out/checkpoint`` holds ``Algorithm.save_to_path``'s
  layout plus ``meduris.json`` (players, module per seat, iteration, env steps); it is written to
  a temporary folder in ``out`` and renamed into place. ``--resume CKPT`` rebuilds the algorithm
  (with this run's env runners) and restores it, so the iteration count and the env-step
  counters continue. ``out/progress.jsonl`` gets one line per iteration.
* **Playing**: ``meduris_rl.agents.meduris.rllib.RLlibAgent`` (``rllib:<checkpoint>`` in ``meduris
tournament``)
  loads the trained RLModule from the checkpoint with torch, no Ray cluster. Checkpoints are
  pickles: load only your own.

Options (``meduris rllib-train --help``):

=====================  ==========  ==========================================================
option                 default     meaning
=====================  ==========  ==========================================================
``--players``          2           2, 3 or 4
``--iterations``       3           train until this iteration (counted from the resumed one)
``--out``              (required)  output folder: ``checkpoint/``, ``progress.jsonl``
``--env-runners``      cluster     EnvRunner actors; 0 samples in the driver
``--address``          local Ray   ``HOST:PORT`` of a Ray cluster's head (or ``auto``)
``--resume``           none        ``<out>/checkpoint`` of an earlier run to continue (the run
                                   stays in its folder)
``--force``            off         replace an earlier run's results in ``--out`` (without it a
                                   folder holding them is refused)
``--per-seat``         off         one policy per seat instead of one shared policy
``--seed``             0           seeds RLlib, torch and the games (``derive_seed``)
``--train-batch``      4000        env steps per iteration (``train_batch_size_per_learner``)
``--minibatch``        500         SGD minibatch size
``--epochs``           4           SGD passes over each batch
``--lr``               3e-4        learning rate
``--max-turns``        1000        turn limit of a game (truncation)
``--json``             off         print the final metrics as one JSON object
=====================  ==========  ==========================================================

Errors the user can fix (Ray missing, a cluster that does not answer, a missing or mismatched
checkpoint, an unwritable ``--out`` or one holding another run, numbers out of range) print one
line ``meduris: error: ...`` and exit with 2.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from meduris_env.engine.game import DEFAULT_MAX_TURNS, PlayerCountError, check_players
from meduris_env.envs.rllib import RAY_MISSING, agent_id
from meduris_rl.agents.arena.tournament import ray_address_problem
from meduris_rl.agents.meduris.rllib import (  # (checkpoint folders)
    META_FILE,
    META_FORMAT,
    read_checkpoint_meta,
)
from meduris_rl.kit.atomic import (
    atomic_write,
    earlier_results,
    output_folder_problem,
    remove_results,
)
from meduris_rl.kit.errors import InputError

SHARED = "shared"  # the module id of the one shared policy
RUN_RESULTS = ("checkpoint", "progress.jsonl")  # what a run writes into its --out
HIDDEN = [256, 256]


class RLlibError(InputError):
    """An error the user can fix; the message names the fix."""


def __getattr__(name: str):
    # the environment, still importable from here; made (and Ray imported) on first use
    if name == "MedurisMultiAgentEnv":
        from meduris_env.envs import rllib
        return rllib.MedurisMultiAgentEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def module_ids(players: int, shared: bool = True) -> dict[str, str]:
    """Agent id -> RLModule id: everyone ``"shared"``, or each seat its own."""
    return {agent_id(s): SHARED if shared else agent_id(s) for s in range(players)}


# --- the algorithm -----------------------------------------------------------------------------
def _shared_policy(agent_id, episode=None, **kwargs):
    return SHARED


def _own_policy(agent_id, episode=None, **kwargs):
    return agent_id


def build_config(players: int, num_env_runners: int, seed: int = 0, shared: bool = True, *,
                 max_turns: int = DEFAULT_MAX_TURNS, train_batch_size: int = 4000,
                 minibatch_size: int = 500, num_epochs: int = 4, lr: float = 3e-4):
    """A ``PPOConfig`` (RLlib's new API stack) for Meduris with ``players`` seats: the
    action-masking RLModule, one shared policy or one per seat, ``num_env_runners`` EnvRunners
    (0: sample in the driver), the learner in the driver."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    from meduris_env.envs.rllib import multi_agent_env_class

    try:
        check_players(players, "--players")
    except PlayerCountError:
        raise RLlibError(f"--players {players}: Meduris has 2, 3 or 4 players (R1)") from None
    mapping = module_ids(players, shared)
    modules = sorted(set(mapping.values()))
    model = DefaultModelConfig(fcnet_hiddens=HIDDEN, fcnet_activation="tanh")
    spec = MultiRLModuleSpec(rl_module_specs={
        m: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)
        for m in modules})
    return (
        PPOConfig()
        .framework("torch")
        .environment(multi_agent_env_class(),
                     env_config={"players": players, "seed": seed, "max_turns": max_turns})
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1,
                     rollout_fragment_length="auto")
        .learners(num_learners=0)
        .multi_agent(policies=set(modules),
                     policy_mapping_fn=_shared_policy if shared else _own_policy,
                     policies_to_train=modules)
        .rl_module(rl_module_spec=spec)
        .training(train_batch_size_per_learner=train_batch_size,
                  minibatch_size=min(minibatch_size, train_batch_size), num_epochs=num_epochs,
                  lr=lr, gamma=0.995, lambda_=0.95, entropy_coeff=0.01)
        .debugging(seed=seed % 2**31)  # (RLlib seeds numpy with it: 32 bits; the same below 2**31)
    )


# --- Ray and checkpoints -----------------------------------------------------------------------
def check_ray(address: str | None) -> None:
    """Before any work: Ray is installed, and a given cluster address answers as Ray."""
    try:
        import ray.rllib  # noqa: F401  (the EnvRunners and the learner need it)
    except ImportError:
        raise RLlibError(RAY_MISSING) from None
    problem = ray_address_problem(address, target=(address or "").split("://", 1)[-1])
    if problem:
        raise RLlibError(problem)


def read_meta(checkpoint: str | Path) -> dict:
    """The ``meduris.json`` of a checkpoint folder; RLlibError says what is wrong."""
    return read_checkpoint_meta(Path(checkpoint), error=RLlibError)


def save_checkpoint(algo, out: Path, meta: dict) -> Path:
    """``algo`` saved into ``out/checkpoint``: written to a temporary folder beside it, then
    renamed into place (the previous checkpoint stays whole until the new one is complete)."""
    target = out / "checkpoint"
    tmp = Path(tempfile.mkdtemp(dir=out, prefix=".checkpoint."))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes 0700; this is an ordinary folder
        algo.save_to_path(str(tmp))
        atomic_write(tmp / META_FILE, json.dumps(meta, indent=2) + "\n")
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(dir=out, prefix=".checkpoint-old."))
            os.replace(target, old / "checkpoint")
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def env_steps_sampled(result: dict) -> int:
    """Env steps sampled over the algorithm's lifetime (restored counters included)."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    value = result.get(ENV_RUNNER_RESULTS, {}).get(NUM_ENV_STEPS_SAMPLED_LIFETIME)
    if value is None:
        value = result.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0)
    return int(value)


def _episode_stats(result: dict) -> dict:
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

    runners = result.get(ENV_RUNNER_RESULTS, {})
    out = {}
    for key in ("episode_len_mean", "num_episodes_lifetime"):
        if key in runners:
            out[key] = float(runners[key])
    return out


# --- training ----------------------------------------------------------------------------------
def train(players: int, iterations: int, out: str | Path, num_env_runners: int | None = None,
          seed: int = 0, address: str | None = None, *, shared: bool = True,
          resume: str | Path | None = None, max_turns: int = DEFAULT_MAX_TURNS,
          train_batch_size: int = 4000, minibatch_size: int = 500, num_epochs: int = 4,
          lr: float = 3e-4, force: bool = False, log=None) -> dict:
    """Train until iteration ``iterations`` (a resumed run continues its count), checkpointing
    into ``out/checkpoint`` after each. Returns ``{"iterations", "iterations_run",
    "env_steps_sampled" (lifetime), "env_steps_run", "seconds" (in algo.train()),
    "env_steps_per_s", "checkpoint", "players", "shared", "env_runners"}``. Ray is initialised
    here (``address``, or a local Ray when None) unless it already is; what this call started
    it shuts down. Raises RLlibError for what the user can fix.

    ``out`` holds one run: a resumed run continues in its own folder (``resume`` is
    ``out/checkpoint``), and a new run refuses a folder with an earlier run's results unless
    ``force``, which removes them first (this run writes as it goes)."""
    check_ray(address)
    out = Path(out)
    _check_run_folder(out, players, shared, resume, force)
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    algo = None
    try:
        if num_env_runners is None:
            num_env_runners = max(1, int(ray.cluster_resources().get("CPU", 1)))
        config = build_config(players, num_env_runners, seed, shared, max_turns=max_turns,
                              train_batch_size=train_batch_size, minibatch_size=minibatch_size,
                              num_epochs=num_epochs, lr=lr)
        algo = config.build_algo()
        if resume is not None:
            algo.restore_from_path(str(Path(resume).resolve()))
        meta = {"format": META_FORMAT, "players": players, "shared": shared,
                "modules": module_ids(players, shared), "max_turns": max_turns, "seed": seed}
        metrics = _iterate(algo, iterations, out, meta, resume, log)
        return {**metrics, "players": players, "shared": shared,
                "env_runners": num_env_runners}
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()


# --- the output folder: the one check (meduris_rl.cli.checks.output_folder asks it too) ---------
def _check_run_folder(out: Path, players: int, shared: bool, resume: str | Path | None,
                      force: bool) -> None:
    """Before Ray starts: ``out`` holds one run (see :func:`train`); a resumed checkpoint is
    ``out/checkpoint`` and of the same players and policies. RLlibError says what to change;
    with ``force`` a new run's earlier results are removed now."""
    earlier = earlier_results(out, RUN_RESULTS)
    if resume is not None:
        meta = read_meta(resume)
        if Path(resume).resolve() != (out / "checkpoint").resolve():
            raise RLlibError(f"--resume {resume}: a resumed run continues in its own folder; "
                             f"give --out {Path(resume).parent} (its checkpoint is "
                             f"<out>/checkpoint)")
        if meta["players"] != players or meta["shared"] != shared:
            kind = "a shared policy" if meta["shared"] else "one policy per seat"
            raise RLlibError(f"--resume {resume}: that run has {meta['players']} players and "
                             f"{kind}; resume it with the same --players and --per-seat")
    problem = output_folder_problem(out, "--out", force or resume is not None, earlier,
                                    fix=f"add --resume {out / 'checkpoint'} to continue it, "
                                        "--force to replace it")
    if problem:
        raise RLlibError(problem)
    if resume is None:  # (--force) the earlier run goes now: the folder never mixes two runs
        remove_results(out, earlier)


def _iterate(algo, iterations: int, out: Path, meta: dict, resume: str | Path | None,
             log) -> dict:
    """``algo.train()`` until iteration ``iterations``, each iteration checkpointed (``meta``
    and its counters into ``meduris.json``) and a line in ``progress.jsonl``; the counts of
    :func:`train`'s result."""
    import ray

    first = algo.iteration
    steps0 = steps = int(read_meta(resume)["env_steps_sampled"]) if resume else 0
    seconds = 0.0
    checkpoint = Path(resume) if resume else None
    while algo.iteration < iterations:
        t0 = time.perf_counter()
        result = algo.train()
        took = time.perf_counter() - t0
        seconds += took
        steps = env_steps_sampled(result)
        row = {"iteration": algo.iteration, "env_steps_sampled": steps,
               "seconds": round(took, 3), **_episode_stats(result)}
        checkpoint = save_checkpoint(algo, out, {**meta, "iteration": algo.iteration,
                                                 "env_steps_sampled": steps,
                                                 "ray": ray.__version__})
        with open(out / "progress.jsonl", "a") as fh:
            fh.write(json.dumps(row) + "\n")
        if log is not None:
            log(row)
    return {"iterations": algo.iteration, "iterations_run": algo.iteration - first,
            "env_steps_sampled": steps, "env_steps_run": steps - steps0, "seconds": seconds,
            "env_steps_per_s": (steps - steps0) / seconds if seconds else 0.0,
            "checkpoint": str(checkpoint) if checkpoint else None}


if __name__ == "__main__":  # the same as `meduris rllib-train` (the CLI layer, above this one)
    from meduris_rl.cli.main import main
    sys.exit(main(["rllib-train", *sys.argv[1:]]))
