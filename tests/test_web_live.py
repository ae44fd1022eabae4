"""The live API of ``meduris serve`` (issue 30; docs/web.md): opponents thinking in worker
processes, moves answered at once, the event stream, resuming mid-think, shutting down.

Real servers on 127.0.0.1 (uvicorn in a thread, or ``meduris serve`` in a process for the
kill and the shutdown) and small games (mcts budgets of 20-200): a move against mcts:200 is
answered with ``"thinking"`` before the opponent moved; the stream delivers sync, thinking and
move in order to every subscriber, equal to what GET shows afterwards, a reconnect gets a sync
and a closed stream's subscriber is removed, a slow one dropped; a game through the pool is the
same game, bit for bit, as the in-process algorithm of the server before it (same seed, same
clicks); a server killed mid-think resumes and finishes the same game; SIGTERM leaves no
worker process; GET / stays quick while mcts games think; resuming, commits, game bodies and
the state's JSON for a worker happen off the event loop, and a message is encoded once for
all its subscribers.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import httpx
import pytest
from test_web_browser import Server

from meduris_env import MedurisGame
from meduris_env.envs.observation import observe_state
from meduris_rl.agents import make_agent
from meduris_rl.cli.meduris.web import live as live_module
from meduris_rl.cli.meduris.web.store import LiveGame
from meduris_rl.kit.loop import play
from meduris_rl.kit.seeding import derive_seed

ROOT = Path(__file__).resolve().parent.parent


def settle(base: str, game: dict, timeout: float = 120.0) -> dict:
    """The game once no opponent is thinking (polled)."""
    deadline = time.monotonic() + timeout
    while game.get("thinking"):
        assert time.monotonic() < deadline, "the opponents did not move in time"
        time.sleep(0.05)
        game = httpx.get(f"{base}api/games/{game['id']}", timeout=30).json()
    return game


def play_through(base: str, game: dict, choose, limit: int | None = None) -> dict:
    """Play the human's moves chosen by ``choose(game)`` until the end or ``limit`` moves."""
    made = 0
    game = settle(base, game)
    while game["status"] == "running" and (limit is None or made < limit):
        r = httpx.post(f"{base}api/games/{game['id']}/actions", timeout=30,
                       json={"action": choose(game), "step": game["step"]})
        assert r.status_code == 200, r.text
        game = settle(base, httpx.get(f"{base}api/games/{game['id']}", timeout=30).json())
        made += 1
    return game


class Stream:
    """The events of ``GET /api/games/{id}/events``, read in a thread: (event, data) pairs."""

    def __init__(self, base: str, game_id: str):
        self.events: queue.Queue = queue.Queue()
        self.client = httpx.Client(timeout=60)
        self.thread = threading.Thread(target=self.read, args=(base, game_id), daemon=True)
        self.thread.start()

    def read(self, base: str, game_id: str) -> None:
        event = None
        try:
            with self.client.stream("GET", f"{base}api/games/{game_id}/events") as r:
                assert r.headers["content-type"].startswith("text/event-stream")
                for line in r.iter_lines():
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: "):
                        self.events.put((event, json.loads(line[6:])))
                    elif line.startswith(":"):
                        self.events.put(("comment", line))
        except httpx.HTTPError:
            pass
        self.events.put(("end", None))

    def next(self, timeout: float = 60.0) -> tuple[str, dict]:
        return self.events.get(timeout=timeout)

    def until(self, event: str, timeout: float = 60.0) -> list[tuple[str, dict]]:
        """Every message up to and including the first ``event``."""
        got = []
        while not got or got[-1][0] != event:
            got.append(self.next(timeout))
            assert got[-1][0] != "end" or event == "end", got
        return got

    def close(self) -> None:
        self.client.close()


def reference_game(players: int, opponents: list[str], seat: int, seed: int,
                   clicks: list[int]) -> list[int]:
    """The actions of a game as the server played it before issue 30, in one process: chance
    from ``random.Random(derive_seed(seed, 0, k))`` from the step ``k`` after each human action,
    each opponent reset with ``derive_seed(seed, s + 1, step)`` before deciding."""
    state = MedurisGame(players).new_initial_state()
    labels = opponents[:seat] + ["human"] + opponents[seat:]
    bots = {s: make_agent(n) for s, n in enumerate(labels) if s != seat}
    clicks = list(clicks)

    def decide(st, s):
        bots[s].reset(derive_seed(seed, s + 1, len(st.history())))
        obs = observe_state(st, s) if bots[s].uses_observation else None
        return bots[s].act(obs, st)

    step = 0
    while True:
        play(state, decide, random.Random(derive_seed(seed, 0, step)),
             until=lambda st: st.current_player() == seat)
        if state.is_terminal() or not clicks:
            return list(state.history())
        state.apply_action(clicks.pop(0), seat)
        step = len(state.history())


def human_clicks(record: dict, seat: int) -> list[int]:
    return [a["action"] for a in record["actions"] if a["seat"] == seat]


def actions_of(record: dict) -> list[int]:
    return [a["action"] for a in record["actions"]]


def first_legal(game: dict) -> int:
    return game["view"]["legal"][0]["id"]


# --- answers at once, streams -------------------------------------------------------------------
def test_a_move_against_mcts_200_is_answered_before_the_opponent_moves(server):
    base = server.url
    g = httpx.post(f"{base}api/games", json={"players": 2, "opponents": "mcts:200", "seat": 0,
                                             "seed": 5}, timeout=120).json()
    assert g["thinking"] is None and g["view"]["legal"]
    t0 = time.perf_counter()
    r = httpx.post(f"{base}api/games/{g['id']}/actions", timeout=30,
                   json={"action": first_legal(g), "step": g["step"]})
    answered = time.perf_counter() - t0
    body = r.json()
    assert r.status_code == 200 and body["thinking"]["seat"] == 1
    assert body["thinking"]["agent"] == "mcts:200" and body["thinking"]["since_ms"] > 0
    assert [m["who"] for m in body["moves"]] == ["you"] and body["view"]["legal"] == []
    assert answered < 5.0  # at once (generous: the first think also starts the cold pool)
    # a move meanwhile: 409 with the whole game, the position to refresh from
    again = httpx.post(f"{base}api/games/{g['id']}/actions", timeout=30,
                       json={"action": first_legal(g), "step": body["step"]})
    if again.status_code == 409:  # (unless the opponent was quicker than this request)
        refused = again.json()
        assert "thinking" in refused["error"] and refused["game"]["id"] == g["id"]
        assert refused["game"]["thinking"]["seat"] == 1 and "log" in refused["game"]
    done = settle(base, httpx.get(f"{base}api/games/{g['id']}", timeout=30).json())
    assert done["thinking"] is None and done["step"] > body["step"]
    assert any(e["seat"] == 1 for e in done["log"][body["step"]:])


def test_the_stream_delivers_sync_thinking_and_move_in_order_to_every_subscriber(server):
    base = server.url
    g = httpx.post(f"{base}api/games", json={"players": 2, "opponents": "mcts:50", "seat": 0,
                                             "seed": 8}, timeout=120).json()
    streams = [Stream(base, g["id"]), Stream(base, g["id"])]
    try:
        for s in streams:
            event, sync = s.next()
            assert event == "sync" and sync["id"] == g["id"] and sync["step"] == g["step"]
            assert sync["log"] == g["log"] and sync["thinking"] is None
        r = httpx.post(f"{base}api/games/{g['id']}/actions", timeout=30,
                       json={"action": first_legal(g), "step": g["step"]}).json()
        got = [s.until("move") for s in streams]
        for s, first in zip(streams, got, strict=True):
            # the human's move first (published at once), then the opponent's thinking and move
            assert [e for e, _ in first] == ["move"] and first[0][1]["moves"] == r["moves"]
            rest = s.until("move")
            while rest[-1][1]["thinking"] is not None:  # the opponent decides again
                rest += s.until("move")
            kinds = [e for e, _ in rest]
            assert kinds == ["thinking", "move"] * (len(kinds) // 2), kinds
            assert rest[0][1]["thinking"]["agent"] == "mcts:50"
            first.extend(rest)
        assert got[0] == got[1]  # both subscribers, the same messages
        after = settle(base, httpx.get(f"{base}api/games/{g['id']}", timeout=30).json())
        pushed = [m for e, d in got[0] if e == "move" for m in d["moves"]]
        assert pushed == after["log"][g["step"]:after["step"]]
        assert got[0][-1][1]["view"] == after["view"] and got[0][-1][1]["thinking"] is None
    finally:
        for s in streams:
            s.close()
    # a reconnect gets a sync of the game as it is now
    again = Stream(base, g["id"])
    try:
        event, sync = again.next()
        assert event == "sync" and sync["step"] == after["step"] and sync["log"] == after["log"]
    finally:
        again.close()


def test_a_closed_stream_is_unsubscribed_and_a_finished_game_stream_ends(server):
    base = server.url
    g = httpx.post(f"{base}api/games", json={"players": 2, "opponents": "greedy", "seat": 0,
                                             "seed": 4}, timeout=30).json()
    import socket
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.sendall(f"GET /api/games/{g['id']}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                 .encode())
    got = b""
    while b"event: sync" not in got:
        chunk = sock.recv(65536)
        assert chunk, got  # (the server closed the connection)
        got += chunk
    live_game = server.app.state.games.get(g["id"])
    assert len(live_game.subscribers) == 1
    sock.close()  # the client goes away
    deadline = time.monotonic() + 10
    while live_game.subscribers:  # the server notices the disconnect
        assert time.monotonic() < deadline, "the closed stream's subscriber was not removed"
        time.sleep(0.05)
    done = play_through(base, g, first_legal)
    assert done["status"] == "finished"
    bd = done["result"]["breakdown"]
    assert [row["total"] for row in bd] == done["result"]["scores"]
    ended = Stream(base, g["id"])
    try:
        assert ended.next()[0] == "sync" and ended.next()[0] == "end"  # nothing more to follow
    finally:
        ended.close()


def test_a_slow_subscriber_is_dropped_not_buffered_and_keep_alives_flow(monkeypatch):
    monkeypatch.setattr(live_module, "QUEUE", 4)

    async def scenario():
        g = LiveGame("0" * 16, live_module.GameConfig(2, 0, ("greedy",), 1))
        hub = live_module.Live(games=None, make_pool=lambda: None, keepalive=0.05)
        slow, quick = live_module.Subscriber(), live_module.Subscriber()
        g.subscribers |= {slow, quick}
        for k in range(4):
            hub.publish(g, "thinking", {"step": k})
            await quick.queue.get()
        assert slow in g.subscribers and not slow.dropped
        hub.publish(g, "thinking", {"step": 4})  # the fifth message: the slow one is full
        assert slow.dropped and slow not in g.subscribers and quick in g.subscribers
        stream = hub.events(g)
        first = await stream.__anext__()
        assert first.startswith(b"event: sync\ndata: {")
        assert await stream.__anext__() == b": keep-alive\n\n"
        await stream.aclose()
        assert len(g.subscribers) == 1  # the stream's own subscriber is gone again

    asyncio.run(scenario())


# --- a worker that dies, an opponent that cannot move, the event loop kept free ----------------
def messages_until(stream: Stream, done, timeout: float = 120.0) -> list[tuple[str, dict]]:
    """The stream's messages (keep-alives left out) up to the first one ``done`` accepts."""
    got: list[tuple[str, dict]] = []
    deadline = time.monotonic() + timeout
    while not got or not done(*got[-1]):
        event, data = stream.next(max(0.1, deadline - time.monotonic()))
        assert event != "end", got
        if event != "comment":
            got.append((event, data))
    return got


def first_move(base: str, opponent: str, seed: int) -> tuple[dict, Stream, dict]:
    """A 2-player game against ``opponent`` followed on its stream (past its sync), and the
    answer to the first legal move: (the game, the stream, the answer)."""
    g = httpx.post(f"{base}api/games", json={"players": 2, "opponents": opponent, "seat": 0,
                                             "seed": seed}, timeout=120).json()
    stream = Stream(base, g["id"])
    try:
        assert stream.next()[0] == "sync"
        r = httpx.post(f"{base}api/games/{g['id']}/actions", timeout=30,
                       json={"action": first_legal(g), "step": g["step"]}).json()
    except BaseException:
        stream.close()
        raise
    return g, stream, r


def test_a_worker_killed_mid_think_is_replaced_and_the_game_goes_on(server):
    base, live = server.url, server.app.state.live
    g, stream, r = first_move(base, "mcts:2000", 21)
    try:
        assert r["thinking"] is not None
        messages_until(stream, lambda e, d: e == "thinking")
        deadline = time.monotonic() + 120
        while live.pool is None or not live.pool.pids:  # the (cold) pool starting
            assert time.monotonic() < deadline
            time.sleep(0.01)
        killed = list(live.pool.pids)
        for pid in killed:
            os.kill(pid, signal.SIGKILL)  # mid-think (or just after: then on the next think)
        game = settle(base, httpx.get(f"{base}api/games/{g['id']}", timeout=30).json(), 180)
        game = play_through(base, game, first_legal, limit=3)  # thinking again, and again
        got = messages_until(stream, lambda e, d: e == "move" and d["step"] == game["step"]
                             and d["thinking"] is None)
    finally:
        stream.close()
    assert [e for e, _ in got if e == "failed"] == []  # asked again: the game went on
    assert live.pool.pids and not set(live.pool.pids) & set(killed)  # a new pool
    assert gone(killed)
    assert game["status"] == "running" and game["step"] > r["step"] + 3
    assert sum(e["seat"] == 1 for e in game["log"][r["step"]:]) >= 3


class DeadPool:
    """A thinking pool whose every worker dies."""
    closed = False
    pids: list[int] = []

    async def decide(self, *args):
        raise BrokenProcessPool("a child process terminated abruptly")

    def close(self) -> None:
        pass


def test_an_opponent_that_cannot_move_says_so_and_the_game_is_not_stuck(server):
    base, live = server.url, server.app.state.live
    real, live.make_pool, live.pool = live.make_pool, DeadPool, DeadPool()
    g, stream, r = first_move(base, "mcts:50", 2)
    try:
        got = messages_until(stream, lambda e, d: e == "failed")
        failed = got[-1][1]
        assert failed["error"] == ("mcts:50 (seat 1) could not move (its thinking worker "
                                   "stopped twice); reload the page to try again")
        assert failed["thinking"] is None and failed["step"] == r["step"]
        stuck = httpx.get(f"{base}api/games/{g['id']}", timeout=30).json()  # asks again
        assert stuck["step"] == r["step"]
        assert messages_until(stream, lambda e, d: e == "failed")[-1][1]["thinking"] is None
        # workers that work again: the next request wakes the opponent, the game goes on
        live.make_pool, live.pool = real, None
        game = settle(base, httpx.get(f"{base}api/games/{g['id']}", timeout=30).json())
    finally:
        stream.close()
    assert game["thinking"] is None and game["step"] > r["step"]


def test_engine_work_and_commits_happen_off_the_event_loop(tmp_path, monkeypatch):
    """``Games.get`` (a replay), ``LiveGame.commit`` (an SQLite transaction), a game's body
    (its view; a finished game's score breakdown) for every answer, a stream's sync and a
    409, and the state's JSON sent to a thinking worker never run on the event loop's
    thread: in a worker thread, in the game's order."""
    from meduris_env.engine.state import State
    from meduris_rl.cli.meduris.web.store import Games

    where = []

    def off_loop() -> bool:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return True
        return False

    for owner, name in ((Games, "get"), (LiveGame, "commit"), (live_module, "game_body"),
                        (State, "to_json")):
        real = getattr(owner, name)

        def spy(*args, real=real, name=name, **kw):
            where.append((name, off_loop()))
            return real(*args, **kw)

        monkeypatch.setattr(owner, name, spy)
    db = tmp_path / "games.sqlite"
    first = Server(db)
    try:
        g = httpx.post(f"{first.url}api/games", json={"players": 2, "opponents": "mcts:20",
                                                      "seat": 0, "seed": 3}, timeout=60).json()
        g = play_through(first.url, g, first_legal, limit=4)
        stale = httpx.post(f"{first.url}api/games/{g['id']}/actions", timeout=30,
                           json={"action": first_legal(g), "step": g["step"] - 1})
        assert stale.status_code == 409 and stale.json()["game"]["step"] == g["step"]
        stream = Stream(first.url, g["id"])
        try:
            assert stream.next()[0] == "sync"
        finally:
            stream.close()
    finally:
        first.stop()
    second = Server(db)  # nothing in memory: the game is replayed from the store
    try:
        resumed = httpx.get(f"{second.url}api/games/{g['id']}", timeout=30).json()
        play_through(second.url, resumed, first_legal, limit=2)
    finally:
        second.stop()
    assert {name for name, _ in where} == {"get", "commit", "game_body", "to_json"}
    assert [w for w in where if not w[1]] == []


def test_a_published_message_is_encoded_once_for_all_its_subscribers(monkeypatch):
    encoded = []
    real = live_module.sse
    monkeypatch.setattr(live_module, "sse", lambda event, data: encoded.append(event)
                        or real(event, data))

    async def scenario():
        g = LiveGame("0" * 16, live_module.GameConfig(2, 0, ("greedy",), 1))
        hub = live_module.Live(games=None, make_pool=lambda: None)
        hub.publish(g, "thinking", {"step": 0})  # nobody follows: nothing is encoded
        subs = [live_module.Subscriber() for _ in range(5)]
        g.subscribers |= set(subs)
        hub.publish(g, "thinking", {"step": 1})
        got = [await sub.queue.get() for sub in subs]
        assert encoded == ["thinking"]
        assert {m[1] for m in got} == {real("thinking", {"step": 1})}

    asyncio.run(scenario())


# --- the same game, bit for bit ---------------------------------------------------------------
def test_a_game_through_the_pool_is_the_in_process_game_of_the_same_seed(server):
    base = server.url
    g = httpx.post(f"{base}api/games", json={"players": 3, "opponents": ["mcts:20", "greedy"],
                                             "seat": 1, "seed": 17}, timeout=120).json()
    rng = random.Random(17)
    done = play_through(base, g, lambda game: rng.choice(game["view"]["legal"])["id"])
    assert done["status"] == "finished"
    record = httpx.get(f"{base}{done['record_url'].lstrip('/')}", timeout=30).json()
    clicks = human_clicks(record, 1)
    assert actions_of(record) == reference_game(3, ["mcts:20", "greedy"], 1, 17, clicks)


# --- processes: kill mid-think, shutdown ---------------------------------------------------------
def start_serve(db: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([str(Path(sys.executable).parent / "meduris"), "serve", "--db", str(db),
                             "--port", str(port), "--thinkers", "1"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/agents", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("meduris serve did not answer within 120 s")


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid and stat[0] != "Z":
                out.append(int(entry.name))
    return out


def gone(pids: list[int], timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() for p in pids):
            return True
        time.sleep(0.1)
    return False


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_server_killed_mid_think_resumes_and_finishes_the_same_game(tmp_path):
    db, port = tmp_path / "games.sqlite", free_port()
    base = f"http://127.0.0.1:{port}/"
    proc = start_serve(db, port)
    try:
        g = httpx.post(f"{base}api/games", json={"players": 2, "opponents": "mcts:300",
                                                 "seat": 0, "seed": 23}, timeout=60).json()
        g = play_through(base, g, first_legal, limit=3)
        r = httpx.post(f"{base}api/games/{g['id']}/actions", timeout=30,
                       json={"action": first_legal(g), "step": g["step"]}).json()
        assert r["thinking"] is not None
        workers = children(proc.pid)
        assert workers, "no thinking worker process"
    finally:
        proc.kill()  # mid-think
        proc.communicate()
    assert gone(workers), "a worker outlived its killed server"
    proc = start_serve(db, port)
    try:
        resumed = httpx.get(f"{base}api/games/{g['id']}", timeout=30).json()
        assert resumed["step"] >= r["step"] and resumed["log"][:r["step"]] == \
            g["log"] + r["moves"]
        done = play_through(base, resumed, first_legal)
        assert done["status"] == "finished"
        record = httpx.get(f"{base}{done['record_url'].lstrip('/')}", timeout=30).json()
        workers = children(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)  # graceful: the pool stops with the server
        out, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, -signal.SIGTERM), err  # (uvicorn re-raises the signal)
    assert "Traceback (most recent call last)" not in err, err
    assert "leaked" not in err and "Warning" not in err, err  # (a quiet, clean shutdown)
    assert gone(workers), "a worker outlived its server"
    assert actions_of(record) == reference_game(2, ["mcts:300"], 0, 23, human_clicks(record, 0))


def test_the_page_answers_quickly_while_two_mcts_games_think(server):
    base = server.url
    for seed in (1, 2):  # seat 1: the opponent thinks from the start, long (mcts:2000)
        g = httpx.post(f"{base}api/games", json={"players": 2, "opponents": "mcts:2000",
                                                 "seat": 1, "seed": seed}, timeout=120).json()
        assert g["thinking"] is not None
    time.sleep(0.5)
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        assert httpx.get(base, timeout=30).status_code == 200
        times.append(time.perf_counter() - t0)
    assert max(times) < 0.5, times  # the benchmark measures the real figure


def test_serve_checks_thinkers(capsys):
    from helpers import run_cli
    status, _, err = run_cli(capsys, "serve", "--thinkers", "0")
    assert status == 2 and "--thinkers" in err and "0 is outside 1..256" in err
    assert os.cpu_count() is not None


def test_a_game_whose_broken_pool_another_game_replaced_asks_the_new_one():
    """Two games thinking when a worker dies: the first to notice rebuilds the pool and closes
    the old one; the other, finding its pool closed, asks the new pool (it once took the
    closed pool for the server stopping and gave up, its page left 'thinking' for good)."""
    class Old:
        closed, pids = False, []

        async def decide(self, *args):
            hub.pool, self.closed = New(), True  # the other game's rebuild, meanwhile
            raise BrokenProcessPool("a child process terminated abruptly")

        def close(self):
            self.closed = True

    class New(Old):
        async def decide(self, *args):
            return 7

    hub = live_module.Live(games=None, make_pool=New, pool=Old(), keepalive=1.0)
    g = LiveGame("0" * 16, live_module.GameConfig(2, 0, ("mcts:50",), 1))
    assert asyncio.run(hub.decide(g, 1)) == 7
    assert hub.broken is None  # nothing rebuilt twice


def test_the_thinking_pool_warms_every_offered_opponent_before_it_answers():
    """Issue 30, thinking off the server: what serve's workers warm up is every opponent the
    page offers that thinks in the pool (each kind, the levels' agents, at every player count it
    is offered for; random and greedy are decided in the server), and a pool is returned only
    once its workers have built them and compiled (or loaded) numba's kernels: a warmed worker
    holds the agents and the search's rollout kernel has its signature, a cold one neither."""
    from meduris_rl.cli.meduris.web.app import warm_agents
    from meduris_rl.cli.meduris.web.thinking import Thinkers, is_instant

    warm = warm_agents()
    offered = {name for name, _ in warm}
    assert {"mcts:200", "mcts:800", "ppo", "az:200", "search"} <= offered
    assert not any(is_instant(name) for name in offered)
    assert {p for name, p in warm if name == "ppo"} == {2, 3, 4}
    assert {p for name, p in warm if name == "search"} == {2}  # a 2-player model only
    # installed entry-point plug-ins (the example package's) are offered but not warmed: built
    # when first played, one that fails to import or hangs cannot stop the server (issue 46)
    from meduris_rl.agents.registry import kinds
    plugins = {k.name for k in kinds(None) if k.source == "entry point"}
    assert plugins and not plugins & {name.split(":")[0] for name in offered}
    probe = ("(sorted(__import__('meduris_rl.cli.meduris.web.thinking', "
             "fromlist=['AGENTS']).AGENTS), "
             "len(__import__('meduris_rl.agents.meduris.heuristics', "
             "fromlist=['x']).rollout_values.signatures))")
    seen = {}
    for label, names in (("warm", [("mcts:50", 2), ("mcts:200", 2), ("ppo", 3)]),
                         ("cold", [])):
        pool = Thinkers(1, names)
        try:  # (eval: a builtin, so the question reaches the worker without pickling code)
            seen[label] = pool.executor.submit(eval, probe).result(timeout=60)
        finally:
            pool.close()
    assert seen["warm"][0] == ["mcts:200", "mcts:50", "ppo"] and seen["warm"][1] >= 1
    assert seen["cold"] == ([], 0)


def test_serve_sizes_its_thinking_pool_to_the_machine(monkeypatch, tmp_path, capsys):
    """serve without --thinkers starts one thinking worker per CPU (os.cpu_count) and says so;
    with --thinkers N, N."""
    from helpers import run_cli

    import meduris_rl.cli.commands.serve as serve
    import meduris_rl.cli.meduris.web.app as web_app

    asked = []

    class App:
        class state:  # noqa: N801 (the attribute the command closes at the end)
            class live:  # noqa: N801
                close = staticmethod(lambda: None)

    monkeypatch.setattr(web_app, "create_app", lambda db, **kw: asked.append(kw) or App)
    monkeypatch.setattr(serve, "serve_app", lambda app, host, port: None)
    monkeypatch.setattr(os, "cpu_count", lambda: 7)
    with socket.socket() as s:  # a port free now (serve checks it can listen there)
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    for extra, workers in (([], 7), (["--thinkers", "3"], 3)):
        status, out, _ = run_cli(capsys, "serve", "--db", str(tmp_path / "g.sqlite"),
                                 "--port", port, *extra)
        assert status == 0 and f"{workers} thinking workers" in out
        assert asked[-1]["thinkers"] == workers


def test_a_pool_s_start_folder_left_by_a_killed_server_is_swept_at_the_next_start(
        tmp_path, monkeypatch):
    """A server killed (SIGKILL) while its pool starts leaves its start folder in the temp dir;
    the next pool that starts removes the folders of processes that no longer run, and keeps
    a live server's and any folder not named by a pid."""
    import tempfile

    from meduris_rl.cli.meduris.web.thinking import START_FOLDER, Thinkers, sweep_start_folders
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.Popen(["true"])
    ended.wait()
    dead = tmp_path / f"{START_FOLDER}{ended.pid}-abc123"
    live = tmp_path / f"{START_FOLDER}{os.getpid()}-def456"
    old_style = tmp_path / f"{START_FOLDER}x1y2z3"
    for folder in (dead, live, old_style):
        folder.mkdir()
    (dead / "12345").write_text("")  # (a worker's pid file, as a killed start leaves it)
    assert sweep_start_folders() == [str(dead)]
    assert not dead.exists() and live.is_dir() and old_style.is_dir()
    dead.mkdir()
    Thinkers(1).close()  # a pool's start sweeps too, and removes its own folder when started
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, old_style.name])
