"""Evaluation during training: the deterministic policy against greedy opponents."""

from __future__ import annotations

from meduris_env.engine.seeding import STREAM_EVAL, derive_seed


def evaluate_vs_greedy(model, players: int, games: int, seed: int) -> float:
    """Win rate (shared wins split) of the deterministic policy against greedy opponents, seats
    rotating; game ``i`` has the seed ``derive_seed(seed, STREAM_EVAL, i)``."""
    from agents import make_agent
    from agents.match import play_game
    from agents.ppo import PPOAgent
    from meduris_env import MedurisGame

    game = MedurisGame(players)
    me = PPOAgent("ppo", model=model)
    wins = 0.0
    for i in range(games):
        seat = i % players
        seats = [make_agent("greedy") for _ in range(players)]
        seats[seat] = me
        r = play_game(game, seats, derive_seed(seed, STREAM_EVAL, i))
        if seat in r.winners:
            wins += 1.0 / len(r.winners)
    return wins / games
