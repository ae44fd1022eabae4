"""Tournaments: every lineup (ordered choice of agents for the seats) played equally, games in
parallel processes or Ray tasks, a leaderboard, and results written atomically.

* :mod:`.schedule`: the configuration, its validation, lineups, seats and each game's seed;
* :mod:`.backends`: where the games are played (this process, a pool of processes and its
  signals, Ray) and :func:`run_tournament`;
* :mod:`.statistics`: Wilson intervals, ratings, the leaderboard, games.csv and summary.json.

Reproducibility: game ``i`` of a tournament with seed ``s`` has the seed ``derive_seed(s, i)``
(chance and the agents' streams follow from it, :func:`meduris_rl.agents.arena.match.play_game`) and
the lineup ``lineups[i % len(lineups)]``, so results do not depend on ``workers``. (Agents with a
time budget, like ``mcts:0.5s``, depend on machine speed; iteration budgets do not.)

The command line (``meduris tournament``, :mod:`meduris_rl.cli.commands.tournament`) adds its flags
and their wording on top.
"""

from meduris_rl.agents.arena.tournament.backends import (
    RAY_CHUNK,
    RayError,
    check_ray,
    ray_address_problem,
    ray_available,
    run_tournament,
    worker_pool,
)
from meduris_rl.agents.arena.tournament.schedule import (
    TournamentConfig,
    TournamentError,
    check_config,
    entrant_labels,
    recorded_games,
)
from meduris_rl.agents.arena.tournament.statistics import (
    games_csv,
    leaderboard,
    summarize,
    wilson_interval,
    write_results,
)

__all__ = [
    "RAY_CHUNK", "RayError", "TournamentConfig", "TournamentError", "check_config", "check_ray",
    "entrant_labels", "games_csv", "leaderboard", "ray_address_problem", "ray_available",
    "recorded_games", "run_tournament", "summarize", "wilson_interval", "worker_pool",
    "write_results",
]
