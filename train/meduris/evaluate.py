"""Evaluation during and after training: the deterministic policy against an opponent, many
games at once on the batch engine (:func:`evaluate`), or against any agent in a tournament
(:func:`evaluate_in_tournament`, for agents the batch engine does not play, such as mcts).

Each of ``games`` games is played exactly once (game ``i`` of a batch of ``games``; the
learner's seat drawn per game), so short games are not over-counted; shared wins count as a
share (R26), truncated games as no win.
"""

from __future__ import annotations

import numpy as np

from meduris_rl.kit.seeding import STREAM_EVAL, derive_seed


def evaluate(policy, players: int, games: int, seed: int, opponent="greedy",
             options: dict | None = None) -> float:
    """Win rate of ``policy`` (a network, played by
    :class:`meduris_rl.agents.meduris.batch.BatchPolicy`) against ``opponent`` (a batch opponent or
    its name: random, greedy, ppo, ppo:<file>) in every other seat, in games with the game's
    ``options`` (its defaults for the rest)."""
    from meduris_env.envs.vector import Decisions, MedurisVectorEnv
    from meduris_rl.agents.meduris.batch import BatchPolicy, make_batch_opponent

    if isinstance(opponent, str):
        opponent = make_batch_opponent(opponent, players)
    env = MedurisVectorEnv(games, players, opponents=opponent, seat="random", reward="win",
                           seed=derive_seed(seed, STREAM_EVAL), autoreset_mode="SAME_STEP",
                           **(options or {}))
    me = BatchPolicy(policy)
    obs, _ = env.reset()
    batch = env.batch
    first = np.zeros(games, dtype=bool)  # the first episode of every game is over
    wins = 0.0
    no_seeds = np.zeros(games, dtype=np.int64)
    while not first.all():
        actions = me.act_batch(Decisions(obs, batch.mask, batch.states, no_seeds, batch.game))
        obs, rewards, terminated, truncated, _ = env.step(actions)
        ended = (terminated | truncated) & ~first
        wins += float(np.maximum(rewards[ended & terminated], 0.0).sum())  # 1/k for k winners
        first |= ended
    return wins / games


def evaluate_in_tournament(policy_file, against: str, players: int, games: int, seed: int,
                           workers: int, options: dict | None = None) -> float:
    """Win rate of the policy file against the agent ``against`` (any agent name, e.g.
    ``mcts:100``; the other seats of 3 or 4 players are greedy): ``games`` games of
    :func:`meduris_rl.agents.arena.tournament.run_tournament`, seats rotated, ``workers``
    processes, in games with ``options``."""
    from meduris_rl.agents.arena.tournament import TournamentConfig, run_tournament

    names = [f"ppo:{policy_file}", against] + ["greedy"] * (players - 2)
    _, summary = run_tournament(TournamentConfig(agents=names, players=players, games=games,
                                                 seed=seed, workers=workers,
                                                 options=dict(options or {})))
    return summary["agents"][names[0]]["win_rate"]


def evaluate_vs_greedy(model, players: int, games: int, seed: int,
                       options: dict | None = None) -> float:
    """:func:`evaluate` of a MaskablePPO model's policy against greedy opponents."""
    return evaluate(model.policy, players, games, seed, "greedy", options)


def win_rate(cfg, model, arch: dict | None, opponent: str, games: int) -> float:
    """Meduris's ``win_rate`` part (its row's part): against greedy on the batch
    engine (:func:`evaluate_vs_greedy`), against any other agent name in a tournament of the policy
    saved with ``arch`` to a temporary file (:func:`evaluate_in_tournament`)."""
    if opponent == "greedy":
        return evaluate_vs_greedy(model, cfg.players, games, cfg.seed, cfg.options)
    import tempfile
    from pathlib import Path

    from meduris_rl.agents.policies.network import save_policy

    with tempfile.TemporaryDirectory(prefix="meduris-eval-") as tmp:
        policy_file = Path(tmp) / f"step_{model.num_timesteps}.pt"
        save_policy(model.policy, arch, policy_file)
        return evaluate_in_tournament(policy_file, opponent, cfg.players, games, cfg.seed,
                                      workers=cfg.threads, options=cfg.options)
