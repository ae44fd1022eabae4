"""The value network for search, AlphaGo's recipe on the batch engine.

PPO's critic estimates the learner's return against the league it trained with; on the positions
of the policy's own games it says next to nothing about who wins (correlation 0.11 with the
results for the shipped 2-player model, docs/training.md). A search needs exactly that at its
leaves. So, after PPO, for a trained policy:

1. **Self-play** (:func:`collect_positions`): ``envs`` games at once on the batch engine, every
   seat played by the policy, each action *sampled* from its distribution over the legal actions
   (so that the games differ). A fraction ``keep`` of the decisions is kept (the positions of one
   game are strongly correlated): the network inputs of the seat to move, labelled with that
   seat's result once the game ends by the rules ("win": 1 for a win, -1 for a loss, a share for
   a shared win, R26). Games cut at the turn limit are dropped.
2. **Fit** (:func:`fit_value_network`): an MLP from those inputs to the result (ReLU layers,
   a tanh output; :func:`agents.network.value_module`) by mean squared error, Adam with a
   one-cycle learning rate over ``epochs`` passes; a held-out slice of the positions measures
   it (``validation_mse``, against the variance of the results).
3. The network rides along in the policy file (``value_network``): :func:`add_value_network`
   writes a copy of a policy file with it; the ``az`` agent scores its leaves with it.

Two other sources of positions (``games_of``), for judges of a search's positions rather than
of the policy's own games (docs/training.md, "two value networks at the search bar"):

- **another policy's games** (a policy file with the same inputs): its self-play as in 1. The
  shipped 2-player policy's own games mostly end early with nothing built (R22), unlike a
  search's; the az-train policy's games build to the end.
- **the search's games** (``"search"``, :func:`search_positions`): :mod:`train.az`'s Gumbel
  self-play with the policy file's networks, fixed, ``simulations`` a move; every position is
  kept, labelled ``(1 - search_share) * result + search_share * Q`` where Q is the search's
  value of the move it played (four thousand games are too few results to learn from alone).

``fine_tune`` goes on from the file's own value network rather than a fresh one, and
:func:`mean_of_files` joins the value networks of several files into one mean
(:class:`agents.network.ValueMean`): networks fitted to different games err differently.

Everything is drawn from ``derive_seed(seed, STREAM_VALUE, k)``.

    meduris value agents/models/ppo_2p.pt --positions 800000 --out ppo_2p_value.pt

(:mod:`meduris_cli.commands.value`; ``python -m train.value`` is the same command.)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from meduris_env.engine.errors import MedurisError
from meduris_env.engine.seeding import STREAM_VALUE, derive_seed

from .progress import bar


class PolicyInputsError(MedurisError, ValueError):
    """Files whose networks do not take the same inputs (the message names them)."""

VALIDATION = 20_000  # positions held out of the fit (at most a tenth of them)
BATCH = 1024
HIDDEN = (128, 128)  # as good as 256 x 256 on 800,000 positions, and half the search's cost


def collect_positions(policy, players: int, positions: int, keep: float = 0.08,
                      envs: int = 512, seed: int = 0, progress: bool = False):
    """``positions`` (inputs float16 (k, n), results float32 (k,)) from self-play games of
    ``policy`` (see the module docstring); returns them and the number of games played."""
    from agents.batch import BatchPolicy
    from agents.network import policy_outputs
    from meduris_env.envs.vector import Decisions, MedurisBatch

    batch = MedurisBatch(envs, players, seed=derive_seed(seed, STREAM_VALUE, 0), reward="win")
    player = BatchPolicy(policy)
    rng = np.random.default_rng(derive_seed(seed, STREAM_VALUE, 1))
    n_inputs = policy.observation_space.shape[0]
    xs = np.zeros((positions, n_inputs), dtype=np.float16)
    ys = np.zeros(positions, dtype=np.float32)
    pending: list[list[tuple[np.ndarray, int]]] = [[] for _ in range(envs)]  # (inputs, seat)
    filled = games = 0
    no_seeds = np.zeros(envs, dtype=np.int64)
    b = bar(positions, "value positions", progress)
    batch.reset()
    while filled < positions:
        movers = batch.mover.copy()
        x = player.inputs(Decisions(batch.obs, batch.mask, batch.states, no_seeds, batch.game))
        logits, _ = policy_outputs(policy, x)
        logits = np.where(batch.mask != 0, logits, -np.inf)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        cumulative = np.cumsum(p / p.sum(axis=1, keepdims=True), axis=1)
        drawn = np.minimum((cumulative < rng.random((envs, 1))).sum(axis=1), p.shape[1] - 1)
        # (rounding can put the draw just past the last legal action: then the likeliest)
        actions = np.where(batch.mask[np.arange(envs), drawn] != 0, drawn, p.argmax(axis=1))
        for i in np.flatnonzero(rng.random(envs) < keep):
            pending[i].append((x[i].astype(np.float16), int(movers[i])))
        batch.step(actions.astype(np.int64))
        for i in np.flatnonzero(batch.terminated | batch.truncated):
            if batch.terminated[i]:
                games += 1
                before = filled
                for inputs, seat in pending[i][:positions - filled]:
                    xs[filled] = inputs
                    ys[filled] = batch.rewards[i, seat]
                    filled += 1
                b.update(filled - before)
            pending[i] = []
    b.close()
    return xs, ys, games


def search_positions(policy_file, players: int, positions: int, search_share: float,
                     simulations: int = 32, games: int = 128, seed: int = 0,
                     progress: bool = False):
    """``positions`` (inputs float16 (k, n), targets float32 (k,)) of the Gumbel-search
    self-play of ``policy_file``'s networks, ``games`` at once (the module docstring's "the
    search's games"); returns them and the number of games played. ConfigError when the file
    cannot search."""
    from .az import AZConfig, SelfPlay, load_warm_start

    cfg = AZConfig(players=players, games=games, simulations=simulations,
                   warm_start=str(policy_file), buffer=positions + 512 * games, eval_games=0,
                   seed=derive_seed(seed, STREAM_VALUE, 4)).validate(warm_start=False)
    selfplay = SelfPlay.of_network(cfg, load_warm_start(cfg))
    played: list[list[float]] = [[] for _ in range(cfg.games)]  # Q of each game's moves
    search_values: list[float] = []  # of the positions in the buffer, in its order
    b = bar(positions, "value positions (search)", progress)
    shown = 0
    while selfplay.buffer.size < positions:
        r = selfplay.step()
        rows = np.arange(len(r.actions))
        searched = r.visits[rows, r.actions] > 0
        q = np.where(searched, r.q[rows, r.actions], r.values)
        for g in range(cfg.games):
            played[g].append(float(q[g]))
        for g, _, _ in selfplay.just_finished:
            search_values += played[g]
            played[g] = []
        b.update(min(positions, selfplay.buffer.size) - shown)
        shown = min(positions, selfplay.buffer.size)
    b.close()
    buffer = selfplay.buffer
    assert buffer.added == buffer.size == len(search_values)  # (no row overwritten)
    q = np.asarray(search_values[:positions], dtype=np.float32)
    ys = (1 - search_share) * buffer.z[:positions] + search_share * q
    return buffer.x[:positions].copy(), ys.astype(np.float32), selfplay.games_finished


def fit_value_network(xs: np.ndarray, ys: np.ndarray, hidden: list[int], epochs: int = 4,
                      seed: int = 0, learning_rate: float = 1e-3, progress: bool = False,
                      start=None, held_out: np.ndarray | None = None):
    """The value network fitted to ``(xs, ys)`` (see the module docstring) and a report:
    ``validation_mse``, ``validation_variance`` (what predicting the mean would score),
    ``correlation``, ``positions``, ``epochs``. ``start``: a value network (a module of
    :func:`agents.network.value_module`) to go on from, changed in place (``hidden`` is then
    its own), and the report has ``before_mse`` and ``before_correlation``; ``held_out``: the
    rows that measure it (default: up to VALIDATION drawn at random)."""
    import torch

    from agents.network import value_module

    torch.manual_seed(derive_seed(seed, STREAM_VALUE, 2))
    rng = np.random.default_rng(derive_seed(seed, STREAM_VALUE, 3))
    order = rng.permutation(len(ys))
    if held_out is None:
        held = min(VALIDATION, len(ys) // 10)
        val, train = order[:held], order[held:]
    else:
        val = np.asarray(held_out, dtype=np.int64)
        held = len(val)
        train = order[~np.isin(order, val)]
    net = value_module(int(xs.shape[1]), list(hidden)) if start is None else start
    before = _measure_value(net, xs[val], ys[val]) if start is not None and held else {}
    batch = min(BATCH, max(1, len(train)))  # (fewer rows than a batch: one batch of them)
    steps = max(1, epochs * (len(train) // batch))
    opt = torch.optim.Adam(net.parameters(), lr=learning_rate, weight_decay=1e-5)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=learning_rate, total_steps=steps)
    b = bar(steps, "value network", progress)
    done = 0
    for _ in range(epochs):
        shuffled = rng.permutation(train)
        for j in range(0, len(shuffled) - batch + 1, batch):
            rows = np.sort(shuffled[j:j + batch])
            x = torch.as_tensor(xs[rows].astype(np.float32))
            loss = ((net(x)[:, 0] - torch.as_tensor(ys[rows])) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if done < steps - 1:
                schedule.step()
            done += 1
            b.update(1)
    b.close()
    net.eval()
    report = {"positions": int(len(ys)), "epochs": int(epochs)}
    if held:
        after = _measure_value(net, xs[val], ys[val])
        report.update(validation_mse=after["mse"], validation_variance=float(ys[val].var()),
                      correlation=after["correlation"])
    if before:
        report.update(before_mse=before["mse"], before_correlation=before["correlation"])
    return net, report


def _measure_value(net, xs: np.ndarray, ys: np.ndarray) -> dict:
    """The squared error and correlation of ``net``'s values at ``xs`` to the results ``ys``."""
    import torch

    training = net.training
    net.eval()
    with torch.no_grad():
        v = np.concatenate([net(torch.as_tensor(xs[i:i + 8192].astype(np.float32)))[:, 0].numpy()
                            for i in range(0, len(xs), 8192)])
    net.train(training)
    return {"mse": float(((v - ys) ** 2).mean()),
            "correlation": float(np.corrcoef(v, ys)[0, 1]) if v.std() > 0 else 0.0}


def add_value_network(policy_file: str | Path, out: str | Path, players: int,
                      positions: int = 800_000, hidden: list[int] | None = None,
                      epochs: int = 4, keep: float = 0.08, envs: int | None = None,
                      seed: int = 0, progress: bool = False, games_of: str | None = None,
                      simulations: int = 32, search_share: float = 0.5,
                      fine_tune: bool = False, learning_rate: float = 1e-3) -> dict:
    """Self-play (``games_of``: None for the policy's own games, another policy file's, or
    ``"search"``; the module docstring; ``envs`` games at once, by default 512 of a policy's,
    128 of the search's), fit (from the file's value network with ``fine_tune``), and write
    ``out``: a copy of ``policy_file`` carrying the value network.
    Returns the fit's report with ``games`` and the phases' ``seconds``."""
    from agents.network import check_players, load_policy_file, save_policy

    policy, arch = load_policy_file(policy_file)
    check_players(arch, policy_file, players)
    start = _value_to_tune(policy_file) if fine_tune else None
    t0 = time.perf_counter()
    if games_of == "search":
        xs, ys, games = search_positions(policy_file, players, positions, search_share,
                                         simulations, envs or 128, seed, progress)
    else:
        player = policy
        if games_of is not None:
            player, other = load_policy_file(games_of)
            check_players(other, games_of, players)
            if other["inputs"] != arch["inputs"]:
                raise PolicyInputsError(f"{games_of}: {other['inputs']} inputs, the policy "
                                        f"{policy_file} {arch['inputs']}")
        xs, ys, games = collect_positions(player, players, positions, keep, envs or 512, seed,
                                          progress)
    t1 = time.perf_counter()
    net, report = fit_value_network(xs, ys, hidden or list(HIDDEN), epochs, seed,
                                    learning_rate, progress, start=start)
    save_policy(policy, arch, out, value_network=net)
    report.update(games=games, self_play_seconds=t1 - t0,
                  fit_seconds=time.perf_counter() - t1)
    return report


def _value_to_tune(policy_file):
    """The value network of ``policy_file``, to go on training (PolicyFileError if none)."""
    from agents.network import PolicyFileError, ValueMean, load_value_network

    net = load_value_network(policy_file)
    if net is None or isinstance(net, ValueMean):
        raise PolicyFileError(f"{policy_file} carries {'no' if net is None else 'a mean of'} "
                              "value network(s): fine-tuning needs one")
    net.train()
    return net


def mean_of_files(policy_file: str | Path, files: list[str], out: str | Path) -> dict:
    """Write ``out``: a copy of ``policy_file`` whose value network is the mean of the value
    networks ``files`` carry (:class:`agents.network.ValueMean`). Returns ``members``."""
    from agents.network import (
        PolicyFileError,
        ValueMean,
        check_players,
        load_policy_file,
        load_value_network,
        players_of,
        save_policy,
    )

    policy, arch = load_policy_file(policy_file)
    players = players_of(arch, policy_file)
    nets = []
    for f in files:
        if players is not None:
            check_players(load_policy_file(f)[1], f, players)
        net = load_value_network(f)
        if net is None:
            raise PolicyFileError(f"{f} carries no value network")
        if net.architecture["inputs"] != arch["inputs"]:
            raise PolicyInputsError(f"{f}: a value network of {net.architecture['inputs']} "
                                    f"inputs, the policy {policy_file} {arch['inputs']}")
        nets.append(net)
    try:
        mean = ValueMean(nets)
    except ValueError as err:
        raise PolicyInputsError(str(err)) from None
    save_policy(policy, arch, out, value_network=mean)
    return {"members": len(mean.members)}


if __name__ == "__main__":  # the same as `meduris value` (the CLI layer, above this one)
    from meduris_cli.main import main
    sys.exit(main(["value", *sys.argv[1:]]))
