"""Training throughput and learning curves.

**Throughput** (default): the end-to-end environment steps/s of a training run, rollouts and
updates together, with the shipped configuration (``train/configs/ppo_<n>p.yaml``: the batch
engine, the opponent league with its full set of snapshots as after the first minutes of a run,
the network features, MaskablePPO's updates) for 2 and 4 players: one warm-up rollout, then
``--rollouts`` timed ones. Beside it, in the same run, the reference: MaskablePPO on SB3's
``SubprocVecEnv`` of two single-game ``MedurisSingleAgentEnv`` (one process per core, greedy
opponents), how one trains on a gymnasium env without a batch engine (and how this project's
first trainer did). ``--json`` prints one object with ``train_env_steps_per_s`` (2 players),
``train_env_steps_per_s_4p``, ``reference_env_steps_per_s`` and ``speedup_vs_reference``.

**Self-play with search**, in the same run: ``meduris az-train``'s self-play alone (2 players,
the shipped network, ``--az-games`` games advanced together, ``--az-simulations`` simulations
per move with the batched Gumbel search, Gumbel noise sampled, both cores): one warm-up move,
then ``--az-moves`` moves timed (a move is one position searched and played);
``az_selfplay_moves_per_s`` with ``az_simulations`` and ``az_games`` in the JSON
(``--az-moves 0``: not measured).

**Learning curves** (``--curve RUN [RUN ...]``): every snapshot of a finished run
(``RUN/snapshots``, saved with their wall time in ``RUN/checkpoint.json``) played against greedy
(``--greedy-games`` games on the batch engine) and against ``--against`` (default
``mcts:100``; ``--other-games`` tournament games, seats rotated); written to ``RUN/curve.csv``,
the snapshot that did best against it named at the end, and plotted (``--plot``, e.g. into
docs/); ``--with-evaluations`` adds the run's own evaluations against its ``best_against``
agent (e.g. ``mcts:200``) to the picture, a line of its own (the greedy line stays the
snapshots'). Several runs (e.g. with and without the warm start) share one picture, one
colour per run. ``--evaluations`` plots the run's own evaluations instead (no games played): a
run that chose ``best.pt`` against another agent (``best_against``, ``mcts:400`` for the
2-player model) has both curves already.

    python benchmarks/training.py [--rollouts 4] [--json]
    python benchmarks/training.py --curve runs/ppo_2p --evaluations --plot docs/curve.png
    python benchmarks/training.py --curve runs/ppo_4p --other-games 96 --with-evaluations \
        --plot docs/learning_curve_4p.png
    python benchmarks/training.py --curve runs/ab_plain runs/ab_shaped --evaluations \
        --plot docs/shaping_2p.png
    python benchmarks/training.py --az-curve runs/az_2p --plot docs/learning_curve_az_2p.png
    python benchmarks/training.py --az-curve runs/az_3p --ppo-run runs/ppo_3p \
        --plot docs/learning_curve_az_3p.png
    python benchmarks/training.py --search-curve docs/learning_curve_search_2p.csv \
        --plot docs/learning_curve_search_2p.png

**Ladder Elo over wall time** (``--az-curve RUN``): the Elo of every evaluation of a finished
``meduris az-train`` run (its ``eval.csv``: the policy alone against the anchors greedy and
ppo, and any ``eval_against``) on the ladder's scale of its player count, over the run's wall
time. 2 players: the trainer's own Elo (:func:`meduris_rl.agents.arena.ladder.fit.rating_against`
with the anchors held at the shipped ladder's ratings), beside the shipped 2-player PPO run's
evaluations against ``mcts:400`` (100 games each, every 1 M steps, docs/training.md) put on the same
scale and the shipped ratings of ``ppo`` and ``az:200`` as lines. 3 and 4 players: the Elo of the
first places against each lineup (:func:`lineup_elo`: greedy or the ``ppo`` column's policy in
every other seat, an ``eval_against`` anchor beside greedy; Plackett-Luce's chance of the first
place is Bradley-Terry against the lineup's summed strength) with the anchors held at the
shipped 3- or 4-player ladder's ratings, the ladder's ``ppo`` and ``mcts:200`` as lines. A
column counts only where the ladder rates its agents: the ``ppo`` column of a run whose
``eval_ppo`` is a file (a rerun of a shipped recipe plays the PPO run it started from) counts
once that file is on the ladder given by ``--ladder DB`` (``meduris ladder add
ppo:FILE --players N --db DB``). ``--ppo-run RUN``: the PPO run the az-train run started from,
its evaluations (greedy in every other seat, its ``best_against`` beside greedy) on the same
scale over its own minutes, the az-train run's minutes after them.

**The 2-player search's curve** (``--search-curve CSV``): ``make model-search-2p`` trains no
policy the search uses; it makes value networks. The CSV holds tournaments of ``az-fast:430``
against ``az:200`` with the networks the recipe has made by each minute of it (``shipped`` 1;
the others, ``shipped`` 0, are judges tried alone), put on the shipped ladder's scale with
``az:200`` held at its rating, beside the PPO run's evaluations.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from meduris_env.engine.game import PLAYER_COUNTS  # noqa: E402
from meduris_rl.kit.atomic import (  # noqa: E402
    atomic_replace,
    atomic_write,
    output_file_problem,
)
from meduris_rl.train.config import load_config  # noqa: E402


def measure(players: int, rollouts: int, seed: int = 0) -> dict:
    """Env steps/s of ``learn()`` with the shipped configuration for ``players``."""
    import tempfile

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from meduris_rl.agents.policies.network import init_as_greedy, policy_kwargs
    from meduris_rl.train.meduris.league import TrainingEnv
    from meduris_rl.train.run import network_of

    with tempfile.TemporaryDirectory() as tmp:
        cfg = load_config(REPO / "train" / "configs" / f"ppo_{players}p.yaml",
                          {"out": tmp, "seed": seed})
    torch.set_num_threads(cfg.threads)
    env = TrainingEnv(cfg)
    arch = network_of(cfg)
    model = MaskablePPO("MlpPolicy", env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
                        batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
                        gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
                        ent_coef=cfg.ent_coef, policy_kwargs=policy_kwargs(arch), seed=seed,
                        device="cpu")
    model.set_logger(Logger(None, []))  # no logs (SB3's default makes a /tmp/SB3-* folder)
    if cfg.policy == "residual":
        init_as_greedy(model)
    # the league as it is for most of a run: max_snapshots frozen copies of the learner beside
    # greedy and random (each a network whose forward passes the opponents' moves cost)
    from meduris_rl.agents.policies.network import save_policy
    with tempfile.TemporaryDirectory() as snaps:
        for k in range(cfg.max_snapshots if cfg.opponents.get("snapshots", 0) > 0 else 0):
            path = Path(snaps) / f"snapshot_{k}.pt"
            save_policy(model.policy, arch, path)
            env.add_snapshot(path)
    per_rollout = cfg.envs * cfg.n_steps
    model.learn(per_rollout)  # warm-up: compiled kernels, torch's first passes
    t0 = time.perf_counter()
    model.learn(per_rollout * rollouts, reset_num_timesteps=False)
    seconds = time.perf_counter() - t0
    return {"players": players, "steps": per_rollout * rollouts, "seconds": seconds,
            "env_steps_per_s": per_rollout * rollouts / seconds, "games": cfg.envs,
            "n_epochs": cfg.n_epochs, "batch_size": cfg.batch_size}


def measure_az(moves: int, simulations: int, games: int, seed: int = 0,
               players: int = 2) -> dict:
    """Self-play moves/s of ``meduris az-train`` (module docstring): its SelfPlay with the
    shipped network, one warm-up move of every game, then at least ``moves`` moves timed."""
    import torch

    from meduris_rl.train.meduris.az import AZConfig, SelfPlay, load_warm_start, numba_threads

    cfg = AZConfig(players=players, games=games, simulations=simulations, seed=seed,
                   buffer=max(256, games * 4), batch_size=256).validate()
    torch.set_num_threads(cfg.threads)
    with numba_threads(cfg.threads):  # as train_az runs
        play = SelfPlay.of_network(cfg, load_warm_start(cfg))
        play.step()  # warm-up: compiled kernels, torch's first passes
        steps = max(1, -(-moves // games))
        t0 = time.perf_counter()
        for _ in range(steps):
            play.step()
        seconds = time.perf_counter() - t0
    return {"players": players, "moves": steps * games, "seconds": seconds,
            "moves_per_s": steps * games / seconds, "simulations": simulations,
            "games": games, "threads": cfg.threads}


def _reference_env(players: int, rank: int, seed: int):
    """One game per environment, the learner's seat drawn per episode, greedy at the other
    seats: what the SB3 documentation's recipe gives with ``MedurisSingleAgentEnv``."""
    def make():
        from meduris_env import MedurisSingleAgentEnv
        from meduris_rl.agents import make_agent
        from meduris_rl.kit.seeding import STREAM_ENV, derive_seed
        env = MedurisSingleAgentEnv(num_players=players, seat="random", opponents=[
            make_agent("greedy") for _ in range(players - 1)])
        env.reset(seed=derive_seed(seed, STREAM_ENV, rank))
        return env
    return make


def measure_reference(players: int, steps: int, seed: int = 0) -> dict:
    """The reference of the same run: env steps/s of MaskablePPO ``learn()`` on SB3's
    ``SubprocVecEnv`` of two single-game environments (one process per core, as this project's
    first trainer ran), greedy opponents (cheaper than the league's snapshot networks, so the
    reference is flattered), sb3's MLP on the raw observation; one warm-up rollout, then
    ``steps`` timed."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import SubprocVecEnv

    procs = 2
    n_steps = max(16, min(512, steps // procs))  # rollouts of 1,024 steps (fewer for a smoke run)
    venv = SubprocVecEnv([_reference_env(players, r, seed) for r in range(procs)],
                         start_method="spawn")
    try:
        torch.set_num_threads(2)
        model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps,
                            batch_size=min(256, procs * n_steps), n_epochs=2,
                            policy_kwargs={"net_arch": [256]}, seed=seed, device="cpu")
        model.set_logger(Logger(None, []))
        per_rollout = procs * n_steps
        model.learn(per_rollout)  # warm-up: the workers' first games, torch's first passes
        rollouts = max(1, steps // per_rollout)
        t0 = time.perf_counter()
        model.learn(per_rollout * rollouts, reset_num_timesteps=False)
        seconds = time.perf_counter() - t0
    finally:
        venv.close()
    return {"players": players, "steps": per_rollout * rollouts, "seconds": seconds,
            "env_steps_per_s": per_rollout * rollouts / seconds, "games": procs}


def curve(run: Path, greedy_games: int, other_games: int, workers: int, seed: int,
          against: str = "mcts:100") -> list[dict]:
    """Win rates of every snapshot of ``run`` against greedy and ``against`` (rows with
    ``vs_greedy``, and ``against`` and ``vs_other`` when ``other_games``)."""
    from meduris_rl.agents.policies.network import load_policy_file
    from meduris_rl.train.meduris.evaluate import evaluate, evaluate_in_tournament

    meta = json.loads((run / "checkpoint.json").read_text())
    players = meta["config"]["players"]
    rows = []
    for snap in meta.get("snapshot_log", []):
        path = Path(snap["path"])
        if not path.is_file():
            continue
        policy, _ = load_policy_file(path)
        row = {"timesteps": snap["timesteps"], "wall_seconds": snap["wall_seconds"],
               "path": str(path), "vs_greedy": evaluate(policy, players, greedy_games, seed)}
        if other_games:
            row["against"] = against
            row["vs_other"] = evaluate_in_tournament(path, against, players, other_games, seed,
                                                     workers)
        rows.append(row)
        print(f"{row['timesteps']:>10} steps {row['wall_seconds'] / 60:6.1f} min  "
              f"vs greedy {row['vs_greedy']:.1%}" + (f"  vs {against} {row['vs_other']:.1%}"
                                                     if other_games else ""), flush=True)
    lines = ["timesteps,wall_seconds,vs_greedy,against,vs_other,path"] + [
        f"{r['timesteps']},{r['wall_seconds']:.0f},{r['vs_greedy']:.4f},{r.get('against', '')},"
        f"{r.get('vs_other', float('nan')):.4f},{r['path']}" for r in rows]
    atomic_write(run / "curve.csv", "\n".join(lines) + "\n")
    if rows and other_games:
        best = max(rows, key=lambda r: (r["vs_other"], r["timesteps"]))
        print(f"best against {against}: {best['vs_other']:.1%} at {best['timesteps']:,} steps, "
              f"{best['path']}", flush=True)
    return rows


def read_curve(run: Path) -> list[dict]:
    """The rows :func:`curve` wrote to ``run/curve.csv``."""
    import csv

    rows = []
    with open(run / "curve.csv", newline="") as f:
        for r in csv.DictReader(f):
            row = {"timesteps": int(r["timesteps"]), "wall_seconds": float(r["wall_seconds"]),
                   "vs_greedy": float(r["vs_greedy"]), "path": r.get("path", "")}
            if r.get("against"):
                row.update(against=r["against"], vs_other=float(r["vs_other"]))
            rows.append(row)
    return rows


def run_evaluations(run: Path) -> list[dict]:
    """The run's own evaluations during PPO (``run/checkpoint.json``) as curve rows: against
    greedy, and against the agent it chose best.pt by when that is another (``best_against``,
    e.g. mcts:400 for the 2-player model)."""
    meta = json.loads((run / "checkpoint.json").read_text())
    against = meta["config"].get("best_against", "greedy")
    return [{"timesteps": e["timesteps"], "wall_seconds": e["wall_seconds"],
             "vs_greedy": e["win_rate_vs_greedy"],
             **({"against": against, "vs_other": e["win_rate_vs_best_against"]}
                if "win_rate_vs_best_against" in e else {})}
            for e in meta["evals"] if e["phase"] == "ppo"]


def plot(curves: dict[str, list[dict]], players: int, path: Path) -> None:
    """One picture of the curves of one or more runs (``{label: rows}``): win rate against
    greedy (circles) and the rows' other agent (squares, dashed) over the run's wall time."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for k, (label, rows) in enumerate(curves.items()):
        colour = f"C{k}"
        prefix = f"{label}: " if len(curves) > 1 else ""
        minutes = [r["wall_seconds"] / 60 for r in rows]
        greedy = [(m, r["vs_greedy"]) for m, r in zip(minutes, rows, strict=True)
                  if "vs_greedy" in r]
        ax.plot([m for m, _ in greedy], [w for _, w in greedy], marker="o", color=colour,
                label=f"{prefix}vs greedy")
        # one dashed line per other agent (a run's own evaluations and its snapshots' games
        # may be against different ones)
        against = dict.fromkeys(r["against"] for r in rows if "vs_other" in r)
        for j, agent in enumerate(against):
            other = [(m, r) for m, r in zip(minutes, rows, strict=True)
                     if r.get("against") == agent and "vs_other" in r]
            ax.plot([m for m, _ in other], [r["vs_other"] for _, r in other],
                    marker="s^vD"[j % 4], linestyle=("--", "-.", ":")[j % 3], color=colour,
                    label=f"{prefix}vs {agent}")
    win_rate_axes(ax, players, "training wall time (minutes, 2 cores)",
                  f"MaskablePPO on the batch engine, {players} players")
    save_figure(fig, ax, path)


def win_rate_axes(ax, players: int, xlabel: str, title: str) -> None:
    """The fair share's line, the labels and the 0-1 scale of a win-rate picture."""
    ax.axhline(1 / players, color="grey", linestyle=":", label=f"fair share 1/{players}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.set_title(title)


def save_figure(fig, ax, path: Path) -> None:
    """The legend, then the picture written to ``path`` atomically, and the figure closed."""
    import matplotlib.pyplot as plt

    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    atomic_replace(path, lambda tmp: fig.savefig(tmp, format="png"))
    plt.close(fig)


#: the shipped 2-player PPO run's own evaluations (docs/training.md, 2026-11-24): (PPO steps,
#: wins of 100 games against mcts:400); 34.4 minutes of PPO for 6 M steps, evaluations included
PPO_2P_EVALUATIONS = [(1_000_000, 4), (2_000_000, 61), (3_000_000, 66), (4_000_000, 70),
                      (5_000_000, 60), (6_000_000, 42)]
PPO_2P_MINUTES_PER_MILLION = 34.4 / 6


def az_curve(run: Path) -> list[dict]:
    """The evaluations of an az-train run (its ``eval.csv``): moves, wall seconds, the win rate
    against each anchor (``rates``; ``vs_greedy`` and ``vs_ppo`` as keys of their own) and the
    trainer's Elo (None where the row has none: 3 and 4 players)."""
    import csv

    prefix = "win_rate_vs_"
    with open(run / "eval.csv", newline="") as f:
        return [{"moves": int(r["moves"]), "wall_seconds": float(r["wall_seconds"]),
                 "elo": float(r["elo"]) if r.get("elo") else None,
                 "vs_greedy": float(r["win_rate_vs_greedy"]),
                 "vs_ppo": float(r["win_rate_vs_ppo"]),
                 "rates": {k[len(prefix):]: float(v) for k, v in r.items()
                           if k.startswith(prefix) and v}}
                for r in csv.DictReader(f)]


def add_lineup_elo(rows: list[dict], meta: dict, ratings: dict[str, float]) -> None:
    """Each of :func:`az_curve`'s ``rows`` given the Elo of its rates on the ladder's
    ``ratings`` of the run's player count (``meta``: its checkpoint.json), :func:`lineup_elo`
    (None where no column is rated)."""
    config = meta["config"]
    ppo = ppo_played(meta)
    for row in rows:
        results = {ppo if name == "ppo" else name: (config["eval_games"], rate)
                   for name, rate in row["rates"].items()}
        row["elo"] = lineup_elo(results, config["players"], ratings, ("greedy", ppo))


def lineup_elo(results: dict[str, tuple[int, float]], players: int, ratings: dict[str, float],
               alone: tuple[str, ...]) -> float | None:
    """The Elo on the ladder's scale of a policy's evaluation with ``players``:
    ``results[agent] = (games, win rate)``, against ``agent`` in every other seat where it is
    one of ``alone`` (the batch engine's evaluations: greedy, the ``ppo`` column's policy), else
    in one seat beside greedy in the others (the tournaments of
    :func:`meduris_rl.train.meduris.evaluate.evaluate_in_tournament`, their games rounded up to
    whole rotations of the seats as the tournament plays them); the first places against those
    lineups (:func:`meduris_rl.agents.arena.ladder.fit.rating_against`), counting only the columns
    whose agents ``ratings`` rates; None where none is."""
    import math

    from meduris_rl.agents.arena.ladder.fit import rating_against
    from meduris_rl.agents.arena.tournament.schedule import played_games

    lineups = {}
    for agent, (games, rate) in results.items():
        lineup = (agent,) * (players - 1) if agent in alone else \
            (agent,) + ("greedy",) * (players - 2)
        if agent not in alone:  # (its players entrants seated in every order)
            games = played_games(games, math.factorial(players))
        if games and all(name in ratings for name in lineup):
            lineups[lineup] = (games, rate * games)
    return rating_against(lineups, ratings) if lineups else None


def ppo_run_curve(run: Path, ratings: dict[str, float]) -> tuple[list[dict], float]:
    """The evaluations of the PPO run ``run`` (its checkpoint.json; phase ``ppo``, and the
    untrained policy's at 0 steps) with their Elo (:func:`lineup_elo`: greedy in every other
    seat, ``best_against`` beside greedy; ``best``: the one kept as ``best.pt``), and the run's
    wall seconds, its value network's games and fit included."""
    meta = json.loads((run / "checkpoint.json").read_text())
    config = meta["config"]
    rows = []
    for e in meta["evals"]:
        if e["phase"] not in ("untrained", "ppo"):
            continue
        results = {"greedy": (config["eval_games"], e["win_rate_vs_greedy"])}
        if "win_rate_vs_best_against" in e:
            results[config["best_against"]] = (config["best_against_games"],
                                               e["win_rate_vs_best_against"])
        rows.append({"timesteps": e["timesteps"], "wall_seconds": e.get("wall_seconds", 0.0),
                     "elo": lineup_elo(results, config["players"], ratings, ("greedy",)),
                     "best": e["timesteps"] == meta.get("best", {}).get("timesteps")})
    value = meta.get("value_network") or {}  # (its games and fit come after PPO's minutes)
    return rows, float(meta["wall_seconds"]) + value.get("self_play_seconds", 0.0) \
        + value.get("fit_seconds", 0.0)


def plot_elo(rows: list[dict], path: Path, label: str) -> None:
    """``--az-curve``'s picture (module docstring)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.plot([r["wall_seconds"] / 60 for r in rows], [r["elo"] for r in rows], marker="o",
            color="C0", label=f"{label}: policy alone (Elo from games vs greedy and ppo only)")
    ppo_beside(ax, "Gumbel AlphaZero self-play against PPO, 2 players")
    save_figure(fig, ax, path)


def plot_lineup_elo(rows: list[dict], ppo: tuple[list[dict], float] | None, players: int,
                    ratings: dict[str, float], path: Path, label: str, counted: str,
                    value_seconds: float = 0.0) -> None:
    """``--az-curve``'s picture of a 3- or 4-player run (module docstring): the policy's Elo
    over wall time (after ``value_seconds`` of the run's value network fitted first), after the
    PPO run's (``ppo``: its rows and wall seconds, or None), and the
    ladder's ``ppo`` and ``mcts:200`` of the player count (``az:200`` with 2) as lines."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    offset = 0.0
    if ppo is not None:
        ppo_rows, offset = ppo
        points = [r for r in ppo_rows if r["elo"] is not None]
        ax.plot([r["wall_seconds"] / 60 for r in points], [r["elo"] for r in points],
                marker="s", linestyle="--", color="C1",
                label="the PPO run it started from (its own evaluations)")
        best = [r for r in points if r.get("best")]
        ax.plot([r["wall_seconds"] / 60 for r in best], [r["elo"] for r in best], marker="o",
                markersize=12, fillstyle="none", linestyle="", color="C1",
                label="its best.pt, the warm start")
    offset += value_seconds
    az = [r for r in rows if r["elo"] is not None]
    ax.plot([(offset + r["wall_seconds"]) / 60 for r in az], [r["elo"] for r in az],
            marker="o", color="C0", label=f"{label}: policy alone (vs {counted})")
    lines = ("ppo", "az:200") if players == 2 else ("ppo", "mcts:200")
    for k, name in enumerate(n for n in lines if n in ratings):
        ax.axhline(ratings[name], color=f"C{k + 2}", linestyle=":",
                   label=f"{name} (the ladder's)")
    ax.set_xlabel("training wall time (minutes, 2 cores)" + (", PPO then az-train"
                                                            if ppo is not None else ""))
    ax.set_ylabel(f"Elo on the {players}-player ladder (random = 0)")
    ax.set_title(f"Gumbel AlphaZero self-play from the PPO policy, {players} players")
    save_figure(fig, ax, path)


def ppo_beside(ax, title: str) -> None:
    """The shipped 2-player PPO run's evaluations on the ladder's scale, the shipped ``ppo``
    and ``az:200`` as lines, the axes' labels and ``title``."""
    from meduris_rl.agents.arena.ladder.fit import rating_against

    ratings = shipped_elos()
    ppo = [(steps / 1e6 * PPO_2P_MINUTES_PER_MILLION,
            rating_against({"mcts:400": (100, wins)}, ratings)) for steps, wins in
           PPO_2P_EVALUATIONS]
    ax.plot([m for m, _ in ppo], [e for _, e in ppo], marker="s", linestyle="--", color="C1",
            label="PPO run of the shipped ppo (vs mcts:400)")
    for k, name in enumerate(("ppo", "az:200")):
        ax.axhline(ratings[name], color=f"C{k + 2}", linestyle=":", label=f"{name} (shipped)")
    ax.set_xlabel("training wall time (minutes, 2 cores)")
    ax.set_ylabel("Elo on the shipped ladder (random = 0)")
    ax.set_title(title)


def shipped_elos() -> dict[str, float]:
    """The shipped 2-player ladder's ratings by anchor name."""
    from meduris_rl.agents.arena.ladder.fit import shipped_ratings

    return {name: r.elo for name, r in shipped_ratings(2).items()}


def search_curve(path: Path) -> list[dict]:
    """``--search-curve``'s rows: its CSV (``minutes`` of the recipe, ``label``, ``shipped``:
    1 for the points of the search that ships, ``games`` and ``points`` against ``az:200``),
    each with its Elo on the shipped ladder's scale (``az:200`` held at its rating)."""
    import csv

    from meduris_rl.agents.arena.ladder.fit import rating_against

    ratings = shipped_elos()
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [{"minutes": float(r["minutes"]), "label": r["label"], "shipped": r["shipped"] == "1",
             "games": int(r["games"]), "points": float(r["points"]),
             "elo": rating_against({"az:200": (int(r["games"]), float(r["points"]))}, ratings)}
            for r in rows]


def plot_search_curve(rows: list[dict], path: Path) -> None:
    """``--search-curve``'s picture: the search's Elo along its recipe (module docstring)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    path_rows = [r for r in rows if r["shipped"]]
    ax.plot([r["minutes"] for r in path_rows], [r["elo"] for r in path_rows], marker="o",
            color="C0", label="az-fast:430 with the recipe's value network (vs az:200)")
    right = max(r["minutes"] for r in rows) / 2
    for r in rows:  # (the shipped points' labels below them, the others' above)
        left = r["minutes"] < right
        ax.annotate(r["label"], (r["minutes"], r["elo"]), textcoords="offset points",
                    xytext=(6 if left else -6, -12 if r["shipped"] else 6),
                    ha="left" if left else "right", fontsize="x-small")
        if not r["shipped"]:
            ax.plot([r["minutes"]], [r["elo"]], marker="x", color="C0", linestyle="")
    ppo_beside(ax, "The 2-player search's recipe (make model-search-2p) against PPO")
    save_figure(fig, ax, path)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rollouts", type=int, default=4, help="timed rollouts (default 4)")
    ap.add_argument("--players", default="2,4", help="player counts to time (default 2,4)")
    ap.add_argument("--reference-steps", type=int, default=8192,
                    help="timed steps of the reference in the same run (MaskablePPO on SB3's "
                         "SubprocVecEnv of single-game envs, the first player count); 0: none")
    ap.add_argument("--az-moves", type=int, default=5120,
                    help="timed self-play moves of az-train's search (0: none)")
    ap.add_argument("--az-simulations", type=int, default=32,
                    help="simulations per self-play move (default 32)")
    ap.add_argument("--az-games", type=int, default=128,
                    help="self-play games advanced together (default 128)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--curve", type=Path, nargs="+", metavar="RUN",
                    help="learning curves of finished runs (one picture for all)")
    ap.add_argument("--greedy-games", type=int, default=200)
    ap.add_argument("--against", default="mcts:100",
                    help="with --curve: the agent besides greedy that every snapshot plays")
    ap.add_argument("--other-games", type=int, default=40,
                    help="with --curve: games per snapshot against --against (0: none)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--plot", type=Path, help="write the curve's picture here")
    ap.add_argument("--az-curve", type=Path, metavar="RUN",
                    help="the ladder Elo of a finished az-train run over its wall time, "
                         "beside PPO's (with --plot)")
    ap.add_argument("--ppo-run", type=Path, metavar="RUN",
                    help="with --az-curve: the PPO run it started from, its evaluations on the "
                         "same scale before the az-train run's minutes")
    ap.add_argument("--ladder", type=Path, metavar="DB",
                    help="with --az-curve: the ladder file whose ratings (anchors held) give "
                         "the Elo (default: the shipped ladder)")
    ap.add_argument("--search-curve", type=Path, metavar="CSV",
                    help="the ladder Elo of the 2-player search along its recipe, from "
                         "tournaments against az:200 (docs/learning_curve_search_2p.csv; "
                         "with --plot)")
    ap.add_argument("--reuse", action="store_true",
                    help="with --curve: plot the runs' curve.csv from an earlier --curve "
                         "instead of playing the games again")
    ap.add_argument("--evaluations", action="store_true",
                    help="with --curve: plot the runs' own evaluations (checkpoint.json; "
                         "against its best_against agent too when that is not greedy) "
                         "instead of playing the snapshots again")
    ap.add_argument("--with-evaluations", action="store_true",
                    help="with --curve (snapshots played, or --reuse): the runs' own "
                         "evaluations too, e.g. against mcts:200 beside the snapshots' games "
                         "against mcts:100")
    ap.add_argument("--seed", type=int, default=0)
    return ap


def main(argv: list[str] | None = None):
    ap = _parser()
    args = ap.parse_args(argv)
    if args.reuse and args.evaluations:
        ap.error("--reuse and --evaluations: choose one source for the curve")
    if args.with_evaluations and (args.evaluations or not args.curve):
        ap.error("--with-evaluations goes with --curve, when the snapshots' games are plotted "
                 "(played or --reuse), not with --evaluations")
    if (args.ppo_run or args.ladder) and not args.az_curve:
        ap.error("--ppo-run and --ladder go with --az-curve")
    if args.curve:
        return _curves(ap, args)
    if args.az_curve:
        return _az_curve(ap, args)
    if args.search_curve:
        return _search_curve(ap, args)
    return _throughput(ap, args)


def _search_curve(ap: argparse.ArgumentParser, args) -> list[dict]:
    """``--search-curve``: its rows with their Elo, printed, plotted with ``--plot``."""
    problem = args.plot and output_file_problem(args.plot, "--plot", force=True)
    if problem:
        ap.error(problem)
    try:
        rows = search_curve(args.search_curve)
    except (OSError, KeyError, ValueError) as err:
        ap.error(f"--search-curve {args.search_curve}: {err!r}; a CSV of minutes, label, "
                 "shipped, games and points")
    for r in rows:
        print(f"{r['minutes']:6.1f} min  {r['label']:<36} {r['points']:6.1f} of {r['games']} "
              f"against az:200  Elo {r['elo']:6.0f}", flush=True)
    if args.plot:
        plot_search_curve(rows, args.plot)
    return rows


def _curves(ap: argparse.ArgumentParser, args) -> list[dict] | dict[str, list[dict]]:
    """``--curve``: the runs' curves (module docstring), plotted with ``--plot``; the rows of
    the one run, or ``{run name: rows}`` of several."""
    for run in args.curve:
        needed = run / ("curve.csv" if args.reuse else "checkpoint.json")
        if not needed.is_file():
            ap.error(f"--curve: {needed} not found; give the folder of a finished "
                     "`meduris train` run" + (" after a --curve of it" if args.reuse else ""))
    # the picture is redrawn in place (docs/), but a folder or an unwritable place is
    # refused before the games are played
    problem = args.plot and output_file_problem(args.plot, "--plot", force=True)
    if problem:
        ap.error(problem)
    players = {json.loads((run / "checkpoint.json").read_text())["config"]["players"]
               for run in args.curve}
    if len(players) > 1:
        ap.error(f"--curve: the runs are for different player counts {sorted(players)}; "
                 "compare runs of one player count")
    curves = {run.name: read_curve(run) if args.reuse else run_evaluations(run)
              if args.evaluations else
              curve(run, args.greedy_games, args.other_games, args.workers, args.seed,
                    args.against)
              for run in args.curve}
    if args.with_evaluations:
        # only the evaluations' other agent: their games against greedy (other games, other
        # counts) would zigzag with the snapshots' on one line
        curves = {run.name: sorted(curves[run.name] + [
            {k: v for k, v in r.items() if k != "vs_greedy"}
            for r in run_evaluations(run) if "vs_other" in r],
            key=lambda r: (r["wall_seconds"], r["timesteps"])) for run in args.curve}
    if args.plot:
        plot(curves, players.pop(), args.plot)
    return curves if len(curves) > 1 else next(iter(curves.values()))


def _az_curve(ap: argparse.ArgumentParser, args) -> list[dict]:
    """``--az-curve``: the run's evaluations with an Elo, printed, plotted with ``--plot``."""
    run = args.az_curve
    if not (run / "eval.csv").is_file():
        ap.error(f"--az-curve: {run / 'eval.csv'} not found; give the folder of a "
                 "`meduris az-train` run")
    problem = args.plot and output_file_problem(args.plot, "--plot", force=True)
    if problem:
        ap.error(problem)
    rows, meta = az_curve(run), run_meta(run)
    players = run_players(meta) or (2 if any(r["elo"] is not None for r in rows) else None)
    if players is None:
        ap.error(f"--az-curve: {run / 'eval.csv'} holds no Elo and "
                 f"{run / 'checkpoint.json'} no player count; give the folder of a "
                 "`meduris az-train` run")
    ratings = curve_ratings(ap, args.ladder, players)
    ppo = None
    try:
        if args.ppo_run:
            ppo = ppo_run_curve(args.ppo_run, ratings)
        if players > 2 or args.ladder:
            add_lineup_elo(rows, meta, ratings)
    except (OSError, ValueError, KeyError, TypeError) as err:
        ap.error(f"--az-curve {run}" + (f" --ppo-run {args.ppo_run}" if args.ppo_run else "")
                 + f": {err!r}; give the folders of a finished `meduris az-train` run and of "
                 "the `meduris train` run it started from")
    if not any(r["elo"] is not None for r in rows):
        ap.error(f"--az-curve: no evaluation in {run / 'eval.csv'} is against an agent the "
                 f"{players}-player ladder rates")
    ppo_agent = ppo_played(meta)
    counted = ", ".join(n for n in rows[-1]["rates"]
                        if (ppo_agent if n == "ppo" else n) in ratings)
    for r in rows:
        elo = f"  Elo {r['elo']:6.0f}" if r["elo"] is not None else ""
        print(f"{r['moves']:>10,} moves {r['wall_seconds'] / 60:6.1f} min{elo}  "
              + "  ".join(f"vs {name} {rate:.1%}" for name, rate in r["rates"].items()),
              flush=True)
    print(f"(Elo from the games against {counted})", flush=True)
    if args.plot:
        if players == 2 and ppo is None:
            plot_elo([r for r in rows if r["elo"] is not None], args.plot, run.name)
        else:
            plot_lineup_elo(rows, ppo, players, ratings, args.plot, run.name, counted,
                            value_fit_seconds(meta))
    return rows


def curve_ratings(ap: argparse.ArgumentParser, ladder: Path | None,
                  players: int) -> dict[str, float]:
    """The ratings (Elo by name) of ``players`` that ``--az-curve`` puts a run on: the shipped
    ladder's, or ``--ladder``'s (its anchors held, as ``meduris ladder show`` prints them, e.g.
    after a ``ladder add`` of the run's ``eval_ppo`` file)."""
    from meduris_rl.agents.arena.ladder import LadderError, ladder_fit, open_ladder, shipped_ratings

    if ladder is None:
        return {name: r.elo for name, r in shipped_ratings(players).items()}
    try:
        with open_ladder(ladder, read_only=True) as store:
            return {name: r.elo for name, r in ladder_fit(store, players).by_name().items()}
    except LadderError as err:
        ap.error(f"--ladder {ladder}: {err}")


def run_meta(run: Path) -> dict:
    """The run's checkpoint.json, read once ({} where there is no readable one)."""
    try:
        meta = json.loads((run / "checkpoint.json").read_text())
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def value_fit_seconds(meta: dict) -> float:
    """The seconds an az-train run (``meta``: its checkpoint.json) spent fitting its warm
    start's value network before its first move (``--value-positions``), 0 where none was."""
    try:
        return float((meta.get("value_network") or {}).get("seconds", 0.0))
    except (TypeError, ValueError, AttributeError):
        return 0.0


def ppo_played(meta: dict) -> str:
    """The agent name of the policy the run's ``ppo`` column played (its ``eval_ppo``): ``ppo``
    where it was the shipped one or the run's checkpoint.json (``meta``) says nothing."""
    try:
        eval_ppo = meta["config"]["eval_ppo"]
    except (KeyError, TypeError):
        return "ppo"
    return "ppo" if eval_ppo == "shipped" else f"ppo:{eval_ppo}"


def run_players(meta: dict) -> int | None:
    """The player count of the az-train run whose checkpoint.json is ``meta``, None where it
    gives none."""
    try:
        players = meta["config"]["players"]
    except (KeyError, TypeError):
        return None
    return players if players in PLAYER_COUNTS else None


def _throughput(ap: argparse.ArgumentParser, args) -> dict:
    """The default: the training throughput of each ``--players`` count, and the reference."""
    counts = [p.strip() for p in args.players.split(",")]
    if not counts or any(p not in {str(n) for n in PLAYER_COUNTS} for p in counts):
        ap.error(f"--players {args.players!r}: player counts 2, 3 or 4, separated by commas")
    if args.rollouts < 1 or args.reference_steps < 0 or args.az_moves < 0:
        ap.error("--rollouts is at least 1, --reference-steps and --az-moves at least 0")
    if not (1 <= args.az_simulations <= 1024 and 1 <= args.az_games <= 65_536):
        ap.error("--az-simulations is 1..1024 and --az-games 1..65536")
    rows = [measure(int(p), args.rollouts, args.seed) for p in dict.fromkeys(counts)]
    result = {"rows": rows}
    for r in rows:
        key = "train_env_steps_per_s" + ("" if r["players"] == 2 else f"_{r['players']}p")
        result[key] = r["env_steps_per_s"]
    if args.reference_steps:
        ref = measure_reference(rows[0]["players"], args.reference_steps, args.seed)
        result["reference"] = ref
        result["reference_env_steps_per_s"] = ref["env_steps_per_s"]
        result["speedup_vs_reference"] = rows[0]["env_steps_per_s"] / ref["env_steps_per_s"]
    if args.az_moves:
        az = measure_az(args.az_moves, args.az_simulations, args.az_games, args.seed)
        result["az_selfplay"] = az
        result["az_selfplay_moves_per_s"] = az["moves_per_s"]
        result["az_simulations"], result["az_games"] = az["simulations"], az["games"]
    if args.json:
        print(json.dumps(result))
    else:
        for r in rows:
            print(f"{r['players']} players: {r['env_steps_per_s']:,.0f} env steps/s end to end "
                  f"({r['steps']:,} steps in {r['seconds']:.1f} s; {r['games']} games, "
                  f"{r['n_epochs']} epochs, batch {r['batch_size']})")
        if args.reference_steps:
            print(f"reference, {ref['players']} players, SubprocVecEnv of {ref['games']} "
                  f"single-game envs: {ref['env_steps_per_s']:,.0f} env steps/s "
                  f"({ref['steps']:,} steps in {ref['seconds']:.1f} s); "
                  f"{result['speedup_vs_reference']:.1f}x")
        if args.az_moves:
            print(f"az-train self-play, {az['players']} players: {az['moves_per_s']:,.0f} "
                  f"moves/s at {az['simulations']} simulations per move ({az['moves']:,} "
                  f"moves in {az['seconds']:.1f} s; {az['games']} games at once, "
                  f"{az['threads']} threads)")
    return result


if __name__ == "__main__":
    main()
