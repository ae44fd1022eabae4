"""A tournament's schedule: its configuration, the entrants, every lineup (ordered choice of
entrants for the seats) played equally often, and each game's seed.

Game ``i`` of a tournament with seed ``s`` has the seed ``derive_seed(s, i)`` and the lineup
``lineups[i % len(lineups)]`` (:func:`tasks`), so results do not depend on how the games are
spread over workers. The lineups are counted (``math.perm``) before any is listed: more than
:data:`MAX_GAMES` of them (40 agents at 4 players make 2,193,360) is refused in one line.

:func:`check_config` words its errors with the configuration's field names (``players 5: ...``);
the command line passes its flags' names instead (``--players 5: ...``,
:mod:`meduris_rl.cli.commands.tournament`), so the one validation serves both.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, fields

from meduris_rl.agents.base import UnknownAgentError, check_names
from meduris_rl.agents.plugins.external import DEFAULT_MOVE_TIME, check_seconds, run_log_dir
from meduris_rl.agents.registry import check_agent
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import GameSpec, game_spec
from meduris_rl.kit.seeding import agent_seeds, derive_seed, fresh_seed
from meduris_rl.kit.values import SEED_MAX, ValueCheckError, excerpt


class TournamentError(InputError, ValueError):
    """A tournament that cannot be run as asked (the message names the fix)."""


@dataclass(kw_only=True)
class ArenaSettings:
    """What every arena run (a tournament, a duel, a ladder's gauntlet) settles the same way: the
    game (a name of the table of games, :mod:`meduris_rl.kit.games`; None: the default game),
    the game's own options as a mapping (its row checks them; what is not given keeps the game's
    default, its turn limit too), the seed, the worker processes, and the limits and log folder
    of ``cmd:`` agents (:mod:`meduris_rl.agents.plugins.external`: seconds per decision and per
    game, None: no game limit; "": a private ``<temp dir>/meduris-bots-XXXXXXXX`` folder of
    the process)."""

    game: str | None = None
    options: dict = field(default_factory=dict)
    seed: int | None = None  # None: drawn from the operating system (kit.seeding.fresh_seed)
    workers: int = 1
    move_time: float = DEFAULT_MOVE_TIME
    game_time: float | None = None
    log_dir: str = ""
    seed_drawn: bool = field(default=False, init=False)  # was the seed drawn (not given)?

    def __post_init__(self) -> None:
        # (drawn once, here, so the run and its summary hold the same seed: the run can be
        # played again with it; a drawn seed is secret from the agents: kit.seeding)
        if self.seed is None:
            self.seed, self.seed_drawn = fresh_seed(), True

    @property
    def row(self) -> GameSpec:
        """The game's row (an unknown game is an UnknownGameError in one line)."""
        return game_spec(self.game)


def arena_settings(cfg: ArenaSettings) -> dict:
    """The :class:`ArenaSettings` fields of ``cfg`` (a tournament's, a duel's) as keywords."""
    return {f.name: getattr(cfg, f.name) for f in fields(ArenaSettings) if f.init}


@dataclass
class TournamentConfig(ArenaSettings):
    agents: list[str]
    players: int = 2
    games: int = 100
    save_records: str = ""  # which games to keep records of: "", "all" or "0,5,10-19"
    backend: str = "process"  # "process" (a pool on this machine) or "ray"
    address: str | None = None  # Ray cluster (host:port); None: a local Ray


#: the most games a tournament plays (the `--games` flag's maximum), so at most this many lineups
MAX_GAMES = 1_000_000

# how check_config names each setting in its errors: the configuration's fields
FIELDS = {name: name for name in ("agents", "players", "games", "workers", "backend", "address",
                                  "save_records", "move_time", "game_time")}

# game index, lineup, game seed, keep its record, the agents' seeds (kit.seeding.agent_seeds)
Task = tuple[int, tuple[int, ...], int, bool, tuple[int, ...]]


def entrant_labels(names: list[str]) -> list[str]:
    """One label per entrant; a repeated name gets ``#2``, ``#3`` ... (``random``, ``random#2``)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def check_config(cfg: TournamentConfig, names: dict[str, str] = FIELDS
                 ) -> tuple[list[str], list[tuple[int, ...]], int]:
    """Validate (``names``: what to call each setting in the errors); return (labels, lineups,
    games rounded up to a multiple of the lineups)."""
    spec = check_game_settings(cfg, TournamentError)
    spec.check_players(cfg.players, names["players"], TournamentError)
    entrants = check_names(list(cfg.agents), names["agents"], TournamentError,
                           "random,greedy,mcts:200")
    if len(entrants) < cfg.players:
        raise TournamentError(
            f"{cfg.players} players need at least {cfg.players} agents, got {len(entrants)}; "
            f"repeat a name to seat it more than once (e.g. greedy{',random' * (cfg.players - 1)})")
    check_lineups(len(entrants), cfg.players, names)
    check_limits(cfg.move_time, cfg.game_time, names)
    cfg.log_dir = run_log_dir(cfg.log_dir, entrants)  # (one folder for all the run's bots)
    for name in dict.fromkeys(entrants):
        try:
            # (models loaded, cmd: bots started with the run's limits and log folder)
            check_agent(name, spec.name, cfg.players, cfg.move_time, cfg.log_dir)
        except UnknownAgentError as err:
            raise TournamentError(str(err)) from None
    if cfg.games < 1:
        raise TournamentError(f"{names['games']} {cfg.games}: play at least one game")
    if cfg.workers < 1:
        raise TournamentError(f"{names['workers']} {cfg.workers}: use at least 1 worker process")
    if cfg.backend not in ("process", "ray"):
        raise TournamentError(f"{names['backend']} {cfg.backend!r}: 'process' or 'ray'")
    if cfg.address and cfg.backend != "ray":
        raise TournamentError(f"{names['address']} is the Ray cluster's: it needs "
                              f"{names['backend']} ray")
    labels = entrant_labels(entrants)
    lineups = list(itertools.permutations(range(len(entrants)), cfg.players))
    games = played_games(cfg.games, len(lineups))
    recorded_games(cfg.save_records, games, names["save_records"])
    return labels, lineups, games


def check_game_settings(cfg: ArenaSettings, error: type[Exception] = TournamentError
                        ) -> GameSpec:
    """The row of ``cfg``'s game, after checking that the game is known and its options are
    its own with good values (each an ``error`` in one line naming the game or option)."""
    spec = game_spec(cfg.game, error)
    spec.check_options(cfg.options, seat=False, error=error)
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) \
            or not 0 <= cfg.seed <= SEED_MAX:
        raise error(f"seed {excerpt(cfg.seed)}: a whole number 0..2**63 - 1 (or none: drawn "
                    "from the operating system)")
    return spec


def played_games(games: int, lineups: int) -> int:
    """The games a tournament asked for ``games`` plays: rounded up to a whole number of its
    ``lineups``, so every lineup plays equally often."""
    return math.ceil(games / lineups) * lineups


def check_lineups(entrants: int, players: int, names: dict[str, str] = FIELDS) -> int:
    """The number of lineups (ordered choices of ``players`` of the ``entrants``), counted before
    any is listed: more than :data:`MAX_GAMES` (each lineup plays at least once) is refused."""
    count = math.perm(entrants, players)
    if count > MAX_GAMES:
        raise TournamentError(
            f"{entrants} agents at {players} players make {count:,} lineups, more than the "
            f"{MAX_GAMES:,} games a tournament may play (each lineup plays at least once); "
            f"give fewer agents ({names['agents']}) or fewer players ({names['players']})")
    return count


def check_limits(move_time: float, game_time: float | None,
                 names: dict[str, str] = FIELDS) -> None:
    """Time limits of subprocess agents: seconds in (0,
    :data:`~meduris_rl.agents.plugins.external.MAX_SECONDS`] (``game_time`` None: no limit), checked
    by :func:`meduris_rl.agents.plugins.external.check_seconds`."""
    for key, value in (("move_time", move_time), ("game_time", game_time)):
        try:
            check_seconds(names.get(key, key), value, optional=key == "game_time")
        except ValueCheckError as err:
            raise TournamentError(f"{err}; give a number of seconds, e.g. 10") from None


def recorded_games(spec: str, games: int, name: str = "save_records") -> set[int]:
    """The game indices a ``save_records`` spec names: "" (none), "all", or indices and
    ranges like ``0,5,10-19`` (each below ``games``); ``name`` is the setting's in errors."""
    spec = (spec or "").strip()
    if not spec:
        return set()
    if spec == "all":
        return set(range(games))
    chosen: set[int] = set()
    for part in spec.split(","):
        lo, dash, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi if dash else lo)
        except ValueError:
            raise TournamentError(f"{name} {spec!r}: write 'all' or game numbers and "
                                  "ranges such as 0,5,10-19") from None
        if not 0 <= first <= last < games:
            raise TournamentError(f"{name} {spec!r}: {part.strip()!r} is outside the "
                                  f"games 0..{games - 1}")
        chosen.update(range(first, last + 1))
    return chosen


def tasks(cfg: TournamentConfig, lineups: list[tuple[int, ...]], games: int) -> list[Task]:
    """Every game of the tournament in order: (index, lineup, seed, keep its record)."""
    keep = recorded_games(cfg.save_records, games)
    return [(i, lineups[i % len(lineups)], derive_seed(cfg.seed, i), i in keep,
             agent_seeds(cfg.seed, i, cfg.players))
            for i in range(games)]
