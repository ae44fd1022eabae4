"""Same-seed digests of games, the proof that a refactor kept behaviour.

Each function plays something deterministic through the public API and returns a SHA-256 of
everything it produced (games.csv and the game records of a tournament, every buffer of a batch
after every step, an environment's observations, rewards and flags). The digests in
``tests/data/game_digests.json`` were made by this module *before* the architecture pass
(commit a42590d; the Druids tournaments, the duels and the ladders before the game-neutral kit,
commit b727441) and ``tests/test_same_games.py`` recomputes them on today's code. Rewrite the
file only for a change that is meant to alter games (and say so in the commit); so far one:
``tournament_4p`` plays the shipped 4-player model (``ppo``, ``az``), replaced on 2026-11-25
by az-train's, and was made again then (the previous model still gave the stored digest
exactly: the code's games had not changed)::

    python tests/digests.py --write
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "game_digests.json"

# the tournaments: (players, agents, games, workers)
TOURNAMENTS = {
    "tournament_2p": (2, "greedy,mcts:30,ppo,az:20", 12, 2),
    "tournament_4p": (4, "greedy,mcts:15,ppo,az:10", 24, 1),
    "tournament_druids_3p": (3, "random,greedy,ismcts:20", 12, 2, "druids"),
    "tournament_druids_2p": (2, "greedy,ismcts:10,ppo", 12, 2, "druids"),
    # Stone Age, digested on 2026-11-28 (eaf6d04) before its code was shared out (issue 44)
    "tournament_stone_age_3p": (3, "random,greedy,rollout:8", 6, 2, "stone_age", ()),
    "tournament_stone_age_herd_2p": (2, "greedy,ismcts:10,ppo", 6, 2, "stone_age",
                                     ("mammoth_herd=true",)),
}

# the duels: (A, B, games, game); the ladders: (entrant, games, players, game)
DUELS = {"duel_meduris": ("greedy", "mcts:10", 8, "meduris"),
         "duel_druids": ("greedy", "ismcts:15", 8, "druids"),
         "duel_stone_age": ("greedy", "rollout:6", 8, "stone_age")}
LADDERS = {"ladder_meduris": ("mcts:20", 8, 2, "meduris"),
           "ladder_druids": ("ismcts:15", 8, 2, "druids"),
           "ladder_stone_age": ("rollout:6", 6, 2, "stone_age")}
# what a duel's JSON says of its games (not its wall time or how its settings are spelled)
DUEL_RESULTS = ("a", "b", "result", "games", "pairs", "llr", "elo", "elo_95", "score",
                "score_se", "pentanomial", "forfeits")


# games.csv columns added after the digests were made, left out of the digest: the forfeit
# columns (issue 27) are empty in games without a forfeit, which is every game here, so
# games.csv without them must be byte for byte the file the stored digest was made from
NEW_COLUMNS = ("forfeit_seat", "forfeit")


def games_csv_before(data: bytes) -> bytes:
    """games.csv without :data:`NEW_COLUMNS`, written as the tournament writes it."""
    rows = list(csv.reader(io.StringIO(data.decode())))
    keep = [i for i, name in enumerate(rows[0]) if name not in NEW_COLUMNS]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([[row[i] for i in keep] for row in rows])
    return buf.getvalue().encode()


def _sha(*chunks: bytes) -> str:
    h = hashlib.sha256()
    for c in chunks:
        h.update(c)
    return h.hexdigest()


def tournament(players: int, agents: str, games: int, workers: int,
               game: str = "meduris", options: tuple[str, ...] | None = None) -> dict:
    """``meduris tournament`` with every record saved: digests of games.csv and the records.

    ``options`` are ``--option`` values; None: Meduris's turn limit for another game (below)."""
    from meduris_rl.cli.main import main

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        code = main(["tournament", "--agents", agents, "--players", str(players), "--games",
                     str(games), "--seed", "7", "--workers", str(workers), "--out", str(out),
                     "--save-records", "all", "--no-progress",
                     # (Druids' records hold its turn limit: before the kit every game had
                     # Meduris's, 1000; now Druids has its own, 500, and the same games are
                     # those with the limit of before)
                     *(["--game", game, "--option", "max_turns=1000"]
                       if game != "meduris" and options is None else ["--game", game]),
                     *(f"--option={option}" for option in options or ())])
        assert code == 0, code
        records = sorted((out / "records").glob("game-*.json"))
        return {"games_csv": _sha(games_csv_before((out / "games.csv").read_bytes())),
                "records": _sha(*(p.name.encode() + p.read_bytes() for p in records)),
                "record_count": len(records)}


def _batch_buffers(batch) -> list[bytes]:
    return [np.ascontiguousarray(a).tobytes() for a in (
        batch.states, batch.obs, batch.mask, batch.mover, batch.rewards, batch.terminated,
        batch.truncated, batch.final_obs, batch.final_scores, batch.learner, batch.episodes,
        batch.history, batch.history_length)]


def batch_replay() -> dict:
    """A 3-player batch of 48 games, dense rewards, random play for 400 steps (games restart):
    every public buffer after every step, then five games replayed by the scalar engine."""
    from meduris_env import MedurisBatch

    batch = MedurisBatch(48, num_players=3, seed=11, reward="dense", history=800)
    batch.reset()
    h = hashlib.sha256()
    for _ in range(400):
        batch.step(batch.sample_actions())
        for chunk in _batch_buffers(batch):
            h.update(chunk)
    batch2 = MedurisBatch(8, num_players=2, seed=3, history=2000, auto_reset=False)
    batch2.reset()
    while (batch2.mover >= 0).any():
        batch2.step(batch2.sample_actions())
    replays = _sha(*(batch2.replay(i).to_json().encode() for i in range(8)))
    return {"buffers": h.hexdigest(), "replays": replays}


def _legal_choice(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


def vector_env_league() -> dict:
    """A 2-player vector env against a pool of random, batched greedy and the shipped policy
    (seat drawn per episode), 300 steps of random legal learner actions; and a 4-player
    self-play vector env."""
    from meduris_env import MedurisVectorEnv
    from meduris_rl.agents.meduris.batch import make_batch_opponent

    pool = ["random", make_batch_opponent("greedy", 2), make_batch_opponent("ppo", 2)]
    env = MedurisVectorEnv(24, 2, opponents="random", seat="random", reward="score", seed=5,
                           autoreset_mode="SAME_STEP")
    env.set_opponents(pool, weights=[0.2, 0.4, 0.4])
    rng = np.random.default_rng(0)
    league = _vector_digest(env, 5, rng)
    self_play = _vector_digest(MedurisVectorEnv(16, 4, seat="all", reward="win", seed=9,
                                                autoreset_mode="SAME_STEP"), 9, rng)
    return {"league_2p": league, "self_play_4p": self_play}


def _vector_digest(env, seed: int, rng) -> str:
    """300 steps of legal random actions: every observation, reward, flag, seat and reward row."""
    obs, info = env.reset(seed=seed)
    h = hashlib.sha256(obs.tobytes())
    for _ in range(300):
        obs, rew, term, trunc, info = env.step(_legal_choice(rng, env.action_masks()))
        for a in (obs, rew, term, trunc, info["seat"], info["rewards"]):
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def training_env() -> dict:
    """The training environment (features, league with a snapshot, reward shaping): 150 steps
    of random legal actions."""
    from meduris_rl.agents.meduris.ppo import shipped_model
    from meduris_rl.train.config import TrainConfig
    from meduris_rl.train.meduris.league import TrainingEnv

    cfg = TrainConfig(players=2, envs=16, seed=4, shaping=1.0)
    venv = TrainingEnv(cfg)
    venv.add_snapshot(shipped_model(2))
    rng = np.random.default_rng(1)
    obs = venv.reset()
    h = hashlib.sha256(obs.tobytes())
    for _ in range(150):
        venv.step_async(_legal_choice(rng, venv.action_masks()))
        obs, rew, done, infos = venv.step_wait()
        for a in (obs, rew, done):
            h.update(np.ascontiguousarray(a).tobytes())
    return {"league_shaped": h.hexdigest()}


def scalar_envs() -> dict:
    """The PettingZoo AEC env (4 players, manual exchange) and the single-agent env against
    greedy (3 players), random legal actions from their seeded spaces."""
    import meduris_env
    from meduris_env import MedurisSingleAgentEnv
    from meduris_rl.agents import make_agent

    env = meduris_env.env(num_players=4, exchange="manual", reward="dense")
    h = hashlib.sha256()
    for seed in (1, 2):
        env.reset(seed=seed)
        env.action_space(env.possible_agents[0]).seed(seed)
        for agent in env.agent_iter():
            obs, rew, term, trunc, _ = env.last()
            h.update(obs["observation"].tobytes() + np.float64(rew).tobytes())
            mask = obs["action_mask"]
            env.step(None if term or trunc else
                     env.action_space(agent).sample(mask))
    single = MedurisSingleAgentEnv(num_players=3, opponents=make_agent("greedy"),
                                   seat="random", reward="dense")
    h2 = hashlib.sha256()
    for seed in (3, 4):
        obs, info = single.reset(seed=seed)
        single.action_space.seed(seed)
        done = False
        while not done:
            obs, rew, term, trunc, info = single.step(single.action_space.sample())
            h2.update(obs.tobytes() + np.float64(rew).tobytes())
            done = term or trunc
    return {"aec_4p_manual": h.hexdigest(), "single_agent_3p": h2.hexdigest()}


def _cli_json(argv: list[str]):
    """What ``meduris ARGV`` prints, read as JSON."""
    from meduris_rl.cli.main import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    assert code == 0, code
    return json.loads(buf.getvalue())


def duel(a: str, b: str, games: int, game: str) -> dict:
    """``meduris duel`` to a fixed number of games: the digest of what it says of them."""
    doc = _cli_json(["duel", a, b, "--max-games", str(games), "--seed", "3", "--workers", "2",
                     "--json", "--no-progress", *(["--game", game] if game != "meduris" else [])])
    kept = {k: doc[k] for k in DUEL_RESULTS}
    return {"results": _sha(json.dumps(kept, sort_keys=True).encode())}


def ladder(entrant: str, games: int, players: int, game: str) -> dict:
    """``meduris ladder add`` on a new file, then ``show --json``: digests of the fitted
    ratings and of the stored games (all but their times)."""
    import sqlite3

    from meduris_rl.cli.main import main
    flag = ["--game", game] if game != "meduris" else []
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "ladder.sqlite")
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["ladder", "add", entrant, "--db", db, "--games", str(games),
                         "--players", str(players), "--seed", "1", "--workers", "2",
                         "--no-progress", *flag]) == 0
        fit = _cli_json(["ladder", "show", "--db", db, "--json", *flag])
        con = sqlite3.connect(db)
        rows = con.execute("SELECT key, players, entrant, seed, agents, ranks, vp, turns, "
                           "end_reason, forfeit, decisions FROM games ORDER BY key").fetchall()
        con.close()
    return {"fit": _sha(json.dumps(fit, sort_keys=True).encode()),
            "games": _sha(json.dumps(rows).encode()), "game_count": len(rows)}


def all_digests() -> dict:
    out = {name: tournament(*args) for name, args in TOURNAMENTS.items()}
    out.update({name: duel(*args) for name, args in DUELS.items()})
    out.update({name: ladder(*args) for name, args in LADDERS.items()})
    out["batch"] = batch_replay()
    out["vector_env"] = vector_env_league()
    out["training_env"] = training_env()
    out["scalar_envs"] = scalar_envs()
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    digests = all_digests()
    text = json.dumps(digests, indent=2) + "\n"
    if "--write" in sys.argv:
        DATA.parent.mkdir(exist_ok=True)
        DATA.write_text(text)
    print(text)
