"""Warm start by behaviour cloning: a teacher agent (default ``mcts:50``) plays games against
itself; the network is fitted to its choices (cross-entropy over the legal actions) and its value
head to the game results. Search distillation (:mod:`meduris_rl.train.meduris.distill`) uses the
same games and fit with the search's visit counts as the targets instead of its one choice.

The teacher games are ordinary games (:func:`meduris_rl.agents.arena.match.play_game`) whose seats
are played by a :class:`Recorder` around the teacher, so they are played by the same loop, with the
same seeds, as any tournament game.
"""

from __future__ import annotations

import numpy as np

from meduris_env.engine.compiled import compile_notice
from meduris_env.engine.constants import NUM_ACTIONS
from meduris_rl.agents.arena.workers import Workers
from meduris_rl.kit.seeding import STREAM_TEACHER, derive_seed
from meduris_rl.train.config import TrainConfig
from meduris_rl.train.progress import bar


class Recorder:
    """An agent that plays like ``teacher`` and keeps, for every decision, the network inputs,
    the legal mask, the action, the seat and the teacher's distribution over the actions (the
    search's root visits, normalised, for teachers that search: ``last_visits``; else the
    action's one-hot)."""

    uses_observation = True

    def __init__(self, teacher, feature_set: str, high: np.ndarray, log: list):
        self.teacher, self.feature_set, self.high, self.log = teacher, feature_set, high, log
        self.name = teacher.name

    def reset(self, seed: int | None = None) -> None:
        self.teacher.reset(seed)

    def act(self, observation, state) -> int:
        from meduris_rl.agents.meduris.features import features

        action = self.teacher.act(observation, state)
        target = np.zeros(NUM_ACTIONS, np.float32)
        visits = getattr(self.teacher, "last_visits", None)
        if visits:
            for a, n in visits.items():
                target[a] = n
            target /= target.sum()
        else:
            target[action] = 1.0
        self.log.append((features(observation["observation"], state, self.feature_set,
                                  self.high), observation["action_mask"].astype(bool), action,
                         state.current_player(), target))
        return action


def teacher_game(task):
    """One teacher-vs-teacher game: (features, masks, actions, seat results, teacher
    distributions) of every decision."""
    teacher_name, players, feature_set, seed, options = task
    import torch
    torch.set_num_threads(1)
    from meduris_env import MedurisGame
    from meduris_env.envs.rewards import terminal_rewards
    from meduris_rl.agents import make_agent
    from meduris_rl.agents.arena.match import play_game
    from meduris_rl.agents.meduris.features import default_high

    game = MedurisGame(players, **options)
    high = default_high(game.max_turns)
    log: list = []
    seats = [Recorder(make_agent(teacher_name), feature_set, high, log) for _ in range(players)]
    final: list = []
    play_game(game, seats, seed, observer=lambda state, seat, action: final.append(state))
    state = final[-1]
    result = terminal_rewards(state, "win") if not state.is_truncated() else np.zeros(players)
    xs, masks, acts, movers, targets = zip(*log, strict=False)
    return (np.array(xs, np.float32), np.array(masks), np.array(acts, np.int64),
            result[np.array(movers)].astype(np.float32), np.array(targets, np.float32))


def teacher_games(teacher: str, players: int, feature_set: str, seeds, workers: int,
                  progress: bool = True, done: int = 0, options: dict | None = None):
    """Each game's decisions (as :func:`teacher_game` gives them), in the order of ``seeds``,
    played one process per core (``workers``); ``done`` games already played count on the
    progress bar; ``options``: the game's (checked; its defaults for the rest). Ctrl-C is the
    parent's (the with-block terminates the workers)."""
    tasks = [(teacher, players, feature_set, seed, dict(options or {})) for seed in seeds]
    b = bar(done + len(tasks), "teacher games", progress, notice=compile_notice)
    b.update(done)
    for part in _played(tasks, workers):
        b.update(1)
        yield part
    b.close()


def _played(tasks: list, workers: int):
    """:func:`teacher_game` of every task, in order: in a pool of ``workers`` processes, or
    here when one would do (as tournaments do: a process costs seconds of imports)."""
    if not tasks:
        return
    if min(workers, len(tasks)) > 1:
        with Workers(workers, None, (), teacher_game) as pool:
            yield from pool.map(tasks)
        return
    import torch
    threads = torch.get_num_threads()  # (teacher_game sets a worker's to 1)
    try:
        yield from map(teacher_game, tasks)
    finally:
        torch.set_num_threads(threads)


def collect_teacher_data(cfg: TrainConfig, progress: bool = True):
    """(features, masks, actions, results, teacher distributions) of ``cfg.bc_games`` games of
    ``cfg.bc_teacher`` against itself, one process per core (``cfg.threads``)."""
    seeds = [derive_seed(cfg.seed, STREAM_TEACHER, i) for i in range(cfg.bc_games)]
    parts = list(teacher_games(cfg.bc_teacher, cfg.players, cfg.features, seeds, cfg.threads,
                               progress, options=cfg.options))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(5))


BC_BATCH = 256  # behaviour cloning's minibatch: small, many steps over the teacher's games


def warm_start(cfg: TrainConfig, model, progress: bool = True) -> dict:
    """Meduris's ``warm_start`` part (its row's, for ``meduris train --bc-teacher``): the
    teacher's games (:func:`collect_teacher_data`) and the fit to them
    (:func:`behaviour_cloning`); what the run state keeps of it (the losses of each epoch, the
    decisions fitted to)."""
    data = collect_teacher_data(cfg, progress)
    losses = behaviour_cloning(model, data, cfg.bc_epochs, cfg.seed, BC_BATCH, progress)
    return {"bc_losses": losses, "bc_samples": int(len(data[2]))}


def behaviour_cloning(model, data, epochs: int, seed: int, batch_size: int = 256,
                      progress: bool = True) -> list[float]:
    """Fit the policy to the teacher's actions and the value head to the results."""
    return fit_to_teacher(model.policy, model.policy.optimizer, data, epochs, seed, batch_size,
                          progress)


def masked_log_probs(policy, obs, masks):
    """``policy``'s log-probabilities of the actions at inputs ``obs`` (a float32 tensor), its
    distribution restricted to the legal actions (``masks``)."""
    import torch

    dist = policy.get_distribution(obs, action_masks=masks).distribution
    return torch.log_softmax(dist.logits, dim=1)


def fit_to_teacher(policy, opt, data, epochs: int, seed: int, batch_size: int = 256,
                   progress: bool = True, soft: bool = False) -> list[float]:
    """Fit ``policy`` (with optimizer ``opt``) to the teacher's actions, or with ``soft`` to its
    distributions (cross-entropy to the search's visit shares), and its value head to the
    results; the mean loss of each epoch."""
    import torch
    import torch.nn.functional as F

    x, masks, acts, values, targets = data
    rng = np.random.default_rng(seed)
    losses = []
    b = bar(epochs, "distillation" if soft else "behaviour cloning", progress,
            notice=compile_notice)
    for _ in range(epochs):
        order = rng.permutation(len(acts))
        total = 0.0
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            obs = torch.as_tensor(x[idx], dtype=torch.float32)
            if soft:
                share = torch.as_tensor(targets[idx], dtype=torch.float32)
                log_p = masked_log_probs(policy, obs, masks[idx])
                cross_entropy = -(share * log_p).sum(dim=1).mean()
                v = policy.predict_values(obs)
            else:
                v, log_prob, _ = policy.evaluate_actions(obs, torch.as_tensor(acts[idx]),
                                                         action_masks=masks[idx])
                cross_entropy = -log_prob.mean()
            loss = cross_entropy + 0.5 * F.mse_loss(v.flatten(), torch.as_tensor(values[idx]))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / len(order))
        b.update(1)
    b.close()
    return losses
