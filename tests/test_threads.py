"""The engine and the web server under threads (issue 26, item 2).

Games played in four threads at once are bit for bit the games of a sequential run (actions,
events, final arrays, scores): the engine's scratch buffers are per thread and the kernels
release the GIL, so threads really overlap and must not disturb each other. And the web server
has no engine-wide lock: while one game's opponent is stuck, the page and the other games still
answer at once."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from meduris_env import MedurisGame
from meduris_env.engine import kernel as K
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.meduris import heuristics
from meduris_rl.agents.registry import make_agent

# (players, agent names per seat, seed): random, greedy and a searching agent, 2-4 players
GAMES = [
    (2, ("random", "greedy"), 1),
    (2, ("mcts:20", "greedy"), 2),
    (3, ("greedy", "random", "mcts:20"), 3),
    (4, ("random", "random", "greedy", "greedy"), 4),
    (2, ("greedy", "mcts:20"), 5),
    (3, ("random", "greedy", "greedy"), 6),
    (4, ("mcts:20", "random", "greedy", "random"), 7),
    (2, ("random", "random"), 8),
]


def play_one(spec) -> dict:
    """One game through the project's play loop, with everything that could betray a mixed-up
    buffer: the actions, the events, the final position's array and the scores."""
    players, names, seed = spec
    final = {}

    def keep(state, seat, action):
        final["state"] = state
    result = play_game(MedurisGame(players), [make_agent(n) for n in names], seed,
                       keep_history=True, observer=keep)
    state = final["state"]
    return {"history": result.history, "events": [tuple(e) for e in state.events()],
            "array": state.array.copy(), "vp": result.vp, "ranks": result.ranks,
            "end": result.end_reason}


def test_games_in_four_threads_are_bit_for_bit_the_sequential_games():
    alone = [play_one(spec) for spec in GAMES]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(play_one, GAMES))
    for spec, a, b in zip(GAMES, alone, together, strict=True):
        assert a["history"] == b["history"], spec
        assert a["events"] == b["events"], spec
        assert np.array_equal(a["array"], b["array"]), spec
        assert (a["vp"], a["ranks"], a["end"]) == (b["vp"], b["ranks"], b["end"]), spec
    assert len({tuple(g["history"]) for g in alone}) == len(GAMES)  # eight different games
    assert all(g["end"] != "not over" for g in alone)


def test_the_one_position_kernels_release_the_gil():
    kernels = [f for f in vars(K).values() if hasattr(f, "targetoptions")]
    assert len(kernels) > 40
    assert all(f.targetoptions.get("nogil") for f in kernels), \
        [f.__name__ for f in kernels if not f.targetoptions.get("nogil")]
    for name in ("greedy_action", "action_values", "rollout_values", "evaluate"):
        assert getattr(heuristics, name).targetoptions.get("nogil"), name


# --- the web server: no lock shared by all games ----------------------------------------------
STUCK = "mcts:7"  # a name the server accepts (a searching agent: decided in the thinking pool)


class Stuck:
    """The thinking pool's decision for :data:`STUCK` waits until ``release`` is set (or 30 s
    pass, so a failing test ends); every other agent's is the real one."""

    entered = threading.Event()
    release = threading.Event()


class Server:
    """uvicorn serving create_app(db) in a thread on 127.0.0.1 (as test_web_browser's)."""

    def __init__(self, db):
        import uvicorn

        from meduris_rl.cli.meduris.web.app import create_app
        self.server = uvicorn.Server(uvicorn.Config(create_app(db), host="127.0.0.1", port=0,
                                                    log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "no server"
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    def request(self, path: str, body: dict | None = None, timeout: float = 30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data,
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            text = r.read().decode()
        return json.loads(text) if r.headers["content-type"].startswith("application/json") \
            else text

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


@pytest.fixture
def stuck_server(tmp_path, monkeypatch):
    import asyncio

    from meduris_rl.cli.meduris.web.thinking import Thinkers
    real = Thinkers.decide

    async def decide(self, name, players, state_json, seat, seed):
        if name == STUCK:
            Stuck.entered.set()
            await asyncio.to_thread(Stuck.release.wait, 30)
        return await real(self, name, players, state_json, seat, seed)

    monkeypatch.setattr(Thinkers, "decide", decide)
    Stuck.entered.clear()
    Stuck.release.clear()
    server = Server(tmp_path / "games.sqlite")
    yield server
    Stuck.release.set()
    server.stop()


def test_a_stuck_opponent_holds_up_neither_the_page_nor_other_games(stuck_server):
    """Issue 30's server: a game whose opponent never finishes thinking answers at once (with
    "thinking") and keeps nobody else waiting; once it answers, the game goes on."""
    s = stuck_server
    quick = s.request("/api/games", {"players": 2, "opponents": "greedy", "seed": 3})
    searching = s.request("/api/games", {"players": 2, "opponents": "mcts:5", "seed": 4})
    # seat 0 starts (R6): with the human at seat 1 the stuck opponent thinks from the start
    t0 = time.monotonic()
    stuck = s.request("/api/games", {"players": 2, "opponents": STUCK, "seat": 1, "seed": 5},
                      timeout=5)
    assert stuck["thinking"] == {**stuck["thinking"], "seat": 0, "agent": STUCK}
    assert Stuck.entered.wait(20), "the stuck opponent was never asked to move"
    assert "<title>Meduris</title>" in s.request("/", timeout=5)
    for g in (quick, searching):  # one decided in the server, one in the thinking pool
        action = g["view"]["legal"][0]["id"]
        moved = s.request(f"/api/games/{g['id']}/actions", {"action": action, "step": g["step"]},
                          timeout=5)
        assert moved["step"] > g["step"] and moved["moves"][0]["seat"] == 0
    again = s.request(f"/api/games/{stuck['id']}", timeout=5)
    took = time.monotonic() - t0
    assert again["thinking"] is not None and again["step"] == stuck["step"]  # still waiting
    assert took < 2.0, f"other requests waited {took:.2f} s for the stuck game"
    Stuck.release.set()
    deadline = time.monotonic() + 60
    while (g := s.request(f"/api/games/{stuck['id']}"))["thinking"] is not None:
        assert time.monotonic() < deadline, "the released opponent never moved"
        time.sleep(0.05)
    assert g["status"] == "running" and g["view"]["to_move"] == 1
    assert g["log"][-1]["who"] == f"seat 0 ({STUCK})"
