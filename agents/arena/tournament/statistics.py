"""A tournament's statistics and files: win rates with their Wilson intervals, OpenSkill
ratings, the leaderboard table, and the results written atomically (games.csv, summary.json,
one record per recorded game).

games.csv has one row per game in game order; its bytes depend only on the results, so two runs
of the same tournament write the same file. Its last two columns say whether an agent forfeited
the game (:func:`meduris_rl.agents.arena.match.play_game`: a bot that crashed, hung, answered
malformed text or an illegal action loses the game): ``forfeit_seat`` (empty when none) and
``forfeit``, the reason (empty when none). The leaderboard and summary.json count each agent's
forfeits.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict
from pathlib import Path

from meduris_rl.agents.arena.match import GameResult
from meduris_rl.agents.arena.tournament.schedule import TournamentConfig
from meduris_rl.kit.atomic import atomic_write
from meduris_rl.kit.games import game_spec
from meduris_rl.kit.values import printable


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (shared wins count fractionally)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def summarize(cfg: TournamentConfig, labels: list[str], lineups, results: list[GameResult]) -> dict:
    """Per-agent statistics and an OpenSkill (Plackett-Luce) rating, games taken in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    per = {label: {"games": 0, "wins": 0.0, "vp": [], "turns": [], "seconds": 0.0,
                   "decisions": 0, "longest": 0.0, "forfeits": 0, "first_forfeit": ""}
           for label in labels}
    for r in results:
        share = 1.0 / len(r.winners)
        for seat, label in enumerate(r.agents):
            p = per[label]
            p["games"] += 1
            p["wins"] += share if seat in r.winners else 0.0
            p["vp"].append(r.vp[seat])
            p["turns"].append(r.turns)
            p["seconds"] += r.seconds_per_seat[seat]
            p["decisions"] += r.decisions_per_seat[seat]
            p["longest"] = max(p["longest"], r.max_seconds_per_decision[seat])
            p["forfeits"] += seat == r.forfeit_seat
            if seat == r.forfeit_seat and not p["first_forfeit"]:
                p["first_forfeit"] = r.forfeit
        new = model.rate([[ratings[label]] for label in r.agents], ranks=r.ranks)
        for label, team in zip(r.agents, new, strict=False):
            ratings[label] = team[0]
    agents = {}
    for label in labels:
        p = per[label]
        g = p["games"]
        vp = p["vp"]
        mean = sum(vp) / g if g else 0.0
        sd = math.sqrt(sum((v - mean) ** 2 for v in vp) / (g - 1)) if g > 1 else 0.0
        lo, hi = wilson_interval(p["wins"], g)
        rating = ratings[label]
        agents[label] = {
            "games": g, "wins": p["wins"], "win_rate": p["wins"] / g if g else 0.0,
            "win_rate_ci95": [lo, hi], "mean_vp": mean, "sd_vp": sd,
            "mean_turns": sum(p["turns"]) / g if g else 0.0,
            "rating": rating.mu, "rating_sigma": rating.sigma,
            "rating_ordinal": rating.mu - 3 * rating.sigma,
            "seconds_per_game": p["seconds"] / g if g else 0.0,
            "seconds_per_decision": p["seconds"] / p["decisions"] if p["decisions"] else 0.0,
            "max_seconds_per_decision": p["longest"],
            "forfeits": p["forfeits"],
            "first_forfeit": p["first_forfeit"],
        }
    config = {**asdict(cfg), "game": cfg.row.name}
    return {"config": config, "games": len(results), "lineups": len(lineups),
            "rating_model": "openskill PlackettLuce (rating = mu, ordinal = mu - 3 sigma)",
            "agents": agents}


def score_word(summary: dict) -> str:
    """What the game's scores count, for the leaderboard: its row's ``score_unit`` in the
    table of games (Druids: "amulets", D5; Meduris's victory points: "VP"; a summary written
    before the game was a setting names none: the default game's)."""
    return game_spec(summary["config"].get("game")).score_unit


NAME_WIDTH = 64  # characters of an agent's name in a table (games.csv keeps it whole)


def leaderboard(summary: dict) -> str:
    """The leaderboard as a text table, best rating (ordinal) first; the score column is headed
    by what the game's scores count (:func:`score_word`)."""
    rows = sorted(((printable(label, NAME_WIDTH), a) for label, a in summary["agents"].items()),
                  key=lambda kv: -kv[1]["rating_ordinal"])  # (names escaped and cut: a table)
    width = max(16, 2 + max(len(label) for label, _ in rows))  # long names keep columns aligned
    score = f"{score_word(summary)} mean ± sd"
    col = max(16, len(score) + 2)  # a longer word widens its column, heading and rows alike
    head = (f"{'agent':<{width}}{'games':>6}{'wins':>8}{'win rate':>10}{'95% CI':>16}"
            f"{score:>{col}}{'turns':>7}{'rating':>14}{'ms/move':>9}{'forfeits':>10}")
    lines = [head, "-" * len(head)]
    for label, a in rows:
        lo, hi = a["win_rate_ci95"]
        ci = f"{lo:.1%}-{hi:.1%}"
        vp = f"{a['mean_vp']:.1f} ± {a['sd_vp']:.1f}"
        rating = f"{a['rating']:.1f} ± {a['rating_sigma']:.1f}"
        lines.append(f"{label:<{width}}{a['games']:>6}{a['wins']:>8.1f}{a['win_rate']:>10.1%}"
                     f"{ci:>16}{vp:>{col}}{a['mean_turns']:>7.1f}{rating:>14}"
                     f"{1000 * a['seconds_per_decision']:>9.2f}{a.get('forfeits', 0):>10}")
    for label, a in rows:  # (why, for each agent that forfeited: games.csv has every reason)
        if a.get("forfeits") and a.get("first_forfeit"):
            lines.append(f"{label} forfeited {a['forfeits']} game(s), the first: "
                         f"{printable(a['first_forfeit'], 200)}")
    cfg = summary["config"]
    lines.append(f"{summary['games']} games, {cfg['players']} players, {summary['lineups']} "
                 f"lineups played equally, seed {cfg['seed']}"
                 + (" (drawn: --seed repeats the run)" if cfg.get("seed_drawn") else ""))
    return "\n".join(lines)


def games_csv(results: list[GameResult], players: int, numbers: list[int] | None = None) -> str:
    """games.csv of ``results``, game ``i`` numbered ``numbers[i]`` (None: 0, 1, 2 ...; an
    interrupted run's finished games keep their numbers)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["game", "seed", *[f"seat{s}_agent" for s in range(players)],
                *[f"seat{s}_vp" for s in range(players)], "winners", "turns", "decisions",
                "end_reason", "forfeit_seat", "forfeit"])
    for i, r in zip(numbers or range(len(results)), results, strict=True):
        w.writerow([i, r.seed, *r.agents, *r.vp, ";".join(map(str, r.winners)), r.turns,
                    r.decisions, r.end_reason,
                    "" if r.forfeit_seat is None else r.forfeit_seat, r.forfeit])
    return buf.getvalue()


def write_results(out: Path, results: list[GameResult], summary: dict,
                  numbers: list[int] | None = None) -> list[Path]:
    """games.csv, summary.json and a record per recorded game (records/game-00012.json);
    returns the record paths. ``numbers``: the games' numbers (as :func:`games_csv`)."""
    players = summary["config"]["players"]
    paths = []
    for i, r in zip(numbers or range(len(results)), results, strict=True):
        if r.record is not None:
            (out / "records").mkdir(exist_ok=True)
            paths.append(out / "records" / f"game-{i:05d}.json")
            atomic_write(paths[-1], json.dumps(r.record, separators=(",", ":")) + "\n")
    atomic_write(out / "games.csv", games_csv(results, players, numbers))
    atomic_write(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    # an earlier run's records that this one did not write go: the folder holds one run
    if (out / "records").is_dir():
        for stale in set((out / "records").glob("game-*.json")) - set(paths):
            stale.unlink()
        if not any((out / "records").iterdir()):
            (out / "records").rmdir()
    return paths
