"""Training configuration: defaults, an optional YAML file, then command-line flags on top."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from meduris_env.engine.errors import MedurisError
from meduris_env.engine.game import PLAYER_COUNTS


class ConfigError(MedurisError, ValueError):
    """A configuration file or value that cannot be used (the message says which and why)."""


@dataclass
class TrainConfig:
    players: int = 2
    steps: int = 2_000_000  # PPO environment steps (the learner's decisions)
    envs: int = 256  # games played at once by the batch engine
    threads: int = 2  # torch threads (the batch kernels use numba's, one per core)
    seed: int = 0
    features: str = "obs+greedy"  # see agents.features
    reward: str = "win"
    shaping: float = 1.0  # potential-based reward shaping by the evaluation (train.league); 0: off
    opponents: dict = field(default_factory=lambda: {"greedy": 0.4, "random": 0.05,
                                                     "snapshots": 0.55})
    snapshot_every: int = 200_000
    max_snapshots: int = 5
    eval_every: int = 200_000
    eval_games: int = 200  # against greedy, on the batch engine
    # best.pt is the policy of the best evaluation against this agent: "greedy" (the batch
    # evaluation above), or any other agent (e.g. "mcts:100"), then best_against_games
    # tournament games at every evaluation, seats rotated (the other seats greedy)
    best_against: str = "greedy"
    best_against_games: int = 100
    checkpoint_every: int = 200_000
    bc_teacher: str | None = None  # behaviour-cloning warm start (e.g. "mcts:50"); None: none
    bc_games: int = 300
    bc_epochs: int = 8
    value_positions: int = 0  # after PPO: a value network for best.pt (train.value); 0: none
    value_epochs: int = 4
    learning_rate: float = 1e-4
    n_steps: int = 64  # per game, per rollout (a rollout is envs x n_steps steps)
    batch_size: int = 4096
    n_epochs: int = 2  # passes over each rollout (the updates are most of a step's cost)
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.1
    ent_coef: float = 0.003
    net_arch: list = field(default_factory=lambda: [256])  # residual: hidden units; mlp: layers
    policy: str = "residual"  # "residual" (agents.network, needs obs+greedy) or "mlp"
    out: str = "runs/ppo"

    def validate(self) -> TrainConfig:
        """Every setting of the right type and in its range, else ConfigError naming it."""
        if isinstance(self.bc_teacher, str) and self.bc_teacher.strip().lower() in ("", "none"):
            self.bc_teacher = None  # the flag's and the file's way to say: no warm start
        for f in fields(self):
            value = getattr(self, f.name)
            kinds = _TYPES[f.name]
            if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
                names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
                raise ConfigError(f"{f.name}: {value!r} is not {names}")
            if isinstance(value, float) and not math.isfinite(value):
                raise ConfigError(f"{f.name}: {value!r} must be a finite number")
        if self.players not in PLAYER_COUNTS:
            raise ConfigError(f"players: {self.players}; Meduris is played by 2, 3 or 4 (R1)")
        from agents.features import FEATURE_SETS
        if self.features not in FEATURE_SETS:
            raise ConfigError(f"features: {self.features!r}; one of {list(FEATURE_SETS)}")
        if self.reward not in ("win", "score", "dense"):
            raise ConfigError(f"reward: {self.reward!r}; 'win', 'score' or 'dense'")
        if self.policy not in ("residual", "mlp"):
            raise ConfigError(f"policy: {self.policy!r}; 'residual' or 'mlp'")
        if self.policy == "residual" and self.features != "obs+greedy":
            raise ConfigError("policy 'residual' builds on the greedy inputs: use features "
                              "'obs+greedy' or policy 'mlp'")
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise ConfigError(f"{name}: {value}; must be in {low}..{high}")
        if not self.net_arch or not all(type(h) is int and 1 <= h <= 4096
                                        for h in self.net_arch):
            raise ConfigError(f"net_arch: {self.net_arch!r}; layer sizes 1..4096")
        if set(self.opponents) - {"greedy", "random", "snapshots"} or not all(
                isinstance(w, (int, float)) and not isinstance(w, bool) and 0 <= w < math.inf
                for w in self.opponents.values()) or not sum(self.opponents.values()) > 0:
            raise ConfigError(f"opponents: {self.opponents}; non-negative weights for greedy, "
                              "random and/or snapshots, not all 0")
        from agents import UnknownAgentError, make_agent
        for name in ("bc_teacher", "best_against"):
            if getattr(self, name) is not None:
                try:
                    make_agent(getattr(self, name))  # before any work, not inside the workers
                except UnknownAgentError as err:
                    raise ConfigError(f"{name}: {err}") from None
        return self

    def to_dict(self) -> dict:
        return asdict(self)


_INT, _NUM = (int,), (int, float)
_TYPES = {f: _INT for f in ("players", "steps", "envs", "threads", "seed", "snapshot_every",
                            "max_snapshots", "eval_every", "eval_games", "checkpoint_every",
                            "bc_games", "bc_epochs", "n_steps", "batch_size", "n_epochs",
                            "value_positions", "value_epochs", "best_against_games")}
_TYPES.update({f: _NUM for f in ("learning_rate", "gamma", "gae_lambda", "clip_range",
                                 "ent_coef", "shaping")})
_TYPES.update(features=(str,), reward=(str,), policy=(str,), out=(str,), opponents=(dict,),
              net_arch=(list,), bc_teacher=(str, type(None)), best_against=(str,))
# what makes sense on this kind of machine (counts) and for PPO (rates)
_RANGES = {"steps": (1, 10**10), "envs": (1, 65_536), "threads": (1, 256), "seed": (0, 2**63 - 1),
           "snapshot_every": (1, 10**10), "max_snapshots": (1, 100),
           "eval_every": (1, 10**10), "eval_games": (1, 100_000),
           "best_against_games": (1, 100_000),
           "checkpoint_every": (1, 10**10), "bc_games": (1, 1_000_000), "bc_epochs": (1, 1000),
           "value_positions": (0, 100_000_000), "value_epochs": (1, 1000),
           "n_steps": (1, 100_000), "batch_size": (1, 10**7), "n_epochs": (1, 1000),
           "learning_rate": (0.0, 1.0), "gamma": (0.0, 1.0), "gae_lambda": (0.0, 1.0),
           "clip_range": (0.0, 10.0), "ent_coef": (0.0, 10.0), "shaping": (0.0, 10.0)}


# what a resumed run may change: the length of the run and how often it looks at itself; the
# rest (the game, the network, PPO's settings, which the checkpoint's model keeps) is the run's
RESUMABLE = ("steps", "threads", "eval_every", "eval_games", "best_against_games",
             "checkpoint_every", "snapshot_every", "value_positions", "value_epochs")


def resume_config(saved: dict, folder: str | Path, path: str | Path | None,
                  overrides: dict) -> TrainConfig:
    """The configuration of a resumed run: the run's own (``saved``, from its checkpoint in
    ``folder``), then the YAML file and ``overrides`` as in :func:`load_config`, which may
    change only :data:`RESUMABLE` settings (another value of any other is refused, not
    ignored). The run stays in its folder."""
    if not isinstance(saved, dict):
        raise ConfigError("the checkpoint's checkpoint.json holds no configuration")
    folder = Path(folder)
    out = overrides.get("out")
    if out is not None and Path(out).resolve() != folder.resolve():
        raise ConfigError(f"--out {out}: a resumed run stays in its own folder "
                          f"({folder}); leave --out out, or start a new run there")
    cfg = load_config(path, {**overrides, "out": str(folder)}, base=saved)
    kept = TrainConfig(**{**saved, "out": str(folder)}).validate()
    changed = [f.name for f in fields(TrainConfig) if f.name not in RESUMABLE
               and getattr(cfg, f.name) != getattr(kept, f.name)]
    if changed:
        name = changed[0]
        raise ConfigError(f"{name}: {getattr(cfg, name)!r} given, but a resumed run keeps its "
                          f"own ({getattr(kept, name)!r}); on --resume only "
                          f"{', '.join(RESUMABLE)} may change: start a new run to change it")
    return cfg


def load_config(path: str | Path | None, overrides: dict,
                base: dict | None = None) -> TrainConfig:
    """Defaults (or ``base``), then the YAML file's keys, then ``overrides`` (flags given on
    the command line)."""
    values: dict = dict(base or {})
    if path is not None:
        import yaml
        try:
            loaded = yaml.safe_load(Path(path).read_text())
        except OSError as err:
            raise ConfigError(f"cannot read config {path}: {err.strerror}") from None
        except (yaml.YAMLError, UnicodeDecodeError) as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ConfigError(f"config {path} is not valid YAML ({first})") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError(f"config {path}: expected a mapping of settings")
        values.update(loaded or {})
    values.update({k: v for k, v in overrides.items() if v is not None})
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(f"unknown setting(s) {', '.join(unknown)}; "
                          f"known: {', '.join(sorted(known))}")
    try:
        return TrainConfig(**values).validate()
    except TypeError as err:
        raise ConfigError(str(err)) from None
