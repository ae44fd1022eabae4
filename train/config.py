"""Training configuration: defaults, an optional YAML file, then command-line flags on top.

Contract: every problem is one :class:`ConfigError` line naming the setting (values shown as a
short excerpt, never the file's content). The file is read by :func:`read_config_file`: at
most 1 MiB, no YAML aliases (the "billion laughs"), merge keys or duplicate keys, at most 32
levels deep, numbers of at most 4000 digits; ``3e-4`` is a float (YAML 1.2), as the docs write
it. Every value passes the
one type check :func:`checked_value` (integers strict: ``2048.7`` and ``true`` refused, numpy
ints accepted), then its range.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import game_spec, games
from meduris_rl.kit.jsonfile import clip, read_bounded
from meduris_rl.kit.values import SEED_MAX, ValueCheckError, check_float, check_int, excerpt


class ConfigError(InputError, ValueError):
    """A configuration file or value that cannot be used (the message says which and why)."""


class CheckpointError(InputError, ValueError):
    """A checkpoint to resume from that is missing, cannot be loaded or is not the trainer's
    (``meduris train``'s and ``meduris az-train``'s alike; the message says why)."""


@dataclass
class TrainConfig:
    # a game of the table of games (None: the default game); its row names its training parts
    # (Meduris's league on the batch engine; Druids': meduris_rl.train.druids.league)
    game: str | None = None
    # the game's own options (its row's: Meduris's exchange, Druids' circles, Stone Age's
    # mammoth_herd, every game's turn limit), the same for every game of the run: its training
    # games, evaluations, warm start; what is not given keeps the game's default. A text value
    # (a flag's, --option NAME=VALUE) is read as the command line reads it
    options: dict = field(default_factory=dict)
    players: int = 2
    steps: int = 2_000_000  # PPO environment steps (the learner's decisions)
    envs: int = 256  # games played at once by the batch engine
    threads: int = 2  # torch threads (the batch kernels use numba's, one per core)
    seed: int = 0
    features: str = "obs+greedy"  # see meduris_rl.agents.meduris.features
    reward: str = "win"
    # potential-based reward shaping by the evaluation (meduris_rl.train.meduris.league); 0: off
    shaping: float = 1.0
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
    # after PPO: a value network for best.pt (meduris_rl.train.meduris.value); 0: none
    value_positions: int = 0
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
    # "residual" (meduris_rl.agents.policies.network, needs obs+greedy) or "mlp"
    policy: str = "residual"
    out: str = "runs/ppo"

    def validate(self) -> TrainConfig:
        """Every setting of the right type and in its range, else ConfigError naming it."""
        if isinstance(self.bc_teacher, str) and self.bc_teacher.strip().lower() in ("", "none"):
            self.bc_teacher = None  # the flag's and the file's way to say: no warm start
        for f in fields(self):
            setattr(self, f.name, checked_value(f.name, getattr(self, f.name)))
        spec = game_spec(self.game, ConfigError)
        self.game = spec.name
        if not spec.has_part("train_env"):
            raise ConfigError(f"game: {spec.title} has no trainer (its row names no train_env)")
        spec.check_players(self.players, "players", ConfigError)
        self.options = game_options(spec, self.options)
        for name, part, off in (("bc_teacher", "warm_start", "null"),
                                ("value_positions", "value_network", "0")):
            if getattr(self, name) not in (None, 0) and not spec.has_part(part):
                users = " or ".join(row.title for row in games().values() if row.has_part(part))
                raise ConfigError(f"{name}: {excerpt(getattr(self, name))} is for {users} "
                                  f"runs; with game {spec.name!r} set it to {off}")
        if spec.has_part("train_check"):  # settings the game's runs cannot use
            spec.part("train_check")(self)
        FEATURE_SETS = spec.part("features")
        if self.features not in FEATURE_SETS:
            raise ConfigError(f"features: {excerpt(self.features)}; one of {list(FEATURE_SETS)}")
        if self.reward not in ("win", "score", "dense"):
            raise ConfigError(f"reward: {excerpt(self.reward)}; 'win', 'score' or 'dense'")
        if self.policy not in ("residual", "mlp"):
            raise ConfigError(f"policy: {excerpt(self.policy)}; 'residual' or 'mlp'")
        if self.policy == "residual" and self.features != "obs+greedy":
            raise ConfigError("policy 'residual' builds on the greedy inputs: use features "
                              "'obs+greedy' or policy 'mlp'")
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise ConfigError(f"{name}: {excerpt(value)}; must be in {low}..{high}")
        if not self.net_arch or not all(type(h) is int and 1 <= h <= 4096
                                        for h in self.net_arch):
            raise ConfigError(f"net_arch: {excerpt(self.net_arch)}; layer sizes 1..4096")
        if set(self.opponents) - {"greedy", "random", "snapshots"} or not all(
                isinstance(w, (int, float)) and not isinstance(w, bool) and 0 <= w < math.inf
                for w in self.opponents.values()) or not sum(self.opponents.values()) > 0:
            raise ConfigError(f"opponents: {excerpt(self.opponents)}; non-negative weights for "
                              "greedy, "
                              "random and/or snapshots, not all 0")
        check_memory(self, FEATURE_SETS[self.features], spec.num_actions)
        from meduris_rl.agents import UnknownAgentError, make_agent
        for name in ("bc_teacher", "best_against"):
            if getattr(self, name) is not None:
                try:  # before any work, not inside the workers
                    make_agent(getattr(self, name), game=self.game)
                except UnknownAgentError as err:
                    raise ConfigError(f"{name}: {err}") from None
        return self

    def to_dict(self) -> dict:
        return asdict(self)


def game_options(spec, options) -> dict:
    """``options`` checked by the game's row (:meth:`~meduris_rl.kit.games.GameSpec.read_options`,
    the game's options, not a seat's): a text value (``"4"`` from ``--option circles=4``,
    ``"on"``) is read as the command line reads it. Returns only the given options (the game
    keeps its defaults for the rest); an unknown name or a bad value is a ConfigError."""
    if not isinstance(options, dict):
        raise ConfigError(f"options: {excerpt(options)}; a mapping of the game's option names "
                          "to values (meduris games lists them)")
    return spec.read_options(options, ConfigError)


def machine_memory() -> int:
    """Bytes of memory of this machine (its physical memory; 16 GiB where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 16 << 30


def size_words(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}" if unit != "bytes" else f"{n:.0f} bytes"
        n /= 1024
    return f"{n:.3g} PiB"


def check_memory(cfg: TrainConfig, inputs: int, actions: int) -> None:
    """Refuse (one ConfigError, before anything is allocated) settings whose rollout buffer and
    network cannot fit in this machine's memory (:data:`MEMORY_SHARE` of it): the rollout
    holds ``envs x n_steps`` steps of the inputs and the action mask (float32, as MaskablePPO
    stores them) and a few numbers more; the network's weights count four times (weights,
    gradients and Adam's two moments), for the policy and the value net."""
    per_step = 4 * (inputs + actions) + 64
    rollout = cfg.envs * cfg.n_steps * per_step
    sizes = [inputs, *cfg.net_arch, actions]
    weights = 2 * sum(a * b + b for a, b in itertools.pairwise(sizes))
    network = 16 * weights
    have = MEMORY_SHARE * machine_memory()
    if rollout + network > have:
        bigger = (f"the network (net_arch, {weights:,} weights): {size_words(network)}"
                  if network > rollout else
                  f"the rollout buffer (envs {cfg.envs} x n_steps {cfg.n_steps}): "
                  f"{size_words(rollout)}")
        raise ConfigError(f"these settings need {size_words(rollout + network)} of memory, "
                          f"most for {bigger}; this machine has {size_words(machine_memory())}"
                          f" (at most {MEMORY_SHARE:.0%} is used): use fewer envs, a smaller "
                          "n_steps or a smaller net_arch")


MEMORY_SHARE = 0.8  # of the machine's memory a training run may plan to use
_INT, _NUM = (int,), (int, float)
_TYPES = {f: _INT for f in ("players", "steps", "envs", "threads", "seed", "snapshot_every",
                            "max_snapshots", "eval_every", "eval_games", "checkpoint_every",
                            "bc_games", "bc_epochs", "n_steps", "batch_size", "n_epochs",
                            "value_positions", "value_epochs", "best_against_games")}
_TYPES.update({f: _NUM for f in ("learning_rate", "gamma", "gae_lambda", "clip_range",
                                 "ent_coef", "shaping")})
_TYPES.update(game=(str, type(None)), options=(dict,), features=(str,), reward=(str,),
              policy=(str,), out=(str,), opponents=(dict,), net_arch=(list,),
              bc_teacher=(str, type(None)),
              best_against=(str,))


def checked_value(name: str, value):
    """The one type check of a setting, by :mod:`meduris_rl.kit.values` (the project's
    one checker): integers are Python or numpy ints, never bools nor floats such as 2048.7
    (refused rather than truncated); numbers are finite ints or
    floats (numpy's too; an int stays an int, as the run's checkpoint.json saves it); numpy
    scalars become Python ones. Else a ConfigError naming the setting with a short excerpt of
    the value."""
    kinds = _TYPES[name]
    try:
        if kinds == _INT:
            return check_int(name, value)  # its range: validate(), by _RANGES
        if kinds == _NUM:
            number = check_float(name, value)
            return value if type(value) is int else number
    except ValueCheckError as err:
        raise ConfigError(str(err)) from None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kinds):
        names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
        raise ConfigError(f"{name}: {excerpt(value)} is not {names}")
    return value


# what makes sense on this kind of machine (counts) and for PPO (rates)
_RANGES = {"steps": (1, 10**10), "envs": (1, 65_536), "threads": (1, 256), "seed": (0, SEED_MAX),
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
        raise ConfigError(f"{name}: {excerpt(getattr(cfg, name))} given, but a resumed run "
                          f"keeps its own ({excerpt(getattr(kept, name))}); on --resume only "
                          f"{', '.join(RESUMABLE)} may change: start a new run to change it")
    return cfg


def load_config(path: str | Path | None, overrides: dict,
                base: dict | None = None) -> TrainConfig:
    """Defaults (or ``base``), then the YAML file's keys, then ``overrides`` (flags given on
    the command line)."""
    values: dict = dict(base or {})
    if path is not None:
        loaded = read_config_file(path)
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError(f"config {path}: expected a mapping of settings (is it a "
                              "training config?)")
        values.update(loaded or {})
    given = {k: v for k, v in overrides.items() if v is not None}
    if isinstance(given.get("options"), dict) and isinstance(values.get("options"), dict):
        given["options"] = {**values["options"], **given["options"]}  # (flags over the file)
    values.update(given)
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted((k for k in values if k not in known), key=str)
    if unknown:
        raise ConfigError(_unknown_message(unknown, known))
    try:
        return TrainConfig(**values).validate()
    except TypeError as err:
        raise ConfigError(clip(str(err), 120)) from None


def _unknown_message(unknown: list, known: set) -> str:
    """One short line: the first few unknown keys (cut short), a near known name if any."""
    import difflib

    shown = ", ".join(k if isinstance(k, str) and len(k) <= 24 else clip(excerpt(k), 20)
                      for k in unknown[:3])
    more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
    near = difflib.get_close_matches(str(unknown[0])[:40], sorted(known), n=1)
    hint = f"did you mean {near[0]!r}? " if near else ""
    return (f"unknown setting(s) {shown}{more}; {hint}the settings are the flags of "
            "'meduris train --help' (with _ for -)")


MAX_CONFIG_BYTES = 1024 * 1024  # a config is a screenful of settings
MAX_CONFIG_DEPTH = 32  # levels of nesting (the deepest setting, opponents, needs 3)
MAX_NUMBER_DIGITS = 4000  # digits of a number (Python refuses ints of more than 4300)
_MERGE_TAG = "tag:yaml.org,2002:merge"
#: YAML 1.2's floats with an exponent and no point (``3e-4``, ``1E5``), which PyYAML (YAML 1.1)
#: reads as strings; the forms with a point (``3.0e-4``, ``0.0003``) are YAML 1.1 floats already
_EXPONENT_FLOAT = r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"


def read_config_file(path: str | Path):
    """The YAML document of a config file, read safely: a regular file of at most
    :data:`MAX_CONFIG_BYTES` (the one bounded reader,
    :func:`meduris_rl.kit.jsonfile.read_bounded`: a folder, a device or a FIFO is refused
    before it is opened, and no more than the bound is ever read), no aliases (``*name``: the
    "billion laughs" expansion), no merge keys (``<<``), no duplicate keys, at most
    :data:`MAX_CONFIG_DEPTH` levels of nesting and :data:`MAX_NUMBER_DIGITS` digits in a number,
    and a ConfigError naming only a line and column for a file that is not YAML (never its
    content). Numbers such as ``3e-4`` are floats (YAML 1.2's form, :data:`_EXPONENT_FLOAT`)."""
    import yaml

    path = Path(path)
    data = read_bounded(path, ConfigError, "config", MAX_CONFIG_BYTES,
                        " for a config (is it a training config?)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"config {path} is not a YAML text file (not UTF-8); give a "
                          "training config such as train/configs/*.yaml") from None
    try:
        return yaml.load(text, Loader=_strict_loader())  # noqa: S506 (a SafeLoader)
    except ConfigError as err:  # the loader's own refusals, below
        raise ConfigError(f"config {path}: {err}") from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = clip(err.problem or err.context or "")
        raise ConfigError(f"config {path} is not valid YAML ({where}{problem})") from None
    except RecursionError:  # (the loader's depth bound comes first; this is a safety net)
        raise ConfigError(f"config {path}: nested too deeply (a config is a mapping of "
                          "settings)") from None
    except (yaml.YAMLError, ValueError) as err:
        raise ConfigError(f"config {path} is not valid YAML "
                          f"({clip(str(err))})") from None


def _line(node) -> str:
    return f"line {node.start_mark.line + 1}"


def _strict_loader():
    import re

    import yaml

    class Loader(yaml.SafeLoader):
        """SafeLoader that refuses aliases, merge keys, duplicate keys, deep nesting and
        numbers of too many digits (each a ConfigError), and reads ``3e-4`` as a float."""

        depth = 0

        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark
                raise ConfigError(f"line {mark.line + 1}: aliases (*name) are not "
                                  "allowed in a config; write the value out")
            if self.depth >= MAX_CONFIG_DEPTH:
                mark = self.peek_event().start_mark
                raise ConfigError(f"line {mark.line + 1}: nested more than {MAX_CONFIG_DEPTH} "
                                  "levels deep (a config is a mapping of settings)")
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    raise ConfigError(f"{_line(key_node)}: merge keys (<<) are not supported "
                                      "in a config; write the settings out")
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:
                    raise ConfigError(f"{_line(key_node)}: a key must be a name") from None
                if duplicate:
                    raise ConfigError(f"{_line(key_node)}: {excerpt(key)} is given twice; "
                                      "keep one")
            return super().construct_mapping(node, deep)

        def construct_number(self, node):
            digits = sum(c.isalnum() for c in self.construct_scalar(node))
            if digits > MAX_NUMBER_DIGITS:
                raise ConfigError(f"{_line(node)}: a number of {digits:,} digits, more than "
                                  f"the {MAX_NUMBER_DIGITS} a setting may have")
            if node.tag.endswith(":int"):
                return self.construct_yaml_int(node)
            return self.construct_yaml_float(node)

    for tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        Loader.add_constructor(tag, Loader.construct_number)
    Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(_EXPONENT_FLOAT),
                                 list("-+0123456789."))
    return Loader
