"""The "greedy residual" policy network: the greedy agent's judgement plus a learned correction.

With the ``obs+greedy`` features (:mod:`meduris_rl.agents.meduris.features`) the last 241 inputs are
the greedy evaluation of every action relative to the best one. The features extractor passes them
through beside an MLP of the whole input; the action head is initialised to ``GREEDY_LOGIT_SCALE`` x
those 241 inputs and zero for the MLP part, so the untrained policy already plays like the greedy
agent (its most probable action is greedy's choice) and training learns where to depart from it. The
value head sits on the same features.

**Policy files** hold weights only: ``torch.save`` of a dict with ``format``, ``version``, the
``architecture`` (plain JSON-able values: the kind of network, its input size, its layer sizes)
and the ``state_dict`` tensors, loaded with ``torch.load(weights_only=True)``, so loading a policy
file someone else made cannot run code. The network is rebuilt from the architecture by
:func:`build_policy`; only the kinds named in :data:`KINDS` exist.

A policy file may also carry a **value network** (``value_network``: its ``architecture``, the
inputs and hidden layer sizes, and its ``state_dict``): an MLP from the same inputs to the result
of the game for the seat to move, in [-1, 1], trained on the policy's own games
(:mod:`meduris_rl.train.meduris.value`); the ``az`` search scores its leaves with it
(:func:`load_value_network`). Files without one are policies as before. The value network may be **a
mean of several** (:class:`ValueMean`; its architecture lists its ``members``): networks fitted to
different games err differently, and their mean judges a search's positions better than any of them
(docs/training.md).

**Checked at load**: a file torch cannot load is refused in one line saying why in this
project's words (not a torch file, an empty file, a damaged zip, objects other than weights:
:func:`unloadable_reason`), never torch's internal message; every tensor of the file (the policy's
and the value network's) is finite: a NaN or infinite weight is refused with one line naming
the file (it would crash a game or, in search, play silently badly). **The player count** a
policy was trained for is the architecture's ``players`` (2, 3 or 4; written by ``meduris
train`` since issue 31). Older files have none: one named like the shipped ones
(``ppo_<n>p.pt``) counts as trained for ``n`` players, any other as trained for an unknown
count (``players`` None: playable in any game, with a one-line warning on stderr, once per
file). :func:`check_players` refuses a policy in a game of another player count (and
``meduris distill`` a student of another count than its ``--players``). **Outputs checked at
load**: the networks are run once on fixed inputs (:func:`check_outputs`); NaN, inf or
absurdly large logits or values (finite weights whose sums overflow) are refused in one line
too.
"""

from __future__ import annotations

import copy
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import game_spec

GREEDY_LOGIT_SCALE = 20.0  # logits per unit of relative value (1 VP-equivalent = 2 logits)


class GreedyResidualExtractor(BaseFeaturesExtractor):
    """An MLP of the whole input beside the last ``actions`` inputs (the greedy evaluation of
    each of the game's actions) passed through."""

    def __init__(self, observation_space: spaces.Box, hidden: int, actions: int):
        super().__init__(observation_space, features_dim=hidden + actions)
        n = int(observation_space.shape[0])
        self.mlp = nn.Sequential(nn.Linear(n, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU())
        self.hidden = hidden
        self.actions = actions

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.mlp(x), x[:, -self.actions:]], dim=1)


KINDS = ("residual", "mlp")


def game_actions(game: str | None) -> int:
    """The number of distinct actions of ``game`` (the policy's action space)."""
    return game_spec(game).num_actions
POLICY_FORMAT = "meduris-policy"
POLICY_VERSION = 1


class PolicyFileError(InputError, ValueError):
    """A policy file that is not a weights-only Meduris policy (the message says why)."""


def architecture(kind: str, inputs: int, net_arch: list[int], players: int | None = None,
                 game: str | None = None) -> dict:
    """The description of a policy network that a policy file carries: ``kind`` ("residual":
    the greedy-residual network with ``net_arch[0]`` hidden units; "mlp": sb3's MLP with
    ``net_arch`` layers), ``inputs`` (the feature vector's length), when known ``players``
    (the player count it was trained for) and ``game`` (None: the default game), written only
    for a game other than the default one (files without it, the shipped Meduris policies
    among them, are the default game's)."""
    if kind not in KINDS:
        raise ValueError(f"policy kind {kind!r}; one of {KINDS}")
    row = game_spec(game, ValueError)
    arch = {"kind": kind, "inputs": int(inputs), "net_arch": [int(h) for h in net_arch]}
    if not row.default:
        arch["game"] = row.name
    if players is not None:
        arch["players"] = row.check_players(players, "players", ValueError)
    return arch


def game_of(arch: dict) -> str:
    """The game a policy is for (files without ``game`` are the default game's)."""
    return game_spec(arch.get("game")).name


def check_game(arch: dict, path, game: str | None) -> None:
    """PolicyFileError unless the policy in ``path`` plays ``game``."""
    want, have = game_spec(game), game_spec(game_of(arch))
    if have.name != want.name:
        raise PolicyFileError(f"{path} is a {have.title} policy: it cannot play {want.title}; "
                              f"use one trained with `meduris train --game {want.name}`")


SHIPPED_NAME = re.compile(r"ppo_([234])p\.pt")


def players_of(arch: dict, path) -> int | None:
    """The player count a policy was trained for: its architecture's ``players``, else for a
    file named like the shipped ones (``ppo_<n>p.pt``) ``n``, else None (unknown)."""
    if arch.get("players") is not None:
        return arch["players"]
    named = SHIPPED_NAME.fullmatch(Path(path).name)
    return int(named.group(1)) if named else None


#: files whose unknown player count was warned about in this process; "quiet": none are
#: (a tournament's worker processes, whose parent warned: :func:`quiet_player_warnings`)
PLAYER_WARNINGS: dict = {"warned": set(), "quiet": False}


def quiet_player_warnings() -> None:
    """No warnings about unknown player counts in this process (a worker of a tournament)."""
    PLAYER_WARNINGS["quiet"] = True


def warn_unknown_players(path, players: int) -> None:
    """One line on stderr, once per file and process, that the policy in ``path`` records no
    player count, so nothing checks that it was trained for this ``players``-player game."""
    key = str(Path(path).resolve())
    if PLAYER_WARNINGS["quiet"] or key in PLAYER_WARNINGS["warned"]:
        return
    PLAYER_WARNINGS["warned"].add(key)
    print(f"meduris: warning: {path} records no player count: nothing checks that it was "
          f"trained for {players} players (policy files of `meduris train` record it)",
          file=sys.stderr, flush=True)


def check_players(arch: dict, path, players: int) -> None:
    """PolicyFileError unless the policy in ``path`` (architecture ``arch``) may play a game of
    ``players`` (its player count is that one or unknown: then a one-line warning,
    :func:`warn_unknown_players`)."""
    trained = players_of(arch, path)
    if trained is None:
        warn_unknown_players(path, players)
    if trained is not None and trained != players:
        raise PolicyFileError(f"{path} is a {trained}-player policy: it cannot play a "
                              f"{players}-player game; use one trained for {players} players "
                              f"(e.g. agents/models/ppo_{players}p.pt)")


def check_finite(state_dict, path, what: str = "policy") -> None:
    """PolicyFileError naming ``path`` when a tensor of ``state_dict`` holds NaN or inf."""
    for key, value in state_dict.items():
        if torch.is_tensor(value) and value.is_floating_point() and not bool(
                torch.isfinite(value).all()):
            raise PolicyFileError(f"{path}: its {what} weights are not all finite (NaN or inf "
                                  f"in {key!r}); retrain or use another policy file")


PROBE_ROWS = 4  # fixed inputs a policy file is tried on at load: zeros, ones, two random rows
#: the largest logit or value a sane network computes on them (trained ones: tens); sb3's
#: action mask sets illegal logits to -1e8, so a legal one below that would lose to them
MAX_OUTPUT = 1e6


def probe_inputs(inputs: int) -> np.ndarray:
    """The fixed inputs (float32 (PROBE_ROWS, inputs), in [-1, 1] as the features are) a
    loaded network is run on once: all zeros, all ones, and two random rows of seed 0."""
    rows = np.random.default_rng(0).uniform(-1.0, 1.0, (PROBE_ROWS - 2, inputs))
    return np.concatenate([np.zeros((1, inputs)), np.ones((1, inputs)), rows]).astype(
        np.float32)


def check_outputs(policy, path, value_network=None) -> None:
    """PolicyFileError naming ``path`` when the policy's logits or values (or the value
    network's values) on :func:`probe_inputs` are not all finite and within
    :data:`MAX_OUTPUT`: finite weights so large that the sums overflow (a first layer scaled
    by 1e38, say) would otherwise play illegal actions or search in silence."""
    if value_network is None:
        what = "policy"
        outputs = policy_outputs(policy, probe_inputs(policy.observation_space.shape[0]))
    else:
        what = "value network"
        with torch.no_grad():
            x = torch.as_tensor(probe_inputs(value_network.architecture["inputs"]))
            outputs = (value_network(x).numpy(),)
    if not all(np.isfinite(o).all() and np.abs(o).max() <= MAX_OUTPUT for o in outputs):
        raise PolicyFileError(f"{path}: its {what} computes NaN, inf or numbers beyond "
                              f"{MAX_OUTPUT:g} from ordinary inputs (its weights are so large "
                              "that the sums overflow); retrain or use another policy file")


def policy_kwargs(arch: dict) -> dict:
    """sb3's ``policy_kwargs`` for an architecture."""
    if arch["kind"] == "residual":
        return residual_policy_kwargs(arch["net_arch"][0], game_actions(game_of(arch)))
    return {"net_arch": list(arch["net_arch"])}


def build_policy(arch: dict):
    """An untrained MaskableActorCriticPolicy of this architecture (inputs in [-1, 1])."""
    import numpy as np
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    observation_space = spaces.Box(-1.0, 1.0, (arch["inputs"],), dtype=np.float32)
    return MaskableActorCriticPolicy(observation_space,
                                     spaces.Discrete(game_actions(game_of(arch))),
                                     lambda _: 0.0, **policy_kwargs(arch))


def save_policy(policy, arch: dict, path, value_network=None) -> None:
    """Write ``policy``'s weights and ``arch`` as a policy file (temporary file, then rename),
    with ``value_network`` (a module from :func:`build_value`) beside them if given."""
    from meduris_rl.kit.atomic import atomic_replace

    doc = {"format": POLICY_FORMAT, "version": POLICY_VERSION, "architecture": arch,
           "state_dict": {k: v.detach().cpu() for k, v in policy.state_dict().items()}}
    if value_network is not None:
        doc["value_network"] = {"architecture": value_network.architecture,
                                "state_dict": {k: v.detach().cpu() for k, v in
                                               value_network.state_dict().items()}}
    atomic_replace(path, lambda tmp: torch.save(doc, tmp))


def unloadable_reason(path, err: Exception) -> str:
    """Why torch could not load the file at ``path`` (``err``: its exception), in the project's
    words: torch's own texts name its internals (``list index out of range``, a miniz error,
    terminal escapes), not the file."""
    try:  # (torch's own OSErrors, "Invalid argument", are about a file cut short: read it)
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as read_err:
        return f"cannot be read: {read_err.strerror or type(read_err).__name__}"
    if not head:
        return "an empty file"
    if head != b"PK\x03\x04":  # every policy file is torch's zip format
        return "not a torch file"
    if "weights only" in str(err).lower():
        return "it holds objects other than tensors and plain values: refused, not run"
    return "a zip file, but not a whole torch file: damaged, cut short or another kind of zip"


def _read_policy_file(path) -> dict:
    """The checked top level of a policy file (format and version)."""
    try:
        with warnings.catch_warnings():  # (torch warns in several lines about a pickle's
            warnings.simplefilter("ignore", UserWarning)  # protocol before refusing it)
            doc = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises UnpicklingError, RuntimeError, EOFError, ...
        raise PolicyFileError(f"{path} is not a weights-only policy file "
                              f"({unloadable_reason(path, err)})") from None
    if not isinstance(doc, dict) or doc.get("format") != POLICY_FORMAT:
        raise PolicyFileError(f"{path} is not a Meduris policy file (no format "
                              f"{POLICY_FORMAT!r}); policy files come from `meduris train`")
    if doc.get("version") != POLICY_VERSION:
        raise PolicyFileError(f"{path}: policy file version {doc.get('version')!r} is not "
                              f"supported (expected {POLICY_VERSION})")
    return doc


def value_module(inputs: int, hidden: list[int]) -> nn.Sequential:
    """The value network: ``inputs`` -> ReLU layers of ``hidden`` sizes -> one tanh output
    (the result for the seat to move, -1 loss .. 1 win). Its ``architecture`` attribute is
    what a policy file stores."""
    if not hidden or not all(type(h) is int and 1 <= h <= 4096 for h in hidden) or not (
            type(inputs) is int and inputs >= 1):
        raise ValueError(f"value network: inputs {inputs!r}, hidden layers {hidden!r}")
    layers: list[nn.Module] = []
    width = inputs
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    net = nn.Sequential(*layers, nn.Linear(width, 1), nn.Tanh())
    net.architecture = {"inputs": int(inputs), "hidden": [int(h) for h in hidden]}
    return net


MAX_VALUE_MEMBERS = 16  # value networks a mean may hold


class ValueMean(nn.Module):
    """Value networks judging together: their mean value (module docstring). Means given as
    members are flattened; every member takes the same inputs."""

    def __init__(self, members: list[nn.Module]):
        super().__init__()
        flat = [n for m in members for n in (m.members if isinstance(m, ValueMean) else [m])]
        inputs = {m.architecture["inputs"] for m in flat}
        if not 2 <= len(flat) <= MAX_VALUE_MEMBERS or len(inputs) != 1:
            raise ValueError(f"a mean of value networks: 2..{MAX_VALUE_MEMBERS} networks of the "
                             f"same inputs, got {len(flat)} of inputs {sorted(inputs)}")
        self.members = nn.ModuleList(flat)
        self.architecture = {"inputs": inputs.pop(), "members": [m.architecture for m in flat]}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([m(x) for m in self.members]).mean(dim=0)


def build_value(arch: dict) -> nn.Module:
    """The value network an ``architecture`` (as a policy file stores it) describes: one
    :func:`value_module`, or a :class:`ValueMean` of its ``members``."""
    if "members" not in arch:
        return value_module(arch["inputs"], arch["hidden"])
    members = arch["members"]
    if not isinstance(members, list) or len(members) > MAX_VALUE_MEMBERS:
        raise ValueError(f"members: a list of at most {MAX_VALUE_MEMBERS} value networks")
    net = ValueMean([value_module(m["inputs"], m["hidden"]) for m in members])
    if net.architecture["inputs"] != arch["inputs"]:
        raise ValueError(f"inputs {arch['inputs']!r}, its members' {net.architecture['inputs']}")
    return net


def input_layer(h: np.ndarray, w: np.ndarray, b: np.ndarray, sparse: bool,
                used: np.ndarray | None = None) -> np.ndarray:
    """``h @ w + b``; when ``sparse``, over the columns of ``h`` that are not all zero only
    (the rows of ``w`` they meet; ``used``: those columns, if known): the same sums but for
    float rounding."""
    if not sparse:
        return h @ w + b
    if used is None:
        used = np.flatnonzero(h.any(axis=0))
    return h[:, used] @ w[used] + b


class NumpyValue:
    """A value network's forward pass in numpy (for search: one position at a time); with
    ``sparse_inputs`` its input layer as :class:`NumpyForward`'s. A :class:`ValueMean`'s is the
    mean of its members'."""

    def __init__(self, module: nn.Module, sparse_inputs: bool = False):
        self.architecture = module.architecture
        self.sparse_inputs = sparse_inputs
        members = module.members if isinstance(module, ValueMean) else [module]
        self.members = [[(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
                         for m in member if isinstance(m, nn.Linear)] for member in members]

    def with_sparse_inputs(self) -> NumpyValue:
        """The same network (its weights shared) with a sparse input layer."""
        twin = copy.copy(self)
        twin.sparse_inputs = True
        return twin

    def __call__(self, x) -> np.ndarray:
        """The values of a batch of inputs (k, inputs): an array (k,)."""
        h = np.asarray(x, dtype=np.float32)
        used = np.flatnonzero(h.any(axis=0)) if self.sparse_inputs else None
        values = [self._member(layers, h, used) for layers in self.members]
        return values[0] if len(values) == 1 else np.mean(values, axis=0)

    def _member(self, layers, h: np.ndarray, used) -> np.ndarray:
        """One member's values (``used``: the inputs that are not all zero, when sparse)."""
        last = len(layers) - 1
        for i, (w, b) in enumerate(layers):
            h = input_layer(h, w, b, self.sparse_inputs and i == 0, used)
            h = np.maximum(h, 0.0) if i < last else np.tanh(h)
        return h[:, 0]


#: what building a network from a file's architecture and loading its weights raise when the two
#: do not fit (a missing or mistyped field, a tensor of another shape)
_MISFIT = (KeyError, TypeError, ValueError, RuntimeError, IndexError)


def _first_line(err: BaseException) -> str:
    """The first line of ``err``'s message, or its type's name when it has none."""
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def load_value_network(path) -> nn.Module | None:
    """The value network a policy file carries (a module from :func:`build_value`), or None
    when it carries none; PolicyFileError when it is malformed."""
    doc = _read_policy_file(path)
    if "value_network" not in doc:
        return None
    part = doc["value_network"]
    try:
        arch = part["architecture"]
        net = build_value(arch)
        net.load_state_dict(part["state_dict"])
    except _MISFIT as err:
        raise PolicyFileError(f"{path}: its value network does not fit its architecture "
                              f"({_first_line(err)})") from None
    check_finite(part["state_dict"], path, "value network's")
    net.eval()
    check_outputs(None, path, net)
    return net


def load_policy_file(path):
    """(policy, architecture) from a policy file; PolicyFileError says what is wrong. Only
    tensors and plain values are unpickled (``weights_only=True``): a file carrying code is
    refused, not run."""
    doc = _read_policy_file(path)
    arch = doc.get("architecture")
    try:
        arch = architecture(arch["kind"], arch["inputs"], arch["net_arch"],
                            arch.get("players"), arch.get("game"))
        policy = build_policy(arch)
        policy.load_state_dict(doc["state_dict"])
    except _MISFIT as err:
        raise PolicyFileError(f"{path}: the weights do not fit the architecture {arch!r} "
                              f"({_first_line(err)})") from None
    check_finite(doc["state_dict"], path)
    policy.set_training_mode(False)
    check_outputs(policy, path)
    return policy, arch


def policy_outputs(policy, x):
    """The network's raw action logits (before any mask) and values for a batch of inputs
    ``x`` (a float32 array (k, inputs)): numpy arrays (k, 241) and (k,)."""
    with torch.no_grad():
        t = torch.as_tensor(x)
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(t))
        logits = policy.action_net(latent_pi)
        values = policy.value_net(latent_vf)
    return logits.numpy(), values[:, 0].numpy()


class NumpyForward:
    """The same outputs as :func:`policy_outputs`, computed with numpy from a copy of the
    weights: for search, which asks for one position at a time (torch's per-module overhead is
    most of a single row's cost). Built for the two network kinds of this module. With
    ``sparse_inputs`` the input layer multiplies only the input columns that are not zero in
    the batch (:func:`input_layer`: the same values to float rounding, in about half the time
    on the observations, most of whose one-hot entries are zero)."""

    def __init__(self, policy, sparse_inputs: bool = False):
        self.sparse_inputs = sparse_inputs
        def layers(seq):
            out = []
            for m in seq:
                if isinstance(m, nn.Linear):
                    out.append(("linear", m.weight.detach().numpy().T.copy(),
                                m.bias.detach().numpy().copy()))
                elif isinstance(m, (nn.ReLU, nn.Tanh)):
                    out.append((type(m).__name__.lower(), None, None))
                elif not isinstance(m, nn.Flatten):
                    raise TypeError(f"no numpy forward for {type(m).__name__}")
            return out

        extractor = policy.features_extractor
        self.residual = isinstance(extractor, GreedyResidualExtractor)
        self.actions = extractor.actions if self.residual else 0
        self.extractor = layers(extractor.mlp) if self.residual else []
        self.pi = layers(policy.mlp_extractor.policy_net)
        self.vf = layers(policy.mlp_extractor.value_net)
        self.action = layers([policy.action_net])
        self.value = layers([policy.value_net])

    @staticmethod
    def _run(layers, h, sparse_inputs: bool = False):
        for i, (kind, w, b) in enumerate(layers):
            if kind == "linear":
                h = input_layer(h, w, b, sparse_inputs and i == 0)
            elif kind == "relu":
                h = np.maximum(h, 0.0)
            else:
                h = np.tanh(h)
        return h

    def _features(self, x):
        x = np.asarray(x, dtype=np.float32)
        if self.residual:
            return np.concatenate([self._run(self.extractor, x, self.sparse_inputs),
                                   x[:, -self.actions:]], axis=1)
        return x

    def logits(self, x):
        """The action logits alone (the critic is not computed)."""
        sparse = self.sparse_inputs and not self.residual  # (else the extractor took them)
        return self._run(self.action, self._run(self.pi, self._features(x), sparse))

    def __call__(self, x):
        features = self._features(x)
        sparse = self.sparse_inputs and not self.residual
        logits = self._run(self.action, self._run(self.pi, features, sparse))
        values = self._run(self.value, self._run(self.vf, features, sparse))
        return logits, values[:, 0]


def residual_policy_kwargs(hidden: int = 256, actions: int | None = None) -> dict:
    """sb3's ``policy_kwargs`` of the residual network: ``hidden`` units, the greedy inputs of
    ``actions`` actions (None: the default game's)."""
    actions = game_actions(None) if actions is None else actions
    return {"features_extractor_class": GreedyResidualExtractor,
            "features_extractor_kwargs": {"hidden": hidden, "actions": actions},
            "net_arch": {"pi": [], "vf": [128]}}


def init_as_greedy(model) -> None:
    """Set the action head to play like greedy: logits = scale x the greedy inputs."""
    head = model.policy.action_net
    extractor = model.policy.features_extractor
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
        head.weight[:, extractor.hidden:] = GREEDY_LOGIT_SCALE * torch.eye(extractor.actions)
