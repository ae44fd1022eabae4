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

Usage from the repo root:
``python benchmarks/web.py [--games 50] [--players 2] [--opponents greedy] [--think 0.5]
[--seed 0] [--json]``.
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
from meduris_env.engine.seeding import derive_seed  # noqa: E402

SERVER = """
import sys
import uvicorn
from meduris_cli.web.app import create_app
uvicorn.run(create_app(sys.argv[1]), host="127.0.0.1", port=int(sys.argv[2]),
            log_level="warning")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(db), str(port)], cwd=ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/agents", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not answer within 60 s")


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
    args = ap.parse_args(argv)
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
