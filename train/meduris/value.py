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
   a tanh output; :func:`meduris_rl.agents.policies.network.value_module`) by mean squared error,
   Adam with a one-cycle learning rate over ``epochs`` passes; a held-out slice of the positions
   measures it (``validation_mse``, against the variance of the results).
3. The network rides along in the policy file (``value_network``):
   :func:`meduris_rl.train.meduris.judges.add_value_network` writes a copy of a policy file with it;
   the ``az`` agent scores its leaves with it. :mod:`meduris_rl.train.meduris.judges` also fits
   judges to other games than the policy's own (another policy's, the search's) and joins several
   into a mean.

Everything is drawn from ``derive_seed(seed, STREAM_VALUE, k)``.

    meduris value agents/models/ppo_2p.pt --positions 800000 --out ppo_2p_value.pt

(:mod:`meduris_rl.cli.meduris.value`; ``python -m meduris_rl.train.meduris.value`` is the same
command.)
"""

from __future__ import annotations

import sys

import numpy as np

from meduris_env.engine.compiled import compile_notice
from meduris_rl.kit.seeding import STREAM_VALUE, derive_seed
from meduris_rl.train.progress import bar

VALIDATION = 20_000  # positions held out of the fit (at most a tenth of them)
BATCH = 1024
HIDDEN = (128, 128)  # as good as 256 x 256 on 800,000 positions, and half the search's cost


def collect_positions(policy, players: int, positions: int, keep: float = 0.08,
                      envs: int = 512, seed: int = 0, progress: bool = False):
    """``positions`` (inputs float16 (k, n), results float32 (k,)) from self-play games of
    ``policy`` (see the module docstring); returns them and the number of games played."""
    from meduris_env.envs.vector import Decisions, MedurisBatch
    from meduris_rl.agents.meduris.batch import BatchPolicy
    from meduris_rl.agents.policies.network import policy_outputs

    batch = MedurisBatch(envs, players, seed=derive_seed(seed, STREAM_VALUE, 0), reward="win")
    player = BatchPolicy(policy)
    rng = np.random.default_rng(derive_seed(seed, STREAM_VALUE, 1))
    n_inputs = policy.observation_space.shape[0]
    xs = np.zeros((positions, n_inputs), dtype=np.float16)
    ys = np.zeros(positions, dtype=np.float32)
    pending: list[list[tuple[np.ndarray, int]]] = [[] for _ in range(envs)]  # (inputs, seat)
    filled = games = 0
    no_seeds = np.zeros(envs, dtype=np.int64)
    b = bar(positions, "value positions", progress, notice=compile_notice)
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


def fit_value_network(xs: np.ndarray, ys: np.ndarray, hidden: list[int], epochs: int = 4,
                      seed: int = 0, learning_rate: float = 1e-3, progress: bool = False,
                      start=None, held_out: np.ndarray | None = None):
    """The value network fitted to ``(xs, ys)`` (see the module docstring) and a report:
    ``validation_mse``, ``validation_variance`` (what predicting the mean would score),
    ``correlation``, ``positions``, ``epochs``. ``start``: a value network (a module of
    :func:`meduris_rl.agents.policies.network.value_module`) to go on from, changed in place
    (``hidden`` is then its own), and the report has ``before_mse`` and ``before_correlation``;
    ``held_out``: the rows that measure it (default: up to VALIDATION drawn at random)."""
    import torch

    from meduris_rl.agents.policies.network import value_module

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
    b = bar(steps, "value network", progress, notice=compile_notice)
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


if __name__ == "__main__":  # the same as `meduris value` (the CLI layer, above this one)
    from meduris_rl.cli.main import main
    sys.exit(main(["value", *sys.argv[1:]]))
