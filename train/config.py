"""Training configuration: defaults, an optional YAML file, then command-line flags on top."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path


class ConfigError(ValueError):
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
    opponents: dict = field(default_factory=lambda: {"greedy": 0.4, "random": 0.05,
                                                     "snapshots": 0.55})
    snapshot_every: int = 200_000
    max_snapshots: int = 5
    eval_every: int = 200_000
    eval_games: int = 200  # against greedy, on the batch engine
    checkpoint_every: int = 200_000
    bc_teacher: str | None = None  # behaviour-cloning warm start (e.g. "mcts:50"); None: none
    bc_games: int = 300
    bc_epochs: int = 8
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
        if isinstance(self.bc_teacher, str) and self.bc_teacher.strip().lower() in ("", "none"):
            self.bc_teacher = None  # the flag's and the file's way to say: no warm start
        if self.players not in (2, 3, 4):
            raise ConfigError(f"players: {self.players}; Meduris is played by 2, 3 or 4 (R1)")
        from agents.features import FEATURE_SETS
        if self.features not in FEATURE_SETS:
            raise ConfigError(f"features: {self.features!r}; one of {list(FEATURE_SETS)}")
        if self.policy not in ("residual", "mlp"):
            raise ConfigError(f"policy: {self.policy!r}; 'residual' or 'mlp'")
        if self.policy == "residual" and self.features != "obs+greedy":
            raise ConfigError("policy 'residual' builds on the greedy inputs: use features "
                              "'obs+greedy' or policy 'mlp'")
        for name in ("steps", "envs", "threads", "n_steps", "batch_size", "n_epochs",
                     "eval_games"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name}: {getattr(self, name)}; must be at least 1")
        if not self.opponents or any(w < 0 for w in self.opponents.values()):
            raise ConfigError(f"opponents: {self.opponents}; give non-negative weights for "
                              "greedy, random and/or snapshots")
        return self

    def to_dict(self) -> dict:
        return asdict(self)


def load_config(path: str | Path | None, overrides: dict) -> TrainConfig:
    """Defaults, then the YAML file's keys, then ``overrides`` (flags given on the command line)."""
    values: dict = {}
    if path is not None:
        import yaml
        try:
            loaded = yaml.safe_load(Path(path).read_text())
        except OSError as err:
            raise ConfigError(f"cannot read config {path}: {err.strerror}") from None
        except yaml.YAMLError as err:
            raise ConfigError(f"config {path} is not valid YAML: {err}") from None
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
