"""Load test of ``meduris serve``: many games at once over HTTP.

A real server (uvicorn serving ``create_app``, in its own process, on 127.0.0.1, games in a
fresh SQLite file) and ``--games`` client threads (httpx), all started together: each creates a
2-player game against ``--opponents`` (greedy) and plays it to the end, choosing a random legal
action (seeded) for every decision, always sending the step it saw, after a think time (uniform
in 0..2 x ``--think`` seconds, default 0.5: a player answering twice a second, far quicker than
people; ``--think 0`` has every player answer at once, which measures the server's capacity:
then each move waits for the 49 others in line). Measured per request, from
the client: a **move** is one ``POST /api/games/{id}/actions`` (your action, the opponents'
answers, the SQLite commit and the new view). At the end every stored game is exported
(``GET /api/games/{id}/record``) and replayed (:meth:`GameRecord.replay`) to the scores the
server reported; any difference, failed request or 4xx/5xx counts as an error.

**Live load** (``--live``, issue 30): ``--games`` (default 200) games against ``--opponents``
(default ``mcts:200``) at once for ``--seconds`` (default 180), each followed through its
event stream (one asyncio client: the human answers at once when the stream says the
opponents are done; a finished game is replaced by a new one), while a probe thread plays a
greedy game (a move every 0.2 s) and fetches ``GET /`` every 0.2 s, timing each. The server
runs with ``--thinkers`` workers (default the CPU count). Reported: ``probe_move_p95_ms``,
``get_root_p95_ms`` (targets: under 100 and 50 ms), ``errors`` (failed requests, 4xx/5xx, and
``failed`` stream messages: an opponent that could not move), ``stalled`` (running games that,
when the load ends, are neither at the human's decision nor with an opponent thinking, as
their client last heard from the stream, or thinking with no word for :data:`PATIENCE`
seconds: a player left waiting for nothing; must be 0), ``games_consistent`` (after the server
stopped, every stored game resumes from the SQLite file by replaying its moves, and holds at
least the steps its client saw), ``opponent_moves_per_s``.

Usage from the repo root:
``python benchmarks/web.py [--games 50] [--players 2] [--opponents greedy] [--think 0.5]
[--seed 0] [--json]``; ``python benchmarks/web.py --live [--games 200] [--seconds 180]
[--thinkers N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from meduris_env import GameRecord  # noqa: E402
from meduris_rl.cli.meduris.web.store import Games, Store, WebError  # noqa: E402
from meduris_rl.kit.seeding import derive_seed  # noqa: E402

SERVER = """
import sys
import uvicorn
from meduris_rl.cli.meduris.web.app import create_app
if __name__ == "__main__":
    uvicorn.run(create_app(sys.argv[1], thinkers=int(sys.argv[3])), host="127.0.0.1",
                port=int(sys.argv[2]), log_level="warning", timeout_graceful_shutdown=2)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, port: int, thinkers: int = 1) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(db), str(port), str(thinkers)],
                            cwd=ROOT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        try:  # (the page answers at once; the load is measured once the workers are warm)
            r = httpx.get(f"http://127.0.0.1:{port}/api/agents", timeout=1)
            if r.status_code == 200 and r.json()["thinking"]["ready"]:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server's thinking workers were not ready within 180 s")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def play_one(base: str, k: int, args, start: threading.Barrier, out: dict) -> None:
    rng = random.Random(derive_seed(args.seed, k, 1))
    moves, errors = [], []
    game = None
    with httpx.Client(base_url=base, timeout=60) as client:
        start.wait()
        try:
            t0 = time.perf_counter()
            r = client.post("/api/games", json={"players": args.players, "seat": k % args.players,
                                                "opponents": args.opponents,
                                                "seed": derive_seed(args.seed, k)})
            create = time.perf_counter() - t0
            if r.status_code != 201:
                raise RuntimeError(f"create: HTTP {r.status_code} {r.text[:200]}")
            game = r.json()
            while game["status"] == "running":
                legal = game["view"]["legal"]
                if not legal:
                    raise RuntimeError(f"game {game['id']}: running but no legal action")
                action = rng.choice(legal)["id"]
                if args.think > 0:  # the player looks at the board before answering
                    time.sleep(rng.uniform(0, 2 * args.think))
                t0 = time.perf_counter()
                r = client.post(f"/api/games/{game['id']}/actions",
                                json={"action": action, "step": game["step"]})
                moves.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    raise RuntimeError(f"move: HTTP {r.status_code} {r.text[:200]}")
                game.update(r.json())
        except Exception as err:  # noqa: BLE001 - every failure is counted and shown
            errors.append(f"game {k}: {err!r}")
            create = 0.0
    out[k] = {"moves": moves, "errors": errors, "create": create,
              "id": game and game.get("id"), "result": game and game.get("result")}


def check_records(base: str, results: dict) -> list[str]:
    """Every finished game's record replays to the scores the server reported."""
    errors = []
    with httpx.Client(base_url=base, timeout=60) as client:
        for k, res in sorted(results.items()):
            if res["errors"]:
                continue
            r = client.get(f"/api/games/{res['id']}/record")
            if r.status_code != 200:
                errors.append(f"game {k}: record: HTTP {r.status_code}")
                continue
            scores = GameRecord.from_dict(r.json()).replay().scores().tolist()
            if scores != res["result"]["scores"]:
                errors.append(f"game {k}: replayed {scores}, served {res['result']['scores']}")
    return errors


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1] \
        if len(values) > 1 else values[0]


def run(args) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(args.db) if args.db else Path(tmp) / "games.sqlite"
        port = args.port or free_port()
        base = f"http://127.0.0.1:{port}"
        server = start_server(db, port)
        try:
            # warm-up (numba loads its compiled kernels): one game, not counted
            warm = {}
            play_one(base, -1, args, threading.Barrier(1), warm)
            results: dict = {}
            barrier = threading.Barrier(args.games)
            threads = [threading.Thread(target=play_one, args=(base, k, args, barrier, results))
                       for k in range(args.games)]
            t0, cpu0, mine0 = time.perf_counter(), cpu_seconds(server.pid), time.process_time()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
            server_cpu = cpu_seconds(server.pid) - cpu0
            client_cpu = time.process_time() - mine0
            errors = [e for r in results.values() for e in r["errors"]] + warm[-1]["errors"]
            errors += check_records(base, results)
        finally:
            server.terminate()
            server.wait(timeout=30)
        moves = [m for r in results.values() for m in r["moves"]]
        creates = [r["create"] for r in results.values() if not r["errors"]]
        finished = sum(1 for r in results.values()
                       if r["result"] and r["result"].get("terminal"))
        ms = [1000 * m for m in moves]
        return {"games": args.games, "finished": finished, "players": args.players,
                "opponents": args.opponents, "think_seconds": args.think,
                "moves": len(moves), "errors": len(errors),
                "error_list": errors[:20],
                "p50_ms": percentile(ms, 50), "p95_ms": percentile(ms, 95),
                "p99_ms": percentile(ms, 99), "max_ms": max(ms) if ms else float("nan"),
                "mean_ms": statistics.fmean(ms) if ms else float("nan"),
                "create_p95_ms": percentile([1000 * c for c in creates], 95),
                "wall_seconds": wall, "moves_per_second": len(moves) / wall if wall else 0.0,
                "server_cpu_ms_per_request": 1000 * server_cpu / max(1, len(moves) + len(creates)),
                "client_cpu_ms_per_request": 1000 * client_cpu / max(1, len(moves) + len(creates)),
                "cpus": os.cpu_count(), "load_average": os.getloadavg()[0]}


# --- the live load (issue 30) --------------------------------------------------------------
PATIENCE = 60.0  # seconds an opponent may think with no word before its game counts as stalled


class LoadState:
    """What the live run's clients saw: errors, opponent moves, each game's last step and
    where it stood (``last``: running, at the human's decision, an opponent thinking, when)."""

    def __init__(self):
        self.errors: list[str] = []
        self.opponent_moves = 0
        self.steps: dict[str, int] = {}
        self.last: dict[str, dict] = {}

    def saw(self, game: dict) -> None:
        """Note where the client's ``game`` stands now."""
        self.steps[game["id"]] = game["step"]
        thinking = bool(game.get("thinking"))
        self.last[game["id"]] = {"running": game["status"] == "running", "thinking": thinking,
                                 "mine": not thinking and bool(game["view"]["legal"]),
                                 "at": time.monotonic()}

    def took(self, game: dict, event: str | None, data: dict | None) -> bool:
        """Update ``game`` from a stream message (None: a comment); False when its client
        cannot go on: a ``failed`` message (an opponent that could not move), an error."""
        if event is None:
            return True
        if event == "failed":
            self.errors.append(f"failed: game {game['id']}: {data['error']}")
            game["thinking"] = None
            self.saw(game)
            return False
        if data["step"] < game["step"]:
            return True  # (a move the client's own answer told already)
        if event == "thinking":
            game["thinking"] = data["thinking"]
        else:  # sync, move
            game.update(data)
            self.opponent_moves += sum(1 for m in data.get("moves", []) if m["seat"] > 0)
        self.saw(game)
        return True

    def stalled(self, now: float, patience: float = PATIENCE) -> list[str]:
        """The running games whose player is left waiting: neither at the human's decision
        nor with an opponent thinking (that one heard of within ``patience`` seconds)."""
        return [gid for gid, s in self.last.items() if s["running"] and not s["mine"]
                and not (s["thinking"] and now - s["at"] < patience)]


async def stream_messages(stream):
    """The (event, data) messages of an event stream; (None, None) for a comment."""
    event = None
    async for line in stream.aiter_lines():
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            yield event, json.loads(line[6:])
        elif line.startswith(":"):
            yield None, None


async def follow_game(client, k: int, args, deadline: float, seen: LoadState) -> None:
    """Play games against ``args.opponents`` through their event streams until ``deadline``."""
    rng = random.Random(derive_seed(args.seed, k, 2))
    n = 0
    while time.monotonic() < deadline:
        r = await client.post("/api/games", json={"players": 2, "seat": 0, "seed":
                                                  derive_seed(args.seed, k, n),
                                                  "opponents": args.opponents})
        n += 1
        if r.status_code != 201:
            seen.errors.append(f"create: HTTP {r.status_code} {r.text[:200]}")
            return
        game = r.json()
        seen.saw(game)
        try:
            async with client.stream("GET", f"/api/games/{game['id']}/events") as stream:
                async for event, data in stream_messages(stream):
                    if time.monotonic() > deadline or not seen.took(game, event, data):
                        return
                    while (game["status"] == "running" and not game["thinking"]
                           and game["view"]["legal"]):
                        action = rng.choice(game["view"]["legal"])["id"]
                        r = await client.post(f"/api/games/{game['id']}/actions",
                                              json={"action": action, "step": game["step"]})
                        if r.status_code != 200:
                            seen.errors.append(f"move: HTTP {r.status_code} {r.text[:200]}")
                            return
                        game.update(r.json())
                        seen.saw(game)
                    if game["status"] == "finished":
                        break
        except (TimeoutError, httpx.HTTPError) as err:
            seen.errors.append(f"stream: {err!r}")
            return


def probe(base: str, deadline: float, out: dict) -> None:
    """A greedy game, a move every 0.2 s, and GET / every 0.2 s, each timed."""
    rng = random.Random(7)
    moves, roots, errors = [], [], []
    with httpx.Client(base_url=base, timeout=60) as client:
        game = None
        while time.monotonic() < deadline:
            t0 = time.perf_counter()
            r = client.get("/")
            roots.append(time.perf_counter() - t0)
            if r.status_code != 200:
                errors.append(f"GET /: HTTP {r.status_code}")
            if game is None or game["status"] != "running":
                r = client.post("/api/games", json={"players": 2, "opponents": "greedy",
                                                    "seat": 0, "seed": rng.randrange(2**31)})
                if r.status_code != 201:
                    errors.append(f"probe create: HTTP {r.status_code}")
                    break
                game = r.json()
            else:
                action = rng.choice(game["view"]["legal"])["id"]
                t0 = time.perf_counter()
                r = client.post(f"/api/games/{game['id']}/actions",
                                json={"action": action, "step": game["step"]})
                moves.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    errors.append(f"probe move: HTTP {r.status_code} {r.text[:200]}")
                    break
                game.update(r.json())
            time.sleep(0.2)
    out.update(moves=moves, roots=roots, errors=errors)


def consistent(db: Path, steps: dict[str, int]) -> tuple[bool, list[str]]:
    """Every stored game resumes by replaying its moves and holds the steps its client saw."""
    store = Store(db)
    games = Games(store, keep=10)
    problems = []
    try:
        for gid in store.ids():
            try:
                g = games.get(gid)
            except WebError as err:
                problems.append(f"{gid}: {err.reason}")
                continue
            if g.steps < steps.get(gid, 0):
                problems.append(f"{gid}: {g.steps} steps stored, the client saw {steps[gid]}")
    finally:
        store.close()
    return not problems, problems[:10]


def run_live(args) -> dict:
    import asyncio
    thinkers = args.thinkers or os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(args.db) if args.db else Path(tmp) / "games.sqlite"
        port = args.port or free_port()
        base = f"http://127.0.0.1:{port}"
        server = start_server(db, port, thinkers)
        seen, probed = LoadState(), {}
        try:
            deadline = time.monotonic() + args.seconds
            cpu0, t0 = cpu_seconds(server.pid), time.perf_counter()

            async def load():
                limits = httpx.Limits(max_connections=3 * args.games + 10)
                async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as c:
                    await asyncio.gather(*(follow_game(c, k, args, deadline, seen)
                                           for k in range(args.games)))
            prober = threading.Thread(target=probe, args=(base, deadline, probed))
            prober.start()
            asyncio.run(load())
            prober.join()
            wall = time.perf_counter() - t0
            server_cpu = cpu_seconds(server.pid) - cpu0
            stalled = seen.stalled(time.monotonic())
        finally:
            server.terminate()
            server.wait(timeout=60)
        ok, problems = consistent(db, seen.steps)
        errors = seen.errors + probed.get("errors", [])
        move_ms = [1000 * m for m in probed.get("moves", [])]
        root_ms = [1000 * m for m in probed.get("roots", [])]
        return {"live": True, "games": args.games, "opponents": args.opponents,
                "thinkers": thinkers, "seconds": args.seconds, "games_played": len(seen.steps),
                "errors": len(errors), "error_list": errors[:20],
                "stalled": len(stalled), "stalled_list": stalled[:10],
                "probe_moves": len(move_ms), "probe_move_p50_ms": percentile(move_ms, 50),
                "probe_move_p95_ms": percentile(move_ms, 95),
                "probe_move_max_ms": max(move_ms) if move_ms else float("nan"),
                "get_root_p50_ms": percentile(root_ms, 50),
                "get_root_p95_ms": percentile(root_ms, 95),
                "get_root_max_ms": max(root_ms) if root_ms else float("nan"),
                "games_consistent": ok, "consistency_problems": problems,
                "opponent_moves": seen.opponent_moves,
                "opponent_moves_per_s": seen.opponent_moves / wall if wall else 0.0,
                "server_cpu_seconds": server_cpu, "wall_seconds": wall,
                "cpus": os.cpu_count(), "load_average": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50, help="games played at once (default 50)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--opponents", default="greedy")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--think", type=float, default=0.5,
                    help="mean seconds a player takes before each move, uniform in 0..2x "
                    "(default 0.5: far quicker than people); 0: every player answers at once, "
                    "which measures the server's capacity rather than players' response times")
    ap.add_argument("--port", type=int, default=0, help="default: a free port")
    ap.add_argument("--db", default=None, help="SQLite file (default: a temporary one)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--live", action="store_true",
                    help="the live load of issue 30 (module docstring): games against mcts:200 "
                    "followed through their event streams, and a probe")
    ap.add_argument("--seconds", type=float, default=180.0,
                    help="--live: how long the load runs (default 180)")
    ap.add_argument("--thinkers", type=int, default=0,
                    help="--live: the server's thinking workers (default the CPU count)")
    args = ap.parse_args(argv)
    if args.live:
        if "--games" not in (argv if argv is not None else sys.argv):
            args.games = 200
        if "--opponents" not in (argv if argv is not None else sys.argv):
            args.opponents = "mcts:200"
        out = run_live(args)
        print(json.dumps(out, indent=2) if args.json else
              f"{out['games']} games vs {out['opponents']} for {out['seconds']:.0f} s "
              f"({out['thinkers']} thinkers): probe move p95 {out['probe_move_p95_ms']:.1f} ms, "
              f"GET / p95 {out['get_root_p95_ms']:.1f} ms, {out['errors']} errors, "
              f"{out['stalled']} stalled, games consistent: {out['games_consistent']}, "
              f"{out['opponent_moves_per_s']:.1f} opponent moves/s")
        return out
    out = run(args)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"{out['games']} games at once ({out['players']} players, vs {out['opponents']}, "
              f"{out['think_seconds']} s mean think time): "
              f"{out['finished']} finished, {out['moves']} moves, {out['errors']} errors, "
              f"every stored game replayed to its scores" if not out["errors"] else
              f"{out['errors']} errors: {out['error_list']}")
        print(f"move response time: p50 {out['p50_ms']:.1f} ms, p95 {out['p95_ms']:.1f} ms, "
              f"p99 {out['p99_ms']:.1f} ms, max {out['max_ms']:.1f} ms; new game p95 "
              f"{out['create_p95_ms']:.1f} ms")
        print(f"wall {out['wall_seconds']:.1f} s, {out['moves_per_second']:.0f} moves/s, server "
              f"CPU {out['server_cpu_ms_per_request']:.2f} ms and client CPU "
              f"{out['client_cpu_ms_per_request']:.2f} ms per request ({out['cpus']} CPUs, "
              f"server and clients on one machine, load average {out['load_average']:.1f})")
    return out


if __name__ == "__main__":
    main()
