"""RLlib training on Meduris: multi-agent PPO on RLlib's new API stack, with action masking.

Run it in the Ray environment (``.venv-ray``: RLlib 2.60 pins gymnasium 1.2.2, the main
``.venv`` has a newer one)::

    python -m train.rllib_ppo --players 2 --iterations 3 --out runs/rllib_2p
    python -m train.rllib_ppo --players 4 --iterations 200 --out runs/rllib_4p --per-seat
    python -m train.rllib_ppo --players 2 --iterations 10 --out runs/rllib_2p \\
        --resume runs/rllib_2p/checkpoint                          # continues at iteration 4
    python -m train.rllib_ppo --players 2 --iterations 100 --out runs/rllib_2p \\
        --address HEAD_IP:6379 --env-runners 16                    # on a running Ray cluster
    meduris tournament --agents rllib:runs/rllib_2p/checkpoint,greedy --players 2

What it does:

* **Environment**: :class:`MedurisMultiAgentEnv`, an RLlib ``MultiAgentEnv`` over the engine
  (:class:`~meduris_env.engine.game.MedurisGame`). Agents are ``"player_0"`` ..
  ``"player_{n-1}"`` (the seats, 2-4 players); only the agent that must decide receives an
  observation, ``{"observations": the 1470-float vector of meduris_env.envs.observation scaled
  into [0, 1] by observation_high(max_turns), "action_mask": the 241 legal actions as 0/1
  float32}``. Chance (bonus chips R4, the die R7) is drawn from a ``random.Random`` seeded per
  episode with ``derive_seed``. At the end every seat gets a last observation and its reward,
  the ``"win"`` scheme of :mod:`meduris_env.envs.rewards` (winners share +1, losers -1); a game
  cut at ``max_turns`` is truncated (``__all__``) and pays nothing.
* **Algorithm**: :func:`build_config` returns a ``PPOConfig`` (new API stack) whose RLModule is
  RLlib's own ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes.
  action_masking_rlm``: illegal logits pushed to the float minimum), an MLP of two 256-unit
  layers. Self-play with one shared policy (module ``"shared"``, default) or one policy per
  seat (``--per-seat``: modules ``"player_0"`` ..). The learner runs in the driver process;
  ``--env-runners`` EnvRunner actors sample (default: one per CPU of the Ray cluster, so the
  sampling scales with the cluster).
* **Ray**: ``--address`` joins a running cluster (checked with a short TCP connect first);
  without it a local Ray is started and shut down at the end. Every node needs the project
  installed (``pip install -e '.[ray]'``): the EnvRunners import this module.
* **Checkpoints**: after every iteration ``out/checkpoint`` holds ``Algorithm.save_to_path``'s
  layout plus ``meduris.json`` (players, module per seat, iteration, env steps); it is written to
  a temporary folder in ``out`` and renamed into place. ``--resume CKPT`` rebuilds the algorithm
  (with this run's env runners) and restores it, so the iteration count and the env-step
  counters continue. ``out/progress.jsonl`` gets one line per iteration.
* **Playing**: ``agents.rllib.RLlibAgent`` (``rllib:<checkpoint>`` in ``meduris tournament``)
  loads the trained RLModule from the checkpoint with torch, no Ray cluster. Checkpoints are
  pickles: load only your own.

Options (``python -m train.rllib_ppo --help``):

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

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np

from agents.rllib import META_FILE, META_FORMAT, read_checkpoint_meta  # (checkpoint folders)
from agents.tournament import ray_address_problem
from meduris_env.engine.constants import NUM_ACTIONS
from meduris_env.engine.game import DEFAULT_MAX_TURNS, MedurisGame
from meduris_env.engine.loop import resolve_chance
from meduris_env.engine.seeding import STREAM_ACTION_SPACE, STREAM_ENV, derive_seed
from meduris_env.envs.observation import OBS_SIZE, observation_high, observation_vector
from meduris_env.envs.rewards import terminal_rewards
from meduris_env.envs.spaces import LegalActionSpace
from meduris_env.records.atomic import atomic_write, remove_results, unwritable_reason

try:
    import gymnasium as gym
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError:  # this module still imports (help, docs); using it names the fix
    gym = None

    class MultiAgentEnv:  # type: ignore[no-redef]
        def __init__(self, *args, **kwargs):
            raise RLlibError(RAY_MISSING)

SHARED = "shared"  # the module id of the one shared policy
RAY_MISSING = "RLlib training needs Ray: install the extra: pip install -e '.[ray]'"
HIDDEN = [256, 256]


class RLlibError(Exception):
    """An error the user can fix; the message names the fix."""


def agent_id(seat: int) -> str:
    return f"player_{seat}"


def module_ids(players: int, shared: bool = True) -> dict[str, str]:
    """Agent id -> RLModule id: everyone ``"shared"``, or each seat its own."""
    return {agent_id(s): SHARED if shared else agent_id(s) for s in range(players)}


# --- the environment ---------------------------------------------------------------------------
class MedurisMultiAgentEnv(MultiAgentEnv):
    """Meduris as an RLlib ``MultiAgentEnv`` over the engine; see the module docstring.

    ``config`` (RLlib's ``env_config``, an ``EnvContext`` or a dict): ``players`` (2), ``max_turns``
    (1000), ``exchange`` ("auto"), ``seed`` (0). The chance stream of episode ``e`` is
    ``random.Random(derive_seed(base, e))``, ``base`` derived from the seed and the EnvRunner's
    worker and vector index; ``reset(seed=s)`` restarts it from ``s``."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, config=None):
        super().__init__()
        context, config = config, dict(config or {})  # an EnvContext also names its runner
        self.num_players = int(config.get("players", 2))
        max_turns = config.get("max_turns", DEFAULT_MAX_TURNS)
        self.game = MedurisGame(self.num_players, exchange=config.get("exchange", "auto"),
                                max_turns=max_turns)
        self._scale = (1.0 / observation_high(self.game.max_turns)).astype(np.float32)
        self.agents = self.possible_agents = [agent_id(s) for s in range(self.num_players)]
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        })
        self.observation_spaces = {a: space for a in self.agents}
        worker = int(getattr(context, "worker_index", 0) or 0)
        vector = int(getattr(context, "vector_index", 0) or 0)
        self._base = derive_seed(int(config.get("seed", 0)), STREAM_ENV, worker, vector)
        # Discrete(241) whose unmasked sample() is legal (RLlib's env checker samples so)
        self.action_spaces = {
            agent_id(s): LegalActionSpace(NUM_ACTIONS, partial(self._legal_mask_of, s),
                                          seed=derive_seed(self._base, STREAM_ACTION_SPACE, s))
            for s in range(self.num_players)}
        self._episode = 0
        self._rng = random.Random(self._base)
        self.state = None

    def _legal_mask_of(self, seat: int) -> np.ndarray | None:
        if self.state is None or seat != self.state.current_player():
            return None
        return self.state.legal_action_mask()

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        """``seat``'s observation: the scaled vector and the legal-action mask (all zero unless
        ``seat`` is to move)."""
        vector = observation_vector(self.state, seat) * self._scale
        if seat == self.state.current_player():
            mask = self.state.legal_action_mask().astype(np.float32)
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.float32)
        return {"observations": vector, "action_mask": mask}

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._base, self._episode = derive_seed(int(seed)), 0
        self._rng = random.Random(derive_seed(self._base, self._episode))
        self._episode += 1
        self.state = self.game.new_initial_state()
        resolve_chance(self.state, self._rng)
        mover = self.state.current_player()
        return {agent_id(mover): self.observe(mover)}, {}

    def step(self, action_dict):
        mover = self.state.current_player()
        me = agent_id(mover)
        if set(action_dict) != {me}:
            raise ValueError(f"{me} must decide now; got actions for {sorted(action_dict)}")
        self.state.apply_action(int(action_dict[me]), mover)
        resolve_chance(self.state, self._rng)
        if not self.state.is_terminal():
            nxt = self.state.current_player()
            return ({agent_id(nxt): self.observe(nxt)}, {me: 0.0}, {"__all__": False},
                    {"__all__": False}, {})
        truncated = self.state.is_truncated()
        paid = np.zeros(self.num_players) if truncated else terminal_rewards(self.state, "win")
        winners = set(self.state.winners())
        scores = self.state.scores()
        obs = {agent_id(s): self.observe(s) for s in range(self.num_players)}
        rewards = {agent_id(s): float(paid[s]) for s in range(self.num_players)}
        infos = {agent_id(s): {"vp": int(scores[s]), "winner": s in winners}
                 for s in range(self.num_players)}
        return (obs, rewards, {"__all__": not truncated}, {"__all__": truncated}, infos)

    def render(self):
        return None if self.state is None else str(self.state)


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

    if players not in (2, 3, 4):
        raise RLlibError(f"--players {players}: Meduris has 2, 3 or 4 players (R1)")
    mapping = module_ids(players, shared)
    modules = sorted(set(mapping.values()))
    model = DefaultModelConfig(fcnet_hiddens=HIDDEN, fcnet_activation="tanh")
    spec = MultiRLModuleSpec(rl_module_specs={
        m: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)
        for m in modules})
    return (
        PPOConfig()
        .framework("torch")
        .environment(MedurisMultiAgentEnv, env_config={"players": players, "seed": seed,
                                                       "max_turns": max_turns})
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
        .debugging(seed=seed)
    )


# --- Ray and checkpoints -----------------------------------------------------------------------
def check_ray(address: str | None) -> None:
    """Before any work: Ray is installed, and a given cluster address answers a TCP connect."""
    if gym is None:
        raise RLlibError(RAY_MISSING)
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
    earlier = [name for name in ("checkpoint", "progress.jsonl") if (out / name).exists()]
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
    elif earlier and not force:
        raise RLlibError(f"--out {out} holds an earlier run's results ({', '.join(earlier)}); "
                         f"add --resume {out / 'checkpoint'} to continue it, --force to replace "
                         "it, or choose another folder")
    reason = unwritable_reason(out)
    if reason:
        raise RLlibError(f"--out {out}: cannot write there ({reason})")
    if resume is None:  # (--force) the earlier run goes now: the folder never mixes two runs
        remove_results(out, earlier)
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
            meta = {"format": META_FORMAT, "players": players, "shared": shared,
                    "modules": module_ids(players, shared), "max_turns": max_turns,
                    "seed": seed, "iteration": algo.iteration, "env_steps_sampled": steps,
                    "ray": ray.__version__}
            checkpoint = save_checkpoint(algo, out, meta)
            with open(out / "progress.jsonl", "a") as fh:
                fh.write(json.dumps(row) + "\n")
            if log is not None:
                log(row)
        return {"iterations": algo.iteration, "iterations_run": algo.iteration - first,
                "env_steps_sampled": steps, "env_steps_run": steps - steps0,
                "seconds": seconds,
                "env_steps_per_s": (steps - steps0) / seconds if seconds else 0.0,
                "checkpoint": str(checkpoint) if checkpoint else None, "players": players,
                "shared": shared, "env_runners": num_env_runners}
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()


# --- command line ------------------------------------------------------------------------------
def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.rllib_ppo",
                                description="Multi-agent PPO on Meduris with RLlib (new API "
                                            "stack, action masking, self-play).",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
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
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--train-batch", type=int, default=4000, help="env steps per iteration")
    p.add_argument("--minibatch", type=int, default=500)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS)
    p.add_argument("--json", action="store_true", help="print the final metrics as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    for name in ("iterations", "train_batch", "minibatch", "epochs"):
        if getattr(args, name) < 1:
            return _error(f"--{name.replace('_', '-')} {getattr(args, name)}: use at least 1")
    if args.env_runners is not None and args.env_runners < 0:
        return _error(f"--env-runners {args.env_runners}: use 0 or more")
    if not 0 <= args.seed < 2**31:
        return _error(f"--seed {args.seed}: use 0..{2**31 - 1}")
    if args.max_turns < 1:
        return _error(f"--max-turns {args.max_turns}: use at least 1")
    if not 0 < args.lr < 1:
        return _error(f"--lr {args.lr}: use a learning rate between 0 and 1")

    def log(row: dict) -> None:
        if not args.json:
            print(f"iteration {row['iteration']:4d}  env steps {row['env_steps_sampled']:9d}  "
                  f"{row['seconds']:7.1f} s", flush=True)

    try:
        metrics = train(args.players, args.iterations, args.out, args.env_runners, args.seed,
                        args.address, shared=not args.per_seat, resume=args.resume,
                        max_turns=args.max_turns, train_batch_size=args.train_batch,
                        minibatch_size=args.minibatch, num_epochs=args.epochs, lr=args.lr,
                        force=args.force, log=log)
    except RLlibError as err:
        return _error(str(err))
    if args.json:
        print(json.dumps(metrics))
    else:
        print(f"{metrics['iterations']} iterations, {metrics['env_steps_sampled']} env steps, "
              f"{metrics['env_steps_per_s']:.0f} env steps/s with {metrics['env_runners']} "
              f"env runner(s); checkpoint {metrics['checkpoint']}")
    return 0


def _error(message: str) -> int:
    print(f"meduris: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
