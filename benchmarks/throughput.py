"""Throughput of the Meduris engine, environments and batch engine, beside references.

Measured in one run, each for ``--seconds`` of wall time after a warm-up:

0. **The batch engine** (``meduris_env.envs.vector.MedurisBatch``), first and on every core:
   random play of B = 1, 64, 1024 games at once, with one thread and with all threads. A step
   is one decision in every game: the batched random sampler draws each game's action from its
   mask (inside the timed loop), then ``step`` applies them, resolves chance, and writes every
   game's observation (1470 floats), mask, rewards and flags. Reported as steps/s (decisions
   summed over the games), the best of three runs of ``--seconds / 3`` (the machine is a
   shared VM); ``batch_steps_per_s`` is the best B on all cores and ``batch_vs_aec`` its ratio
   to the AEC environment below (one core; the AEC env has no batch). Then **MaskablePPO on
   the batch** (``meduris_env.envs.sb3.MedurisSB3VecEnv`` against random opponents, a 2x256
   MLP): environment steps/s of ``learn()``, rollouts and updates together. Then **the position
   pool** (``meduris_env.envs.positions.PositionPool``, issue 29): ``positions_expand_per_s``,
   expansions/s of K = 4096 random legal actions from 256 mid-game positions (after 60 batch
   steps), each call ``load`` of the roots, ``expand`` (chance settled) and ``observe`` of the
   4096 children, on every core (``positions_expand_per_s``) and on one
   (``positions_expand_per_s_1_thread``).

1. **Python-driven random playouts** of the engine and of ``pyspiel.load_game("backgammon")``.
   Both games are driven by the *same* function, :func:`play_random_game`, so the comparison
   is fair: the driver overhead (``random.Random`` sampling, list building, method calls) is
   identical and only the cost of the game implementation differs. Every ``apply_action``
   counts as a decision, chance outcomes included, for both games. Reported as decisions/s
   and games/s, plus the engine/backgammon ratio of decisions/s.
2. **clone()/s** of a mid-game engine state (after ~150 random actions of a game).
3. **The numba in-kernel playout** ``meduris_env.engine.kernel.random_playout`` (no Python per
   step): decisions/s and games/s -- the ceiling for MCTS-style rollouts.
4. **AEC environment random play**: ``meduris_env.env()`` and PettingZoo's ``connect_four_v3``
   (both as their ``env()`` returns them, wrappers included) driven by the *same* loop,
   :func:`play_random_aec_game` (``agent_iter`` / ``last`` / a uniform choice among the mask's
   legal actions / ``step``). Every ``step`` call counts, the final ``step(None)`` of each
   agent included, for both environments.

5. **Druids beside OpenSpiel's C++ games** (issue 28): random games of the Druids engine
   (``druids_env.DruidsGame``, 2, 3 and 4 players) and of ``pyspiel.load_game("leduc_poker")``
   and ``"liars_dice"`` (2 players each), all driven by the *same* function,
   :func:`play_random_decisions`: a new game, at a chance node an outcome drawn by its
   probabilities from a seeded numpy stream (``numpy.random.default_rng(seed)``), else a
   uniformly random legal action from that stream, until the game ends. Only decisions
   (non-chance actions) count here; Druids takes a decision with a single legal action itself
   (docs/druids.md), so those never reach the driver. Reported as decisions/s, games/s and
   decisions per game (the OpenSpiel games are much smaller), and for Druids with 2 players and
   each OpenSpiel game again with a ``clone()`` of the state before every decision (what a
   search pays per node). Each figure is the best of three runs of ``--seconds / 3``, the
   seven configurations interleaved round by round (the machine is a shared VM); one untimed
   game warms each run up.

6. **Druids IS-MCTS iterations/s** (``ismcts_iterations_per_s``, and by player count in
   ``ismcts_by_players``): ``meduris_rl.agents.druids.ismcts.DruidsISMCTSAgent`` at 200 iterations
   per decision on positions of random games at turns 2, 8 and 16 (seeded), searched in turn for
   ``--seconds / 3`` per player count; iterations (determinisation, descent, rollout and
   backup) divided by the time of the searches.

7. **Stone Age beside backgammon** (issue 45): random games of ``stoneage_env.StoneAgeGame``
   (2 players: ``stone_age_decisions_per_s``, ``stone_age_vs_backgammon``; 4 players with the
   Mammoth Herd: ``stone_age_4p_mammoth_decisions_per_s``) driven by :func:`play_random_game`,
   the loop backgammon's figure comes from (every ``apply_action`` counts, chance included), and
   its compiled playout (``stone_age_kernel_decisions_per_s``: every decision and outcome inside
   numba, the ceiling for rollouts).

numba compiles (or loads from its cache) on the first call; that warm-up is excluded from the
timings and reported separately. After the batch rows the process is pinned to one CPU where the
OS allows it (items 1-5 are single-core measurements).
Usage from the repo root (needs OpenSpiel and pygame: ``pip install -e .[bench]``)::

    python benchmarks/throughput.py [--seconds 5] [--players 2] [--exchange auto] [--seed 0] \
        [--json] [--ppo-envs 256] [--ppo-rollouts 3]

The flags are bounded (``--seconds`` in (0, 600], ``--seed`` in [0, 2**63), ``--ppo-envs`` in
[1, 4096], ``--ppo-rollouts`` in [1, 100]); a bad value is refused in one line before anything
is timed. ``--players`` and ``--exchange`` choose the Meduris measurements; Druids is measured
with 2, 3 and 4 players whatever they say.

Each ``measure_*`` function returns a dict, so further measurements (e.g. of the AEC
environment) can be added beside them and merged into the result in :func:`main`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from meduris_env.engine import kernel as K  # noqa: E402
from meduris_env.engine.game import PLAYER_COUNTS, MedurisGame  # noqa: E402
from meduris_rl.kit.seeding import derive_seed  # noqa: E402

CLONE_PREFIX_ACTIONS = 150
KERNEL_MAX_STEPS = 1_000_000


def play_random_game(state, rng: random.Random, limit: int = 10**9) -> int:
    """Play ``state`` to the end (or ``limit`` actions) with uniform actions and sampled chance;
    return the number of apply_action calls. The one driver loop shared by the engine and
    backgammon measurements."""
    s = state
    decisions = 0
    while not s.is_terminal() and decisions < limit:
        if s.is_chance_node():
            outs = s.chance_outcomes()
            a = rng.choices([o for o, _ in outs], [p for _, p in outs])[0]
        else:
            a = rng.choice(s.legal_actions())
        s.apply_action(a)
        decisions += 1
    return decisions


def play_random_decisions(state, rng: np.random.Generator, clone: bool = False) -> int:
    """Play ``state`` to the end and return the number of decisions (non-chance actions).

    At a chance node the outcome is drawn by its probabilities (one ``rng.random()`` against
    the running sum of ``chance_outcomes()``), else a legal action uniformly (one
    ``rng.integers``). With ``clone`` every decision is applied to a ``clone()`` of the state,
    as a search does at each node. The one driver loop shared by the Druids and OpenSpiel
    measurements (any state with the OpenSpiel protocol)."""
    s = state
    decisions = 0
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(_outcome_at(s.chance_outcomes(), rng.random()))
        else:
            legal = s.legal_actions()
            if clone:
                s = s.clone()
            s.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
    return decisions


def _outcome_at(outcomes: list[tuple[int, float]], u: float) -> int:
    """The outcome where ``u`` in [0, 1) falls in the running sum of the probabilities (the
    last one if rounding leaves ``u`` beyond the sum)."""
    for action, p in outcomes:
        u -= p
        if u < 0:
            return action
    return outcomes[-1][0]


def play_random_aec_game(env, rng: random.Random, seed: int) -> int:
    """Play one game of a PettingZoo AEC ``env`` with uniform legal actions; return the number
    of ``step`` calls. The one driver loop shared by the Meduris and connect-four measurements."""
    env.reset(seed=seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            action = None
        else:
            action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        env.step(action)
        steps += 1
    return steps


def _run_for(seconds: float, one_unit) -> tuple[int, int, float]:
    """Call ``one_unit()`` (returns a count) until ``seconds`` pass; (units, total, elapsed)."""
    units = total = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        total += one_unit()
        units += 1
        now = time.perf_counter()
        if now >= deadline:
            return units, total, now - start


def _rates(games: int, decisions: int, elapsed: float) -> dict:
    return {"decisions_per_s": decisions / elapsed, "games_per_s": games / elapsed,
            "games": games, "decisions": decisions, "elapsed_s": elapsed}


def _time_games(new_state, seconds: float, seed: int) -> dict:
    """Play whole games from ``new_state()`` with :func:`play_random_game` for ``seconds``."""
    rng = random.Random(seed)
    return _rates(*_run_for(seconds, lambda: play_random_game(new_state(), rng)))


def measure_engine(game: MedurisGame, seconds: float, seed: int) -> dict:
    return _time_games(game.new_initial_state, seconds, seed)


def measure_backgammon(seconds: float, seed: int) -> dict:
    import pyspiel
    return _time_games(pyspiel.load_game("backgammon").new_initial_state, seconds, seed)


def midgame_state(game: MedurisGame, seed: int, prefix: int = CLONE_PREFIX_ACTIONS):
    """A state after ``prefix`` random actions (trying further seeds if a game ends sooner)."""
    for attempt in range(100):
        rng = random.Random(derive_seed(seed, attempt))
        s = game.new_initial_state()
        play_random_game(s, rng, limit=prefix)
        if not s.is_terminal():
            return s
    raise RuntimeError(f"no game of {game!r} lasted {prefix} actions")


def _time_aec(env, seconds: float, seed: int) -> dict:
    rng = random.Random(seed)
    seeds = (derive_seed(seed, i) for i in itertools.count())
    games, steps, elapsed = _run_for(seconds, lambda: play_random_aec_game(env, rng, next(seeds)))
    return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed, "games": games,
            "steps": steps, "elapsed_s": elapsed}


def measure_aec_env(players: int, exchange: str, seconds: float, seed: int) -> dict:
    import meduris_env
    return _time_aec(meduris_env.env(num_players=players, exchange=exchange), seconds, seed)


def measure_connect_four(seconds: float, seed: int) -> dict:
    from pettingzoo.classic import connect_four_v3
    return _time_aec(connect_four_v3.env(), seconds, seed)


def measure_clones(game: MedurisGame, seconds: float, seed: int, batch: int = 10_000) -> dict:
    clone = midgame_state(game, seed).clone

    def clone_batch() -> int:
        for _ in range(batch):
            clone()
        return batch

    _, n, elapsed = _run_for(seconds, clone_batch)
    return {"clones_per_s": n / elapsed, "clones": n, "elapsed_s": elapsed}


DRUIDS_PLAYER_COUNTS = (2, 3, 4)
OPENSPIEL_GAMES = ("leduc_poker", "liars_dice")


def _time_decisions(new_state, seconds: float, seed: int, clone: bool = False) -> dict:
    """Whole games from ``new_state()`` with :func:`play_random_decisions` for ``seconds``,
    after one untimed game; ``decisions`` counts non-chance actions."""
    rng = np.random.default_rng(seed)
    play_random_decisions(new_state(), rng, clone)
    return _rates(*_run_for(seconds, lambda: play_random_decisions(new_state(), rng, clone)))


def druids_new_state(players: int):
    from druids_env import DruidsGame
    return DruidsGame(num_players=players).new_initial_state


def openspiel_new_state(name: str):
    import pyspiel
    return pyspiel.load_game(name).new_initial_state


def _decision_figures(prefix: str, rates: dict) -> dict:
    return {f"{prefix}_decisions_per_s": rates["decisions_per_s"],
            f"{prefix}_games_per_s": rates["games_per_s"],
            f"{prefix}_decisions_per_game": rates["decisions"] / rates["games"]}


def best_of_rounds(runs: dict, seconds: float, seed: int, rounds: int = 3) -> dict:
    """``runs`` maps a name to ``(new_state, clone)``; each is timed ``rounds`` times for
    ``seconds / rounds`` with :func:`_time_decisions` (the same seed, so the same games), the
    names interleaved round by round so that a slow minute of the shared machine slows them
    all; returns each name's fastest run."""
    best: dict = {}
    for _ in range(rounds):
        for name, (new_state, clone) in runs.items():
            rates = _time_decisions(new_state, seconds / rounds, seed, clone)
            if name not in best or rates["decisions_per_s"] > best[name]["decisions_per_s"]:
                best[name] = rates
    return best


def measure_druids_vs_openspiel(seconds: float, seed: int) -> dict:
    """Item 5 of the module docstring: Druids with 2, 3, 4 players and OpenSpiel's games, the
    same driver, each the best of three interleaved runs; for Druids with 2 players and each
    OpenSpiel game also with a clone() per decision."""
    runs = {f"druids_{n}": (druids_new_state(n), False) for n in DRUIDS_PLAYER_COUNTS}
    runs["druids_clone"] = (druids_new_state(2), True)
    for name in OPENSPIEL_GAMES:
        runs[name] = (openspiel_new_state(name), False)
        runs[f"{name}_clone"] = (openspiel_new_state(name), True)
    best = best_of_rounds(runs, seconds, seed)
    out: dict = {"druids_by_players": {
        str(n): {k.removeprefix("d_"): v
                 for k, v in _decision_figures("d", best[f"druids_{n}"]).items()}
        for n in DRUIDS_PLAYER_COUNTS}}
    out.update(_decision_figures("druids", best["druids_2"]))
    out["druids_clone_decisions_per_s"] = best["druids_clone"]["decisions_per_s"]
    for name in OPENSPIEL_GAMES:
        out.update(_decision_figures(f"openspiel_{name}", best[name]))
        out[f"openspiel_{name}_clone_decisions_per_s"] = best[f"{name}_clone"][
            "decisions_per_s"]
        out[f"druids_vs_{name}"] = (out["druids_decisions_per_s"]
                                    / out[f"openspiel_{name}_decisions_per_s"])
    return out


def ismcts_positions(players: int, seed: int) -> list:
    """Decisions of random Druids games (seeded) at turns 2, 8 and 16, each with a choice."""
    import druids_env

    out = []
    for k, turn in enumerate((2, 8, 16)):
        state = druids_env.DruidsGame(players).new_initial_state()
        rng = random.Random(derive_seed(seed, players, k))
        while not state.is_terminal() and (state.turn < turn or state.is_chance_node()
                                           or len(state.legal_actions()) < 2):
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        if not state.is_terminal():
            out.append(state)
    return out


def measure_ismcts(seconds: float, seed: int) -> dict:
    """Item 6 of the module docstring."""
    from meduris_rl.agents.druids.ismcts import DruidsISMCTSAgent

    by_players = {}
    for players in DRUIDS_PLAYER_COUNTS:
        positions = ismcts_positions(players, seed)
        agent = DruidsISMCTSAgent("ismcts:200", iterations=200)
        agent.reset(seed)
        agent.act(None, positions[0])  # (untimed: caches warm)
        iterations, spent, k = 0, 0.0, 0
        while spent < seconds / 3 or not iterations:
            t0 = time.perf_counter()
            agent.act(None, positions[k % len(positions)])
            spent += time.perf_counter() - t0
            iterations += agent.last_iterations
            k += 1
        by_players[str(players)] = iterations / spent
    return {"ismcts_by_players": by_players, "ismcts_iterations_per_s": by_players["2"]}


def measure_kernel_playout(game: MedurisGame, seconds: float, seed: int) -> dict:
    init, fm, fa = game.new_initial_state().array, game.field_materials, game.field_areas
    seeds = (derive_seed(seed, i) for i in itertools.count())
    return _rates(*_run_for(seconds, lambda: K.random_playout(
        init.copy(), fm, fa, next(seeds), KERNEL_MAX_STEPS)))


BATCH_SIZES = (1, 64, 1024)


def measure_batch(players: int, exchange: str, seconds: float, seed: int) -> dict:
    """Random play through the batch engine: steps/s for each B with 1 thread and all threads
    (best of three runs of ``seconds / 3``)."""
    import numba

    from meduris_env.envs.vector import MedurisBatch
    all_threads = numba.config.NUMBA_NUM_THREADS
    rows = []
    for threads in sorted({1, all_threads}):
        for size in BATCH_SIZES:
            batch = MedurisBatch(size, players, exchange=exchange, seed=seed,
                                 num_threads=threads)
            batch.reset()
            actions = np.empty(size, dtype=np.int64)
            for _ in range(5):  # warm: compiled kernels, caches
                batch.step(batch.sample_actions(actions))

            def steps(batch=batch, actions=actions, size=size) -> int:
                batch.step(batch.sample_actions(actions))
                return size

            runs = [_run_for(seconds / 3, steps) for _ in range(3)]  # (calls, steps, seconds)
            rate = max(total / elapsed for _, total, elapsed in runs)
            rows.append({"games": size, "threads": threads, "steps_per_s": rate})
    top = max((r for r in rows if r["threads"] == all_threads), key=lambda r: r["steps_per_s"])
    return {"batch_rows": rows, "batch_steps_per_s": top["steps_per_s"],
            "batch_best_games": top["games"], "threads": all_threads}


POSITIONS_K = 4096  # expansions per call of the position-pool measurement
POSITIONS_ROOTS = 256  # mid-game roots they expand (games of a batch after 60 steps)


def measure_positions(players: int, exchange: str, seconds: float, seed: int) -> dict:
    """The position pool (issue 29): one unit is ``load`` of 256 mid-game roots, then
    ``expand`` of K = 4096 (root, random legal action) pairs and ``observe`` of the 4096
    children; expansions/s on all threads and on one (best of three runs of ``seconds / 6``
    each)."""
    from meduris_env.envs.batch import MedurisBatch
    batch = MedurisBatch(POSITIONS_ROOTS, players, exchange=exchange, seed=seed)
    batch.reset()
    for _ in range(60):
        batch.step(batch.sample_actions())
    live = np.flatnonzero(batch.mover >= 0)
    rows = batch.rows(live)
    pool = batch.position_pool(len(live) + POSITIONS_K)
    rng = np.random.default_rng(seed)
    parents = rng.choice(len(live), size=POSITIONS_K).astype(np.int64)
    masks = batch.mask[live][parents]
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)

    def expand() -> int:
        pool.clear()
        pool.observe(pool.expand(pool.load(rows)[parents], actions))
        return POSITIONS_K

    import numba
    rates = {}
    before = numba.get_num_threads()
    try:
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            expand()  # warm: compiled kernels, caches
            runs = [_run_for(seconds / 6, expand) for _ in range(3)]
            rates[threads] = max(total / elapsed for _, total, elapsed in runs)
    finally:
        numba.set_num_threads(before)
    return {"positions_expand_per_s": rates[max(rates)], "positions_expand_per_s_1_thread":
            rates[1], "positions_k": POSITIONS_K}


def measure_ppo_batch(players: int, envs: int, rollouts: int, seed: int) -> dict:
    """Environment steps/s of MaskablePPO ``learn()`` on the batch adapter (2x256 MLP; random
    opponents; after one warm-up rollout)."""
    import time

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from meduris_env.envs.sb3 import MedurisSB3VecEnv
    settings = {"num_envs": envs, "n_steps": 64, "batch_size": 1024, "n_epochs": 4,
                "net_arch": [256, 256], "torch_threads": torch.get_num_threads()}
    venv = MedurisSB3VecEnv(num_envs=envs, num_players=players, opponents="random", seed=seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=settings["n_steps"],
                        batch_size=settings["batch_size"], n_epochs=settings["n_epochs"],
                        policy_kwargs={"net_arch": settings["net_arch"]}, seed=seed,
                        device="cpu", verbose=0)
    model.set_logger(Logger(None, []))  # no logs (SB3's default makes a /tmp/SB3-* folder)
    per_rollout = envs * settings["n_steps"]
    model.learn(per_rollout)
    t0 = time.perf_counter()
    model.learn(per_rollout * rollouts, reset_num_timesteps=False)
    return {"ppo_batch_steps_per_s": per_rollout * rollouts / (time.perf_counter() - t0),
            "ppo_batch_settings": settings}


def measure_stone_age(seconds: float, seed: int, backgammon: dict) -> dict:
    """Stone Age (issue 45) through the same driver as backgammon, :func:`play_random_game`:
    2 players without the expansion (``stone_age_*``) and 4 players with it
    (``stone_age_4p_mammoth_*``); and its compiled playout (``stone_age_kernel_*``)."""
    from stoneage_env import StoneAgeGame
    from stoneage_env.engine import kernel as SK
    out: dict = {}
    for key, n, mammoth in (("stone_age", 2, False), ("stone_age_4p_mammoth", 4, True)):
        game = StoneAgeGame(n, mammoth_herd=mammoth)
        play_random_game(game.new_initial_state(), random.Random(seed))  # (numba's cache)
        r = _time_games(game.new_initial_state, seconds, seed)
        out[f"{key}_decisions_per_s"] = r["decisions_per_s"]
        out[f"{key}_games_per_s"] = r["games_per_s"]
        out[f"{key}_decisions_per_game"] = r["decisions"] / r["games"]
    out["stone_age_vs_backgammon"] = (out["stone_age_decisions_per_s"]
                                      / backgammon["decisions_per_s"])
    game = StoneAgeGame(2)
    work = np.zeros(SK.W_SIZE, dtype=np.int32)
    SK.random_playout(game.new_initial_state().array.copy(), work, 0)  # (numba's cache)
    counter = iter(range(10**9))
    units, total, elapsed = _run_for(seconds, lambda: SK.random_playout(
        game.new_initial_state().array.copy(), work, next(counter)))
    out["stone_age_kernel_decisions_per_s"] = total / elapsed
    out["stone_age_kernel_games_per_s"] = units / elapsed
    return out


def warm_up(game: MedurisGame, seed: int) -> dict:
    """Trigger numba compilation / cache loading and warm both drivers; return the seconds."""
    t0 = time.perf_counter()
    play_random_game(game.new_initial_state(), random.Random(seed))
    midgame_state(game, seed).clone()
    t1 = time.perf_counter()
    K.random_playout(game.new_initial_state().array.copy(), game.field_materials,
                     game.field_areas, seed, KERNEL_MAX_STEPS)
    t2 = time.perf_counter()
    import pyspiel
    play_random_game(pyspiel.load_game("backgammon").new_initial_state(), random.Random(seed))
    from pettingzoo.classic import connect_four_v3

    import meduris_env
    play_random_aec_game(meduris_env.env(num_players=game.num_players), random.Random(seed), seed)
    play_random_aec_game(connect_four_v3.env(), random.Random(seed), seed)
    return {"engine_warmup_s": t1 - t0, "kernel_compile_s": t2 - t1}


MAX_SECONDS = 600.0
MAX_PPO_ENVS = 4096
MAX_PPO_ROLLOUTS = 100


def check_args(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse an unbounded flag in one line (``ap.error``) before anything is timed."""
    if not 0 < args.seconds <= MAX_SECONDS:  # also refuses nan
        ap.error(f"--seconds {args.seconds:g}: give a duration in (0, {MAX_SECONDS:g}] seconds")
    if not 0 <= args.seed < 1 << 63:
        ap.error(f"--seed {args.seed}: give a seed in [0, 2**63)")
    if not 1 <= args.ppo_envs <= MAX_PPO_ENVS:
        ap.error(f"--ppo-envs {args.ppo_envs}: give 1 to {MAX_PPO_ENVS} games")
    if not 1 <= args.ppo_rollouts <= MAX_PPO_ROLLOUTS:
        ap.error(f"--ppo-rollouts {args.ppo_rollouts}: give 1 to {MAX_PPO_ROLLOUTS} rollouts")


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="duration of each measurement")
    ap.add_argument("--players", type=int, default=2, choices=PLAYER_COUNTS)
    ap.add_argument("--exchange", default="auto", choices=("auto", "manual"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--ppo-envs", type=int, default=256,
                    help="games in the MaskablePPO measurement (default 256)")
    ap.add_argument("--ppo-rollouts", type=int, default=3,
                    help="timed rollouts (+ updates) of the MaskablePPO measurement (default 3)")
    args = ap.parse_args(argv)
    check_args(ap, args)
    try:
        import pygame  # noqa: F401  (PettingZoo's connect_four imports it)
        import pyspiel  # noqa: F401
    except ImportError as err:
        sys.exit(f"error: {err.name} is not installed; install the bench extra: "
                 "pip install -e .[bench]")

    batch = measure_batch(args.players, args.exchange, args.seconds, args.seed)  # every core
    positions = measure_positions(args.players, args.exchange, args.seconds, args.seed)
    ppo = measure_ppo_batch(args.players, args.ppo_envs, args.ppo_rollouts, args.seed)
    try:  # one core from here: pin to the lowest CPU we may run on (Linux only)
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError):
        cpu = None
    game = MedurisGame(args.players, exchange=args.exchange)
    warm = warm_up(game, args.seed)
    eng = measure_engine(game, args.seconds, args.seed)
    bg = measure_backgammon(args.seconds, args.seed)
    cl = measure_clones(game, args.seconds, args.seed)
    kp = measure_kernel_playout(game, args.seconds, args.seed)
    aec = measure_aec_env(args.players, args.exchange, args.seconds, args.seed)
    c4 = measure_connect_four(args.seconds, args.seed)
    druids = measure_druids_vs_openspiel(args.seconds, args.seed)
    ismcts = measure_ismcts(args.seconds, args.seed)
    stone_age = measure_stone_age(args.seconds, args.seed, bg)

    result = {
        "players": args.players, "exchange": args.exchange, "seconds": args.seconds,
        "seed": args.seed, "cpu": cpu,
        **pair_figures(("engine", eng), ("backgammon", bg), "decisions"),
        "clones_per_s": cl["clones_per_s"],
        "kernel_playout_decisions_per_s": kp["decisions_per_s"],
        "kernel_playout_games_per_s": kp["games_per_s"],
        **pair_figures(("aec", aec), ("connect_four", c4), "steps"),
        **batch,
        "batch_vs_aec": batch["batch_steps_per_s"] / aec["steps_per_s"],
        **positions,
        **ppo,
        **druids,
        **ismcts,
        **stone_age,
        **warm,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return result


def pair_figures(ours: tuple[str, dict], ref: tuple[str, dict], unit: str) -> dict:
    """Our measurement beside the reference's, each ``(key prefix, rates)``: both ``unit``/s,
    their ratio, both games/s and both ``unit``/game (the keys :func:`_print_pair` prints)."""
    (a, ra), (b, rb) = ours, ref
    return {f"{a}_{unit}_per_s": ra[f"{unit}_per_s"], f"{b}_{unit}_per_s": rb[f"{unit}_per_s"],
            f"{a}_vs_{b}": ra[f"{unit}_per_s"] / rb[f"{unit}_per_s"],
            f"{a}_games_per_s": ra["games_per_s"], f"{b}_games_per_s": rb["games_per_s"],
            f"{a}_{unit}_per_game": ra[unit] / ra["games"],
            f"{b}_{unit}_per_game": rb[unit] / rb["games"]}


def print_table(r: dict) -> None:
    print(f"Meduris throughput: {r['players']} players, exchange={r['exchange']}, "
          f"{r['seconds']:g} s per measurement, seed {r['seed']}, "
          f"cpu {r['cpu'] if r['cpu'] is not None else 'unpinned'}")
    print(f"warm-up: engine {r['engine_warmup_s']:.2f} s, "
          f"kernel playout compile {r['kernel_compile_s']:.2f} s (excluded)\n")
    _print_pair(r, "Python driver loop", ("engine", "Meduris"), ("backgammon", "backgammon"),
                "decisions")
    print(f"\n{'Meduris engine only':<26}")
    print(f"{'clone()/s (mid-game)':<26}{r['clones_per_s']:>14,.0f}")
    print(f"{'kernel playout decisions/s':<26}{r['kernel_playout_decisions_per_s']:>14,.0f}")
    print(f"{'kernel playout games/s':<26}{r['kernel_playout_games_per_s']:>14,.1f}")
    print()
    _print_pair(r, "PettingZoo AEC loop", ("aec", "Meduris"), ("connect_four", "connect four"),
                "steps")
    print(f"\n{'batch engine (random play)':<26}{'games':>8}{'threads':>9}{'steps/s':>14}")
    for row in r["batch_rows"]:
        print(f"{'':<26}{row['games']:>8}{row['threads']:>9}{row['steps_per_s']:>14,.0f}")
    print(f"{'best, all threads':<26}{r['batch_best_games']:>8}{r['threads']:>9}"
          f"{r['batch_steps_per_s']:>14,.0f}  = {r['batch_vs_aec']:.1f}x the AEC env")
    print(f"{'position pool expand+obs':<26}{r['positions_k']:>8}{r['threads']:>9}"
          f"{r['positions_expand_per_s']:>14,.0f}  expansions/s (mid-game, random legal; "
          f"{r['positions_expand_per_s_1_thread']:,.0f} on 1 thread)")
    ppo = r["ppo_batch_settings"]
    print(f"{'MaskablePPO learn() on it':<26}{ppo['num_envs']:>8}{ppo['torch_threads']:>9}"
          f"{r['ppo_batch_steps_per_s']:>14,.0f}  env steps/s (2x256 MLP, n_steps "
          f"{ppo['n_steps']}, batch {ppo['batch_size']}, {ppo['n_epochs']} epochs)")
    print()
    _print_druids(r)
    print()
    print(f"Stone Age, Python driver (as backgammon): 2 players "
          f"{r['stone_age_decisions_per_s']:,.0f} decisions/s "
          f"({r['stone_age_vs_backgammon']:.2f}x backgammon), 4 players with the Mammoth Herd "
          f"{r['stone_age_4p_mammoth_decisions_per_s']:,.0f}; compiled playout "
          f"{r['stone_age_kernel_decisions_per_s']:,.0f} decisions/s")


def _print_druids(r: dict) -> None:
    """Item 5: Druids beside OpenSpiel's games, decisions = non-chance actions."""
    print(f"{'numpy-stream driver loop':<26}{'players':>8}{'decisions/s':>14}{'games/s':>12}"
          f"{'decisions/game':>16}{'+clone()/s':>14}")
    rows = [("Druids", n, v["decisions_per_s"], v["games_per_s"], v["decisions_per_game"],
             r["druids_clone_decisions_per_s"] if n == "2" else None)
            for n, v in r["druids_by_players"].items()]
    rows += [(f"OpenSpiel {name}", "2", r[f"openspiel_{name}_decisions_per_s"],
              r[f"openspiel_{name}_games_per_s"], r[f"openspiel_{name}_decisions_per_game"],
              r[f"openspiel_{name}_clone_decisions_per_s"]) for name in OPENSPIEL_GAMES]
    for label, n, dps, gps, dpg, cps in rows:
        clone = f"{cps:>14,.0f}" if cps is not None else f"{'':>14}"
        print(f"{label:<26}{n:>8}{dps:>14,.0f}{gps:>12,.1f}{dpg:>16,.1f}{clone}")
    print("Druids (2 players) / " + ", ".join(
        f"{name}: {r[f'druids_vs_{name}']:.2f}x decisions/s" for name in OPENSPIEL_GAMES))
    print("Druids IS-MCTS (ismcts:200, turns 2/8/16): " + ", ".join(
        f"{n} players {v:,.0f} iterations/s" for n, v in r["ismcts_by_players"].items()))


def _print_pair(r: dict, title: str, ours: tuple[str, str], ref: tuple[str, str],
                unit: str) -> None:
    """Rows unit/s, games/s, unit/game for our measurement beside the reference."""
    print(f"{title:<26}{ours[1]:>14}{ref[1]:>14}{'ratio':>10}")
    for label, key, fmt in ((f"{unit}/s", f"{unit}_per_s", ",.0f"),
                            ("games/s", "games_per_s", ",.1f"),
                            (f"{unit}/game", f"{unit}_per_game", ",.1f")):
        a, b = r[f"{ours[0]}_{key}"], r[f"{ref[0]}_{key}"]
        print(f"{label:<26}{a:>14{fmt}}{b:>14{fmt}}{a / b:>10.2f}")


if __name__ == "__main__":
    main()
