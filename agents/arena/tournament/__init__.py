"""Tournaments: every lineup (ordered choice of agents for the seats) played equally, games in
parallel processes or Ray tasks, a leaderboard, and results written atomically.

* :mod:`.schedule`: the configuration, its validation, lineups, seats and each game's seed;
* :mod:`.backends`: where the games are played (this process, supervised worker processes,
  :mod:`meduris_rl.agents.arena.workers`, or Ray) and :func:`run_tournament`;
* :mod:`.statistics`: Wilson intervals, ratings, the leaderboard, games.csv and summary.json.

Reproducibility: game ``i`` of a tournament with seed ``s`` has the seed ``derive_seed(s, i)``
(its chance, :func:`meduris_rl.agents.arena.match.play_game`), its agents the seeds
``agent_seeds(s, i, players)`` (one-way: they do not lead to the game's,
:mod:`meduris_rl.kit.seeding`), and the lineup ``lineups[i % len(lineups)]``, so results do not
depend on ``workers``. (Agents with a
time budget, like ``mcts:0.5s``, depend on machine speed; iteration budgets do not.)

The command line (``meduris tournament``, :mod:`meduris_rl.cli.commands.tournament`) adds its flags
and their wording on top.
"""

from meduris_rl.agents.arena.tournament.backends import (
    RAY_CHUNK,
    RayError,
    TournamentInterrupted,
    check_ray,
    ray_address_problem,
    ray_available,
    run_tournament,
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
    "RAY_CHUNK", "RayError", "TournamentConfig", "TournamentError", "TournamentInterrupted",
    "check_config", "check_ray",
    "entrant_labels", "games_csv", "leaderboard", "ray_address_problem", "ray_available",
    "recorded_games", "run_tournament", "summarize", "wilson_interval",
    "write_results",
]
