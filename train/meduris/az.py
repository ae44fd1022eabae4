"""Gumbel AlphaZero self-play training (``meduris az-train``, issue 29): the network learns from
its own batched Gumbel search.

**The network** (:class:`AZNet`) has two parts, both in the ordinary weights-only policy file
(:func:`meduris_rl.agents.policies.network.save_policy` with ``value_network``): the **policy**
(sb3's ``MaskableActorCriticPolicy`` of :mod:`meduris_rl.agents.policies.network`, the residual
network by default; its action head gives the search's prior logits; sb3's critic is not used) and
the **value network** (:func:`meduris_rl.agents.policies.network.value_module`: the result for the
seat to move, tanh in [-1, 1]), which scores the search's leaves. Both start from a policy file
(``warm_start``: ``"shipped"``, the shipped ``agents/models/ppo_<players>p.pt`` with the value
network :mod:`meduris_rl.train.meduris.value` fitted to its games, where it has one; a path to a
policy file of the same player count; or ``"none"``: a fresh residual network that starts out
playing like greedy, its weights drawn from the seed); a file without a value network gets, with
``value_positions`` > 0, one fitted first to that many positions of its policy's own games
(:mod:`meduris_rl.train.meduris.value`'s recipe and seeds; the fit's report in ``checkpoint.json``),
else a fresh one whose last layer is zero (it says 0 everywhere, so the first searches leave the
prior as it is). Why not the critic: PPO's critic learnt shaped returns (on the shipped 2-player
policy: mean +0.48, and correlated -0.34 with the games' results), and a first run that searched
with it lost most of the policy's strength within 250,000 moves. ``out/policy.pt`` plays as
``ppo:<file>``, and ``az``/``gumbel`` search with its value network.

**Self-play.** ``games`` (B) live games of :class:`~meduris_env.envs.batch.MedurisBatch`, every
seat played by the learner. Each self-play move: the B positions to move are loaded into a
:class:`~meduris_env.envs.positions.PositionPool` (``batch.position_pool``),
:func:`meduris_rl.agents.search.gumbel_batch.batched_gumbel_search` runs ``simulations`` simulations
with ``max_considered`` root actions (``gumbel_scale`` 1: the root's Gumbel noise samples, as in
self-play) and ``min_span`` (default 1: a node's completed Q-values are stretched to the whole
scale only where they spread by more than 1; mctx stretches any spread, and with 32 simulations
and a value network that explains little of the result the spread is mostly noise: the improved
policy then follows noise, and self-play collapsed within 100,000 moves, docs/training.md),
every simulation's leaves evaluated in one forward pass of the network (``torch.no_grad``),
and each game plays its search's action (``MedurisBatch.play``). Per
position the run keeps the network inputs (:mod:`meduris_rl.agents.meduris.features`, float16), the
legal mask, the improved policy ``pi'`` (the completed-Q target; it sums to 1 over the legal
actions, 0 elsewhere) and the seat to move; when a game ends its final result per seat (the engine's
``State.returns``, in [-1, 1]: winners share +1, losers -1) becomes the value target of its
positions, which then enter the replay buffer (positions of games unfinished at the end of the
run never do). A finished game starts its next episode at once. With ``greedy_share`` p > 0,
each episode has, with probability p, one seat (drawn) played by the greedy agent instead (its
tie-breaks from the move's stream ``s``): opponents beside itself, so that the network does not
learn only to beat its own play; those positions are searched and stored like the others (the
improved policy is a target whoever then moves).

**Seeds** (:func:`~meduris_rl.kit.seeding.derive_seed` only): the batch's seed is
``derive_seed(seed, STREAM_AZ_GAMES, generation)`` (game ``g``'s dice depend on it, ``g`` and
its episode); move ``m`` of episode ``e`` of game ``g`` searches with the Gumbel noise of
``default_rng(s)`` and the chance stream number ``s`` (``streams=``), ``s = derive_seed(seed,
STREAM_AZ, generation, g, e, m)``: a game's dice and noise never depend on B or on the games
beside it, and its play only through the last bits of the batched matrix products (torch's
depend on the batch's size: ~1e-6 of a logit). ``generation`` is 0, and counts the resumes.

**The forward pass** on the CPU (:class:`SparseEvaluator`): the two first layers (the policy's
and the value network's, 1711 inputs each) summed over the ~190 inputs of a row that are off
their base value (0 for the observation, -1 for the greedy input of an illegal action) in a
numba kernel, the rest in torch: 1.1-1.2 thousand self-play moves/s instead of 0.9-1.0 with
torch alone (docs/training.md). Other devices use torch throughout. Update ``u`` draws its
minibatches from ``derive_seed(seed, STREAM_AZ_FIT, u)``; a fresh network from
``derive_seed(seed, STREAM_AZ_FIT, -1)`` (``torch.manual_seed``).

**Learning.** A replay buffer (numpy ring arrays) of the last ``buffer`` positions. Every
``train_every`` self-play moves (a move is one position searched: one per game per step) an
update draws ``max(1, epochs * train_every // batch_size)`` minibatches of ``batch_size``
positions uniformly from the buffer (so each position is used about ``epochs`` times) and takes
one Adam step (``learning_rate``) on each: loss = cross-entropy(``pi'``, softmax of the masked
logits) + MSE(critic value, result). An update with an empty buffer (no game finished yet) is
skipped (counted, no step).

**Outputs** in ``out``: ``policy.pt`` (:func:`~meduris_rl.agents.policies.network.save_policy`, the
architecture recording ``players``), written after every update and at the end; ``checkpoint.pt``
(the network's and Adam's state, ``torch.load(weights_only=True)``-safe) and ``checkpoint.json``
(the configuration, counters, evaluation history, the generation, and the SHA-256 of the
``checkpoint.pt`` it belongs to), both written atomically after every update and at the end;
``eval.csv`` (before the first move of a run that is not a resume, the warm start's standing
at 0 moves, then every ``eval_every`` moves and at the end: the win rates of the policy alone,
deterministic, against two of the ladder's anchors, ``greedy`` and the shipped ``ppo`` of the
player count, over ``eval_games`` games each on the batch engine,
:func:`meduris_rl.train.meduris.evaluate.evaluate`; for 2 players also the policy's **Elo on the
shipped ladder's scale**, :func:`meduris_rl.agents.arena.ladder.fit.rating_against` with the two
anchors' ratings held at the shipped ladder's fit: the learning curve's figure, and only what games
against those two say: the 2-player run's policy beat both in 97.5 % of games and placed at ~1,030
on the ladder, below ``ppo``, with ``meduris ladder add``, docs/training.md; so ``eval_against``
names more anchors, e.g. ``mcts:400``, each played in a tournament of ``eval_games`` games,
:func:`meduris_rl.train.meduris.evaluate.evaluate_in_tournament`, seats rotated, the other seats of
3 or 4 players greedy, ``threads`` processes, and counted in the Elo where the ladder rates them);
``best.pt``, the policy file of the best evaluation so far (the highest Elo where there is one,
else the highest sum of the win rates, the warm start's evaluation included, so a run whose
training never beat its start keeps the start; ``checkpoint.json``'s ``best`` says which: self-play
can drift away from what beats the anchors, the 2-player run's policy went from 96 % against
``ppo`` to 55 % in 1 M moves); TensorBoard scalars in ``out/tb`` (losses, self-play moves/s,
win rates, Elo); a tqdm progress bar of moves; and a report line of self-play moves/s at
``simulations`` per move. It uses CUDA when torch sees a device (and says which it uses).

**Resume** (``--resume out/checkpoint.pt``) continues the run in its folder with its own
settings (only :data:`RESUMABLE` ones may change): network, optimizer, counters and evaluation
history continue; the checkpoint holds no positions, so the games in flight and the replay
buffer start afresh (the next generation's games), and a resumed run's results are not those of
an uninterrupted one. A file that is not a checkpoint this module wrote (or not the one its
``checkpoint.json`` names) is refused in one line before anything is written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
from numba import njit, prange

from meduris_env.engine.compiled import compile_notice
from meduris_env.engine.constants import NUM_ACTIONS
from meduris_env.row import ROW
from meduris_rl.agents.meduris.features import FEATURE_SETS
from meduris_rl.agents.search.gumbel_batch import InputsPool
from meduris_rl.kit.atomic import atomic_replace
from meduris_rl.kit.jsonfile import read_json_file
from meduris_rl.kit.seeding import STREAM_AZ, STREAM_AZ_FIT, STREAM_AZ_GAMES, derive_seed
from meduris_rl.kit.values import SEED_MAX, ValueCheckError, check_float, check_int, excerpt
from meduris_rl.train.config import (
    MEMORY_SHARE,
    CheckpointError,
    ConfigError,
    machine_memory,
    size_words,
)
from meduris_rl.train.progress import bar

CHECKPOINT_FORMAT = "meduris-az-checkpoint"
MAX_SIMULATIONS = 1024


@dataclass
class AZConfig:
    players: int = 2
    games: int = 128  # B: self-play games advanced together (the fastest on 2 cores)
    simulations: int = 32  # per move
    max_considered: int = 16  # root actions Gumbel top-k considers
    min_span: float = 1.0  # completed Q-values' smallest spread stretched to [0, 1]
    moves: int = 200_000  # self-play moves (positions searched) in all
    buffer: int = 50_000  # replay buffer positions
    batch_size: int = 256
    learning_rate: float = 1e-4
    train_every: int = 4096  # self-play moves between updates
    epochs: int = 2  # each position used about this often per update
    warm_start: str = "shipped"  # a policy file, "shipped" (ppo_<players>p.pt) or "none"
    value_positions: int = 0  # a warm start without a value network: one fitted first
    greedy_share: float = 0.0  # games (drawn per episode) with one seat played by greedy
    eval_every: int = 50_000  # moves between evaluations against the anchors
    eval_games: int = 100  # 0: no evaluation
    eval_against: str = ""  # more anchors (e.g. "mcts:400"), in tournaments of eval_games
    # the policy file the anchor ``ppo`` plays: the shipped ppo_<players>p.pt, or a file (a
    # rerun of a shipped recipe measures against the PPO run it started from, not against
    # the model that recipe itself shipped)
    eval_ppo: str = "shipped"
    seed: int = 0
    threads: int = 2  # torch and numba threads
    out: str = "runs/az"

    def validate(self, warm_start: bool = True) -> AZConfig:
        """Every setting of the right type and in its range, else one ConfigError line; with
        ``warm_start`` the warm start's file is loaded and checked too."""
        for f in fields(self):
            value = getattr(self, f.name)
            try:
                if f.type == "int":
                    low, high = _RANGES[f.name]
                    value = check_int(f.name, value, low, high)
                elif f.type == "float":
                    value = check_float(f.name, value, 0.0, 1.0)
                    if value <= 0 and f.name in ABOVE_ZERO:
                        raise ValueCheckError(f"{f.name} must be above 0, got {value}")
            except ValueCheckError as err:
                raise ConfigError(str(err)) from None
            if f.type == "str" and not (isinstance(value, str) and (value or f.name in
                                                                      OPTIONAL_TEXT)):
                raise ConfigError(f"{f.name}: {excerpt(value)} is not a non-empty str")
            setattr(self, f.name, value)
        ROW.check_players(self.players, "players", ConfigError)
        if self.batch_size > self.buffer:
            raise ConfigError(f"batch_size: {self.batch_size} is more than the buffer "
                              f"({self.buffer} positions)")
        self.check_memory()
        self.check_eval_against()
        self.check_eval_ppo()
        if self.warm_start.strip().lower() in ("none", "shipped"):
            self.warm_start = self.warm_start.strip().lower()
        elif warm_start:
            load_warm_start(self)  # a file that cannot be used: refused now, before any work
        return self

    def check_memory(self) -> None:
        """Refuse (one ConfigError, before anything is allocated) settings whose replay buffer,
        search positions and minibatch cannot fit in :data:`MEMORY_SHARE` of this machine's
        memory (issue 46: they passed the range checks and died of a MemoryError). Counted for
        the largest feature set: per buffer position its inputs (float16), legal mask and
        improved policy (float32); per searched position (``games x (simulations + 1)``) its
        inputs (float32) and state (up to 4 KiB); per minibatch row its inputs and policy."""
        inputs, actions = max(FEATURE_SETS.values()), NUM_ACTIONS
        parts = {"the replay buffer (buffer)": self.buffer * (2 * inputs + 5 * actions + 5),
                 "the search's positions (games x (simulations + 1))":
                     self.games * (self.simulations + 1) * (4 * inputs + 4096),
                 "the minibatch (batch_size)": self.batch_size * 8 * (inputs + actions)}
        need, have = sum(parts.values()), MEMORY_SHARE * machine_memory()
        if need > have:
            most = max(parts, key=parts.get)
            raise ConfigError(f"these settings need {size_words(need)} of memory, most for "
                              f"{most}: {size_words(parts[most])}; this machine has "
                              f"{size_words(machine_memory())} (at most {MEMORY_SHARE:.0%} is "
                              "used): use a smaller buffer, fewer games or simulations, or a "
                              "smaller batch_size")

    def check_eval_against(self) -> None:
        """``eval_against``: agent names, none of them greedy or ppo (always played)."""
        from meduris_rl.agents import UnknownAgentError, make_agent

        for name in self.search_anchors():
            if name in EVAL_ANCHORS:
                raise ConfigError(f"eval_against: {name} is always played; give other anchors")
            try:  # refused before any work, not after the first evaluation's minutes
                make_agent(name)
            except UnknownAgentError as err:
                raise ConfigError(f"eval_against: {err}") from None

    def check_eval_ppo(self) -> None:
        """``eval_ppo``: "shipped" or a policy file of this player count, loaded now."""
        from meduris_rl.agents import UnknownAgentError
        from meduris_rl.agents.meduris.batch import make_batch_opponent

        self.eval_ppo = self.eval_ppo.strip()
        if self.eval_ppo.lower() == "shipped":
            self.eval_ppo = "shipped"
            return
        try:
            make_batch_opponent(self.ppo_anchor(), self.players)
        except UnknownAgentError as err:
            raise ConfigError(f"eval_ppo: {err}") from None

    def ppo_anchor(self) -> str:
        """The agent name the evaluations' ``ppo`` column plays."""
        return "ppo" if self.eval_ppo == "shipped" else f"ppo:{self.eval_ppo}"

    def search_anchors(self) -> list[str]:
        return [n.strip() for n in self.eval_against.split(",") if n.strip()]

    def to_dict(self) -> dict:
        return asdict(self)


_RANGES = {"players": (2, 4), "games": (1, 65_536), "simulations": (1, MAX_SIMULATIONS),
           "max_considered": (1, 241), "moves": (1, 10**10), "buffer": (1, 10_000_000),
           "batch_size": (1, 1_000_000), "train_every": (1, 10**10), "epochs": (1, 1000),
           "eval_every": (1, 10**10), "eval_games": (0, 100_000), "seed": (0, SEED_MAX),
           "threads": (1, 256), "value_positions": (0, 100_000_000)}
ABOVE_ZERO = ("learning_rate", "min_span")  # float settings in (0, 1]; the others in [0, 1]
OPTIONAL_TEXT = ("eval_against",)  # text settings that may be empty
#: what a resumed run may change: its length, its threads and how often it looks at itself
RESUMABLE = ("moves", "threads", "eval_every", "eval_games", "eval_against", "eval_ppo")


def resume_config(saved, folder: Path, overrides: dict) -> AZConfig:
    """The configuration of a resumed run: its own, with ``overrides`` (flags given) of the
    :data:`RESUMABLE` settings; another value of any other setting is refused."""
    if not isinstance(saved, dict):
        raise ConfigError("the checkpoint's checkpoint.json holds no configuration")
    out = overrides.get("out")
    if out is not None and Path(out).resolve() != Path(folder).resolve():
        raise ConfigError(f"--out {out}: a resumed run stays in its own folder ({folder})")
    try:
        kept = AZConfig(**{**saved, "out": str(folder)})
    except TypeError as err:
        raise ConfigError(f"the checkpoint's configuration does not fit ({err})") from None
    for name, value in overrides.items():
        if value is None or name == "out":
            continue
        if name not in RESUMABLE and value != getattr(kept, name):
            raise ConfigError(f"{name}: {excerpt(value)} given, but a resumed run keeps its "
                              f"own ({excerpt(getattr(kept, name))}); on --resume only "
                              f"{', '.join(RESUMABLE)} may change")
        setattr(kept, name, value)
    return kept.validate(warm_start=False)  # (the checkpoint's network replaces it)


def make_config(overrides: dict) -> AZConfig:
    """Defaults, then the given settings (None: not given), checked."""
    known = {f.name for f in fields(AZConfig)}
    unknown = sorted(k for k in overrides if k not in known)
    if unknown:
        raise ConfigError(f"unknown setting(s) {', '.join(unknown[:3])}")
    return AZConfig(**{k: v for k, v in overrides.items() if v is not None}).validate()


# --- the network -----------------------------------------------------------------------------
VALUE_HIDDEN = [128, 128]  # a fresh value network's layers (meduris_rl.train.meduris.value's)


class AZNet:
    """The network the search is guided by and the trainer fits: the policy (sb3's
    ``MaskableActorCriticPolicy``; its action head gives the prior logits, its critic is not
    used) and the **value network** (:func:`meduris_rl.agents.policies.network.value_module`: the
    result for the seat to move, tanh in [-1, 1]). A policy file carries both (``save_policy(...,
    value_network=...)``), so ``az`` and ``gumbel`` search with the value it learnt."""

    def __init__(self, policy, arch: dict, value, fresh: bool = False):
        self.policy, self.arch, self.value = policy, arch, value
        self.fresh = fresh  # the value network is a fresh one (it says 0)

    def parameters(self):
        return [*self.policy.parameters(), *self.value.parameters()]

    def to(self, device) -> AZNet:
        self.policy.to(device)
        self.value.to(device)
        return self

    def train_mode(self, on: bool) -> None:
        self.policy.set_training_mode(on)
        self.value.train(on)

    def heads(self, x):
        """The prior logits and values (torch tensors) for inputs ``x``."""
        latent_pi = self.policy.mlp_extractor.forward_actor(self.policy.extract_features(x))
        return self.policy.action_net(latent_pi), self.value(x)[:, 0]

    def state(self) -> dict:
        return {"policy": {k: v.detach().cpu() for k, v in self.policy.state_dict().items()},
                "value": {k: v.detach().cpu() for k, v in self.value.state_dict().items()},
                "value_architecture": self.value.architecture}

    def save(self, path: Path) -> None:
        from meduris_rl.agents.policies.network import save_policy

        save_policy(self.policy, self.arch, path, value_network=self.value)


def fresh_value(inputs: int):
    """A value network that says 0 everywhere (its last layer zero): until it has learnt
    something, the search's completed Q-values leave the prior as it is."""
    import torch

    from meduris_rl.agents.policies.network import value_module

    net = value_module(inputs, VALUE_HIDDEN)
    last = [m for m in net if isinstance(m, torch.nn.Linear)][-1]
    torch.nn.init.zeros_(last.weight)
    torch.nn.init.zeros_(last.bias)
    return net


def load_warm_start(cfg: AZConfig) -> AZNet:
    """The network to start from (module docstring), the architecture recording
    ``cfg.players``; ConfigError in one line when the file cannot be used."""
    import torch

    from meduris_rl.agents.meduris.ppo import shipped_model
    from meduris_rl.agents.policies.network import (
        PolicyFileError,
        architecture,
        build_policy,
        check_players,
        init_as_greedy,
        load_policy_file,
        load_value_network,
    )

    torch.manual_seed(derive_seed(cfg.seed, STREAM_AZ_FIT, -1))
    if cfg.warm_start == "none":
        from types import SimpleNamespace

        from meduris_env.engine.constants import NUM_ACTIONS
        from meduris_env.envs.observation import OBS_SIZE

        arch = architecture("residual", OBS_SIZE + NUM_ACTIONS, [256], cfg.players)
        policy = build_policy(arch)
        init_as_greedy(SimpleNamespace(policy=policy))
        return AZNet(policy, arch, fresh_value(arch["inputs"]), fresh=True)
    path = shipped_model(cfg.players) if cfg.warm_start == "shipped" else Path(cfg.warm_start)
    if not path.is_file():
        raise ConfigError(f"warm_start: no policy file at {excerpt(str(path))}; give a "
                          "policy.pt, 'shipped' or 'none'")
    try:
        policy, arch = load_policy_file(path)
        check_players(arch, path, cfg.players)
        value = load_value_network(path)
    except PolicyFileError as err:
        raise ConfigError(f"warm_start: {err}") from None
    from meduris_env.engine.constants import NUM_ACTIONS
    from meduris_rl.agents.meduris.features import FEATURE_SETS
    if arch["inputs"] not in FEATURE_SETS.values() or policy.action_space.n != NUM_ACTIONS:
        game = arch.get("game") or "another game"
        raise ConfigError(f"warm_start: {excerpt(str(path))} is a policy of {game} "
                          f"({arch['inputs']} inputs, {policy.action_space.n} actions), not of "
                          f"Meduris ({' or '.join(map(str, FEATURE_SETS.values()))} inputs, "
                          f"{NUM_ACTIONS} actions): az-train trains Meduris")
    if value is not None and "members" in value.architecture:
        raise ConfigError(f"warm_start: {excerpt(str(path))} carries a mean of "
                          f"{len(value.architecture['members'])} value networks; az-train "
                          "trains one (start from a file with one)")
    arch = architecture(arch["kind"], arch["inputs"], arch["net_arch"], cfg.players)
    if value is None or value.architecture["inputs"] != arch["inputs"]:
        return AZNet(policy, arch, fresh_value(arch["inputs"]), fresh=True)
    return AZNet(policy, arch, value)


def make_evaluator(net: AZNet, device):
    """The search's ``evaluate(inputs, mask) -> (logits, values in [-1, 1])``: one forward
    pass of the network for all the rows; on the CPU with a residual policy the
    :class:`SparseEvaluator`, else torch's."""
    import torch

    if device.type == "cpu" and net.arch["kind"] == "residual":
        return SparseEvaluator(net)

    def evaluate(x, mask):
        with torch.no_grad():
            logits, values = net.heads(torch.from_numpy(x).to(device))
        return logits.cpu().numpy(), values.cpu().numpy()
    evaluate.refresh = lambda: None
    return evaluate


@njit(cache=True, parallel=True)
def sparse_first_layers(x, base, weights_t, bias, out):
    """``out[j] = bias + sum over c of (x[j, c] - base[c]) * weights_t[c]`` for every row,
    skipping the inputs at their base value: the first layers of the policy and the value
    network together, where a row has ~190 inputs off base of 1711 (the observation's ones,
    the greedy inputs of legal actions above -1). Each row sums in column order (the same
    bits whatever the batch)."""
    for j in prange(x.shape[0]):
        acc = bias.copy()
        for c in range(x.shape[1]):
            d = x[j, c] - base[c]
            if d != 0:
                w = weights_t[c]
                for k in range(acc.shape[0]):
                    acc[k] += d * w[k]
        out[j] = acc


class SparseEvaluator:
    """The network's forward pass for the search on the CPU: the two first layers (policy
    1711 -> 256, value 1711 -> 128: 90 % of the multiplications) by :func:`sparse_first_layers`,
    the rest in torch. ``refresh()`` reads the weights again (after an update)."""

    def __init__(self, net: AZNet):
        self.net = net
        self.refresh()

    def refresh(self) -> None:
        import torch

        from meduris_rl.agents.meduris.features import FEATURE_SETS

        policy_first = self.net.policy.features_extractor.mlp[0]
        value_first = self.net.value[0]
        with torch.no_grad():
            w = torch.cat([policy_first.weight, value_first.weight]).float().cpu().numpy()
            b = torch.cat([policy_first.bias, value_first.bias]).float().cpu().numpy()
        inputs = w.shape[1]
        self.base = np.zeros(inputs, dtype=np.float32)
        if inputs == FEATURE_SETS["obs+greedy"]:
            self.base[-self.net.policy.features_extractor.actions:] = -1.0  # illegal: -1
        self.weights_t = np.ascontiguousarray(w.T)
        self.bias = (b + self.base @ self.weights_t).astype(np.float32)
        self.split = policy_first.out_features

    def __call__(self, x, mask):
        import torch

        x = np.ascontiguousarray(x, dtype=np.float32)
        z = np.empty((len(x), len(self.bias)), dtype=np.float32)
        sparse_first_layers(x, self.base, self.weights_t, self.bias, z)
        policy, value = self.net.policy, self.net.value
        extractor = policy.features_extractor
        with torch.no_grad():
            z = torch.from_numpy(z)
            h = extractor.mlp[3](extractor.mlp[2](extractor.mlp[1](z[:, :self.split])))
            features = torch.cat([h, torch.from_numpy(x[:, -extractor.actions:])], dim=1)
            latent = policy.mlp_extractor.forward_actor(features)
            logits = policy.action_net(latent)
            v = z[:, self.split:]
            for layer in list(value)[1:]:
                v = layer(v)
        return logits.numpy(), v[:, 0].numpy()


class FeaturePool(InputsPool):
    """A :class:`~meduris_env.envs.positions.PositionPool` whose ``observe`` gives the
    network's inputs (:func:`meduris_rl.agents.meduris.features.batch_features`) instead of the raw
    observation; it keeps the first observation after :meth:`start` (the roots')."""

    def __init__(self, pool, feature_set: str):
        from meduris_env.envs.observation import observation_high

        super().__init__(pool, self._features)
        self.feature_set = feature_set
        self.high = observation_high(pool.game.max_turns)
        self.roots = None

    def start(self, rows) -> np.ndarray:
        self.pool.clear()
        self.roots = None
        return self.pool.load(rows)

    def observe(self, ids):
        x, mask = super().observe(ids)
        if self.roots is None:
            self.roots = (x, mask)
        return x, mask

    def _features(self, pool, ids, obs):
        from meduris_rl.agents.meduris.features import batch_features

        game = pool.game
        return batch_features(obs, pool.states[ids], game.field_materials, game.field_areas,
                              self.feature_set, self.high)


# --- the replay buffer -----------------------------------------------------------------------
class ReplayBuffer:
    """The last ``capacity`` positions: inputs (float16), legal masks, improved policies, seats
    and value targets, in numpy ring arrays."""

    def __init__(self, capacity: int, inputs: int, actions: int):
        self.x = np.zeros((capacity, inputs), dtype=np.float16)
        self.mask = np.zeros((capacity, actions), dtype=np.bool_)
        self.pi = np.zeros((capacity, actions), dtype=np.float32)
        self.seat = np.zeros(capacity, dtype=np.int8)
        self.z = np.zeros(capacity, dtype=np.float32)
        self.size = self.next = self.added = 0

    def add(self, x, mask, pi, seat, z) -> None:
        n = len(z)
        keep = slice(max(0, n - len(self.z)), n)  # more than the capacity: the last ones
        rows = (self.next + np.arange(n)[keep]) % len(self.z)
        self.x[rows], self.mask[rows], self.pi[rows] = x[keep], mask[keep], pi[keep]
        self.seat[rows], self.z[rows] = seat[keep], z[keep]
        self.next = int((self.next + n) % len(self.z))
        self.size = min(len(self.z), self.size + n)
        self.added += n


# --- self-play -------------------------------------------------------------------------------
class SelfPlay:
    """B games played by the search with the network (module docstring, Self-play)."""

    def __init__(self, cfg: AZConfig, evaluate, feature_set: str, buffer: ReplayBuffer,
                 generation: int):
        from meduris_env.envs.batch import MedurisBatch

        self.cfg, self.evaluate, self.buffer, self.generation = cfg, evaluate, buffer, generation
        self.batch = MedurisBatch(cfg.games, cfg.players, auto_reset=False,
                                  seed=derive_seed(cfg.seed, STREAM_AZ_GAMES, generation))
        self.batch.reset()
        self.pool = FeaturePool(self.batch.position_pool(cfg.games * (cfg.simulations + 1)),
                                feature_set)
        self.move_no = np.zeros(cfg.games, dtype=np.int64)
        self.pending: list[list[tuple]] = [[] for _ in range(cfg.games)]
        self.games_finished = 0
        self.just_finished: list[tuple[int, np.ndarray, int]] = []  # (game, returns, positions)
        self.all = np.arange(cfg.games, dtype=np.int64)
        self.greedy_seat = np.full(cfg.games, -1, dtype=np.int64)
        self.draw_opponents(self.all)

    @classmethod
    def of_network(cls, cfg: AZConfig, net: AZNet, device=None, buffer: ReplayBuffer | None
                   = None, generation: int = 0) -> SelfPlay:
        """Self-play of ``net`` as :func:`train_az` sets it up (the one place that does): the
        network in evaluation mode, its searches' leaves scored by :func:`make_evaluator` on
        ``device`` (the CPU by default), the features its input size names, and ``buffer`` (a
        fresh one of ``cfg.buffer`` positions where none is given)."""
        import torch

        from meduris_rl.agents.meduris.features import feature_set_of_size

        net.train_mode(False)
        inputs = int(net.arch["inputs"])
        if buffer is None:
            buffer = ReplayBuffer(cfg.buffer, inputs, int(net.policy.action_space.n))
        return cls(cfg, make_evaluator(net, device or torch.device("cpu")),
                   feature_set_of_size(inputs), buffer, generation)

    def draw_opponents(self, games) -> None:
        """Whether a new episode of each of ``games`` has a greedy seat, and which
        (``greedy_share``; from ``derive_seed(seed, STREAM_AZ, generation, g, e, -1)``)."""
        for g in games:
            rng = np.random.default_rng(derive_seed(self.cfg.seed, STREAM_AZ, self.generation,
                                                    int(g), int(self.batch.episodes[g]), -1))
            share = rng.random() < self.cfg.greedy_share
            self.greedy_seat[g] = int(rng.integers(self.cfg.players)) if share else -1

    def greedy_moves(self, seats, actions, seeds) -> np.ndarray:
        """``actions`` with greedy's where a game's greedy seat is to move."""
        from meduris_rl.agents.meduris.heuristics import greedy_actions

        idx = np.flatnonzero(seats == self.greedy_seat)
        if len(idx):
            game, out = self.batch.game, np.empty(len(idx), dtype=np.int64)
            greedy_actions(np.ascontiguousarray(self.batch.states[idx]), game.field_materials,
                           game.field_areas, seeds[idx] % 2**31, out)
            actions = actions.copy()
            actions[idx] = out
        return actions

    def noise(self) -> tuple[np.ndarray, np.ndarray]:
        """Each game's Gumbel noise ``(B, A)`` and chance stream number for this move."""
        from meduris_env.engine.constants import NUM_ACTIONS

        seeds = np.array([derive_seed(self.cfg.seed, STREAM_AZ, self.generation, g, int(e), int(m))
                          for g, (e, m) in enumerate(zip(self.batch.episodes, self.move_no,
                                                         strict=True))], dtype=np.int64)
        gumbel = np.stack([np.random.default_rng(int(s)).gumbel(size=NUM_ACTIONS)
                           for s in seeds])
        return gumbel, seeds

    def step(self):
        """One move in every game; returns the search's result."""
        from meduris_rl.agents.search.gumbel_batch import batched_gumbel_search

        cfg, batch = self.cfg, self.batch
        roots = self.pool.start(batch.rows(self.all))
        seats = batch.mover.copy()
        gumbel, streams = self.noise()
        result = batched_gumbel_search(self.pool, roots, self.evaluate, cfg.simulations,
                                       cfg.max_considered, np.random.default_rng(0),
                                       gumbel_scale=1.0, gumbel=gumbel, streams=streams,
                                       min_span=cfg.min_span)
        x, mask = self.pool.roots
        policy = result.policy.astype(np.float32)
        for g in range(cfg.games):
            self.pending[g].append((x[g], mask[g], policy[g], seats[g]))
        batch.play(self.all, self.greedy_moves(seats.astype(np.int64), result.actions, streams))
        self.move_no += 1
        self.finish_games()
        return result

    def finish_games(self) -> None:
        """Games that ended: their positions, with the results as value targets, into the
        buffer; their next episodes started."""
        batch = self.batch
        done = np.flatnonzero(batch.terminated | batch.truncated)
        self.just_finished = []
        if not len(done):
            return
        for g in done:
            returns = batch.state(int(g)).returns()
            x, mask, pi, seat = (np.stack(c) for c in zip(*self.pending[g], strict=True))
            self.buffer.add(x.astype(np.float16), mask != 0, pi, seat.astype(np.int8),
                            returns[seat].astype(np.float32))
            self.just_finished.append((int(g), returns, len(seat)))
            self.pending[g] = []
        self.games_finished += len(done)
        self.move_no[done] = 0
        batch.reset(games=done)
        self.draw_opponents(done)


# --- learning --------------------------------------------------------------------------------
def update(net: AZNet, optimizer, buffer: ReplayBuffer, cfg: AZConfig, index: int,
           device) -> dict:
    """One update (module docstring, Learning): the mean losses, or {} with an empty buffer."""
    import torch

    if buffer.size == 0:
        return {}
    rng = np.random.default_rng(derive_seed(cfg.seed, STREAM_AZ_FIT, index))
    steps = max(1, cfg.epochs * cfg.train_every // cfg.batch_size)
    totals = np.zeros(2)
    net.train_mode(True)
    for _ in range(steps):
        rows = np.sort(rng.integers(0, buffer.size, min(cfg.batch_size, buffer.size)))
        x = torch.from_numpy(buffer.x[rows].astype(np.float32)).to(device)
        mask = torch.from_numpy(buffer.mask[rows]).to(device)
        target = torch.from_numpy(buffer.pi[rows]).to(device)
        z = torch.from_numpy(buffer.z[rows]).to(device)
        logits, values = net.heads(x)
        log_p = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
        policy_loss = -(target * log_p).sum(dim=1).mean()
        value_loss = ((values - z) ** 2).mean()
        optimizer.zero_grad()
        (policy_loss + value_loss).backward()
        optimizer.step()
        totals += (policy_loss.item(), value_loss.item())
    net.train_mode(False)
    return {"policy_loss": totals[0] / steps, "value_loss": totals[1] / steps, "steps": steps}


# --- files -----------------------------------------------------------------------------------
def file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save_checkpoint(net: AZNet, optimizer, state: dict, out: Path) -> None:
    """``checkpoint.pt`` (carrying the run state too), then ``checkpoint.json`` naming it
    (atomic writes). The pair is not replaced as one, so the ``.pt`` holds the state it was
    written with: a run stopped between the two writes resumes from the newer ``.pt``."""
    import torch

    state.pop("checkpoint", None)
    doc = {"format": CHECKPOINT_FORMAT, "architecture": net.arch, **net.state(),
           "optimizer": optimizer.state_dict(), "run_state": json.dumps(state)}
    atomic_replace(out / "checkpoint.pt", lambda tmp: torch.save(doc, tmp))
    state["checkpoint"] = {"sha256": file_digest(out / "checkpoint.pt"), "moves": state["moves"]}
    atomic_replace(out / "checkpoint.json",
                   lambda tmp: Path(tmp).write_text(json.dumps(state, indent=2) + "\n"))


def checkpoint_state(path) -> dict:
    """The run state saved with a checkpoint (its ``checkpoint.json``), checked to belong to
    ``path``: the json names the ``.pt``'s digest, or (a run stopped between the two writes of
    :func:`save_checkpoint`) the ``.pt`` carries a later state of the same run (its ``run``
    token). CheckpointError says what is wrong."""
    path = Path(path)
    meta_path = path.with_name("checkpoint.json")
    if not path.is_file() or path.suffix != ".pt" or not meta_path.is_file():
        raise CheckpointError(f"{path} is not an az-train checkpoint: resume from a run's "
                              "checkpoint.pt, with its checkpoint.json beside it")
    try:
        state = read_json_file(meta_path, ValueError, meta_path.name)  # (bounded: a user's)
        named = state["checkpoint"]["sha256"]
    except (ValueError, KeyError, TypeError, OSError):
        raise CheckpointError(f"{meta_path} is not an az-train run state") from None
    if file_digest(path) == named:
        return state
    newer = carried_state(path)
    if newer is None or "run" not in state or newer.get("run") != state["run"] \
            or not newer.get("moves", -1) >= state.get("moves", 0):
        raise CheckpointError(f"{path} is not the checkpoint {meta_path.name} was written "
                              "with (damaged, or another run's)")
    return {**newer, "checkpoint": {"sha256": file_digest(path), "moves": newer["moves"]}}


def carried_state(path) -> dict | None:
    """The run state a checkpoint ``.pt`` carries, or None (none, or not readable)."""
    try:
        carried = json.loads(read_checkpoint(path)["run_state"])
    except (CheckpointError, KeyError, TypeError, ValueError):
        return None
    return carried if isinstance(carried, dict) else None


def _refused(path, err) -> CheckpointError:
    first = (str(err).strip().splitlines() or [type(err).__name__])[0][:100]
    return CheckpointError(f"cannot load {path} as an az-train checkpoint ({first})")


def read_checkpoint(path) -> dict:
    """The checkpoint's document (``torch.load(weights_only=True)``: nothing runs)."""
    import torch

    from meduris_rl.agents.policies.network import unloadable_reason

    try:
        doc = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many kinds; its words name its internals
        raise _refused(path, unloadable_reason(path, err)) from None
    if not isinstance(doc, dict) or doc.get("format") != CHECKPOINT_FORMAT:
        raise _refused(path, "no az-train checkpoint format")
    return doc


def checkpoint_network(path, doc: dict) -> AZNet:
    """The network of a checkpoint."""
    from meduris_rl.agents.policies.network import (
        architecture,
        build_policy,
        check_finite,
        value_module,
    )

    try:
        arch = doc["architecture"]
        arch = architecture(arch["kind"], arch["inputs"], arch["net_arch"], arch["players"])
        policy = build_policy(arch)
        policy.load_state_dict(doc["policy"])
        check_finite(doc["policy"], path)
        shape = doc["value_architecture"]
        value = value_module(shape["inputs"], shape["hidden"])
        value.load_state_dict(doc["value"])
        check_finite(doc["value"], path, "value network's")
    except (KeyError, TypeError, ValueError, RuntimeError, IndexError) as err:
        raise _refused(path, err) from None
    return AZNet(policy, arch, value)


def load_optimizer(path, doc: dict, optimizer) -> None:
    try:
        optimizer.load_state_dict(doc["optimizer"])
    except (KeyError, TypeError, ValueError, RuntimeError, IndexError) as err:
        raise _refused(path, err) from None


def write_eval_csv(out: Path, evals: list[dict], more: list[str] = ()) -> None:
    head = ["moves", "updates"] + [f"win_rate_vs_{name}" for name in (*EVAL_ANCHORS, *more)] + \
        ["elo", "wall_seconds"]

    def cell(e, key):
        value = e.get(key)
        if value is None:
            return ""
        return f"{value:.4f}" if key.startswith("win_rate") else \
            f"{value:.1f}" if isinstance(value, float) else str(value)
    lines = [",".join(head)] + [",".join(cell(e, key) for key in head) for e in evals]
    atomic_replace(out / "eval.csv", lambda tmp: Path(tmp).write_text("\n".join(lines) + "\n"))


#: the ladder anchors the trainer's evaluations play the policy against (batch engine)
EVAL_ANCHORS = ("greedy", "ppo")


def anchor_elo(players: int, rates: dict[str, float], games: int) -> float | None:
    """The Elo of win rates ``rates`` (``games`` each) against those of its agents the shipped
    2-player ladder rates (:func:`meduris_rl.agents.arena.ladder.fit.rating_against`,
    Bradley-Terry); None for 3 and 4 players, whose runs keep choosing ``best.pt`` by the sum of
    their win rates (the choice the shipped 4-player model was made by); ``benchmarks/training.py
    --az-curve`` puts their evaluations on the 3- and 4-player ladders' scale afterwards."""
    from meduris_rl.agents.arena.ladder.fit import rating_against, shipped_ratings

    if players != 2:
        return None
    fit = shipped_ratings(players)
    ratings = {name: r.elo for name, r in fit.items()}
    rated = {name: (games, rate * games) for name, rate in rates.items() if name in ratings}
    return rating_against(rated, ratings) if games and rated else None


# --- the run ---------------------------------------------------------------------------------
@contextlib.contextmanager
def numba_threads(n: int):
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(max(1, min(n, numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def pick_device():
    import torch

    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def device_words(device) -> str:
    """The device in a run's first line: ``cpu``, or ``cuda (NVIDIA A100-SXM4-40GB)``."""
    if device.type != "cuda":
        return device.type
    import torch
    return f"cuda ({torch.cuda.get_device_name(device)})"


class Run:
    """The trainer's state and its periodic work (updates, evaluations, checkpoints)."""

    def __init__(self, cfg: AZConfig, resume, report):
        import torch

        self.cfg, self.report, self.out = cfg, report, Path(cfg.out)
        self.device = pick_device()
        saved = checkpoint_state(resume) if resume else None
        doc = read_checkpoint(resume) if resume else None
        self.net = load_warm_start(cfg) if doc is None else checkpoint_network(resume, doc)
        self.state = {"config": cfg.to_dict(), "moves": 0, "updates": 0, "generation": 0,
                      "games_finished": 0, "evals": [], "selfplay_seconds": 0.0,
                      "wall_seconds": 0.0, "run": secrets.token_hex(8)}
        if doc is None and self.net.fresh and cfg.value_positions:
            self.fit_value()
        self.net.to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate)
        if saved is not None:
            load_optimizer(resume, doc, self.optimizer)
            for key in ("moves", "updates", "generation", "games_finished", "evals",
                        "selfplay_seconds", "wall_seconds", "value_network", "best", "run"):
                if key in saved:
                    self.state[key] = saved[key]
            self.state["generation"] += 1
        self.moves_at_start = self.state["moves"]
        self.selfplay = SelfPlay.of_network(cfg, self.net, self.device,
                                            generation=self.state["generation"])
        from torch.utils.tensorboard import SummaryWriter
        self.writer = SummaryWriter(str(self.out / "tb"))

    def fit_value(self) -> None:
        """A value network for a warm start without one (module docstring, the network):
        fitted to ``value_positions`` positions of its policy's own games, as
        :mod:`meduris_rl.train.meduris.value` does after PPO, before any self-play."""
        from meduris_rl.train.meduris.value import HIDDEN, collect_positions, fit_value_network

        cfg, t0 = self.cfg, time.perf_counter()
        xs, ys, games = collect_positions(self.net.policy, cfg.players, cfg.value_positions,
                                          envs=min(512, max(cfg.games, 8)), seed=cfg.seed)
        self.net.value, fit = fit_value_network(xs, ys, list(HIDDEN), seed=cfg.seed)
        self.net.fresh = False
        self.state["value_network"] = {**fit, "games": games,
                                       "seconds": time.perf_counter() - t0}
        self.report(f"value network for the warm start: {len(ys):,} positions of {games:,} "
                    f"self-play games, held-out MSE {fit.get('validation_mse', float('nan')):.3f}"
                    f" (the results' variance {fit.get('validation_variance', float('nan')):.3f}"
                    f"), {time.perf_counter() - t0:.0f} s")

    def after_moves(self, before: int, start: float) -> None:
        """Updates and evaluations due after the moves from ``before`` to now."""
        cfg, state = self.cfg, self.state
        moves = state["moves"]
        if moves // cfg.train_every > before // cfg.train_every:
            losses = update(self.net, self.optimizer, self.selfplay.buffer, cfg, state["updates"],
                            self.device)
            self.selfplay.evaluate.refresh()  # the search's copy of the weights
            state["updates"] += 1
            for key in ("policy_loss", "value_loss"):
                if key in losses:
                    self.writer.add_scalar(f"train/{key}", losses[key], moves)
            self.save(start)
        if cfg.eval_games and moves // cfg.eval_every > before // cfg.eval_every:
            self.evaluate(start)

    def evaluate(self, start: float) -> None:
        """The policy alone against the ladder's anchors greedy and ppo (module docstring,
        Outputs), and for 2 players its Elo on the shipped ladder's scale."""
        import copy

        from meduris_rl.train.meduris.evaluate import evaluate

        cfg = self.cfg
        policy = self.net.policy if self.device.type == "cpu" else \
            copy.deepcopy(self.net.policy).cpu()
        played = {"greedy": "greedy", "ppo": cfg.ppo_anchor()}
        rates = {name: evaluate(policy, cfg.players, cfg.eval_games, cfg.seed, played[name])
                 for name in EVAL_ANCHORS}
        if cfg.search_anchors():
            from meduris_rl.train.meduris.evaluate import evaluate_in_tournament

            self.net.save(self.out / "policy.pt")  # the network evaluated, as it is now
            for name in cfg.search_anchors():
                rates[name] = evaluate_in_tournament(self.out / "policy.pt", name, cfg.players,
                                                     cfg.eval_games, cfg.seed, cfg.threads)
        rated = rates if cfg.eval_ppo == "shipped" else \
            {name: rate for name, rate in rates.items() if name != "ppo"}  # (the ladder rates
        elo = anchor_elo(cfg.players, rated, cfg.eval_games)  # the shipped ppo, not a file)
        entry = {"moves": self.state["moves"], "updates": self.state["updates"],
                 **{f"win_rate_vs_{name}": rate for name, rate in rates.items()},
                 "elo": elo, "wall_seconds": self.elapsed(start)}
        self.state["evals"].append(entry)
        self.keep_best(entry, elo if elo is not None else sum(rates.values()))
        for name, rate in rates.items():
            self.writer.add_scalar(f"eval/win_rate_vs_{name}", rate, self.state["moves"])
        if elo is not None:
            self.writer.add_scalar("eval/elo", elo, self.state["moves"])
        write_eval_csv(self.out, self.state["evals"], cfg.search_anchors())
        said = ", ".join(f"{rate:.1%} against {name}" for name, rate in rates.items())
        self.report(f"evaluation at {self.state['moves']:,} moves: {said} ({cfg.eval_games} "
                    f"games each)" + (f"; {elo:.0f} Elo on the ladder" if elo is not None
                                      else ""))

    def keep_best(self, entry: dict, score: float) -> None:
        """``best.pt``: the network of the evaluation ``entry`` when its ``score`` is the best
        so far (Outputs)."""
        best = self.state.get("best")
        if best is None or score > best["score"]:
            self.net.save(self.out / "best.pt")
            self.state["best"] = {"moves": entry["moves"], "score": score}

    def elapsed(self, start: float) -> float:
        return self.state["wall_seconds"] + time.perf_counter() - start

    def save(self, start: float) -> None:

        state = {**self.state, "wall_seconds": self.elapsed(start),
                 "games_finished": self.selfplay.games_finished + self.state["games_finished"]}
        self.net.save(self.out / "policy.pt")
        save_checkpoint(self.net, self.optimizer, state, self.out)


def train_az(cfg: AZConfig, resume: str | None = None, progress: bool = True,
             report=print) -> dict:
    """The run of the module docstring; returns its final state (``checkpoint.json``'s)."""
    import torch

    torch.set_num_threads(cfg.threads)
    Path(cfg.out).mkdir(parents=True, exist_ok=True)
    with numba_threads(cfg.threads):
        run = Run(cfg, resume, report)
        report(f"az-train: {cfg.players} players, {cfg.games} games at once, "
               f"{cfg.simulations} simulations per move, on {device_words(run.device)}")
        start = time.perf_counter()
        state = run.state
        if resume is None and cfg.eval_games:
            run.evaluate(start)  # the warm start's standing: the curve's first point
        b = bar(cfg.moves, "self-play moves", progress, notice=compile_notice)
        b.update(min(state["moves"], cfg.moves))
        selfplay = 0.0
        while state["moves"] < cfg.moves:
            t0 = time.perf_counter()
            run.selfplay.step()
            selfplay += time.perf_counter() - t0
            before = state["moves"]
            state["moves"] += cfg.games
            b.update(min(state["moves"], cfg.moves) - before)
            run.after_moves(before, start)
        b.close()
        return finish(run, start, selfplay)


def finish(run: Run, start: float, selfplay: float) -> dict:
    """The last update boundary's files, the final evaluation and the report line."""
    cfg, state = run.cfg, run.state
    moves_now = state["moves"] - (state["evals"][-1]["moves"] if state["evals"] else -1)
    if cfg.eval_games and moves_now:
        run.evaluate(start)
    state["selfplay_seconds"] += selfplay
    rate = (state["moves"] - run.moves_at_start) / max(selfplay, 1e-9)
    state["selfplay_moves_per_s"] = rate
    state["simulations"] = cfg.simulations
    run.writer.add_scalar("selfplay/moves_per_s", rate, state["moves"])
    run.save(start)
    run.writer.close()
    state = json.loads((run.out / "checkpoint.json").read_text())
    run.report(f"self-play: {rate:,.0f} moves/s at {cfg.simulations} simulations per move "
               f"({cfg.games} games at once, {run.device}); {state['moves']:,} moves, "
               f"{state['updates']} updates, games finished: {state['games_finished']}")
    return state


__all__ = ["AZConfig", "CheckpointError", "RESUMABLE", "ReplayBuffer", "SelfPlay",
           "checkpoint_state", "make_config", "resume_config", "train_az"]
